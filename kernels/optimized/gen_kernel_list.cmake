# Collects the PTE_OPT_KERNEL(fn, "name", accepts, scratch) lines of the
# operator files into the list register.c includes (at build time, so a new
# overload in an existing file needs no cmake re-run).
#   cmake -DOUT=<file.inc> -DSRC_DIR=<kernels/optimized/cpu> -P gen_kernel_list.cmake
file(GLOB _ops ${SRC_DIR}/op_*.c)
list(SORT _ops)
set(_list "")
foreach(_f ${_ops})
  file(STRINGS ${_f} _lines REGEX "^PTE_OPT_KERNEL\\(")
  foreach(_l ${_lines})
    string(REGEX REPLACE "^PTE_OPT_KERNEL\\(([A-Za-z0-9_]+),.*" "\\1" _fn "${_l}")
    string(APPEND _list "K(${_fn})\n")
  endforeach()
endforeach()
if(EXISTS ${OUT})
  file(READ ${OUT} _old)
else()
  set(_old "")
endif()
if(NOT _old STREQUAL _list)
  file(WRITE ${OUT} "${_list}")
endif()

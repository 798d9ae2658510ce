# Collects the `MACRO(fn, "name"...)` lines (and MACRO_EX) of a kernel
# library's cpu/op_*.c files into the K(fn) list its register.c includes.
# Runs at build time, so a new overload in an existing file is picked up
# without re-running cmake; file(CONFIGURE) rewrites the output only when it
# changes, so register.c is rebuilt only then.
# With -DSELECT=<file> (a selective build: one operator name a line) only
# the declarations of those operators are listed.
#   cmake -DOUT=<file.inc> -DSRC_DIR=<dir> -DMACRO=<PTE_PORTABLE_KERNEL> [-DSELECT=<file>] -P gen_kernel_list.cmake
if(SELECT)
  file(STRINGS ${SELECT} _selected)
endif()
file(GLOB _ops ${SRC_DIR}/op_*.c)
list(SORT _ops)
set(_list "")
foreach(_f ${_ops})
  file(STRINGS ${_f} _lines REGEX "^${MACRO}(_EX)?\\(")
  foreach(_l ${_lines})
    string(REGEX REPLACE "^${MACRO}(_EX)?\\(([A-Za-z0-9_]+),.*" "\\2" _fn "${_l}")
    if(SELECT)
      string(REGEX REPLACE "^${MACRO}(_EX)?\\([A-Za-z0-9_]+, *\"([^\"]+)\".*" "\\2" _name "${_l}")
      if(NOT _name IN_LIST _selected)
        continue()
      endif()
    endif()
    string(APPEND _list "K(${_fn})\n")
  endforeach()
endforeach()
file(CONFIGURE OUTPUT ${OUT} CONTENT "${_list}" @ONLY)

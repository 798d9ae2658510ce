# Selective build: kernel libraries (portable and optimized) holding only the
# operators named here, like ExecuTorch's selective build.
#   -DPTERUN_SELECT_OPS="aten::add.out;aten::mul.out"   operators by name
#   -DPTERUN_SELECT_PROGRAMS="a.pte;b.pte"              the operators these
#       programs call (read at configure time by cmake/pte_operators.py)
# Both may be given (the union is kept). Neither: every operator. Only the
# op_*.c files declaring a kept operator are compiled, only kept operators
# are registered, and unreferenced helpers are dropped at link time.
set(PTERUN_SELECT_OPS "" CACHE STRING "Selective build: the operators the kernel libraries keep (name.overload;...)")
set(PTERUN_SELECT_PROGRAMS "" CACHE STRING "Selective build: keep the operators these .pte programs call (a.pte;...)")

set(PTERUN_SELECTED_OPS "")
set(PTERUN_SELECTIVE OFF)
if(PTERUN_SELECT_OPS OR PTERUN_SELECT_PROGRAMS)
  set(PTERUN_SELECTIVE ON)
  set(PTERUN_SELECTED_OPS ${PTERUN_SELECT_OPS})
  if(PTERUN_SELECT_PROGRAMS)
    find_package(Python3 COMPONENTS Interpreter REQUIRED)
    set(_progs "")
    foreach(_p ${PTERUN_SELECT_PROGRAMS})
      get_filename_component(_abs "${_p}" ABSOLUTE BASE_DIR "${CMAKE_BINARY_DIR}")
      list(APPEND _progs "${_abs}")
    endforeach()
    execute_process(COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/cmake/pte_operators.py ${_progs}
                    OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "PTERUN_SELECT_PROGRAMS: cannot read the programs' operators: ${_err}")
    endif()
    string(REPLACE "\n" ";" _names "${_out}")
    list(APPEND PTERUN_SELECTED_OPS ${_names})
    # a program rewritten re-runs the selection
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_progs})
  endif()
  list(REMOVE_ITEM PTERUN_SELECTED_OPS "")
  list(REMOVE_DUPLICATES PTERUN_SELECTED_OPS)
  list(SORT PTERUN_SELECTED_OPS)
  list(LENGTH PTERUN_SELECTED_OPS _n)
  message(STATUS "pterun selective build: ${_n} operator(s): ${PTERUN_SELECTED_OPS}")
  # one name a line, read by gen_kernel_list.cmake at build time
  string(REPLACE ";" "\n" _lines "${PTERUN_SELECTED_OPS}")
  file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/selected_operators.txt CONTENT "${_lines}\n" @ONLY)
endif()

# The operator names a kernel source declares with `macro(fn, "name"...)`.
function(pterun_declared_ops out file macro)
  file(STRINGS ${file} _lines REGEX "^${macro}(_EX)?\\(")
  set(_names "")
  foreach(_l ${_lines})
    string(REGEX REPLACE "^${macro}(_EX)?\\([A-Za-z0-9_]+, *\"([^\"]+)\".*" "\\2" _name "${_l}")
    list(APPEND _names "${_name}")
  endforeach()
  set(${out} ${_names} PARENT_SCOPE)
endfunction()

# The op_*.c files of src_dir to compile: all of them, or in a selective
# build those declaring a selected operator (and any declaring none).
function(pterun_kernel_sources out src_dir macro)
  file(GLOB _ops CONFIGURE_DEPENDS ${src_dir}/op_*.c)
  if(PTERUN_SELECTIVE)
    set(_keep "")
    foreach(_f ${_ops})
      pterun_declared_ops(_names ${_f} ${macro})
      if(NOT _names)
        list(APPEND _keep ${_f}) # declares nothing: code another op file calls
      endif()
      foreach(_n ${_names})
        if(_n IN_LIST PTERUN_SELECTED_OPS)
          list(APPEND _keep ${_f})
          break()
        endif()
      endforeach()
    endforeach()
    set(_ops ${_keep})
  endif()
  set(${out} ${_ops} PARENT_SCOPE)
endfunction()

# Drop the helpers no kept kernel calls (they are hidden, so unreferenced).
function(pterun_selective_link target)
  if(PTERUN_SELECTIVE)
    target_compile_options(${target} PRIVATE -ffunction-sections -fdata-sections)
    get_target_property(_type ${target} TYPE)
    if(_type STREQUAL "SHARED_LIBRARY")
      target_link_options(${target} PRIVATE -Wl,--gc-sections)
    endif()
  endif()
endfunction()

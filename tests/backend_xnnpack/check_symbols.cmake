# cmake -DNM=nm -DLIBS="a.so;b.so" -P check_symbols.cmake
# No pterun library may define (export) a third-party symbol: torch and
# others ship their own XNNPACK, pthreadpool and cpuinfo, and an exported
# copy would capture their calls (or theirs ours). With the default dlopen
# build they must not even import one.
set(_bad "")
foreach(_lib ${LIBS})
  execute_process(COMMAND ${NM} -D --defined-only ${_lib} OUTPUT_VARIABLE _out RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "nm failed on ${_lib}")
  endif()
  string(REGEX MATCHALL "[^\n]* (xnn_|pthreadpool_|cpuinfo_|clog_)[^\n]*" _hits "${_out}")
  if(_hits)
    list(APPEND _bad "${_lib} exports: ${_hits}")
  endif()
  if(NO_IMPORTS)
    execute_process(COMMAND ${NM} -D --undefined-only ${_lib} OUTPUT_VARIABLE _und)
    string(REGEX MATCHALL "[^\n]* (xnn_|pthreadpool_|cpuinfo_)[^\n]*" _hits "${_und}")
    if(_hits)
      list(APPEND _bad "${_lib} imports: ${_hits}")
    endif()
  endif()
endforeach()
if(_bad)
  message(FATAL_ERROR "third-party symbols in pterun libraries:\n${_bad}")
endif()
message(STATUS "no third-party symbols in: ${LIBS}")

# libpterun's text (Berkeley `size`: code and read-only data) stays within
# its budget: the runtime is loaders, verifiers and an interpreter loop.
execute_process(COMMAND ${SIZE} ${LIB} OUTPUT_VARIABLE _out RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "cannot run ${SIZE} on ${LIB}")
endif()
string(REGEX MATCH "\n *([0-9]+)" _m "${_out}")
set(_text ${CMAKE_MATCH_1})
message(STATUS "libpterun text: ${_text} bytes (budget ${LIMIT})")
if(NOT _text OR _text GREATER LIMIT)
  message(FATAL_ERROR "libpterun text is ${_text} bytes, over its ${LIMIT}-byte budget")
endif()

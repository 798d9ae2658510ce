# The convolution chains run in row bands (xnn_fuse.c) give bit for bit the
# results of their nodes run one by one (PTERUN_XNNPACK_FUSE=0), at 1 and 3
# threads. -DCLI=<pterun> -DCASE=<case dir> -DWORK=<scratch dir> [-DEMU=<emulator, '|' between
# its arguments> for a cross build's CLI]
string(REPLACE "|" ";" _emu "${EMU}")
file(GLOB _inputs ${CASE}/inputs/*.npy)
list(SORT _inputs)
set(_args)
foreach(_in ${_inputs})
  list(APPEND _args --input ${_in})
endforeach()
foreach(_t 1 3)
  foreach(_f 0 1)
    set(_out ${WORK}/threads${_t}_fuse${_f})
    file(REMOVE_RECURSE ${_out})
    file(MAKE_DIRECTORY ${_out})
    execute_process(COMMAND ${CMAKE_COMMAND} -E env PTERUN_NUM_THREADS=${_t} PTERUN_XNNPACK_FUSE=${_f}
                            PTERUN_XNNPACK_NATIVE=1 ${_emu} ${CLI} run ${CASE}/model.pte ${_args} --output-dir ${_out} --quiet
                    RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "pterun failed (threads ${_t}, PTERUN_XNNPACK_FUSE=${_f}): ${_rc}")
    endif()
  endforeach()
  file(GLOB _outs RELATIVE ${WORK}/threads${_t}_fuse0 ${WORK}/threads${_t}_fuse0/*.npy)
  if(NOT _outs)
    message(FATAL_ERROR "no outputs written (threads ${_t})")
  endif()
  foreach(_o ${_outs})
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/threads${_t}_fuse0/${_o}
                            ${WORK}/threads${_t}_fuse1/${_o} RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "${_o} at ${_t} thread(s): the chains in row bands differ from the nodes run one by one")
    endif()
  endforeach()
  message(STATUS "threads ${_t}: ${_outs} identical")
endforeach()

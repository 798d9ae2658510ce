# Builds pterun with -DPTERUN_SELECT_PROGRAMS=zoo/ops/add_f32/model.pte and
# -DPTERUN_SELECT_OPS=aten::neg.out, then checks that the kernel libraries
# register exactly those two operators, that add_f32 and neg_f32 run and
# give their expected outputs, and that mul_f32 is refused because
# aten::mul.out is not registered.
#   cmake -DSRC=<source dir> -DBIN=<scratch build dir> -DCC=<compiler> [-DLAUNCHER=ccache] [-DGEN=Ninja]
#         -P selective_build.cmake
set(_zoo ${SRC}/zoo/ops)
set(_args -S ${SRC} -B ${BIN} -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=${CC} -DPTERUN_BUILD_TESTS=OFF
          -DPTERUN_BUILD_BENCH=OFF -DPTERUN_BUILD_XNNPACK=OFF -DPTERUN_BUILD_PYTHON=OFF
          -DPTERUN_SELECT_PROGRAMS=${_zoo}/add_f32/model.pte -DPTERUN_SELECT_OPS=aten::neg.out)
if(GEN)
  list(APPEND _args -G ${GEN})
endif()
if(LAUNCHER)
  list(APPEND _args -DCMAKE_C_COMPILER_LAUNCHER=${LAUNCHER})
endif()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

run("configure" ${CMAKE_COMMAND} ${_args})
run("build" ${CMAKE_COMMAND} --build ${BIN} --target pterun_cli -j2)
set(_cli ${BIN}/cli/pterun)

# The kernel libraries' operators (the runtime's own prim ops stay).
run("pterun operators" ${_cli} operators)
string(REPLACE "\n" ";" _ops "${out}")
set(_kernels "")
foreach(_o ${_ops})
  if(NOT _o MATCHES "^executorch_prim::|^aten::sym_|^aten::_local_scalar_dense$")
    list(APPEND _kernels ${_o})
  endif()
endforeach()
if(NOT _kernels STREQUAL "aten::add.out;aten::neg.out")
  message(FATAL_ERROR "the selective build registers ${_kernels}, expected aten::add.out;aten::neg.out")
endif()

foreach(_case add_f32 neg_f32)
  file(GLOB _inputs ${_zoo}/${_case}/inputs/*.npy)
  list(SORT _inputs)
  set(_in "")
  foreach(_i ${_inputs})
    list(APPEND _in --input ${_i})
  endforeach()
  file(REMOVE_RECURSE ${BIN}/out_${_case})
  run("running ${_case}" ${_cli} run ${_zoo}/${_case}/model.pte ${_in} --output-dir ${BIN}/out_${_case} --quiet)
  # exact ops: the output equals eager's byte for byte
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${BIN}/out_${_case}/output_0.npy
                          ${_zoo}/${_case}/expected/0.npy RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${_case}: the output differs from the expected one")
  endif()
endforeach()

execute_process(COMMAND ${_cli} run ${_zoo}/mul_f32/model.pte --input ${_zoo}/mul_f32/inputs/0.npy
                        --input ${_zoo}/mul_f32/inputs/1.npy --quiet
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "operator is not registered: aten::mul.out")
  message(FATAL_ERROR "mul_f32 should be refused for its unregistered operator (exit ${rc}): ${out}${err}")
endif()
message(STATUS "selective build: aten::add.out and aten::neg.out registered and running; aten::mul.out refused")

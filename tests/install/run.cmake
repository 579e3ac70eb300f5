# Installs gpueq into a scratch prefix and builds + runs a tiny consumer project against it.
file(REMOVE_RECURSE "${WORK_DIR}")
set(build "${WORK_DIR}/gpueq-build")
set(prefix "${WORK_DIR}/prefix")
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}")
  endif()
endfunction()
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${build}" -DCMAKE_INSTALL_PREFIX=${prefix}
    -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
    -DGPUEQ_BUILD_TESTS=OFF -DGPUEQ_BUILD_EXAMPLES=OFF -DGPUEQ_BUILD_BENCHMARKS=OFF)
run(${CMAKE_COMMAND} --install "${build}")
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install/consumer" -B "${WORK_DIR}/consumer-build"
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER})
run(${CMAKE_COMMAND} --build "${WORK_DIR}/consumer-build")
run("${WORK_DIR}/consumer-build/consumer" "${prefix}/share/gpueq/kernels")

# Script mode: installs BUILD_DIR into PREFIX, then builds the test kit's split_host and
# vector_scale samples against the installed tree only (CMAKE_PREFIX_PATH=PREFIX finds
# lib/cmake/ASC) and runs them: find_package(ASC) works from an install prefix, away from
# tessera's source and build trees.
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORK_DIR})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ASC install test: ${what} failed (${rc}):\n${out}\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${PREFIX} ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
run_step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX})
foreach(sample split_host vector_scale)
  set(build ${WORK_DIR}/${sample})
  run_step("configuring ${sample}" ${CMAKE_COMMAND} -S ${KIT_DIR}/${sample} -B ${build}
           -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_CXX_COMPILER=${CXX}
           -DCMAKE_C_COMPILER=${CC} -DSCENARIO_NUM=3)
  run_step("building ${sample}" ${CMAKE_COMMAND} --build ${build})
  file(READ ${build}/CMakeCache.txt cache)
  # The prefix lies inside the build tree, so compare against the build tree's own driver.
  if(cache MATCHES "CMAKE_ASC_COMPILER:FILEPATH=${BUILD_DIR}/bin/tessera-asc")
    message(FATAL_ERROR "ASC install test: ${sample} used the build tree's tessera-asc")
  endif()
endforeach()
run_step("running split_host" ${WORK_DIR}/split_host/demo 31)
run_step("generating vector_scale's data" ${CMAKE_COMMAND} -E chdir ${WORK_DIR}/vector_scale
         ${PYTHON} ${KIT_DIR}/vector_scale/scripts/gen_data.py -scenario_num=3)
run_step("running vector_scale" ${CMAKE_COMMAND} -E chdir ${WORK_DIR}/vector_scale ./demo)
run_step("verifying vector_scale" ${CMAKE_COMMAND} -E chdir ${WORK_DIR}/vector_scale ${PYTHON}
         ${KIT_DIR}/vector_scale/scripts/verify_result.py output/output.bin output/golden.bin)

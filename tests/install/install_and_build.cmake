# Script mode: install BUILD_DIR into PREFIX, then configure, build and run the consumer project.
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: ${what} failed (${rc}):\n${out}\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${PREFIX} ${WORK_DIR})
run_step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX})
run_step("configuring the consumer" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR} -G ${GENERATOR}
         -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_C_COMPILER=${CC}
         -DCMAKE_BUILD_TYPE=Release)
run_step("building the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR})
# The runtime finds the installed built-in package by itself; no environment variable is set.
run_step("running the consumer" ${CMAKE_COMMAND} -E env --unset=TESSERA_BUILTIN_PACKAGE_DIR
         --unset=TESSERA_CUSTOM_OPP_PATH --unset=TESSERA_OPP_PATH ${WORK_DIR}/installed_add)
run_step("running the installed aclnn application" ${CMAKE_COMMAND} -E env
         --unset=TESSERA_BUILTIN_PACKAGE_DIR --unset=TESSERA_CUSTOM_OPP_PATH
         --unset=TESSERA_OPP_PATH ${WORK_DIR}/installed_aclnn)

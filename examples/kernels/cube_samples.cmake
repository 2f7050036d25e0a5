# The cube samples of cube-api (basic API): each run on both profiles, fast and checked.
foreach(sample matmul_basic matmul_leakyrelu_mix)
  add_executable(${sample} kernels/${sample}/main.cc)
  target_link_libraries(${sample} PRIVATE tessera::kernel tessera_warnings)
  if(TESSERA_BUILD_TESTS)
    add_test(NAME example.${sample} COMMAND ${sample})
    add_test(NAME example.${sample}.checked COMMAND ${sample})
    set_tests_properties(example.${sample}.checked PROPERTIES ENVIRONMENT "TESSERA_CHECK=1")
    add_test(NAME example.${sample}.ascend910b COMMAND ${sample})
    set_tests_properties(example.${sample}.ascend910b PROPERTIES
      ENVIRONMENT "TESSERA_PROFILE=ascend910b")
    add_test(NAME example.${sample}.ascend910b.checked COMMAND ${sample})
    set_tests_properties(example.${sample}.ascend910b.checked PROPERTIES
      ENVIRONMENT "TESSERA_PROFILE=ascend910b;TESSERA_CHECK=1")
  endif()
endforeach()

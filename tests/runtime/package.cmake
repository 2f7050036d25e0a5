# Tests of operator packages (manifests, discovery, matching, checksums). Included by
# tests/runtime/CMakeLists.txt.
tessera_add_test_executable(tessera_runtime_package_tests
  ${CMAKE_CURRENT_LIST_DIR}/package_manifest_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/package_match_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/package_search_test.cc)
target_link_libraries(tessera_runtime_package_tests PRIVATE tessera_runtime_internal)

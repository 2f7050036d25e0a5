# Tests of operator packages (manifests, discovery, matching, checksums). Included by
# tests/runtime/CMakeLists.txt. Links tessera_runtime when src/runtime defines it (it then holds the
# package sources through src/runtime/package.cmake); otherwise builds the package sources as their
# own library, tessera_runtime_package, so these tests run before the runtime layer is wired.
if(TARGET tessera_runtime)
  set(_tessera_package_lib tessera_runtime)
else()
  find_package(nlohmann_json 3 REQUIRED)
  find_package(OpenSSL REQUIRED)
  add_library(tessera_runtime_package STATIC
    ${PROJECT_SOURCE_DIR}/src/runtime/linked_package.cc
    ${PROJECT_SOURCE_DIR}/src/runtime/package_checksum.cc
    ${PROJECT_SOURCE_DIR}/src/runtime/package_manifest.cc
    ${PROJECT_SOURCE_DIR}/src/runtime/package_match.cc
    ${PROJECT_SOURCE_DIR}/src/runtime/package_search.cc)
  target_link_libraries(tessera_runtime_package
    PUBLIC tessera::core tessera::device
    PRIVATE OpenSSL::Crypto nlohmann_json::nlohmann_json tessera_warnings ${CMAKE_DL_LIBS})
  set(_tessera_package_lib tessera_runtime_package)
endif()

tessera_add_test_executable(tessera_runtime_package_tests
  ${CMAKE_CURRENT_LIST_DIR}/package_manifest_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/package_match_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/package_search_test.cc)
target_link_libraries(tessera_runtime_package_tests PRIVATE ${_tessera_package_lib})

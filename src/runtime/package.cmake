# Operator packages: manifests, discovery by priority, binary matching and checksums.
# Included by src/runtime/CMakeLists.txt after it defines the target tessera_runtime.
find_package(nlohmann_json 3 REQUIRED)
find_package(OpenSSL REQUIRED)
target_sources(tessera_runtime PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/linked_package.cc
  ${CMAKE_CURRENT_LIST_DIR}/package_checksum.cc
  ${CMAKE_CURRENT_LIST_DIR}/package_manifest.cc
  ${CMAKE_CURRENT_LIST_DIR}/package_match.cc
  ${CMAKE_CURRENT_LIST_DIR}/package_search.cc)
target_link_libraries(tessera_runtime PRIVATE
  OpenSSL::Crypto $<BUILD_INTERFACE:nlohmann_json::nlohmann_json>)

# Installs headers, libraries and a CMake package config so that users can find_package(tessera).
include(CMakePackageConfigHelpers)

install(DIRECTORY include/tessera DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(_tessera_targets tessera_core tessera_device tessera_tiling tessera_kernel tessera_runtime
    tessera_package_tool tessera_warnings tessera_vendor_headers tessera_acl tessera_compat_kernel)
set_target_properties(tessera_package_tool PROPERTIES EXPORT_NAME package_tool)
if(TARGET tessera_elewise)
  list(APPEND _tessera_targets tessera_elewise)
endif()
install(TARGETS ${_tessera_targets}
        EXPORT tesseraTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT tesseraTargets NAMESPACE tessera:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)

configure_package_config_file(cmake/tesseraConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tesseraConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tesseraConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tesseraConfig.cmake
              ${CMAKE_CURRENT_SOURCE_DIR}/cmake/TesseraOpPackage.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/tesseraConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)

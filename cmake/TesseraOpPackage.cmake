# tessera_add_op_package: builds an operator package directory
#
#   <OUTPUT_DIR>/manifest.json
#   <OUTPUT_DIR>/lib/lib<NAME>_ops.so                    op definitions + tiling functions
#   <OUTPUT_DIR>/kernels/<soc>/lib<NAME>_kernels.so      kernels, one library per SoC
#   <OUTPUT_DIR>/include/<NAME>_nn.h, lib/lib<NAME>_op_api.so   typed two-stage C API: for each op
#       tsr_<NAME>_<Op>GetWorkspaceSize(inputs..., attrs..., outputs..., &ws, &executor) and
#       tsr_<NAME>_<Op>(workspace, ws, executor, stream); link target <NAME>_op_api
#
#   tessera_add_op_package(NAME builtin
#     OP_SOURCES ...        # TESSERA_OP_ADD(...) classes and TESSERA_OP_LIBRARY()
#     KERNEL_SOURCES ...    # TESSERA_KERNEL_ENTRY(...) and TESSERA_KERNEL_LIBRARY()
#     [SOCS x86-64-v3 x86-64-v2]    # default: TESSERA_SOC_SERIES
#     [OUTPUT_DIR dir] [VERSION v] [INSTALL_DESTINATION dir])
#
# Each SoC's kernel library is compiled with -march=<soc>. Libraries use hidden visibility so each
# keeps its own registration lists. The manifest (with every binary's sha256) is written by
# tessera_package_tool after the libraries are built.
include_guard(GLOBAL)

# The build machine's ISA level (what DetectSoc() would report), for the default SoC list.
function(tessera_detect_build_soc out)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
    set(${out} "armv8-a" PARENT_SCOPE)
    return()
  endif()
  set(src ${CMAKE_BINARY_DIR}/tessera_detect_soc.cc)
  file(WRITE ${src} "#include <cstdio>\nint main(){__builtin_cpu_init();\n"
    "bool v2=__builtin_cpu_supports(\"sse4.2\")&&__builtin_cpu_supports(\"popcnt\")&&__builtin_cpu_supports(\"ssse3\");\n"
    "bool v3=v2&&__builtin_cpu_supports(\"avx2\")&&__builtin_cpu_supports(\"bmi\")&&__builtin_cpu_supports(\"bmi2\")&&__builtin_cpu_supports(\"fma\")&&__builtin_cpu_supports(\"movbe\");\n"
    "bool v4=v3&&__builtin_cpu_supports(\"avx512f\")&&__builtin_cpu_supports(\"avx512bw\")&&__builtin_cpu_supports(\"avx512cd\")&&__builtin_cpu_supports(\"avx512dq\")&&__builtin_cpu_supports(\"avx512vl\");\n"
    "std::printf(\"%s\", v4?\"x86-64-v4\":v3?\"x86-64-v3\":v2?\"x86-64-v2\":\"x86-64\");}\n")
  try_run(run_result compile_result ${CMAKE_BINARY_DIR}/tessera_detect_soc ${src}
          RUN_OUTPUT_VARIABLE soc)
  if(NOT compile_result OR NOT run_result EQUAL 0)
    set(soc "x86-64-v2")
  endif()
  set(${out} "${soc}" PARENT_SCOPE)
endfunction()

if(NOT DEFINED TESSERA_SOC_SERIES OR TESSERA_SOC_SERIES STREQUAL "")
  tessera_detect_build_soc(_tessera_build_soc)
  set(_tessera_default_socs ${_tessera_build_soc})
  if(NOT _tessera_build_soc STREQUAL "x86-64-v2" AND NOT _tessera_build_soc STREQUAL "armv8-a")
    list(APPEND _tessera_default_socs x86-64-v2)
  endif()
  set(TESSERA_SOC_SERIES "${_tessera_default_socs}" CACHE STRING
      "ISA levels operator packages are built for (semicolon list)")
endif()

function(tessera_add_op_package)
  cmake_parse_arguments(PKG "" "NAME;VERSION;OUTPUT_DIR;INSTALL_DESTINATION"
                        "OP_SOURCES;KERNEL_SOURCES;SOCS" ${ARGN})
  if(NOT PKG_NAME)
    message(FATAL_ERROR "tessera_add_op_package: NAME is required")
  endif()
  if(NOT PKG_OP_SOURCES OR NOT PKG_KERNEL_SOURCES)
    message(FATAL_ERROR "tessera_add_op_package(${PKG_NAME}): OP_SOURCES and KERNEL_SOURCES are required")
  endif()
  if(NOT PKG_SOCS)
    set(PKG_SOCS ${TESSERA_SOC_SERIES})
  endif()
  if(NOT PKG_VERSION)
    set(PKG_VERSION ${PROJECT_VERSION})
  endif()
  if(NOT PKG_VERSION)
    set(PKG_VERSION 0.0.0)
  endif()
  if(NOT PKG_OUTPUT_DIR)
    set(PKG_OUTPUT_DIR ${CMAKE_BINARY_DIR}/packages/${PKG_NAME})
  endif()

  set(ops_target ${PKG_NAME}_ops)
  add_library(${ops_target} SHARED ${PKG_OP_SOURCES})
  target_link_libraries(${ops_target} PRIVATE tessera::runtime tessera::tiling)
  # Installed under <libdir>/tessera/packages/<name>/lib the library finds <libdir> four levels up;
  # the build tree's own paths come first.
  set_target_properties(${ops_target} PROPERTIES
    BUILD_RPATH "$ORIGIN/../../../.."
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${PKG_OUTPUT_DIR}/lib OUTPUT_NAME ${PKG_NAME}_ops)

  set(tool_args --dir ${PKG_OUTPUT_DIR} --name ${PKG_NAME} --version ${PKG_VERSION}
      --ops-lib lib/lib${PKG_NAME}_ops.so)
  set(kernel_targets)
  foreach(soc IN LISTS PKG_SOCS)
    if(soc MATCHES "^x86-64" AND NOT CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
      message(FATAL_ERROR "tessera_add_op_package(${PKG_NAME}): SoC ${soc} needs an x86-64 build")
    endif()
    if(soc STREQUAL "armv8-a" AND NOT CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
      message(FATAL_ERROR "tessera_add_op_package(${PKG_NAME}): SoC armv8-a needs an aarch64 build")
    endif()
    string(REPLACE "-" "_" soc_id ${soc})
    set(kt ${PKG_NAME}_kernels_${soc_id})
    add_library(${kt} SHARED ${PKG_KERNEL_SOURCES})
    target_link_libraries(${kt} PRIVATE tessera::kernel tessera::tiling tessera::runtime)
    target_compile_options(${kt} PRIVATE -march=${soc})
    set_target_properties(${kt} PROPERTIES
      BUILD_RPATH "$ORIGIN/../../../../.."
      CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
      LIBRARY_OUTPUT_DIRECTORY ${PKG_OUTPUT_DIR}/kernels/${soc} OUTPUT_NAME ${PKG_NAME}_kernels)
    list(APPEND kernel_targets ${kt})
    list(APPEND tool_args --kernels ${soc}=kernels/${soc}/lib${PKG_NAME}_kernels.so)
  endforeach()

  # In tessera's own build the tool is a target; in an installed tessera it is imported.
  if(TARGET tessera_package_tool)
    set(tool tessera_package_tool)
  else()
    set(tool tessera::package_tool)
  endif()
  add_custom_command(OUTPUT ${PKG_OUTPUT_DIR}/manifest.json
    COMMAND ${tool} ${tool_args}
    DEPENDS ${ops_target} ${kernel_targets} ${tool}
    COMMENT "Writing the manifest of operator package ${PKG_NAME}")
  # The package's typed two-stage C API (the analogue of CANN's op_api): a generated header
  # <OUTPUT_DIR>/include/<name>_nn.h and library lib/lib<name>_op_api.so.
  set(api_header ${PKG_OUTPUT_DIR}/include/${PKG_NAME}_nn.h)
  set(api_source ${CMAKE_CURRENT_BINARY_DIR}/${PKG_NAME}_op_api.c)
  add_custom_command(OUTPUT ${api_header} ${api_source}
    COMMAND ${tool} --dir ${PKG_OUTPUT_DIR} --name ${PKG_NAME} --ops-lib lib/lib${PKG_NAME}_ops.so
            --api-header ${api_header} --api-source ${api_source}
    DEPENDS ${ops_target} ${tool}
    COMMENT "Generating the typed C API of operator package ${PKG_NAME}")
  enable_language(C)
  add_library(${PKG_NAME}_op_api SHARED ${api_source} ${api_header})
  target_include_directories(${PKG_NAME}_op_api PUBLIC $<BUILD_INTERFACE:${PKG_OUTPUT_DIR}/include>)
  target_link_libraries(${PKG_NAME}_op_api PUBLIC tessera::runtime)
  set_target_properties(${PKG_NAME}_op_api PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${PKG_OUTPUT_DIR}/lib OUTPUT_NAME ${PKG_NAME}_op_api
    BUILD_RPATH "$ORIGIN/../../../.." LINKER_LANGUAGE CXX)

  add_custom_target(${PKG_NAME}_package ALL DEPENDS ${PKG_OUTPUT_DIR}/manifest.json ${PKG_NAME}_op_api)
  set_property(TARGET ${PKG_NAME}_package PROPERTY TESSERA_PACKAGE_DIR ${PKG_OUTPUT_DIR})

  if(PKG_INSTALL_DESTINATION)
    install(DIRECTORY ${PKG_OUTPUT_DIR}/ DESTINATION ${PKG_INSTALL_DESTINATION}
            USE_SOURCE_PERMISSIONS)
  endif()
endfunction()

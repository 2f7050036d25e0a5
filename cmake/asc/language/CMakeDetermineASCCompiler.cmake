# ASC language: the compiler is tessera-asc (set by ASCConfig.cmake, or CMAKE_ASC_COMPILER).
if(NOT CMAKE_ASC_COMPILER)
  if(DEFINED ENV{ASC} AND NOT "$ENV{ASC}" STREQUAL "")
    set(CMAKE_ASC_COMPILER "$ENV{ASC}")
  elseif(TESSERA_ASC_COMPILER)
    set(CMAKE_ASC_COMPILER "${TESSERA_ASC_COMPILER}")
  else()
    message(FATAL_ERROR "ASC: no compiler; call find_package(ASC) (tessera's build/cmake/asc) "
      "before project(... LANGUAGES ASC)")
  endif()
endif()
set(CMAKE_ASC_COMPILER "${CMAKE_ASC_COMPILER}" CACHE FILEPATH "The ASC (.asc) compiler driver")
set(CMAKE_ASC_COMPILER_ID "tessera")
set(CMAKE_ASC_COMPILER_VERSION "1.0")
configure_file(${CMAKE_CURRENT_LIST_DIR}/CMakeASCCompiler.cmake.in
  ${CMAKE_PLATFORM_INFO_DIR}/CMakeASCCompiler.cmake @ONLY)
set(CMAKE_ASC_COMPILER_ENV_VAR "ASC")

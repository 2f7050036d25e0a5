# Compiler launcher, warnings and sanitizers shared by every tessera target.
find_program(TESSERA_CCACHE ccache)
if(TESSERA_CCACHE)
  set(CMAKE_C_COMPILER_LAUNCHER "${TESSERA_CCACHE}")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${TESSERA_CCACHE}")
endif()

add_library(tessera_warnings INTERFACE)
target_compile_options(tessera_warnings INTERFACE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)

if(TESSERA_SANITIZE)
  string(REPLACE ";" "," _tessera_san "${TESSERA_SANITIZE}")
  add_compile_options(-fsanitize=${_tessera_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_tessera_san})
endif()

# tessera-asc is a wrapper over the C++ compiler CMake has already tested.
set(CMAKE_ASC_COMPILER_WORKS 1 CACHE INTERNAL "")

# Sources of the built-in operator package, for the package CMake function and the op tests.
#   TESSERA_BUILTIN_OP_FAMILIES      the op families (a folder of ops/ each)
#   TESSERA_BUILTIN_<F>_OP_SOURCES   a family's op definitions and tiling functions (host)
#   TESSERA_BUILTIN_<F>_KERNEL_SOURCES  its kernels (compiled once per SoC)
#   TESSERA_BUILTIN_OP_SOURCES / TESSERA_BUILTIN_KERNEL_SOURCES  every family's, with the common
#                                    listing sources (what the tests build against)
# Op sources need tessera::runtime; kernel sources need tessera::kernel (and the header-only
# kernel/kernel_entry.h); the row ops (norm/, softmax/, swiglu/) also need tessera::elewise;
# matmul/ uses the header-only gemm templates (tessera/gemm).
# Sources include each other relatively: no extra include directory.
set(TESSERA_BUILTIN_OP_FAMILIES
    elementwise_binary elementwise_unary cast norm softmax swiglu matmul)
foreach(family IN LISTS TESSERA_BUILTIN_OP_FAMILIES)
  string(TOUPPER ${family} f)
  set(TESSERA_BUILTIN_${f}_OP_SOURCES ${CMAKE_CURRENT_LIST_DIR}/${family}/${family}_op.cc)
  set(TESSERA_BUILTIN_${f}_KERNEL_SOURCES ${CMAKE_CURRENT_LIST_DIR}/${family}/${family}_kernel.cc)
endforeach()
# Folders whose files are not named after the folder.
set(TESSERA_BUILTIN_ELEMENTWISE_BINARY_OP_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/elementwise_binary/binary_op.cc)
set(TESSERA_BUILTIN_ELEMENTWISE_BINARY_KERNEL_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/elementwise_binary/binary_kernel.cc)
set(TESSERA_BUILTIN_ELEMENTWISE_UNARY_OP_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/elementwise_unary/unary_op.cc)
set(TESSERA_BUILTIN_ELEMENTWISE_UNARY_KERNEL_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/elementwise_unary/unary_kernel.cc)
list(APPEND TESSERA_BUILTIN_MATMUL_KERNEL_SOURCES
     ${CMAKE_CURRENT_LIST_DIR}/matmul/batch_matmul_kernel.cc
     ${CMAKE_CURRENT_LIST_DIR}/matmul/addmm_kernel.cc)

# The sources of the families in `families` (plus the listing sources every package needs).
function(tessera_builtin_sources families op_out kernel_out)
  set(ops ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/common/op_library.cc)
  set(kernels ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/common/kernel_library.cc)
  foreach(family IN LISTS families)
    string(TOUPPER ${family} f)
    list(APPEND ops ${TESSERA_BUILTIN_${f}_OP_SOURCES})
    list(APPEND kernels ${TESSERA_BUILTIN_${f}_KERNEL_SOURCES})
  endforeach()
  set(${op_out} ${ops} PARENT_SCOPE)
  set(${kernel_out} ${kernels} PARENT_SCOPE)
endfunction()

tessera_builtin_sources("${TESSERA_BUILTIN_OP_FAMILIES}" TESSERA_BUILTIN_OP_SOURCES
                        TESSERA_BUILTIN_KERNEL_SOURCES)

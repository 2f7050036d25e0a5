# Sources of the built-in operator package, for the package CMake function and the op tests.
#   TESSERA_BUILTIN_OP_SOURCES      op definitions and tiling functions (the op library; host)
#   TESSERA_BUILTIN_KERNEL_SOURCES  kernels (the kernel library; compiled once per SoC)
# Op sources need tessera::runtime; kernel sources need tessera::kernel (and the header-only
# kernel/kernel_entry.h); the row ops (norm/, softmax/, swiglu/) also need tessera::elewise;
# matmul/ uses the header-only gemm templates (tessera/gemm).
# Sources include each other relatively: no extra include directory.
set(TESSERA_BUILTIN_OP_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/common/op_library.cc
  ${CMAKE_CURRENT_LIST_DIR}/elementwise_binary/binary_op.cc
  ${CMAKE_CURRENT_LIST_DIR}/elementwise_unary/unary_op.cc
  ${CMAKE_CURRENT_LIST_DIR}/cast/cast_op.cc
  ${CMAKE_CURRENT_LIST_DIR}/norm/norm_op.cc
  ${CMAKE_CURRENT_LIST_DIR}/softmax/softmax_op.cc
  ${CMAKE_CURRENT_LIST_DIR}/swiglu/swiglu_op.cc
  ${CMAKE_CURRENT_LIST_DIR}/matmul/matmul_op.cc)
set(TESSERA_BUILTIN_KERNEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/common/kernel_library.cc
  ${CMAKE_CURRENT_LIST_DIR}/elementwise_binary/binary_kernel.cc
  ${CMAKE_CURRENT_LIST_DIR}/elementwise_unary/unary_kernel.cc
  ${CMAKE_CURRENT_LIST_DIR}/cast/cast_kernel.cc
  ${CMAKE_CURRENT_LIST_DIR}/norm/norm_kernel.cc
  ${CMAKE_CURRENT_LIST_DIR}/softmax/softmax_kernel.cc
  ${CMAKE_CURRENT_LIST_DIR}/swiglu/swiglu_kernel.cc
  ${CMAKE_CURRENT_LIST_DIR}/matmul/matmul_kernel.cc
  ${CMAKE_CURRENT_LIST_DIR}/matmul/batch_matmul_kernel.cc
  ${CMAKE_CURRENT_LIST_DIR}/matmul/addmm_kernel.cc)

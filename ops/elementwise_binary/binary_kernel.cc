// Kernels of the binary elementwise ops: one entry per (op, dtype), tiling key = the dtype code.
// Each runs its block's share of the elewise plan the tiling function made (flat for equal shapes
// or a broadcast scalar, rows of the coalesced innermost dim for other broadcasts and strides).
#include "../common/elementwise_kernel.h"
#include "binary_compute.h"

namespace tessera::ops {
namespace {

#define TESSERA_BINARY_ENTRY(kernel, Fn, T)                  \
  TESSERA_KERNEL_ENTRY(kernel, DtypeField(kDtypeOf<T>), AIV, \
                       ElementwiseBinaryEntry<BinaryCompute<T, Fn>>)
#define TESSERA_BINARY_FLOAT_ENTRIES(kernel, Fn) \
  TESSERA_BINARY_ENTRY(kernel, Fn, float)        \
  TESSERA_BINARY_ENTRY(kernel, Fn, half)         \
  TESSERA_BINARY_ENTRY(kernel, Fn, bfloat16)
#define TESSERA_BINARY_ALL_ENTRIES(kernel, Fn) \
  TESSERA_BINARY_FLOAT_ENTRIES(kernel, Fn)     \
  TESSERA_BINARY_ENTRY(kernel, Fn, int32_t)

TESSERA_BINARY_ALL_ENTRIES(add, AddFn)
TESSERA_BINARY_ALL_ENTRIES(sub, SubFn)
TESSERA_BINARY_ALL_ENTRIES(mul, MulFn)
TESSERA_BINARY_FLOAT_ENTRIES(div, DivFn)
TESSERA_BINARY_ALL_ENTRIES(maximum, MaximumFn)
TESSERA_BINARY_ALL_ENTRIES(minimum, MinimumFn)

}  // namespace
}  // namespace tessera::ops

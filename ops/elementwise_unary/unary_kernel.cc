// Kernels of the unary elementwise ops (Adds and Muls included): one entry per (op, dtype), tiling
// key = the dtype code. Each runs its block's share of the elewise plan of the tiling function.
#include "../common/elementwise_kernel.h"
#include "unary_compute.h"

namespace tessera::ops {
namespace {

#define TESSERA_UNARY_ENTRY(kernel, Fn, T)                   \
  TESSERA_KERNEL_ENTRY(kernel, DtypeField(kDtypeOf<T>), AIV, \
                       ElementwiseUnaryEntry<UnaryCompute<T, Fn>>)
#define TESSERA_UNARY_FLOAT_ENTRIES(kernel, Fn) \
  TESSERA_UNARY_ENTRY(kernel, Fn, float)        \
  TESSERA_UNARY_ENTRY(kernel, Fn, half)         \
  TESSERA_UNARY_ENTRY(kernel, Fn, bfloat16)
#define TESSERA_UNARY_ALL_ENTRIES(kernel, Fn) \
  TESSERA_UNARY_FLOAT_ENTRIES(kernel, Fn)     \
  TESSERA_UNARY_ENTRY(kernel, Fn, int32_t)

TESSERA_UNARY_ALL_ENTRIES(abs, AbsFn)
TESSERA_UNARY_FLOAT_ENTRIES(exp, ExpFn)
TESSERA_UNARY_FLOAT_ENTRIES(log, LogFn)
TESSERA_UNARY_FLOAT_ENTRIES(sqrt, SqrtFn)
TESSERA_UNARY_FLOAT_ENTRIES(rsqrt, RsqrtFn)
TESSERA_UNARY_ALL_ENTRIES(relu, ReluFn)
TESSERA_UNARY_FLOAT_ENTRIES(sigmoid, SigmoidFn)
TESSERA_UNARY_ALL_ENTRIES(adds, AddsFn)
TESSERA_UNARY_ALL_ENTRIES(muls, MulsFn)

}  // namespace
}  // namespace tessera::ops

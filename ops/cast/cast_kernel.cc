// Kernels of Cast: one entry per (source, destination) dtype pair, tiling key
// CastKey(src, dst); each runs its block's share of the elewise plan of the tiling function.
#include "../common/elementwise_kernel.h"
#include "cast_compute.h"

namespace tessera::ops {
namespace {

#define TESSERA_CAST_ENTRY(S, D)                                     \
  TESSERA_KERNEL_ENTRY(cast, CastKey(kDtypeOf<S>, kDtypeOf<D>), AIV, \
                       ElementwiseUnaryEntry<CastCompute<S, D>>)
#define TESSERA_CAST_FROM(S)      \
  TESSERA_CAST_ENTRY(S, float)    \
  TESSERA_CAST_ENTRY(S, half)     \
  TESSERA_CAST_ENTRY(S, bfloat16) \
  TESSERA_CAST_ENTRY(S, int32_t)

TESSERA_CAST_FROM(float)
TESSERA_CAST_FROM(half)
TESSERA_CAST_FROM(bfloat16)
TESSERA_CAST_FROM(int32_t)

}  // namespace
}  // namespace tessera::ops

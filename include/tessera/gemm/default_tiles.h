// The tile shapes and dispatch policy the built-in matmul operators use, per input type. All fit
// the 2201 buffers (and so every profile tessera has): two L1 stages, one L0 stage (L0A 32 KB,
// L0B 64 KB - on a CPU the L0 ping-pong buys nothing, while a longer L0 K step halves the Mmad
// calls, each of which streams the 128 KB L0C block through the core):
//   half/bfloat16  L1 128 x 256 x 256, L0 K 128   (L1 2 x 192 KB)
//   float          L1 128 x 256 x 128, L0 K 64    (L1 2 x 192 KB)
//   int8           L1 128 x 256 x 512, L0 K 256   (L1 2 x 192 KB)
// and L0C holds the whole 128 x 256 block (128 KB of float/int32). On a CPU the L1 tiles are the
// GEMM packing buffers: an A tile is reused across 256 columns and a B tile across 128 rows.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/gemm/gemm_coord.h"
#include "tessera/gemm/policy.h"

namespace tessera::gemm {

template <class T>
struct DefaultTiles {
  using Policy = MmadPingpong<2, 1>;
  using L1 = GemmShape<128, 256, std::is_same_v<T, float> ? 128 : sizeof(T) == 2 ? 256 : 512>;
  using L0 = GemmShape<128, 256, std::is_same_v<T, float> ? 64 : sizeof(T) == 2 ? 128 : 256>;
};

}  // namespace tessera::gemm

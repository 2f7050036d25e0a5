// The tile shapes the built-in matmul operators use, per input type. Both fit the 2201 buffers
// (and so every profile tessera has) with two stages:
//   half/bfloat16  L1 128 x 256 x 256, L0 K 64    (L1 2 x 192 KB, L0A 2 x 16 KB, L0B 2 x 32 KB)
//   float          L1 128 x 256 x 128, L0 K 32    (the same bytes)
//   int8           L1 128 x 256 x 512, L0 K 128
// and L0C holds the whole 128 x 256 block (128 KB of float/int32). On a CPU the L1 tiles are the
// GEMM packing buffers: an A tile is reused across 256 columns and a B tile across 128 rows.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/gemm/gemm_coord.h"

namespace tessera::gemm {

template <class T>
struct DefaultTiles {
  using L1 = GemmShape<128, 256, std::is_same_v<T, float> ? 128 : sizeof(T) == 2 ? 256 : 512>;
  using L0 = GemmShape<128, 256, std::is_same_v<T, float> ? 32 : sizeof(T) == 2 ? 64 : 128>;
};

}  // namespace tessera::gemm

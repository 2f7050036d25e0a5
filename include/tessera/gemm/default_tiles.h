// The tile shapes and dispatch policy the built-in matmul operators use, per input type.
//
// DefaultTiles fits the 2201 buffers (L1 512 KB, L0A/L0B 64 KB, L0C 128 KB), so it runs on every
// profile: two L1 stages, one L0 stage (L0A 32 KB, L0B 64 KB - on a CPU the L0 ping-pong buys
// nothing, while a longer L0 K step halves the Mmad calls, each of which streams the 128 KB L0C
// block through the core):
//   half/bfloat16  L1 128 x 256 x 256, L0 K 128   (L1 2 x 192 KB)
//   float          L1 128 x 256 x 128, L0 K 64    (L1 2 x 192 KB)
//   int8           L1 128 x 256 x 512, L0 K 256   (L1 2 x 192 KB)
// and L0C holds the whole 128 x 256 block (128 KB of float/int32). On a CPU the L1 tiles are the
// GEMM packing buffers: an A tile is reused across 256 columns and a B tile across 128 rows.
//
// LargeTiles doubles the block both ways, 256 x 512, for profiles with larger cube buffers
// (tessera's "native" profile: L1 2 MB, L0A/L0B 256 KB, L0C 512 KB): each element copied from GM
// to L1 (and on to L0) then feeds twice the FLOPs, which halves the copy traffic that bounds the
// 2201 tiles on a CPU (a block streams its whole A band and B panel from GM):
//   half/bfloat16  L1 256 x 512 x 256, L0 K 256   (L1 2 x 384 KB, L0A 128 KB, L0B 256 KB)
//   float          L1 256 x 512 x 128, L0 K 128   (L1 2 x 384 KB, L0A 128 KB, L0B 256 KB)
//   int8           L1 256 x 512 x 512, L0 K 512   (L1 2 x 384 KB, L0A 128 KB, L0B 256 KB)
// and L0C holds the 256 x 512 block (512 KB); one L0 K step per L1 tile, so each Mmad streams the
// 512 KB block through the core once per L1 K tile. BlockMmad::can_implement says whether a profile
// has the room; the operators fall back to DefaultTiles where it does not.
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

template <class T>
struct LargeTiles {
  using Policy = MmadPingpong<2, 1>;
  using L1 = GemmShape<256, 512, std::is_same_v<T, float> ? 128 : sizeof(T) == 2 ? 256 : 512>;
  using L0 = L1;
};

}  // namespace tessera::gemm

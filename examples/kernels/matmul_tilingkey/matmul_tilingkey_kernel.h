// matmul_tilingkey: the seed's TilingKey matmul (PyPTO's test_matmul_tilingkey) as a cube kernel.
//
// Two 1-bit key fields pick compile-time variants of one source: Dtype (0: fp16, 1: bf16 inputs)
// and TileBlock (0: 64 x 64, 1: 128 x 128 output tiles). C (fp32) = A (M x K) * B (K x N), K in
// one piece (no accumulation). The output tiles are numbered row-major and split contiguously over
// the AI cores (core_id = GetBlockIdx() / GetSubBlockNum(), ceil(total / cores) tiles each). Per
// tile: the A row panel and the B column panel go GM -> L1 (ND -> Nz), L1 -> L0A (Zz) and L0B (Zn,
// transposing each fractal), one Mmad into L0C, Fixpipe L0C -> GM (Nz -> ND).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tessera/kernel/kernel_operator.h"
#include "tessera/tiling/kernel_table.h"
#include "tessera/tiling/tiling_data.h"
#include "tessera/tiling/tiling_key.h"

BEGIN_TILING_DATA_DEF(MatmulTilingKeyTiling)
TILING_DATA_FIELD_DEF(int64_t, M)
TILING_DATA_FIELD_DEF(int64_t, N)
TILING_DATA_FIELD_DEF(int64_t, K)  // a multiple of 16, at most 256 (the panels fit L0A/L0B)
END_TILING_DATA_DEF;

namespace matmul_tilingkey_op {

using namespace AscendC;

// The key schema: field values as in the seed (the index is the value).
inline constexpr tessera::tiling::StaticKeySchema kMatmulKey(
    {{"Dtype", 1, tessera::tiling::Values<0, 1>}, {"TileBlock", 1, tessera::tiling::Values<0, 1>}});

template <class T, int64_t TILE>
__aicore__ inline void MatmulTiles(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR tilingArg) {
  static_assert(TILE % 16 == 0, "tiles are whole fractals");
  GET_TILING_DATA_WITH_STRUCT(MatmulTilingKeyTiling, t, tilingArg);
  const int64_t mTiles = (t.M + TILE - 1) / TILE, nTiles = (t.N + TILE - 1) / TILE;
  const int64_t total = mTiles * nTiles;
  const int64_t coreId = GetBlockIdx() / GetSubBlockNum();
  const int64_t perCore = (total + GetBlockNum() - 1) / GetBlockNum();
  const int64_t start = coreId * perCore, end = std::min(start + perCore, total);
  if (start >= end) return;

  GlobalTensor<T> aGm, bGm;
  GlobalTensor<float> cGm;
  aGm.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(a), static_cast<uint64_t>(t.M * t.K));
  bGm.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(b), static_cast<uint64_t>(t.K * t.N));
  cGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(c), static_cast<uint64_t>(t.M * t.N));
  const int64_t K = t.K, k1 = K / 16, t1 = TILE / 16;
  LocalMemAllocator<Hardware::L1> l1;
  LocalMemAllocator<Hardware::L0A> l0a;
  LocalMemAllocator<Hardware::L0B> l0b;
  LocalMemAllocator<Hardware::L0C> l0c;
  LocalTensor<T> a1 = l1.Alloc<TPosition::A1, T>(static_cast<uint32_t>(TILE * K));
  LocalTensor<T> b1 = l1.Alloc<TPosition::B1, T>(static_cast<uint32_t>(K * TILE));
  LocalTensor<T> a2 = l0a.Alloc<TPosition::A2, T>(static_cast<uint32_t>(TILE * K));
  LocalTensor<T> b2 = l0b.Alloc<TPosition::B2, T>(static_cast<uint32_t>(K * TILE));
  LocalTensor<float> co1 = l0c.Alloc<TPosition::CO1, float>(static_cast<uint32_t>(TILE * TILE));

  for (int64_t task = start; task < end; ++task) {
    const int64_t tm = task / nTiles, tn = task % nTiles;
    const int64_t rows = std::min<int64_t>(TILE, t.M - tm * TILE);
    const int64_t cols = std::min<int64_t>(TILE, t.N - tn * TILE);
    // A row panel rows x K (Nz, TILE rows high) and B column panel K x cols (Nz, K rows high).
    DataCopy(a1, aGm[static_cast<uint64_t>(tm * TILE * K)],
             Nd2NzParams(1, rows, K, 0, K, TILE, 1, 0));
    DataCopy(b1, bGm[static_cast<uint64_t>(tn * TILE)], Nd2NzParams(1, K, cols, 0, t.N, K, 1, 0));
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    // L0 holds the valid tile only: Mmad reads ceil(rows/16) strips of A and ceil(cols/16)
    // fractal columns of B per K step, and writes L0C with ceil(rows/16)*16 rows.
    const int64_t rows1 = (rows + 15) / 16, cols1 = (cols + 15) / 16;
    for (int64_t m1 = 0; m1 < rows1; ++m1)  // Nz -> Zz
      LoadData(a2[static_cast<uint32_t>(m1 * k1 * 256)], a1[static_cast<uint32_t>(m1 * 256)],
               LoadData2DParams(0, k1, t1, 0, 0, false, 0));
    for (int64_t kk = 0; kk < k1; ++kk)  // Nz -> Zn, each fractal transposed
      LoadData(b2[static_cast<uint32_t>(kk * cols1 * 256)], b1[static_cast<uint32_t>(kk * 256)],
               LoadData2DParams(0, cols1, k1, 0, 0, true, 0));
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    // Mmad with m == 1 is GEMV (L0A read as a plain 1 x K vector); a 1-row tile is computed as 2
    // rows so L0A stays in Zz (the padding row's results are never moved out).
    Mmad(co1, a2, b2, MmadParams(std::max<int64_t>(rows, 2), cols, K, 0, false, true));
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    Fixpipe(
        cGm[static_cast<uint64_t>(tm * TILE * t.N + tn * TILE)], co1,
        FixpipeParamsV220(cols, rows, rows1 * 16, t.N, false, QuantMode_t::NoQuant, 0, 1, 0, 0, 0));
    // The next tile reuses L1 and L0: its copies wait for this tile's Fixpipe.
    SetFlag<HardEvent::FIX_MTE2>(EVENT_ID0);
    WaitFlag<HardEvent::FIX_MTE2>(EVENT_ID0);
  }
}

// The four instances, one per key combination, from this one source.
struct MatmulTilingKeyKernel {
  template <int64_t Dtype, int64_t TileBlock>
  static void Run(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR tiling) {
    using T = std::conditional_t<Dtype == 0, half, bfloat16_t>;
    constexpr int64_t kTile = TileBlock == 0 ? 64 : 128;
    MatmulTiles<T, kTile>(a, b, c, tiling);
  }
};

using MatmulTilingKeyTable = tessera::tiling::KernelTable<MatmulTilingKeyKernel, kMatmulKey>;

}  // namespace matmul_tilingkey_op

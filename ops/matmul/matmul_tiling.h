// Tiling data and tiling keys of the matmul operators (MatMul, BatchMatMul, Addmm, MatMulAct),
// shared by their tiling functions and kernels.
//
// Key: dtype code of x1 | transpose_x1 << 8 | transpose_x2 << 9 | MIX epilogue << 10 | large
// tiles << 11. The block tile, the batch layout and the epilogue travel in MatmulTilingData; the
// L1/L0 tile shapes are compile-time per dtype (tessera/gemm/default_tiles.h): gemm::LargeTiles
// where the profile's cube buffers hold them (float, half, bfloat16), else gemm::DefaultTiles.
#pragma once

#include <cstdint>

#include "tessera/core/data_type.h"
#include "tessera/tiling/tiling_data.h"

namespace tessera::ops {

BEGIN_TILING_DATA_DEF(MatmulTilingData)
TILING_DATA_FIELD_DEF(int64_t, m)
TILING_DATA_FIELD_DEF(int64_t, n)
TILING_DATA_FIELD_DEF(int64_t, k)
TILING_DATA_FIELD_DEF(int64_t, lda)
TILING_DATA_FIELD_DEF(int64_t, ldb)
TILING_DATA_FIELD_DEF(int64_t, ldc)
TILING_DATA_FIELD_DEF(int64_t, tileM)  // C block rows (<= the L1 tile's M)
TILING_DATA_FIELD_DEF(int64_t, tileN)
TILING_DATA_FIELD_DEF(int64_t, batchRank)
TILING_DATA_FIELD_DEF_ARR(int64_t, 6, batchDims)
TILING_DATA_FIELD_DEF_ARR(int64_t, 6, batchStrideA)
TILING_DATA_FIELD_DEF_ARR(int64_t, 6, batchStrideB)
// MIX epilogue: D = act(alpha * A B + bias + beta * X).
TILING_DATA_FIELD_DEF(float, alpha, 1.0f)
TILING_DATA_FIELD_DEF(float, beta, 1.0f)
TILING_DATA_FIELD_DEF(int64_t, act)  // gemm::epilogue::Activation
TILING_DATA_FIELD_DEF(float, negativeSlope, 0.01f)
TILING_DATA_FIELD_DEF(bool, hasBias)
TILING_DATA_FIELD_DEF(int64_t, xMode)  // gemm::epilogue::Broadcast
TILING_DATA_FIELD_DEF(int64_t, ldx)
TILING_DATA_FIELD_DEF(int64_t, chunkRows)  // epilogue rows per UB chunk
END_TILING_DATA_DEF;

constexpr uint64_t MatmulKey(DataType dtype, bool trans_a, bool trans_b, bool mix,
                             bool large = false) {
  return static_cast<uint64_t>(dtype) | (uint64_t{trans_a} << 8) | (uint64_t{trans_b} << 9) |
         (uint64_t{mix} << 10) | (uint64_t{large} << 11);
}

}  // namespace tessera::ops

// Block swizzle: the order in which a kernel visits the output blocks of C (CATLASS's
// GemmIdentityBlockSwizzle).
//
// The M x N output is cut into ceil(M / tile.row) x ceil(N / tile.column) blocks. Direction 0
// (kSwizzleZn) takes them in bands of Offset_ block-rows, column by column inside a band, odd bands
// walking N backwards (a serpentine, so consecutive blocks share an A band or a B panel);
// direction 1 (kSwizzleNz) is the transpose. Advice: <3, 0> when M >= N, <3, 1> when M < N.
// Every index in [0, GetCoreLoops()) maps to a distinct block (a bijection).
#pragma once

#include <algorithm>
#include <cstdint>

#include "tessera/gemm/gemm_coord.h"
#include "tessera/gemm/policy.h"

namespace tessera::gemm::block {

template <uint32_t Offset_ = 1, uint32_t Direction_ = kSwizzleZn>
struct GemmIdentityBlockSwizzle {
  static_assert(Offset_ >= 1, "GemmIdentityBlockSwizzle: Offset_ must be >= 1");
  static_assert(Direction_ == kSwizzleZn || Direction_ == kSwizzleNz,
                "GemmIdentityBlockSwizzle: Direction_ must be kSwizzleZn (0) or kSwizzleNz (1)");
  static constexpr uint32_t Offset = Offset_;
  static constexpr uint32_t Direction = Direction_;

  GemmCoord problem;
  MatrixCoord tile;   // block extent in elements (rows of C, columns of C)
  MatrixCoord loops;  // blocks along M and N

  constexpr GemmIdentityBlockSwizzle() = default;
  // Precondition: tile.row and tile.column > 0.
  constexpr GemmIdentityBlockSwizzle(const GemmCoord& problem_shape, const MatrixCoord& tile_mn)
      : problem(problem_shape),
        tile(tile_mn),
        loops{CeilDiv(problem_shape.m, tile_mn.row), CeilDiv(problem_shape.n, tile_mn.column)} {}

  // Blocks of one matrix product.
  constexpr uint32_t GetCoreLoops() const { return loops.row * loops.column; }

  // Block (row, column) of task `task` (taken modulo GetCoreLoops(), so batched kernels pass the
  // flat task index).
  constexpr MatrixCoord GetBlockCoord(uint32_t task) const {
    const uint32_t loops_total = GetCoreLoops();
    const uint32_t idx = loops_total == 0 ? 0 : task % loops_total;
    const uint32_t major = Direction == kSwizzleZn ? loops.row : loops.column;
    const uint32_t minor = Direction == kSwizzleZn ? loops.column : loops.row;
    const uint32_t band = idx / (Offset * minor);
    const uint32_t in_band = idx % (Offset * minor);
    const uint32_t bands = CeilDiv(major, Offset);
    const uint32_t width = band + 1 == bands ? major - Offset * band : Offset;
    const uint32_t major_idx = band * Offset + in_band % width;
    uint32_t minor_idx = in_band / width;
    if (band % 2 == 1) minor_idx = minor - minor_idx - 1;
    return Direction == kSwizzleZn ? MatrixCoord{major_idx, minor_idx}
                                   : MatrixCoord{minor_idx, major_idx};
  }

  // Elements of the block at `coord`: the last block-row/column is trimmed; K is always whole.
  constexpr GemmCoord GetActualBlockShape(const MatrixCoord& coord) const {
    const uint32_t m0 = coord.row * tile.row;
    const uint32_t n0 = coord.column * tile.column;
    return GemmCoord{m0 < problem.m ? std::min(tile.row, problem.m - m0) : 0,
                     n0 < problem.n ? std::min(tile.column, problem.n - n0) : 0, problem.k};
  }
};

}  // namespace tessera::gemm::block

// The C block extent a kernel runs with, chosen on the host.
#pragma once

#include <cstdint>

#include "tessera/gemm/gemm_coord.h"

namespace tessera::gemm::kernel {

// The block is the L1 tile (l1_m x l1_n), except that a column-major A never gets a block of one
// row unless M is 1: Mmad reads a 1-row A as a plain vector (GEMV), which a transposed A cannot be
// loaded as, so the block height drops by 16 until the last block has 0 or >= 2 rows.
constexpr MatrixCoord BlockTileFor(const GemmCoord& problem, uint32_t l1_m, uint32_t l1_n,
                                   bool column_major_a) {
  uint32_t rows = l1_m;
  if (column_major_a && problem.m > 1) {
    while (rows > 16 && problem.m % rows == 1)
      rows -= 16;
  }
  return MatrixCoord{rows, l1_n};
}

}  // namespace tessera::gemm::kernel

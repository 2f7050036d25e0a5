// GemmIdentityBlockSwizzle: every task maps to a distinct block, bands hold Offset block-rows
// (columns), odd bands walk backwards, and the actual block shapes trim the last row/column.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "tessera/gemm/block/block_swizzle.h"
#include "tessera/gemm/kernel/block_tile.h"

namespace tessera::gemm {
namespace {

template <uint32_t Offset, uint32_t Direction>
void CheckBijection(uint32_t m, uint32_t n, uint32_t tm, uint32_t tn) {
  const block::GemmIdentityBlockSwizzle<Offset, Direction> s(GemmCoord{m, n, 7},
                                                             MatrixCoord{tm, tn});
  const uint32_t rows = CeilDiv(m, tm), cols = CeilDiv(n, tn);
  ASSERT_EQ(s.GetCoreLoops(), rows * cols);
  std::set<std::pair<uint32_t, uint32_t>> seen;
  uint64_t covered = 0;
  for (uint32_t t = 0; t < s.GetCoreLoops(); ++t) {
    const MatrixCoord c = s.GetBlockCoord(t);
    ASSERT_LT(c.row, rows) << "task " << t;
    ASSERT_LT(c.column, cols) << "task " << t;
    EXPECT_TRUE(seen.insert({c.row, c.column}).second) << "task " << t << " repeats a block";
    const GemmCoord a = s.GetActualBlockShape(c);
    EXPECT_EQ(a.k, 7u);
    EXPECT_EQ(a.m, std::min(tm, m - c.row * tm));
    EXPECT_EQ(a.n, std::min(tn, n - c.column * tn));
    covered += uint64_t{a.m} * a.n;
    // A task index past one product wraps onto the same block (batched kernels).
    EXPECT_EQ(s.GetBlockCoord(t + s.GetCoreLoops()), c);
  }
  EXPECT_EQ(covered, uint64_t{m} * n) << "blocks must tile C exactly";
}

TEST(GemmSwizzle, EveryTaskIsADistinctBlock) {
  const uint32_t sizes[] = {1, 15, 16, 17, 255, 1000, 4097};
  for (uint32_t m : sizes) {
    for (uint32_t n : sizes) {
      CheckBijection<1, kSwizzleZn>(m, n, 128, 256);
      CheckBijection<3, kSwizzleZn>(m, n, 128, 256);
      CheckBijection<3, kSwizzleNz>(m, n, 128, 256);
      CheckBijection<4, kSwizzleZn>(m, n, 16, 32);
      CheckBijection<5, kSwizzleNz>(m, n, 32, 16);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(GemmSwizzle, BandsAreSerpentine) {
  // 7 block-rows x 5 block-columns, bands of 3 rows: band 0 walks N forwards, band 1 backwards,
  // band 2 (one row) forwards; inside a band the rows change fastest.
  const block::GemmIdentityBlockSwizzle<3, kSwizzleZn> s(GemmCoord{7 * 16, 5 * 16, 1},
                                                         MatrixCoord{16, 16});
  EXPECT_EQ(s.GetBlockCoord(0), (MatrixCoord{0, 0}));
  EXPECT_EQ(s.GetBlockCoord(1), (MatrixCoord{1, 0}));
  EXPECT_EQ(s.GetBlockCoord(2), (MatrixCoord{2, 0}));
  EXPECT_EQ(s.GetBlockCoord(3), (MatrixCoord{0, 1}));
  EXPECT_EQ(s.GetBlockCoord(14), (MatrixCoord{2, 4}));
  EXPECT_EQ(s.GetBlockCoord(15), (MatrixCoord{3, 4}));  // band 1 starts at the far end
  EXPECT_EQ(s.GetBlockCoord(18), (MatrixCoord{3, 3}));
  EXPECT_EQ(s.GetBlockCoord(30), (MatrixCoord{6, 0}));  // band 2: a single row, forwards
  EXPECT_EQ(s.GetBlockCoord(34), (MatrixCoord{6, 4}));
  // Direction Nz is the transpose.
  const block::GemmIdentityBlockSwizzle<3, kSwizzleNz> t(GemmCoord{5 * 16, 7 * 16, 1},
                                                         MatrixCoord{16, 16});
  for (uint32_t i = 0; i < 35; ++i) {
    const MatrixCoord a = s.GetBlockCoord(i), b = t.GetBlockCoord(i);
    EXPECT_EQ(a.row, b.column);
    EXPECT_EQ(a.column, b.row);
  }
}

TEST(GemmSwizzle, ConsecutiveTasksAreNeighbours) {
  // Serpentine order: consecutive tasks differ by one step in one direction (except when a band
  // of Offset rows wraps to its next column, where the row jumps back by Offset - 1).
  const block::GemmIdentityBlockSwizzle<1, kSwizzleZn> s(GemmCoord{1000, 4097, 3},
                                                         MatrixCoord{128, 256});
  for (uint32_t t = 1; t < s.GetCoreLoops(); ++t) {
    const MatrixCoord a = s.GetBlockCoord(t - 1), b = s.GetBlockCoord(t);
    const int dr = static_cast<int>(b.row) - static_cast<int>(a.row);
    const int dc = static_cast<int>(b.column) - static_cast<int>(a.column);
    EXPECT_EQ(std::abs(dr) + std::abs(dc), 1) << "task " << t;
  }
}

TEST(GemmBlockTile, ColumnMajorANeverGetsAOneRowBlock) {
  for (uint32_t m : {1u, 2u, 129u, 257u, 4097u, 1000u}) {
    const MatrixCoord t = kernel::BlockTileFor(GemmCoord{m, 5, 5}, 128, 256, true);
    EXPECT_EQ(t.column, 256u);
    EXPECT_GE(t.row, 16u);
    if (m > 1) {
      EXPECT_NE(m % t.row, 1u) << "M " << m;
    }
    EXPECT_EQ(kernel::BlockTileFor(GemmCoord{m, 5, 5}, 128, 256, false).row, 128u);
  }
  EXPECT_EQ(kernel::BlockTileFor(GemmCoord{129, 5, 5}, 128, 256, true).row, 112u);
}

}  // namespace
}  // namespace tessera::gemm

// Kernel layer: BasicMatmul - every AIC block of a cube launch computes a contiguous range of C
// blocks (the seed's contiguous task split over the swizzled block order of all batches) with one
// BlockMmad. Stateless: operator()(params) runs on each block.
#pragma once

#include <cstdint>
#include <string>

#include "tessera/core/status.h"
#include "tessera/gemm/gemm_coord.h"
#include "tessera/gemm/kernel/batch.h"
#include "tessera/kernel/kernel.h"
#include "tessera/tiling/split.h"

namespace tessera::gemm::kernel {

// The blocks of the whole launch, in swizzle order, batch after batch.
template <class BlockScheduler>
struct TaskSpace {
  BlockScheduler scheduler;
  uint64_t batches = 1;

  uint64_t Tasks() const { return uint64_t{scheduler.GetCoreLoops()} * batches; }
  // This block's tasks: ceil(tasks / blocks) each, the last ones shorter or empty.
  static tiling::Range RangeFor(uint64_t tasks, uint32_t block, uint32_t blocks) {
    Result<tiling::ContiguousSplit> split =
        tiling::ContiguousSplit::Create(static_cast<int64_t>(tasks), blocks);
    return split.ok() ? split->RangeOf(block) : tiling::Range{};
  }
};

// Pointers, pitches and shape of one (batched) product C = A * B.
template <class ElementA, class ElementB, class ElementC>
struct GemmParams {
  GemmCoord problem;  // M, N, K of each batch
  MatrixCoord tile;   // C block extent (<= the L1 tile's M and N)
  BatchLayout batch;  // rank 0: one product
  const ElementA* a = nullptr;
  uint64_t lda = 0;  // row pitch of A as stored (row-major [M, K]: K; column-major [K, M]: M)
  const ElementB* b = nullptr;
  uint64_t ldb = 0;
  ElementC* c = nullptr;  // dense [batch..., M, N] unless ldc says otherwise
  uint64_t ldc = 0;
};

template <class BlockMmad_, class BlockScheduler_>
struct BasicMatmul {
  using BlockMmad = BlockMmad_;
  using BlockScheduler = BlockScheduler_;
  using ElementA = typename BlockMmad::ElementA;
  using ElementB = typename BlockMmad::ElementB;
  using ElementC = typename BlockMmad::ElementC;
  using Params = GemmParams<ElementA, ElementB, ElementC>;

  static constexpr bool kColumnMajorA = BlockMmad::kColumnMajorA;
  static constexpr bool kRowMajorB = BlockMmad::kRowMajorB;

  // Where block `coord` of batch `batch` starts in A, B and C.
  struct BlockOffsets {
    uint64_t a = 0, b = 0, c = 0;
  };
  static BlockOffsets Offsets(const Params& p, uint64_t batch, const MatrixCoord& coord) {
    uint64_t a = 0, b = 0;
    p.batch.Offsets(batch, a, b);
    const uint64_t m0 = uint64_t{coord.row} * p.tile.row;
    const uint64_t n0 = uint64_t{coord.column} * p.tile.column;
    BlockOffsets o;
    o.a = a + (kColumnMajorA ? m0 : m0 * p.lda);
    o.b = b + (kRowMajorB ? n0 : n0 * p.ldb);
    o.c = batch * uint64_t{p.problem.m} * p.ldc + m0 * p.ldc + n0;
    return o;
  }

  // Device: the calling AIC's blocks.
  void operator()(const Params& p) const {
    const BlockScheduler sched(p.problem, p.tile);
    const TaskSpace<BlockScheduler> space{sched, p.batch.Count()};
    const tiling::Range range = space.RangeFor(space.Tasks(), ::tessera::kernel::GetBlockIdx(),
                                               ::tessera::kernel::GetBlockNum());
    if (range.empty()) return;
    ::tessera::kernel::GlobalTensor<ElementA> ga;
    ::tessera::kernel::GlobalTensor<ElementB> gb;
    ::tessera::kernel::GlobalTensor<ElementC> gc;
    ga.SetGlobalBuffer(const_cast<ElementA*>(p.a));
    gb.SetGlobalBuffer(const_cast<ElementB*>(p.b));
    gc.SetGlobalBuffer(p.c);
    ::tessera::kernel::TPipe pipe;
    BlockMmad mmad(pipe);
    const uint64_t loops = sched.GetCoreLoops();
    for (int64_t t = range.begin; t < range.end; ++t) {
      const uint64_t batch = static_cast<uint64_t>(t) / loops;
      const MatrixCoord coord = sched.GetBlockCoord(static_cast<uint32_t>(t % loops));
      const GemmCoord shape = sched.GetActualBlockShape(coord);
      const BlockOffsets o = Offsets(p, batch, coord);
      mmad(ga[o.a], p.lda, gb[o.b], p.ldb, gc[o.c], p.ldc, shape, static_cast<uint64_t>(t));
    }
  }
};

}  // namespace tessera::gemm::kernel

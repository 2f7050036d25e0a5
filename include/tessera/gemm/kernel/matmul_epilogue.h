// Kernel layer: MatmulEpilogue - a MIX kernel (1 AIC + 2 AIV per group). The AIC of each group
// computes its C blocks (the contiguous split of BasicMatmul) into a ring of Stages_ workspace
// slots in GM and raises a cross-core flag per block; both AIVs of the group wait for it, run the
// block epilogue on their rows (ceil(rows/2) / rest) and raise a flag back that frees the slot.
// A slot is rewritten only after both AIVs freed it: the AIVs meet (a mode-1 flag) after each
// block before either frees the slot, so the AIC's wait on two sets of the free flag means both
// AIVs are done with that block whether the two sets are counted per AIV or together; flag
// counters stay <= Stages_ (the NPU limit is 15). Workspace: GetWorkspaceSize(groups).
#pragma once

#include <cstdint>

#include "tessera/device/block.h"
#include "tessera/gemm/epilogue/block_epilogue.h"
#include "tessera/gemm/gemm_coord.h"
#include "tessera/gemm/kernel/basic_matmul.h"
#include "tessera/kernel/kernel.h"
#include "tessera/tiling/split.h"

namespace tessera::gemm::kernel {

// Cross-core flag ids of the hand-off (the high-level Matmul API uses 0..7).
inline constexpr uint32_t kFlagBlockReady = 8;  // AIC -> both AIVs (mode 2)
inline constexpr uint32_t kFlagSlotFree = 9;    // AIVs -> AIC (mode 2)
inline constexpr uint32_t kFlagPairDone = 10;   // between the two AIVs (mode 1)

template <class BlockMmad_, class BlockEpilogue_, class BlockScheduler_, uint32_t Stages_ = 2>
struct MatmulEpilogue {
  using BlockMmad = BlockMmad_;
  using BlockEpilogue = BlockEpilogue_;
  using BlockScheduler = BlockScheduler_;
  using ElementA = typename BlockMmad::ElementA;
  using ElementB = typename BlockMmad::ElementB;
  using ElementAccumulator = typename BlockMmad::ElementAccumulator;
  using ElementD = typename BlockEpilogue::ElementD;
  static_assert(std::is_same_v<typename BlockMmad::ElementC, ElementAccumulator>,
                "MatmulEpilogue: the BlockMmad must write the accumulator type to the workspace");
  static_assert(std::is_same_v<typename BlockEpilogue::ElementAcc, ElementAccumulator>,
                "MatmulEpilogue: the epilogue must read the BlockMmad's accumulator type");
  static constexpr uint32_t kStages = Stages_;
  static_assert(Stages_ >= 1 && Stages_ <= 15, "MatmulEpilogue: Stages_ must be 1..15");
  using Basic = BasicMatmul<BlockMmad, BlockScheduler>;
  static constexpr uint32_t kSlotElems = BlockMmad::kL1M * BlockMmad::kL1N;

  struct Params {
    GemmParams<ElementA, ElementB, ElementD> gemm;  // c, ldc: the output D
    epilogue::EpilogueParams epilogue;
    ElementAccumulator* workspace = nullptr;  // GetWorkspaceSize(groups) bytes
    uint32_t chunk_rows = 0;                  // BlockEpilogue::ChunkRows for the profile's UB
  };

  static uint64_t GetWorkspaceSize(uint32_t groups) {
    return uint64_t{groups} * kStages * kSlotElems * sizeof(ElementAccumulator);
  }

  // Device: runs on the AIC and on both AIVs of every group.
  void operator()(const Params& p) const {
    namespace k = ::tessera::kernel;
    const bool aic = ::tessera::device::GetCoreType() == ::tessera::device::CoreType::kAic;
    const uint32_t group = aic ? k::GetBlockIdx() : k::GetBlockIdx() / k::GetSubBlockNum();
    const BlockScheduler sched(p.gemm.problem, p.gemm.tile);
    const TaskSpace<BlockScheduler> space{sched, p.gemm.batch.Count()};
    const tiling::Range range = space.RangeFor(space.Tasks(), group, k::GetBlockNum());
    if (range.empty()) return;
    k::GlobalTensor<ElementAccumulator> ws;
    ws.SetGlobalBuffer(p.workspace + uint64_t{group} * kStages * kSlotElems,
                       uint64_t{kStages} * kSlotElems);
    constexpr uint64_t kLdw = BlockMmad::kL1N;
    const uint64_t loops = sched.GetCoreLoops();
    const auto count = static_cast<uint32_t>(range.size());
    constexpr auto kMode = ::tessera::device::CrossCoreMode::kGroupCubeVector;
    k::TPipe pipe;
    if (aic) {
      k::GlobalTensor<ElementA> ga;
      k::GlobalTensor<ElementB> gb;
      ga.SetGlobalBuffer(const_cast<ElementA*>(p.gemm.a));
      gb.SetGlobalBuffer(const_cast<ElementB*>(p.gemm.b));
      BlockMmad mmad(pipe);
      typename Basic::Params bp;
      bp.problem = p.gemm.problem;
      bp.tile = p.gemm.tile;
      bp.batch = p.gemm.batch;
      bp.lda = p.gemm.lda;
      bp.ldb = p.gemm.ldb;
      bp.ldc = p.gemm.ldc;
      for (uint32_t j = 0; j < count; ++j) {
        const uint64_t t = static_cast<uint64_t>(range.begin) + j;
        const MatrixCoord coord = sched.GetBlockCoord(static_cast<uint32_t>(t % loops));
        const GemmCoord shape = sched.GetActualBlockShape(coord);
        const auto o = Basic::Offsets(bp, t / loops, coord);
        if (j >= kStages) ::tessera::device::CrossCoreWaitFlag(kMode, kFlagSlotFree);
        mmad(ga[o.a], p.gemm.lda, gb[o.b], p.gemm.ldb, ws[(j % kStages) * kSlotElems], kLdw, shape,
             t);
        ::tessera::device::CrossCoreSetFlag(kMode, kFlagBlockReady);
      }
      // Every free-flag the AIVs raise is consumed before the kernel ends.
      for (uint32_t j = count > kStages ? count - kStages : 0; j < count; ++j)
        ::tessera::device::CrossCoreWaitFlag(kMode, kFlagSlotFree);
      return;
    }
    k::GlobalTensor<ElementD> gd;
    gd.SetGlobalBuffer(p.gemm.c);
    BlockEpilogue epi(pipe, BlockMmad::kL1N, p.chunk_rows);
    const Result<tiling::MixSplit> mix = tiling::MixSplit::Create(k::GetSubBlockNum());
    for (uint32_t j = 0; j < count; ++j) {
      const uint64_t t = static_cast<uint64_t>(range.begin) + j;
      const uint64_t batch = t / loops;
      const MatrixCoord coord = sched.GetBlockCoord(static_cast<uint32_t>(t % loops));
      const GemmCoord shape = sched.GetActualBlockShape(coord);
      const uint64_t m0 = uint64_t{coord.row} * p.gemm.tile.row;
      const uint64_t n0 = uint64_t{coord.column} * p.gemm.tile.column;
      const uint64_t d0 = batch * uint64_t{p.gemm.problem.m} * p.gemm.ldc + m0 * p.gemm.ldc + n0;
      const tiling::Range rows =
          mix.ok() ? mix->SubBlockRows(shape.m, k::GetSubBlockIdx()) : tiling::Range{0, shape.m};
      ::tessera::device::CrossCoreWaitFlag(kMode, kFlagBlockReady);
      epi(p.epilogue, ws[(j % kStages) * kSlotElems], kLdw, gd[d0], p.gemm.ldc,
          static_cast<uint32_t>(rows.begin), static_cast<uint32_t>(rows.end), shape.n, m0, n0,
          batch);
      ::tessera::device::CrossCoreSetFlag(::tessera::device::CrossCoreMode::kGroupVector,
                                          kFlagPairDone);
      ::tessera::device::CrossCoreWaitFlag(::tessera::device::CrossCoreMode::kGroupVector,
                                           kFlagPairDone);
      ::tessera::device::CrossCoreSetFlag(kMode, kFlagSlotFree);
    }
  }
};

}  // namespace tessera::gemm::kernel

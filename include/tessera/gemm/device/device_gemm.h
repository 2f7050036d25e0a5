// Device layer: DeviceGemm<Kernel> - the host handle that validates a product, plans it and
// launches the kernel (BasicMatmul: a cube launch; MatmulEpilogue: a MIX launch) on a stream.
//
// Lifecycle (CATLASS's DeviceGemm / CUTLASS 3; every step returns a Status with a reason):
//   DeviceGemm<Kernel> op;
//   TESSERA_RETURN_IF_ERROR(op.can_implement(args));
//   TESSERA_ASSIGN_OR_RETURN(uint64_t ws_bytes, op.get_workspace_size(args));
//   TESSERA_RETURN_IF_ERROR(op.initialize(args, workspace));  // device memory of ws_bytes
//   TESSERA_RETURN_IF_ERROR(op.run(stream));                   // asynchronous
// initialize() may be called again with other arguments; run() launches the last plan.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/core/status.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tessera/device/stream.h"
#include "tessera/gemm/epilogue/block_epilogue.h"
#include "tessera/gemm/kernel/basic_matmul.h"
#include "tessera/gemm/kernel/block_tile.h"
#include "tessera/gemm/kernel/matmul_epilogue.h"

namespace tessera::gemm::device {

template <class Kernel>
inline constexpr bool kIsMixKernel = requires {
  typename Kernel::BlockEpilogue;
};

// What the kernel writes to the output: the epilogue's D, else the BlockMmad's C.
template <class Kernel, bool kMix = kIsMixKernel<Kernel>>
struct OutputOf {
  using type = typename Kernel::BlockMmad::ElementC;
};
template <class Kernel>
struct OutputOf<Kernel, true> {
  using type = typename Kernel::ElementD;
};

template <class Kernel_>
class DeviceGemm {
 public:
  using Kernel = Kernel_;
  using BlockMmad = typename Kernel::BlockMmad;
  using ElementA = typename BlockMmad::ElementA;
  using ElementB = typename BlockMmad::ElementB;
  static constexpr bool kMix = kIsMixKernel<Kernel>;
  using ElementD = typename OutputOf<Kernel>::type;
  using ElementAccumulator = typename BlockMmad::ElementAccumulator;

  struct Arguments {
    GemmCoord problem;            // M, N, K (each >= 1)
    kernel::BatchLayout batch;    // rank 0: one product
    const ElementA* a = nullptr;  // device memory
    uint64_t lda = 0;             // 0: dense (K for row-major A, M for column-major)
    const ElementB* b = nullptr;
    uint64_t ldb = 0;  // 0: dense (N for row-major B, K for column-major)
    ElementD* d = nullptr;
    uint64_t ldd = 0;                   // 0: N
    epilogue::EpilogueParams epilogue;  // MIX kernels only
    uint32_t block_num = 0;             // groups / AICs to launch; 0: the profile's AIC cores
  };

  // OK when `args` can run on the active profile; else the first reason it cannot.
  static Status can_implement(const Arguments& args) {
    const GemmCoord& s = args.problem;
    if (s.m == 0 || s.n == 0 || s.k == 0) {
      return InvalidArgument("DeviceGemm: M, N and K must be >= 1, got " + std::to_string(s.m) +
                             ", " + std::to_string(s.n) + ", " + std::to_string(s.k));
    }
    if (args.a == nullptr || args.b == nullptr || args.d == nullptr) {
      return InvalidArgument(std::string("DeviceGemm: ") +
                             (args.a == nullptr   ? "A"
                              : args.b == nullptr ? "B"
                                                  : "D") +
                             " is null");
    }
    const uint64_t lda_min = BlockMmad::kColumnMajorA ? s.m : s.k;
    const uint64_t ldb_min = BlockMmad::kRowMajorB ? s.n : s.k;
    if (args.lda != 0 && args.lda < lda_min) return Pitch("lda", args.lda, lda_min);
    if (args.ldb != 0 && args.ldb < ldb_min) return Pitch("ldb", args.ldb, ldb_min);
    if (args.ldd != 0 && args.ldd < s.n) return Pitch("ldd", args.ldd, s.n);
    if (BlockMmad::kColumnMajorA && s.m == 1 && args.lda > 1) {
      return InvalidArgument(
          "DeviceGemm: a column-major A with M == 1 must be contiguous (lda 1), "
          "got lda " +
          std::to_string(args.lda));
    }
    if (args.batch.rank > kernel::BatchLayout::kMaxBatchDims) {
      return InvalidArgument("DeviceGemm: batch rank " + std::to_string(args.batch.rank) +
                             " exceeds " + std::to_string(kernel::BatchLayout::kMaxBatchDims));
    }
    for (uint32_t i = 0; i < args.batch.rank; ++i) {
      if (args.batch.dims[i] == 0) {
        return InvalidArgument("DeviceGemm: batch dimension " + std::to_string(i) + " is 0");
      }
    }
    const auto& arch = ::tessera::device::CurrentArch();
    TESSERA_RETURN_IF_ERROR(BlockMmad::can_implement(arch));
    if constexpr (kMix) {
      const auto& e = args.epilogue;
      if constexpr (std::is_same_v<ElementAccumulator, int32_t>) {
        if (e.act != epilogue::Activation::kNone && e.act != epilogue::Activation::kRelu) {
          return InvalidArgument(
              "DeviceGemm: int8 products support the activations none and relu only");
        }
      }
      if (e.x_mode != epilogue::Broadcast::kNone && e.x == nullptr) {
        return InvalidArgument("DeviceGemm: the epilogue's residual X is null");
      }
      if (e.x_mode == epilogue::Broadcast::kFull && e.ldx < s.n) {
        return Pitch("ldx", e.ldx, s.n);
      }
      if (ChunkRows(arch) == 0) {
        return OutOfRange("DeviceGemm: the epilogue's buffers for " +
                          std::to_string(BlockMmad::kL1N) + "-column blocks exceed the " +
                          std::to_string(arch.ub_bytes) + "-byte UB of profile " + arch.name);
      }
    }
    return OkStatus();
  }

  // Bytes of device workspace run() needs (MIX: the hand-off slots of every group).
  static Result<uint64_t> get_workspace_size(const Arguments& args) {
    TESSERA_RETURN_IF_ERROR(can_implement(args));
    if constexpr (kMix) {
      return Kernel::GetWorkspaceSize(BlockNum(args));
    } else {
      return uint64_t{0};
    }
  }

  // Plans `args` with `workspace` (device memory of get_workspace_size bytes; may be null when
  // that is 0).
  Status initialize(const Arguments& args, void* workspace) {
    TESSERA_RETURN_IF_ERROR(can_implement(args));
    TESSERA_ASSIGN_OR_RETURN(const uint64_t need, get_workspace_size(args));
    if (need > 0 && workspace == nullptr) {
      return InvalidArgument("DeviceGemm: the kernel needs " + std::to_string(need) +
                             " bytes of workspace; got null");
    }
    kernel::GemmParams<ElementA, ElementB, ElementD> g;
    g.problem = args.problem;
    g.tile = kernel::BlockTileFor(args.problem, BlockMmad::kL1M, BlockMmad::kL1N,
                                  BlockMmad::kColumnMajorA);
    g.batch = args.batch;
    g.a = args.a;
    g.b = args.b;
    g.c = args.d;
    g.lda = args.lda != 0 ? args.lda : BlockMmad::kColumnMajorA ? args.problem.m : args.problem.k;
    g.ldb = args.ldb != 0 ? args.ldb : BlockMmad::kRowMajorB ? args.problem.n : args.problem.k;
    g.ldc = args.ldd != 0 ? args.ldd : args.problem.n;
    block_num_ = BlockNum(args);
    if constexpr (kMix) {
      params_.gemm = g;
      params_.epilogue = args.epilogue;
      params_.workspace = static_cast<ElementAccumulator*>(workspace);
      params_.chunk_rows = ChunkRows(::tessera::device::CurrentArch());
    } else {
      params_ = g;
    }
    initialized_ = true;
    return OkStatus();
  }

  // Launches the planned product on `stream`.
  Status run(const ::tessera::device::Stream& stream = {}) const {
    if (!initialized_) return FailedPrecondition("DeviceGemm: run() before initialize()");
    return ::tessera::device::Launch(
        ::tessera::device::LaunchConfig{
            block_num_,
            kMix ? ::tessera::device::KernelType::kMix : ::tessera::device::KernelType::kAic,
            kMix ? "gemm_matmul_epilogue" : "gemm_basic_matmul"},
        &Entry, stream, params_);
  }

  uint32_t block_num() const { return block_num_; }

  using Params = typename Kernel::Params;
  const Params& params() const { return params_; }

  static void Entry(Params p) { Kernel{}(p); }

 private:
  static Status Pitch(const char* name, uint64_t got, uint64_t min) {
    return InvalidArgument("DeviceGemm: " + std::string(name) + " " + std::to_string(got) +
                           " is below the row length " + std::to_string(min));
  }
  // Groups (MIX) or AICs: the requested number, else the profile's AIC cores, at most one per C
  // block.
  static uint32_t BlockNum(const Arguments& args) {
    const auto& arch = ::tessera::device::CurrentArch();
    const MatrixCoord tile = kernel::BlockTileFor(args.problem, BlockMmad::kL1M, BlockMmad::kL1N,
                                                  BlockMmad::kColumnMajorA);
    const uint64_t blocks = uint64_t{CeilDiv(args.problem.m, tile.row)} *
                            CeilDiv(args.problem.n, tile.column) * args.batch.Count();
    const uint64_t want = args.block_num != 0 ? args.block_num : std::max(1u, arch.aic_cores);
    return static_cast<uint32_t>(std::clamp<uint64_t>(std::min(want, blocks), 1, 65535));
  }
  static uint32_t ChunkRows(const ::tessera::device::ArchSpec& arch) {
    if constexpr (kMix) {
      return Kernel::BlockEpilogue::ChunkRows(BlockMmad::kL1N, arch.ub_bytes);
    } else {
      return 0;
    }
  }

  Params params_{};
  uint32_t block_num_ = 1;
  bool initialized_ = false;
};

}  // namespace tessera::gemm::device

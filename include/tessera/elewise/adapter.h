// Device layer: DeviceAdapter<KernelOp> - the stateful host handle that validates arguments,
// plans tiles, splits work over blocks and launches the kernel on a stream.
//
// Lifecycle (CUTLASS-style, every step returns a Status):
//   can_implement(args)            static: OK, or the first reason `args` cannot run
//   get_workspace_size(args)       static: bytes of device workspace initialize needs
//   initialize(args, workspace)    plans once: resolves the problem, sizes the tiles, runs the
//                                  schedule's host half and binds tensors and workspace
//   run(stream)                    enqueues the planned kernel; plans nothing, any number of times
// run(args, stream) is initialize with the adapter's own workspace followed by run(stream): it
// plans on every call (for one-off calls). Keep one adapter per stream when calls may overlap.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "tessera/core/status.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tessera/device/stream.h"
#include "tessera/elewise/arguments.h"
#include "tessera/elewise/detail/problem.h"
#include "tessera/elewise/grid.h"

namespace tessera::elewise::adapter {

template <class KernelOp_>
class DeviceAdapter {
 public:
  using KernelOp = KernelOp_;
  using BlockOp = typename KernelOp::BlockOp;
  using Schedule = typename KernelOp::Schedule;
  using Config = typename KernelOp::Config;

  DeviceAdapter() = default;
  DeviceAdapter(const DeviceAdapter&) = delete;
  DeviceAdapter& operator=(const DeviceAdapter&) = delete;
  ~DeviceAdapter() {
    if (own_workspace_ != nullptr) (void)::tessera::device::Free(own_workspace_);
  }

  // The tile program this operator runs (for registries and reports).
  static constexpr tile::ProgramView Program() { return BlockOp::Program(); }

  // OK when `args` can run on the active profile; otherwise the first reason it cannot.
  static Status can_implement(const Arguments& args) { return MakePlan(args).status(); }

  // Bytes of device workspace initialize(args, ...) needs (0 when spills fit in UB).
  static Result<uint64_t> get_workspace_size(const Arguments& args) {
    TESSERA_ASSIGN_OR_RETURN(Plan p, MakePlan(args));
    return p.workspace_bytes;
  }

  // Plans `args` (device pointers) once and keeps the plan for run(). `workspace` is device
  // memory of at least get_workspace_size(args) bytes (null when that is 0) that outlives every
  // run of this plan. Replaces an earlier plan; on failure the adapter holds none.
  Status initialize(const Arguments& args, void* workspace) {
    params_.reset();
    TESSERA_ASSIGN_OR_RETURN(Plan p, MakePlan(args));
    if (p.workspace_bytes > 0 && workspace == nullptr) {
      return InvalidArgument("elewise: the operator needs " + std::to_string(p.workspace_bytes) +
                             " bytes of workspace (get_workspace_size), got none");
    }
    Bind(std::move(p), workspace);
    return OkStatus();
  }

  // Enqueues the planned kernel on `stream`. Nothing is planned or validated again; kernel-side
  // failures surface on the stream (Synchronize). FailedPrecondition before initialize succeeded.
  Status run(const ::tessera::device::Stream& stream = {}) const {
    if (!params_) {
      return FailedPrecondition("elewise: run(stream) before a successful initialize(args, ...)");
    }
    return ::tessera::device::Launch(
        ::tessera::device::LaunchConfig{block_num_, ::tessera::device::KernelType::kAiv, "elewise"},
        &KernelOp::Kernel, stream, *params_);
  }

  // One-off call: plans `args` with the adapter's own workspace (grown when needed, freed with
  // the adapter), then run(stream). Nothing is launched when a check fails.
  Status run(const Arguments& args, const ::tessera::device::Stream& stream = {}) {
    params_.reset();
    TESSERA_ASSIGN_OR_RETURN(Plan p, MakePlan(args));
    if (p.workspace_bytes > own_workspace_bytes_) {
      if (own_workspace_ != nullptr) {
        TESSERA_RETURN_IF_ERROR(::tessera::device::Free(own_workspace_));
      }
      own_workspace_ = nullptr;
      own_workspace_bytes_ = 0;
      TESSERA_ASSIGN_OR_RETURN(own_workspace_, ::tessera::device::Malloc(p.workspace_bytes));
      own_workspace_bytes_ = p.workspace_bytes;
    }
    Bind(std::move(p), own_workspace_);
    return run(stream);
  }

  // The kernel's parameters of the current plan (null before initialize): what every run
  // launches.
  const typename KernelOp::Params* params() const { return params_ ? &*params_ : nullptr; }

 private:
  // Everything planned from one set of arguments.
  struct Plan {
    Problem problem;
    TilePlan tiles;
    Config config;
    uint32_t block_num = 0;
    uint64_t workspace_bytes = 0;
  };

  static Result<Plan> MakePlan(const Arguments& args) {
    const auto& arch = ::tessera::device::CurrentArch();
    TESSERA_ASSIGN_OR_RETURN(Problem problem, ResolveProblem(Program(), args));
    typename BlockOp::Arguments block{std::move(problem), arch.ub_bytes};
    TESSERA_ASSIGN_OR_RETURN(TilePlan tiles, BlockOp::plan(block));
    Plan p{std::move(block.problem), tiles, Config{}, 0, 0};
    const grid::ScheduleArguments sargs{p.problem, args.attrs, arch.aiv_cores};
    TESSERA_RETURN_IF_ERROR(Schedule::MakeScheduleConfig(sargs, p.config));
    p.block_num = Schedule::BlockNum(p.config);
    if (p.block_num == 0 || p.block_num > ::tessera::device::kMaxBlockDim) {
      return InvalidArgument("elewise: the schedule asked for " + std::to_string(p.block_num) +
                             " blocks; it must be 1.." +
                             std::to_string(::tessera::device::kMaxBlockDim));
    }
    p.workspace_bytes = BlockOp::get_workspace_size(p.tiles, p.block_num);
    return p;
  }

  void Bind(Plan p, void* workspace) {
    block_num_ = p.block_num;
    params_.emplace(typename KernelOp::Params{
        BlockOp::to_params(std::move(p.problem), p.tiles, workspace), p.config});
  }

  std::optional<typename KernelOp::Params> params_;
  uint32_t block_num_ = 0;
  void* own_workspace_ = nullptr;
  uint64_t own_workspace_bytes_ = 0;
};

}  // namespace tessera::elewise::adapter

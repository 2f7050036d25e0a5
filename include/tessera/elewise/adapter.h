// Device layer: DeviceAdapter<KernelOp> - the stateful host handle that validates arguments,
// plans tiles, splits work over blocks and launches the kernel on a stream.
//
// Lifecycle (CUTLASS-style, every step returns a Status): can_implement(args) ->
// get_workspace_size(args) -> Run(args, stream). Run owns a workspace that grows as needed and is
// freed with the adapter; keep one adapter per stream when calls may overlap.
#pragma once

#include <cstdint>

#include "tessera/core/status.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tessera/device/stream.h"
#include "tessera/elewise/arguments.h"
#include "tessera/elewise/grid.h"
#include "tessera/elewise/detail/problem.h"

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
    if (workspace_ != nullptr) (void)::tessera::device::Free(workspace_);
  }

  // The tile program this operator runs (for registries and reports).
  static constexpr tile::ProgramView Program() { return BlockOp::Program(); }

  // OK when `args` can run on the active profile; otherwise the first reason it cannot.
  static Status can_implement(const Arguments& args) { return Prepare(args).status(); }

  // Bytes of global workspace Run needs for `args` (0 when spills fit in UB).
  static Result<uint64_t> get_workspace_size(const Arguments& args) {
    TESSERA_ASSIGN_OR_RETURN(Prepared p, Prepare(args));
    return p.workspace_bytes;
  }

  // Validates `args` (device pointers), then enqueues the kernel on `stream`. Nothing is launched
  // when validation fails. Kernel-side failures surface on the stream (Synchronize).
  Status Run(const Arguments& args, const ::tessera::device::Stream& stream = {}) {
    TESSERA_ASSIGN_OR_RETURN(Prepared p, Prepare(args));
    if (p.workspace_bytes > workspace_bytes_) {
      if (workspace_ != nullptr) TESSERA_RETURN_IF_ERROR(::tessera::device::Free(workspace_));
      workspace_ = nullptr;
      workspace_bytes_ = 0;
      TESSERA_ASSIGN_OR_RETURN(workspace_, ::tessera::device::Malloc(p.workspace_bytes));
      workspace_bytes_ = p.workspace_bytes;
    }
    typename KernelOp::Params params{BlockOp::to_params(p.block, workspace_), p.config};
    return ::tessera::device::Launch(
        ::tessera::device::LaunchConfig{Schedule::BlockNum(p.config),
                                        ::tessera::device::KernelType::kAiv, "elewise"},
        &KernelOp::Kernel, stream, std::move(params));
  }

 private:
  struct Prepared {
    typename BlockOp::Arguments block;
    Config config;
    uint64_t workspace_bytes = 0;
  };

  static Result<Prepared> Prepare(const Arguments& args) {
    const auto& arch = ::tessera::device::CurrentArch();
    TESSERA_ASSIGN_OR_RETURN(Problem problem, ResolveProblem(Program(), args));
    Prepared p{{std::move(problem), arch.ub_bytes}, Config{}, 0};
    TESSERA_RETURN_IF_ERROR(BlockOp::can_implement(p.block));
    const grid::ScheduleArguments sargs{p.block.problem, args.attrs, arch.aiv_cores};
    TESSERA_RETURN_IF_ERROR(Schedule::MakeScheduleConfig(sargs, p.config));
    const uint32_t blocks = Schedule::BlockNum(p.config);
    if (blocks == 0 || blocks > ::tessera::device::kMaxBlockDim) {
      return InvalidArgument("elewise: the schedule asked for " + std::to_string(blocks) +
                             " blocks; it must be 1.." +
                             std::to_string(::tessera::device::kMaxBlockDim));
    }
    p.workspace_bytes = BlockOp::get_workspace_size(p.block, blocks);
    return p;
  }

  void* workspace_ = nullptr;
  uint64_t workspace_bytes_ = 0;
};

}  // namespace tessera::elewise::adapter

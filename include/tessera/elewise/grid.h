// Kernel layer: how the work is split over kernel blocks (the schedule) and the kernel entry.
//
// A schedule has a host half, MakeScheduleConfig(args, cfg), which fills the config (it must fill
// every field its Run reads), and a device half, Run(cfg, params), which finds this block's range
// and hands it to the block layer. BaseKernelSchedule implements the ATVOSS uniform split with
// the tiling layer's MakeUniformSplit; derive from it (or DefaultKernelSchedule) and hide either
// half to customise.
#pragma once

#include <algorithm>
#include <cstdint>

#include "tessera/core/status.h"
#include "tessera/device/block.h"
#include "tessera/elewise/arguments.h"
#include "tessera/elewise/block.h"
#include "tessera/elewise/detail/problem.h"
#include "tessera/tiling/split.h"

namespace tessera::elewise::grid {

// ATVOSS's DefaultKernelConfig: the uniform split (blockNum, unitNumPerCore, moreUnitCoreNum,
// tailNum, unitNum) over the problem's work units.
struct DefaultKernelConfig : tiling::UniformSplitConfig {};

// What a schedule sees on the host.
struct ScheduleArguments {
  const Problem& problem;
  const Attributes& attrs;
  uint32_t core_num = 1;  // vector cores of the active profile
};

template <class BlockOp_, class Policy_, class Config_>
struct BaseKernelSchedule {
  using BlockOp = BlockOp_;
  using Policy = Policy_;
  using Config = Config_;

  // Elements a block should get at least, so a launch is not spread thinner than it pays for.
  static constexpr int64_t kMinElementsPerCore = int64_t{32} << 10;

  // Host: the uniform split of the problem's units. Flat problems split elements in units of 64
  // (so every block starts 256-byte aligned for fp32); row problems split rows; column problems
  // split columns in units of 16.
  static Status MakeScheduleConfig(const ScheduleArguments& args, Config& cfg) {
    const Problem& p = args.problem;
    int64_t unit = 1;
    int64_t min_units = 1;
    switch (p.traversal) {
      case block::Traversal::kFlat:
        unit = 64;
        min_units = kMinElementsPerCore;
        break;
      case block::Traversal::kRows:
        min_units = std::max<int64_t>(1, kMinElementsPerCore / p.cols);
        break;
      case block::Traversal::kColumns:
        unit = 16;
        min_units = std::max<int64_t>(16, kMinElementsPerCore / p.rows);
        break;
    }
    TESSERA_ASSIGN_OR_RETURN(tiling::UniformSplitConfig split,
                             tiling::MakeUniformSplit(p.Units(), unit, min_units, args.core_num));
    static_cast<tiling::UniformSplitConfig&>(cfg) = split;
    return OkStatus();
  }

  // Device: this block's units, then the block layer.
  static void Run(const Config& cfg, const typename BlockOp::Params& params) {
    const uint32_t core = ::tessera::device::GetBlockIdx();
    BlockOp::Run(params, static_cast<int64_t>(cfg.CoreOffset(core)),
                 static_cast<int64_t>(cfg.CoreElementCount(core)));
  }

  static uint32_t BlockNum(const Config& cfg) { return cfg.blockNum; }
};

template <class BlockOp_, class Policy_, class Config_>
struct DefaultKernelSchedule : BaseKernelSchedule<BlockOp_, Policy_, Config_> {};

// The kernel: a stateless composition of a block op and a schedule.
template <class BlockOp_, class Policy_ = policy::DoubleBuffer, class Config_ = DefaultKernelConfig,
          template <class, class, class> class Schedule_ = DefaultKernelSchedule>
struct KernelBuilder {
  using BlockOp = BlockOp_;
  using Policy = Policy_;
  using Config = Config_;
  using Schedule = Schedule_<BlockOp_, Policy_, Config_>;

  struct Params {
    typename BlockOp::Params block;
    Config schedule;
  };

  // The launched entry: every block runs the schedule's device half.
  static void Kernel(const Params& params) { Schedule::Run(params.schedule, params.block); }
};

}  // namespace tessera::elewise::grid

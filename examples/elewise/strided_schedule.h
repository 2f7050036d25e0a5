// A user schedule: instead of ATVOSS's uniform split (one contiguous range per block), work units
// are cut into chunks dealt round-robin to the blocks, which keeps the blocks balanced when the
// cost per unit varies along the tensor. Attributes: "blocks" (default: every vector core) and
// "chunk" (units per chunk, default 8).
#pragma once

#include <algorithm>
#include <cstdint>

#include "tessera/elewise/elewise.h"
#include "tessera/tiling/split.h"

namespace example {

struct StridedConfig {
  uint32_t blockNum = 1;
  int64_t units = 0;
  int64_t chunk = 1;
};

template <class BlockOp, class Policy, class Config>
struct StridedSchedule : tessera::elewise::BaseKernelSchedule<BlockOp, Policy, Config> {
  // Host: fills every field Run reads.
  static tessera::Status MakeScheduleConfig(const tessera::elewise::grid::ScheduleArguments& a,
                                            Config& cfg) {
    const double blocks = a.attrs.Number("blocks").value_or(a.core_num);
    const double chunk = a.attrs.Number("chunk").value_or(8);
    if (blocks < 1 || chunk < 1) {
      return tessera::InvalidArgument("StridedSchedule: 'blocks' and 'chunk' must be >= 1");
    }
    cfg.units = a.problem.Units();
    cfg.chunk = static_cast<int64_t>(chunk);
    const int64_t chunks = (cfg.units + cfg.chunk - 1) / cfg.chunk;
    cfg.blockNum = static_cast<uint32_t>(std::min<int64_t>(static_cast<int64_t>(blocks), chunks));
    return tessera::OkStatus();
  }

  // Device: chunks core, core + blockNum, ... of the units.
  static void Run(const Config& cfg, const typename BlockOp::Params& params) {
    const int64_t chunks = (cfg.units + cfg.chunk - 1) / cfg.chunk;
    const auto split = tessera::tiling::StridedSplit::Create(chunks, cfg.blockNum);
    const auto core = static_cast<int64_t>(tessera::device::GetBlockIdx());
    for (int64_t t = split->First(core); t < split->total(); t += split->step()) {
      const int64_t begin = t * cfg.chunk;
      BlockOp::Run(params, begin, std::min(cfg.chunk, cfg.units - begin));
    }
  }

  static uint32_t BlockNum(const Config& cfg) { return cfg.blockNum; }
};

}  // namespace example

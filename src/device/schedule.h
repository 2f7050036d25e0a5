// TESSERA_SCHEDULE and TESSERA_BLOCKS: deterministic block orders that expose order-dependent
// kernels, and running a chosen subset of blocks while debugging.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera::device::detail {

struct BlockSchedule {
  // order[k]: the core (fiber index) that starts k-th; each starts once its predecessor finished
  // or waits (SyncAll, a flag). Empty: the pool's order, blocks running concurrently.
  std::vector<uint32_t> order;
  // runs[f]: core f runs; empty: every core runs.
  std::vector<bool> runs;
};

// The schedule the environment asks for a launch of `groups` blocks (MIX groups, whose
// `cores_per_group` cores stay together), or null for the default. TESSERA_SCHEDULE is
// `sequential`, `reverse` or `shuffle:SEED`; TESSERA_BLOCKS a comma-separated list of block
// indices (groups for MIX). Prints a note naming `kernel` when blocks are skipped, and a warning
// once for a value it cannot parse (then ignored).
std::unique_ptr<BlockSchedule> ScheduleFromEnvironment(uint32_t groups, uint32_t cores_per_group,
                                                       const std::string& kernel);

}  // namespace tessera::device::detail

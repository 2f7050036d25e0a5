// On-chip arenas (UB for vector cores; L1/L0A/L0B/L0C/bias table/fixpipe buffer for AI cores) lent
// to a block while it runs. Each thread keeps its own cache, since a block's fiber never leaves the
// thread that started it.
#pragma once

#include "tessera/device/arch_spec.h"
#include "tessera/device/block.h"

namespace tessera::device::detail {

class ArenaLease {
 public:
  // Fills ctx's arena pointers and sizes for its core type. In checked mode the memory is filled
  // with 0xCD so reads of never-written UB show up as garbage, not as stale zeros.
  ArenaLease(BlockContext& ctx, const ArchSpec& arch, bool checked);
  ~ArenaLease();
  ArenaLease(const ArenaLease&) = delete;
  ArenaLease& operator=(const ArenaLease&) = delete;

 private:
  std::byte* base_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace tessera::device::detail

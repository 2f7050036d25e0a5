// The thread-local "current block" pointer behind CurrentBlock() and GetBlockIdx().
#pragma once

#include <atomic>

#include "tessera/device/block.h"

namespace tessera::device::detail {

BlockContext* CurrentBlockContext();
void SetCurrentBlockContext(BlockContext* ctx);
std::atomic<BlockExitHook>& BlockExitHookSlot();

// Thrown inside a block to unwind it; caught by the runtime at the block's entry.
struct BlockAbort {};  // the launch was aborted by another block's failure
struct BlockFailure {  // this block failed
  Status status;
};

}  // namespace tessera::device::detail

// Per-block state of the kernel API, kept in BlockContext::layer_state and checked and released
// by the block-exit hook.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/device/block.h"
#include "tessera/kernel/data_copy.h"
#include "tessera/kernel/gm_sync.h"
#include "tessera/kernel/pipe.h"
#include "tessera/kernel/sync.h"
#include "tessera/kernel/vector_mask.h"

namespace tessera::kernel::detail {

enum class Memory : uint8_t { kUb = 0, kL1, kL0a, kL0b, kL0c, kBt, kFb, kCount };

struct KernelBlockState {
  uint64_t used[static_cast<int>(Memory::kCount)] = {};  // bytes handed out by TPipes
  // SetFlag count minus WaitFlag count per event and id (checked mode only).
  int32_t flags[static_cast<int>(HardEvent::kCount)][kMaxEventId] = {};
  // Checked mode: the unitFlag of the last Mmad into each L0C tile (by its start address), so a
  // Fixpipe draining the tile can be checked against it.
  struct UnitFlagRecord {
    const void* l0c;
    uint8_t unit_flag;
  };
  std::vector<UnitFlagRecord> unit_flags;
  // Checked mode: 1 per UB byte written since TPipe::InitBuffer handed it out, 0 if never
  // (created by the first InitBuffer of a UB buffer; empty: nothing tracked).
  std::vector<uint8_t> ub_shadow;
  // The atomic mode of UB -> GM copies (SetAtomicAdd / Max / Min, DisableDmaAtomic) and its element
  // type (kF32 until set: the vendor's register default).
  AtomicOp atomic_op = AtomicOp::kNone;
  AtomicType atomic = AtomicType::kF32;
  // SetPadValue's value (low bytes), for DataCopyPad with isPad = false; unset until called.
  uint64_t pad_bits = 0;
  bool pad_set = false;
  // The vector mask register (SetMaskCount / SetMaskNorm / SetVectorMask / ResetMask) and the
  // compare mask register (Compare's mask form, GetCmpMask / SetCmpMask).
  VectorMaskState mask;
  ReduceSpr reduce_spr;
  uint64_t cmp_mask[2] = {};
  // Input streams: large GM -> UB copies, each continuing where the previous copy of its stream
  // ended (a tile loop over a tensor). `next` is where the stream's next copy would start and
  // `prefetched` how far its prefetches have gone.
  struct GmStream {
    const char* next = nullptr;
    const char* prefetched = nullptr;
  };
  static constexpr int kStreams = 4;
  GmStream streams[kStreams];
  uint8_t stream_victim = 0;
  // The TPipe constructed last and still alive (GetTPipePtr), and the event ids AllocEventID
  // handed out per event (bit i = id i).
  TPipe* pipe = nullptr;
  uint8_t event_ids_taken[static_cast<int>(HardEvent::kCount)] = {};
};

// The running block's state, created on first use. Fails (throws) outside a kernel.
KernelBlockState& State(const char* api);

}  // namespace tessera::kernel::detail

// Pipe synchronisation: PipeBarrier, SetFlag/WaitFlag between hardware pipes.
//
// On the CPU a block's instructions run in program order, so these never need to wait. They keep
// their NPU meaning for checked mode: a WaitFlag with no earlier SetFlag of the same event and id
// (which would hang an NPU) and a SetFlag never waited by the end of the kernel are reported.
#pragma once

#include <cstdint>

namespace tessera::kernel {

enum class pipe_t : uint8_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL };
using enum pipe_t;

// Producer_consumer pairs of hardware pipes (MTE2: GM->UB, V: vector, MTE3: UB->GM, S: scalar).
enum class HardEvent : uint8_t {
  MTE2_V,
  V_MTE2,
  MTE3_V,
  V_MTE3,
  MTE2_MTE3,
  MTE3_MTE2,
  S_V,
  V_S,
  MTE2_S,
  S_MTE2,
  MTE3_S,
  S_MTE3,
  kCount,
};

enum TEventID : int32_t {
  EVENT_ID0 = 0,
  EVENT_ID1,
  EVENT_ID2,
  EVENT_ID3,
  EVENT_ID4,
  EVENT_ID5,
  EVENT_ID6,
  EVENT_ID7,
};
inline constexpr int32_t kMaxEventId = 8;

const char* HardEventName(HardEvent event);

namespace detail {
void RecordSetFlag(HardEvent event, int32_t id);
void RecordWaitFlag(HardEvent event, int32_t id);
bool CheckedBlock();
}  // namespace detail

// Orders the instructions of `pipe` before later ones; program order already does on a CPU.
template <pipe_t pipe>
inline void PipeBarrier() {}

template <HardEvent event>
inline void SetFlag(int32_t event_id) {
  if (detail::CheckedBlock()) detail::RecordSetFlag(event, event_id);
}

template <HardEvent event>
inline void WaitFlag(int32_t event_id) {
  if (detail::CheckedBlock()) detail::RecordWaitFlag(event, event_id);
}

}  // namespace tessera::kernel

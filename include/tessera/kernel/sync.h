// Pipe synchronisation: PipeBarrier, SetFlag/WaitFlag between hardware pipes.
//
// On the CPU a block's instructions run in program order, so these never need to wait. They keep
// their NPU meaning for checked mode: a WaitFlag with no earlier SetFlag of the same event and id
// (which would hang an NPU), a second SetFlag of a cube-side event before its WaitFlag (undefined
// on the NPU), an event whose pipes the core does not have (a V event on an AIC, an M/MTE1/FIX
// event on an AIV) and a SetFlag never waited by the end of the kernel are reported.
#pragma once

#include <cstdint>

namespace tessera::kernel {

// The hardware pipes, with Ascend C's values: S scalar, V vector, M cube, MTE1 L1->L0A/L0B/BT,
// MTE2 GM->UB/L1, MTE3 UB->GM, FIX L0C->GM/L1.
enum class pipe_t : uint8_t {
  PIPE_S = 0,
  PIPE_V = 1,
  PIPE_M = 2,
  PIPE_MTE1 = 3,
  PIPE_MTE2 = 4,
  PIPE_MTE3 = 5,
  PIPE_ALL = 6,
  PIPE_FIX = 10,
};
// The pipes by bare name, as Ascend C spells them (constants rather than `using enum`: C++17).
inline constexpr pipe_t PIPE_S = pipe_t::PIPE_S;
inline constexpr pipe_t PIPE_V = pipe_t::PIPE_V;
inline constexpr pipe_t PIPE_M = pipe_t::PIPE_M;
inline constexpr pipe_t PIPE_MTE1 = pipe_t::PIPE_MTE1;
inline constexpr pipe_t PIPE_MTE2 = pipe_t::PIPE_MTE2;
inline constexpr pipe_t PIPE_MTE3 = pipe_t::PIPE_MTE3;
inline constexpr pipe_t PIPE_ALL = pipe_t::PIPE_ALL;
inline constexpr pipe_t PIPE_FIX = pipe_t::PIPE_FIX;

// Producer_consumer pairs of hardware pipes, in Ascend C's declared order (kernel_event.h).
enum class HardEvent : uint8_t {
  MTE2_MTE1,
  MTE1_MTE2,
  MTE1_M,
  M_MTE1,
  MTE2_V,
  V_MTE2,
  MTE3_V,
  V_MTE3,
  M_V,
  V_M,
  V_V,
  MTE3_MTE1,
  MTE1_MTE3,
  MTE1_V,
  MTE2_M,
  M_MTE2,
  V_MTE1,
  M_FIX,
  FIX_M,
  MTE3_MTE2,
  MTE2_MTE3,
  S_V,
  V_S,
  S_MTE2,
  MTE2_S,
  S_MTE3,
  MTE3_S,
  MTE2_FIX,
  FIX_MTE2,
  FIX_S,
  M_S,
  FIX_MTE3,
  MTE1_FIX,
  FIX_MTE1,
  FIX_FIX,
  MAX,
  kCount = MAX,
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
const char* PipeName(pipe_t pipe);

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
  static_assert(event < HardEvent::MAX, "SetFlag: HardEvent::MAX is not an event");
  if (detail::CheckedBlock()) detail::RecordSetFlag(event, event_id);
}

template <HardEvent event>
inline void WaitFlag(int32_t event_id) {
  static_assert(event < HardEvent::MAX, "WaitFlag: HardEvent::MAX is not an event");
  if (detail::CheckedBlock()) detail::RecordWaitFlag(event, event_id);
}

}  // namespace tessera::kernel

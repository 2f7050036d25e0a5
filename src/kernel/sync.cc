#include "tessera/kernel/sync.h"

#include <string>
#include <string_view>

#include "block_state.h"
#include "tessera/kernel/check.h"

namespace tessera::kernel {
namespace {

constexpr const char* kEventNames[] = {
    "MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1",   "MTE2_V",    "V_MTE2",    "MTE3_V",
    "V_MTE3",    "M_V",       "V_M",    "V_V",      "MTE3_MTE1", "MTE1_MTE3", "MTE1_V",
    "MTE2_M",    "M_MTE2",    "V_MTE1", "M_FIX",    "FIX_M",     "MTE3_MTE2", "MTE2_MTE3",
    "S_V",       "V_S",       "S_MTE2", "MTE2_S",   "S_MTE3",    "MTE3_S",    "MTE2_FIX",
    "FIX_MTE2",  "FIX_S",     "M_S",    "FIX_MTE3", "MTE1_FIX",  "FIX_MTE1",  "FIX_FIX"};
static_assert(sizeof(kEventNames) / sizeof(kEventNames[0]) ==
              static_cast<size_t>(HardEvent::kCount));

// The pipes an event names, as "producer_consumer".
bool Names(HardEvent event, std::string_view pipe) {
  const std::string_view name = kEventNames[static_cast<int>(event)];
  const size_t cut = name.find('_');
  return name.substr(0, cut) == pipe || name.substr(cut + 1) == pipe;
}

}  // namespace

const char* HardEventName(HardEvent event) {
  const auto i = static_cast<size_t>(event);
  return i < static_cast<size_t>(HardEvent::kCount) ? kEventNames[i] : "invalid";
}

const char* PipeName(pipe_t pipe) {
  switch (pipe) {
    case PIPE_S:
      return "PIPE_S";
    case PIPE_V:
      return "PIPE_V";
    case PIPE_M:
      return "PIPE_M";
    case PIPE_MTE1:
      return "PIPE_MTE1";
    case PIPE_MTE2:
      return "PIPE_MTE2";
    case PIPE_MTE3:
      return "PIPE_MTE3";
    case PIPE_ALL:
      return "PIPE_ALL";
    case PIPE_FIX:
      return "PIPE_FIX";
    default:
      return "invalid";
  }
}

namespace detail {
namespace {

// True for the events of the cube pipes (MTE1, M, FIX), which only an AI core has.
bool CubeEvent(HardEvent event) {
  return Names(event, "MTE1") || Names(event, "M") || Names(event, "FIX");
}

int32_t& Counter(const char* api, HardEvent event, int32_t id) {
  if (event >= HardEvent::kCount) {
    KernelFail(api, "event " + std::to_string(static_cast<int>(event)) + " is not a HardEvent");
  }
  if (id < 0 || id >= kMaxEventId) {
    KernelFail(api, std::string(HardEventName(event)) + " event id " + std::to_string(id) +
                        " is out of range; expected 0.." + std::to_string(kMaxEventId - 1));
  }
  // An AIV has no MTE1/M/FIX pipes and an AIC no V pipe: such an event never fires there.
  const device::BlockContext* block = device::CurrentBlock();
  if (block != nullptr) {
    const bool cube_core = block->core_type == device::CoreType::kAic;
    if (!cube_core && CubeEvent(event)) {
      KernelFail(api, std::string("HardEvent::") + HardEventName(event) +
                          " names a cube pipe (MTE1, M or FIX), which an AIV core does not have");
    }
    if (cube_core && Names(event, "V")) {
      KernelFail(api, std::string("HardEvent::") + HardEventName(event) +
                          " names the vector pipe V, which an AIC core does not have");
    }
  }
  return State(api).flags[static_cast<int>(event)][id];
}

}  // namespace

void RecordSetFlag(HardEvent event, int32_t id) {
  int32_t& pending = Counter("SetFlag", event, id);
  // A cube-side flag is one bit: setting it again before the wait is undefined on the NPU (and
  // hangs a later PipeBarrier<PIPE_ALL>).
  if (pending > 0 && CubeEvent(event)) {
    KernelFail("SetFlag", std::string("SetFlag<") + HardEventName(event) + ">(" +
                              std::to_string(id) +
                              ") is set again before a WaitFlag consumed the previous set; "
                              "the NPU's behaviour is undefined");
  }
  ++pending;
}

void RecordWaitFlag(HardEvent event, int32_t id) {
  int32_t& pending = Counter("WaitFlag", event, id);
  if (pending <= 0) {
    KernelFail("WaitFlag", std::string("WaitFlag<") + HardEventName(event) + ">(" +
                               std::to_string(id) +
                               ") has no earlier SetFlag of the same event and id; an NPU would "
                               "wait here forever");
  }
  --pending;
}

}  // namespace detail
}  // namespace tessera::kernel

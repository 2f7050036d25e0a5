#include "tessera/kernel/sync.h"

#include <string>

#include "block_state.h"
#include "tessera/kernel/check.h"

namespace tessera::kernel {

const char* HardEventName(HardEvent event) {
  static const char* const kNames[] = {"MTE2_V",    "V_MTE2",    "MTE3_V", "V_MTE3",
                                       "MTE2_MTE3", "MTE3_MTE2", "S_V",    "V_S",
                                       "MTE2_S",    "S_MTE2",    "MTE3_S", "S_MTE3"};
  const auto i = static_cast<size_t>(event);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "invalid";
}

namespace detail {
namespace {

int32_t& Counter(const char* api, HardEvent event, int32_t id) {
  if (event >= HardEvent::kCount) {
    KernelFail(api, "event " + std::to_string(static_cast<int>(event)) + " is not a HardEvent");
  }
  if (id < 0 || id >= kMaxEventId) {
    KernelFail(api, std::string(HardEventName(event)) + " event id " + std::to_string(id) +
                        " is out of range; expected 0.." + std::to_string(kMaxEventId - 1));
  }
  return State(api).flags[static_cast<int>(event)][id];
}

}  // namespace

void RecordSetFlag(HardEvent event, int32_t id) {
  ++Counter("SetFlag", event, id);
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

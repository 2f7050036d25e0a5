// Process-wide device state shared by the device sources.
#pragma once

#include <atomic>
#include <cstdint>

#include "tessera/device/arch_spec.h"

namespace tessera::device::detail {

// Stream operations enqueued but not yet completed, across all streams.
std::atomic<int64_t>& InFlightOps();
// The active profile; the returned reference stays valid for the life of the process.
const ArchSpec& ActiveArch();

}  // namespace tessera::device::detail

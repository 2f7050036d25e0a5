// Device-memory internals used by the launch path.
#pragma once

#include "tessera/core/status.h"

namespace tessera::device::detail {

// For a pointer inside a checked-mode allocation: verifies its header magic and canary bytes.
// OK for fast-mode allocations and unknown pointers.
Status CheckAllocationIntegrity(const void* ptr);

}  // namespace tessera::device::detail

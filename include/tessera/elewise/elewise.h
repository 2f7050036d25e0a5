// Fused vector-operator templates (ATVOSS-style): expressions -> tile program -> block ->
// kernel -> device adapter. See docs/elewise.md.
#pragma once

#include "tessera/elewise/arguments.h"  // IWYU pragma: export
#include "tessera/elewise/block.h"      // IWYU pragma: export
#include "tessera/elewise/device.h"     // IWYU pragma: export
#include "tessera/elewise/expr.h"       // IWYU pragma: export
#include "tessera/elewise/kernel.h"     // IWYU pragma: export
#include "tessera/elewise/policy.h"     // IWYU pragma: export

namespace tessera::elewise {
using block::BlockBuilder;
using device::DeviceAdapter;
using kernel::BaseKernelSchedule;
using kernel::DefaultKernelConfig;
using kernel::DefaultKernelSchedule;
using kernel::KernelBuilder;
}  // namespace tessera::elewise

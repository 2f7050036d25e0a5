// Fused vector-operator templates (ATVOSS-style): expressions -> tile program -> block ->
// kernel -> device adapter. See docs/elewise.md.
#pragma once

#include "tessera/elewise/arguments.h"  // IWYU pragma: export
#include "tessera/elewise/block.h"      // IWYU pragma: export
#include "tessera/elewise/adapter.h"     // IWYU pragma: export
#include "tessera/elewise/expr.h"       // IWYU pragma: export
#include "tessera/elewise/grid.h"     // IWYU pragma: export
#include "tessera/elewise/policy.h"     // IWYU pragma: export

namespace tessera::elewise {
using block::BlockBuilder;
using adapter::DeviceAdapter;
using grid::BaseKernelSchedule;
using grid::DefaultKernelConfig;
using grid::DefaultKernelSchedule;
using grid::KernelBuilder;
}  // namespace tessera::elewise

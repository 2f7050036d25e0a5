// Device-side names shared by the kernels of the built-in ops written against the kernel API
// (the matmul kernels).
#pragma once

#include <cstdint>

#include "tessera/core/data_type.h"
#include "tessera/kernel/kernel_entry.h"
#include "tessera/kernel/kernel_operator.h"

namespace tessera::ops {

using namespace AscendC;

}  // namespace tessera::ops

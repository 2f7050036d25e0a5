// The kernel programming API in one include: tensors, pipes and queues, DataCopy, pipe sync,
// vector instructions, block queries and cross-core sync.
#pragma once

#include "tessera/device/block.h"
#include "tessera/kernel/check.h"
#include "tessera/kernel/data_copy.h"
#include "tessera/kernel/global_tensor.h"
#include "tessera/kernel/local_tensor.h"
#include "tessera/kernel/pipe.h"
#include "tessera/kernel/sync.h"
#if __has_include("tessera/kernel/vector.h")
#include "tessera/kernel/vector.h"
#endif

namespace tessera::kernel {

// Block queries and cross-core sync, under the names kernels use.
using device::CrossCoreSetFlag;
using device::CrossCoreWaitFlag;
using device::GetBlockIdx;
using device::GetBlockNum;
using device::GetSubBlockIdx;
using device::GetSubBlockNum;
using device::GetTaskRation;
using device::SyncAll;

}  // namespace tessera::kernel

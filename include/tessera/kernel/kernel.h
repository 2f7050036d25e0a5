// The kernel programming API in one include: tensors, pipes and queues, DataCopy, pipe sync,
// vector and cube instructions, block queries and cross-core sync, printing (Printf, DumpTensor).
#pragma once

#include <cstdint>

#include "tessera/device/block.h"
#include "tessera/kernel/buf_pool.h"
#include "tessera/kernel/check.h"
#include "tessera/kernel/cube/cube.h"
#include "tessera/kernel/data_copy.h"
#include "tessera/kernel/global_tensor.h"
#include "tessera/kernel/local_tensor.h"
#include "tessera/kernel/pipe.h"
#include "tessera/kernel/print.h"
#include "tessera/kernel/sync.h"
#if __has_include("tessera/kernel/vector.h")
#include "tessera/kernel/vector.h"
#endif

namespace tessera::kernel {

// Block queries and cross-core sync, under the names kernels use.
using device::CrossCoreMode;
using device::CrossCoreSetFlag;
using device::CrossCoreWaitFlag;
using device::GetBlockIdx;
using device::GetBlockNum;
using device::GetSubBlockIdx;
using device::GetSubBlockNum;
using device::GetTaskRation;
using device::SyncAll;

// Ascend C's cross-core flag forms (2201): CrossCoreSetFlag<mode, pipe>(flagId) raises flag
// counters per `mode` (0 all cores of this type, 1 the AIVs of this group, 2 AIC <-> its AIVs);
// CrossCoreWaitFlag(flagId) waits on this core's own counter whatever mode set it, so the vendor's
// `CrossCoreWaitFlag(0)` on an AIV pairs with the AIC's `CrossCoreSetFlag<2, PIPE_FIX>(0)`. The
// pipe only orders the set after that pipe's work, which program order already does on a CPU.
template <uint8_t modeId, pipe_t pipe>
inline void CrossCoreSetFlag(uint16_t flagId) {
  static_assert(modeId <= 2, "CrossCoreSetFlag: modeId is 0, 1 or 2");
  static_assert(pipe == PIPE_V || pipe == PIPE_M || pipe == PIPE_MTE1 || pipe == PIPE_MTE2 ||
                    pipe == PIPE_MTE3 || pipe == PIPE_FIX,
                "CrossCoreSetFlag: pipe is one of PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, "
                "PIPE_FIX");
  device::CrossCoreSetFlag(static_cast<device::CrossCoreMode>(modeId), flagId);
}
template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
inline void CrossCoreWaitFlag(uint16_t flagId) {
  static_assert(modeId <= 2, "CrossCoreWaitFlag: modeId is 0, 1 or 2");
  device::CrossCoreWaitFlag(static_cast<device::CrossCoreMode>(modeId), flagId);
}

// True on the cube core (AIC) / a vector core (AIV) of the running block.
inline bool IsAic() {
  return device::GetCoreType() == device::CoreType::kAic;
}
inline bool IsAiv() {
  return device::GetCoreType() == device::CoreType::kAiv;
}

// Ascend C kernels call this first on real hardware to reset the core's state; nothing to reset
// here.
inline void InitSocState() {}

}  // namespace tessera::kernel

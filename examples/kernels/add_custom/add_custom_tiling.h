// Host tiling for add_custom: the uniform split over the profile's vector cores, and UB tiles
// sized for 3 double-buffered queues.
#pragma once

#include <cstdint>

#include "add_custom_kernel.h"
#include "tessera/device/arch_spec.h"
#include "tessera/tiling/split.h"

namespace add_custom_op {

struct AddCustomPlan {
  AddCustomTilingData tiling;
  uint32_t blockDim = 1;
};

// `elements` of `elem_bytes` each on `arch`. Fails for an empty input.
inline tessera::Result<AddCustomPlan> AddCustomTiling(int64_t elements, uint32_t elem_bytes,
                                                      const tessera::device::ArchSpec& arch) {
  constexpr int64_t kQueuesTimesBuffers = 3 * BUFFER_NUM;
  const int64_t unit = 32 / elem_bytes;  // one 32-byte block
  TESSERA_ASSIGN_OR_RETURN(tessera::tiling::UniformSplitConfig split,
                           tessera::tiling::MakeUniformSplit(
                               elements, unit, /*min_elements_per_core=*/1024, arch.aiv_cores));
  AddCustomPlan plan;
  plan.blockDim = split.blockNum;
  plan.tiling.blockNum = split.blockNum;
  plan.tiling.unitNumPerCore = static_cast<int64_t>(split.unitNumPerCore);
  plan.tiling.moreUnitCoreNum = static_cast<int64_t>(split.moreUnitCoreNum);
  plan.tiling.tailNum = static_cast<int64_t>(split.tailNum);
  plan.tiling.unitNum = static_cast<int64_t>(split.unitNum);
  const int64_t tile_bytes = static_cast<int64_t>(arch.ub_bytes) / kQueuesTimesBuffers / 32 * 32;
  plan.tiling.tileLength = tile_bytes / elem_bytes;
  return plan;
}

}  // namespace add_custom_op

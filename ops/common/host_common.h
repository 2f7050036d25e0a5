// Host-side helpers shared by the tiling functions of the built-in elementwise ops.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "tessera/core/status.h"
#include "tessera/core/tensor_desc.h"
#include "tessera/runtime/tiling_context.h"
#include "tessera/tiling/split.h"

namespace tessera::ops {

// The SoCs every built-in op is configured for.
inline constexpr const char* kBuiltinSocs[] = {"x86-64-v2", "x86-64-v3", "x86-64-v4", "armv8-a"};

// Elements a core should get at least: below this, launching another core costs more than the
// work it takes over.
inline constexpr int64_t kMinElementsPerCore = 4096;

// Fails unless `desc` is contiguous row-major: the kernels address GM as dense arrays. Strided
// views are not supported yet.
inline Status CheckContiguous(const std::string& op, const char* name, const TensorDesc& desc) {
  if (desc.IsContiguous()) return OkStatus();
  std::string strides;
  for (int64_t s : desc.strides)
    strides += (strides.empty() ? "" : ", ") + std::to_string(s);
  return Unimplemented(op + ": " + name + " " + desc.ToString() + " has non-contiguous strides [" +
                       strides + "]; only contiguous tensors are supported for now");
}

// The input or output `index` of `ctx`; InvalidArgument naming it when absent.
inline Result<const TensorDesc*> RequiredDesc(const runtime::TilingContext& ctx, bool output,
                                              size_t index, const char* name) {
  const TensorDesc* d = output ? ctx.GetOutputDesc(index) : ctx.GetInputDesc(index);
  if (d == nullptr) {
    return InvalidArgument(ctx.GetOpType() + ": " + (output ? "output " : "input ") + name +
                           " is missing");
  }
  TESSERA_RETURN_IF_ERROR(d->Validate());
  TESSERA_RETURN_IF_ERROR(CheckContiguous(ctx.GetOpType(), name, *d));
  return d;
}

// Uniform split of `total` units of `unit` elements over the AIV cores; an empty tensor gets one
// core with nothing to do, so every launch has a valid block dim.
inline Result<tiling::UniformSplitConfig> SplitOverCores(int64_t total, int64_t unit,
                                                         int64_t min_per_core, uint32_t cores) {
  if (total == 0) return tiling::UniformSplitConfig{1, 0, 0, 0, static_cast<uint64_t>(unit)};
  return tiling::MakeUniformSplit(total, unit, min_per_core, std::max<uint32_t>(cores, 1));
}

template <class Tiling>
void StoreSplit(const tiling::UniformSplitConfig& s, Tiling& t) {
  t.blockNum = s.blockNum;
  t.unitNumPerCore = static_cast<int64_t>(s.unitNumPerCore);
  t.moreUnitCoreNum = static_cast<int64_t>(s.moreUnitCoreNum);
  t.tailNum = static_cast<int64_t>(s.tailNum);
  t.unitNum = static_cast<int64_t>(s.unitNum);
}

// Elements per UB tile when each element costs `bytes_per_element` of UB over all buffers (e.g. 3
// double-buffered 4-byte queues: 24); a multiple of `align_elems` so every tile moves whole 32-byte
// blocks. Fails when the UB cannot hold one aligned tile.
inline Result<int64_t> TileLength(const runtime::TilingContext& ctx, int64_t bytes_per_element,
                                  int64_t align_elems) {
  const auto ub = static_cast<int64_t>(ctx.GetPlatformInfo().ub_bytes);
  // Counts of vector instructions are int32; stay far below.
  const int64_t tile = std::min<int64_t>(ub / bytes_per_element, int64_t{1} << 24);
  const int64_t aligned = tile / align_elems * align_elems;
  if (aligned <= 0) {
    return OutOfRange(ctx.GetOpType() + ": UB of " + std::to_string(ub) +
                      " bytes cannot hold one tile of " + std::to_string(align_elems) +
                      " elements at " + std::to_string(bytes_per_element) + " bytes per element");
  }
  return aligned;
}

// "float32" etc. for messages.
inline std::string DtypeText(DataType d) {
  return std::string(DataTypeName(d));
}

}  // namespace tessera::ops

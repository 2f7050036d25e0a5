// Host-side helpers shared by the tiling functions of the built-in ops.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "tessera/core/status.h"
#include "tessera/core/tensor_desc.h"
#include "tessera/runtime/tiling_context.h"

namespace tessera::ops {

// The SoCs every built-in op is configured for.
inline constexpr const char* kBuiltinSocs[] = {"x86-64-v2", "x86-64-v3", "x86-64-v4", "armv8-a"};

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

// "float32" etc. for messages.
inline std::string DtypeText(DataType d) {
  return std::string(DataTypeName(d));
}

}  // namespace tessera::ops

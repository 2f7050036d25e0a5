// Host-side helpers of the ops built on elewise fused operators (RmsNorm, AddRmsNorm, LayerNorm,
// Softmax, SwiGlu): argument checks with CANN-style messages and the tiling step that plans the
// elewise operator (elewise/op_kernel.h) into the runtime's TilingContext.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "host_common.h"
#include "op_keys.h"
#include "tessera/core/float16.h"
#include "tessera/elewise/op_kernel.h"
#include "tessera/runtime/op_def.h"
#include "tessera/runtime/tiling_context.h"

namespace tessera::ops {

// Row ops read and write float32, float16 or bfloat16 and compute in fp32.
inline const std::vector<DataType> kRowOpTypes = {DataType::kFloat32, DataType::kFloat16,
                                                  DataType::kBfloat16};

// Fails unless `d` has the dtype of the op's first input (named `ref`).
inline Status SameDtype(const std::string& op, const char* name, const TensorDesc& d,
                        const char* ref, DataType want) {
  if (d.dtype == want) return OkStatus();
  return InvalidArgument(op + ": " + name + " has dtype " + DtypeText(d.dtype) + ", expected " +
                         DtypeText(want) + " (the dtype of " + ref + ")");
}

// Fails unless `d` has shape `want` (described as `what`).
inline Status ShapeIs(const std::string& op, const char* name, const TensorDesc& d,
                      const Shape& want, const std::string& what) {
  if (d.shape == want) return OkStatus();
  return InvalidArgument(op + ": " + name + " has shape " + d.shape.ToString() + ", expected " +
                         want.ToString() + " (" + what + ")");
}

// The rows are the last axis of `x`: x needs rank >= 1.
inline Status CheckRowInput(const std::string& op, const char* name, const TensorDesc& x) {
  if (x.shape.rank() >= 1) return OkStatus();
  return InvalidArgument(op + ": " + name +
                         " must have at least one dimension (the row axis), got a scalar");
}

// Shape [x.shape.last] of gamma / beta.
inline Shape RowParamShape(const TensorDesc& x) {
  const int64_t n = x.shape.dim(x.shape.rank() - 1);
  return *Shape::Make(std::vector<int64_t>{n});
}

// Attribute `attr` names an axis of a rank-`rank` tensor (negative counts from the end); only the
// last axis is supported.
inline Status CheckLastAxis(const std::string& op, const char* attr, int64_t axis, int rank) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) {
    return InvalidArgument(op + ": attribute " + attr + "=" + std::to_string(axis) +
                           " is out of range for rank " + std::to_string(rank) + " (expected " +
                           std::to_string(-rank) + ".." + std::to_string(rank - 1) + ")");
  }
  if (a != rank - 1) {
    return Unimplemented(op + ": attribute " + attr + "=" + std::to_string(axis) +
                         " selects axis " + std::to_string(a) +
                         "; only the last axis (-1) is supported");
  }
  return OkStatus();
}

// A finite epsilon >= 0 read from the float attribute "epsilon".
inline Result<float> Epsilon(const runtime::TilingContext& ctx) {
  TESSERA_ASSIGN_OR_RETURN(const float eps, ctx.GetFloatAttr("epsilon"));
  if (!std::isfinite(eps) || eps < 0.0f) {
    return InvalidArgument(ctx.GetOpType() + ": attribute epsilon=" + std::to_string(eps) +
                           " must be finite and >= 0");
  }
  return eps;
}

// Calls `fn(T{})` with the element type of `dtype` (float32, float16 or bfloat16).
template <class Fn>
Status DispatchRowType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DataType::kFloat32:
      return fn(float{});
    case DataType::kFloat16:
      return fn(half{});
    case DataType::kBfloat16:
      return fn(bfloat16{});
    default:
      return InvalidArgument("dtype " + DtypeText(dtype) +
                             " is not supported; expected float32, float16 or bfloat16");
  }
}

// Plans elewise operator `KernelOp` over `args` on the context's platform and stores the result:
// block dim, tiling key (the dtype), ElewiseTilingData, workspace for spilled rows.
template <class KernelOp>
Status SetRowOpTiling(runtime::TilingContext& ctx, const elewise::op_kernel::OpArguments& args,
                      DataType dtype) {
  const runtime::PlatformInfo& platform = ctx.GetPlatformInfo();
  Result<elewise::op_kernel::OpTiling> t = elewise::op_kernel::MakeOpTiling<KernelOp>(
      args, static_cast<uint32_t>(ctx.GetInputNum() + ctx.GetOutputNum()), platform.ub_bytes,
      platform.aiv_cores);
  if (!t.ok()) {
    return Status(t.status().code(), ctx.GetOpType() + ": " + std::string(t.status().message()));
  }
  ctx.SetBlockDim(t->block_dim);
  ctx.SetTilingKey(DtypeField(dtype));
  ctx.SetTilingData(t->data);
  if (t->workspace_bytes > 0) ctx.SetWorkspaceSizes({t->workspace_bytes});
  return OkStatus();
}

// The row ops' references compute in long double; the kernels reduce in fp32 over long rows, so a
// float32 output passes within 128 ulps (2^-16) of the reference's scale, float16 and bfloat16
// within 1 ulp. Declared as the Reference() ulps; RowOpUlps sets a call's.
inline constexpr double kRowOpFloat32Ulps = 128;
inline void SetRowOpUlps(const runtime::ReferenceArgs& args) {
  args.ulps = args.outputs.at(0).desc.dtype == DataType::kFloat32 ? kRowOpFloat32Ulps : 1;
}

// Rows (the last axis) of a reference tensor of rank >= 1.
struct RefRows {
  int64_t count = 0;
  int64_t width = 0;
};
inline RefRows RowsOf(const runtime::ReferenceTensor& x) {
  const Shape& s = x.desc.shape;
  const int64_t width = s.rank() > 0 ? s.dim(s.rank() - 1) : 0;
  return RefRows{width > 0 ? x.size() / width : 0, width};
}

}  // namespace tessera::ops

// Host side of the built-in elementwise ops: descriptors, the tensors of an elewise plan and the
// tiling step that stores the plan in the runtime's TilingContext.
#pragma once

#include <string>

#include "elementwise_compute.h"
#include "host_common.h"
#include "tessera/elewise/op_kernel.h"
#include "tessera/runtime/tiling_context.h"

namespace tessera::ops {

// Input `index` of `ctx`, validated; any strides (elewise reads strided views).
inline Result<const TensorDesc*> ElementwiseInput(const runtime::TilingContext& ctx, size_t index,
                                                  const char* name) {
  const TensorDesc* d = ctx.GetInputDesc(index);
  if (d == nullptr) return InvalidArgument(ctx.GetOpType() + ": input " + name + " is missing");
  TESSERA_RETURN_IF_ERROR(d->Validate());
  return d;
}

// Output `index` of `ctx`, validated and contiguous.
inline Result<const TensorDesc*> ElementwiseOutput(const runtime::TilingContext& ctx, size_t index,
                                                   const char* name) {
  return RequiredDesc(ctx, true, index, name);
}

// The elewise tensor of `d` at GM address `arg`: a scalar (rank 0) as one element, strides only
// when not contiguous (so contiguous calls keep the flat fast path's plan).
inline elewise::op_kernel::OpTensor ElementwiseTensor(int32_t arg, const TensorDesc& d) {
  elewise::op_kernel::OpTensor t{arg, 0, d.dtype, d.shape, 0, {}};
  if (d.shape.rank() == 0) {
    t.shape = *Shape::Make({1});
  } else if (!d.IsContiguous()) {
    t.strides = d.strides;
  }
  return t;
}

// Plans `KernelOp` over `args` on the context's platform and stores block dim, tiling key and
// the ElewiseTilingData; errors carry the op type.
template <class KernelOp>
Status SetElementwiseTiling(runtime::TilingContext& ctx,
                            const elewise::op_kernel::OpArguments& args, uint64_t key) {
  const runtime::PlatformInfo& platform = ctx.GetPlatformInfo();
  Result<elewise::op_kernel::OpTiling> t = elewise::op_kernel::MakeOpTiling<KernelOp>(
      args, static_cast<uint32_t>(ctx.GetInputNum() + ctx.GetOutputNum()), platform.ub_bytes,
      platform.aiv_cores);
  if (!t.ok()) {
    return Status(t.status().code(), ctx.GetOpType() + ": " + std::string(t.status().message()));
  }
  ctx.SetBlockDim(t->block_dim);
  ctx.SetTilingKey(key);
  ctx.SetTilingData(t->data);
  if (t->workspace_bytes > 0) ctx.SetWorkspaceSizes({t->workspace_bytes});
  return OkStatus();
}

// Calls `fn(T{})` with the element type of `dtype` (float32, float16, bfloat16 or int32).
template <class Fn>
Status DispatchElementwiseType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DataType::kFloat32:
      return fn(float{});
    case DataType::kFloat16:
      return fn(half{});
    case DataType::kBfloat16:
      return fn(bfloat16{});
    case DataType::kInt32:
      return fn(int32_t{});
    default:
      return InvalidArgument("dtype " + DtypeText(dtype) + " is not supported");
  }
}

}  // namespace tessera::ops

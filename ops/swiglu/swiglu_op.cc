// Op definition and tiling function of SwiGlu (aclnnSwiGlu: x, int attribute dim -> y): x's last
// axis splits into halves a | b and y = silu(a) * b, the elewise SwiGluCompute registered as an
// op. Only the last axis is supported; it must have an even length.
#include <cmath>
#include <string>
#include <vector>

#include "../common/row_op_common.h"
#include "tessera/elewise/fused.h"
#include "tessera/runtime/op_registration.h"

namespace tessera::ops {
namespace {

using runtime::TilingContext;

// x's shape with the last dim halved; InvalidArgument when it is odd.
Result<Shape> HalfShape(const std::string& op, const TensorDesc& x) {
  std::vector<int64_t> dims(x.shape.dims().begin(), x.shape.dims().end());
  if (dims.empty() || dims.back() % 2 != 0) {
    return InvalidArgument(op + ": x " + x.shape.ToString() +
                           " needs an even last dimension to split into two halves");
  }
  dims.back() /= 2;
  return Shape::Make(dims);
}

Status SwiGluTiling(TilingContext& ctx) {
  const std::string& op = ctx.GetOpType();
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* x, RequiredDesc(ctx, false, 0, "x"));
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* y, RequiredDesc(ctx, true, 0, "y"));
  TESSERA_RETURN_IF_ERROR(CheckRowInput(op, "x", *x));
  TESSERA_RETURN_IF_ERROR(SameDtype(op, "y", *y, "x", x->dtype));
  TESSERA_ASSIGN_OR_RETURN(const int64_t dim, ctx.GetIntAttr("dim"));
  TESSERA_RETURN_IF_ERROR(CheckLastAxis(op, "dim", dim, x->shape.rank()));
  TESSERA_ASSIGN_OR_RETURN(const Shape half, HalfShape(op, *x));
  TESSERA_RETURN_IF_ERROR(ShapeIs(op, "y", *y, half, "x with the last dim halved"));
  const int64_t h = half.dim(half.rank() - 1);
  // gate = the first half of each row of x, up = the second: rows 2h apart.
  elewise::op_kernel::OpArguments args;
  args.params = {elewise::op_kernel::OpTensor{0, 0, x->dtype, half, 2 * h},
                 elewise::op_kernel::OpTensor{0, h, x->dtype, half, 2 * h},
                 elewise::op_kernel::OpTensor{1, 0, y->dtype, y->shape, 0}};
  return DispatchRowType(x->dtype, [&]<class T>(T) {
    return SetRowOpTiling<typename elewise::fused::SwiGlu<T>::KernelOp>(ctx, args, x->dtype);
  });
}

Status SwiGluInferShape(runtime::InferShapeContext& ctx) {
  if (ctx.inputs().size() != 1 || ctx.outputs().size() != 1) {
    return InvalidArgument("SwiGlu InferShape: expected 1 input and 1 output");
  }
  TESSERA_ASSIGN_OR_RETURN(const Shape half, HalfShape("SwiGlu", ctx.inputs()[0]));
  ctx.outputs()[0] = ctx.inputs()[0];
  ctx.outputs()[0].shape = half;
  ctx.outputs()[0].strides.clear();
  return OkStatus();
}

// y = silu(a) * b with a, b the halves of each row of x, in long double.
Status SwiGluReference(const runtime::ReferenceArgs& args) {
  SetRowOpUlps(args);
  const runtime::ReferenceTensor& x = *args.inputs.at(0);
  const runtime::ReferenceTensor& y = args.outputs.at(0);
  const RefRows rows = RowsOf(x);
  const int64_t half = rows.width / 2;
  for (int64_t r = 0; r < rows.count; ++r) {
    for (int64_t k = 0; k < half; ++k) {
      const long double a = x.Get(r * rows.width + k), b = x.Get(r * rows.width + half + k);
      y.Set(r * half + k, static_cast<double>(a / (1.0L + std::exp(-a)) * b));
    }
  }
  return OkStatus();
}

// x in [-6, 6].
class SwiGluOp : public runtime::OpDef {
 public:
  SwiGluOp() : OpDef("SwiGlu") {
    const std::vector<Format> nd(kRowOpTypes.size(), Format::kND);
    Input("x").ParamType(runtime::REQUIRED).DataType(kRowOpTypes).Format(nd).ValueRange(-6, 6);
    Output("y").ParamType(runtime::REQUIRED).DataType(kRowOpTypes).Format(nd);
    Attr("dim").AttrType(runtime::OPTIONAL).Int(-1);
    SetTiling(SwiGluTiling);
    SetInferShape(SwiGluInferShape);
    TilingDataType<elewise::op_kernel::ElewiseTilingData>();
    Reference(SwiGluReference, kRowOpFloat32Ulps);
    for (const char* soc : kBuiltinSocs)
      AddConfig(soc);
  }
};

TESSERA_OP_ADD(SwiGluOp);

}  // namespace
}  // namespace tessera::ops

// Op definition and tiling function of Softmax (aclnnSoftmax: x, int attribute dim -> y), the
// elewise SoftmaxCompute registered as an op. Only the last axis is supported.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../common/row_op_common.h"
#include "tessera/elewise/fused.h"
#include "tessera/runtime/op_registration.h"

namespace tessera::ops {
namespace {

using runtime::TilingContext;

Status SoftmaxTiling(TilingContext& ctx) {
  const std::string& op = ctx.GetOpType();
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* x, RequiredDesc(ctx, false, 0, "x"));
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* y, RequiredDesc(ctx, true, 0, "y"));
  TESSERA_RETURN_IF_ERROR(CheckRowInput(op, "x", *x));
  TESSERA_RETURN_IF_ERROR(SameDtype(op, "y", *y, "x", x->dtype));
  TESSERA_RETURN_IF_ERROR(ShapeIs(op, "y", *y, x->shape, "the shape of x"));
  TESSERA_ASSIGN_OR_RETURN(const int64_t dim, ctx.GetIntAttr("dim"));
  TESSERA_RETURN_IF_ERROR(CheckLastAxis(op, "dim", dim, x->shape.rank()));
  elewise::op_kernel::OpArguments args;
  args.params = {elewise::op_kernel::OpTensor{0, 0, x->dtype, x->shape, 0},
                 elewise::op_kernel::OpTensor{1, 0, y->dtype, y->shape, 0}};
  return DispatchRowType(x->dtype, [&]<class T>(T) {
    return SetRowOpTiling<typename elewise::fused::Softmax<T>::KernelOp>(ctx, args, x->dtype);
  });
}

Status SoftmaxInferShape(runtime::InferShapeContext& ctx) {
  if (ctx.inputs().size() != 1 || ctx.outputs().size() != 1) {
    return InvalidArgument("Softmax InferShape: expected 1 input and 1 output");
  }
  ctx.outputs()[0] = ctx.inputs()[0];
  ctx.outputs()[0].strides.clear();
  return OkStatus();
}

// Softmax over the last axis in long double, row by row.
Status SoftmaxReference(const runtime::ReferenceArgs& args) {
  SetRowOpUlps(args);
  const runtime::ReferenceTensor& x = *args.inputs.at(0);
  const runtime::ReferenceTensor& y = args.outputs.at(0);
  const RefRows rows = RowsOf(x);
  for (int64_t r = 0; r < rows.count; ++r) {
    const int64_t base = r * rows.width;
    long double m = -INFINITY, sum = 0;
    for (int64_t k = 0; k < rows.width; ++k)
      m = std::max<long double>(m, x.Get(base + k));
    for (int64_t k = 0; k < rows.width; ++k)
      sum += std::exp(x.Get(base + k) - m);
    for (int64_t k = 0; k < rows.width; ++k)
      y.Set(base + k, static_cast<double>(std::exp(x.Get(base + k) - m) / sum));
  }
  return OkStatus();
}

// y = exp(x - max) / sum(exp(x - max)) along axis `dim` (the last one); x in [-8, 8].
class SoftmaxOp : public runtime::OpDef {
 public:
  SoftmaxOp() : OpDef("Softmax") {
    const std::vector<Format> nd(kRowOpTypes.size(), Format::kND);
    Input("x").ParamType(runtime::REQUIRED).DataType(kRowOpTypes).Format(nd).ValueRange(-8, 8);
    Output("y").ParamType(runtime::REQUIRED).DataType(kRowOpTypes).Format(nd);
    Attr("dim").AttrType(runtime::OPTIONAL).Int(-1);
    SetTiling(SoftmaxTiling);
    SetInferShape(SoftmaxInferShape);
    TilingDataType<elewise::op_kernel::ElewiseTilingData>();
    Reference(SoftmaxReference, kRowOpFloat32Ulps);
    for (const char* soc : kBuiltinSocs)
      AddConfig(soc);
  }
};

TESSERA_OP_ADD(SoftmaxOp);

}  // namespace
}  // namespace tessera::ops

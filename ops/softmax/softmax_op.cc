// Op definition and tiling function of Softmax (aclnnSoftmax: x, int attribute dim -> y), the
// elewise SoftmaxCompute registered as an op. Only the last axis is supported.
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

// y = exp(x - max) / sum(exp(x - max)) along axis `dim` (the last one).
class SoftmaxOp : public runtime::OpDef {
 public:
  SoftmaxOp() : OpDef("Softmax") {
    const std::vector<Format> nd(kRowOpTypes.size(), Format::kND);
    Input("x").ParamType(runtime::REQUIRED).DataType(kRowOpTypes).Format(nd);
    Output("y").ParamType(runtime::REQUIRED).DataType(kRowOpTypes).Format(nd);
    Attr("dim").AttrType(runtime::OPTIONAL).Int(-1);
    SetTiling(SoftmaxTiling);
    SetInferShape(SoftmaxInferShape);
    TilingDataType<elewise::op_kernel::ElewiseTilingData>();
    for (const char* soc : kBuiltinSocs)
      AddConfig(soc);
  }
};

TESSERA_OP_ADD(SoftmaxOp);

}  // namespace
}  // namespace tessera::ops

// Op definitions and tiling functions of RmsNorm, AddRmsNorm and LayerNorm: elewise fused
// operators (tessera/elewise/fused.h) registered as ops. Names follow aclnn: RmsNorm(x, gamma) -> y,
// AddRmsNorm(x1, x2, gamma) -> y, x, LayerNorm(x, gamma, beta) -> y, each with a float attribute
// epsilon. The statistics outputs of aclnn (rstd, mean) are not produced.
#include <string>
#include <vector>

#include "../common/row_op_common.h"
#include "tessera/elewise/fused.h"
#include "tessera/runtime/op_registration.h"

namespace tessera::ops {
namespace {

using elewise::op_kernel::OpArguments;
using elewise::op_kernel::OpTensor;
using runtime::TilingContext;

// Every output has x's shape and dtype.
Status SameAsFirstInput(runtime::InferShapeContext& ctx) {
  if (ctx.inputs().empty()) return InvalidArgument("InferShape: the op has no input");
  for (TensorDesc& out : ctx.outputs()) {
    out = ctx.inputs()[0];
    out.strides.clear();
  }
  return OkStatus();
}

// Declares inputs, outputs, attribute epsilon (default `eps`) and the common configuration.
void DeclareNorm(runtime::OpDef& def, const std::vector<const char*>& inputs,
                 const std::vector<const char*>& outputs, float eps) {
  const std::vector<Format> nd(kRowOpTypes.size(), Format::kND);
  for (const char* in : inputs)
    def.Input(in).ParamType(runtime::REQUIRED).DataType(kRowOpTypes).Format(nd);
  for (const char* out : outputs)
    def.Output(out).ParamType(runtime::REQUIRED).DataType(kRowOpTypes).Format(nd);
  def.Attr("epsilon").AttrType(runtime::OPTIONAL).Float(eps);
  def.SetInferShape(SameAsFirstInput);
  def.TilingDataType<elewise::op_kernel::ElewiseTilingData>();
  for (const char* soc : kBuiltinSocs)
    def.AddConfig(soc);
}

// The descriptors of `names` (inputs, then outputs), contiguous, all of the first one's dtype;
// the first must have rank >= 1.
Result<std::vector<const TensorDesc*>> RowDescs(const TilingContext& ctx,
                                                const std::vector<const char*>& inputs,
                                                const std::vector<const char*>& outputs) {
  std::vector<const TensorDesc*> d;
  for (size_t i = 0; i < inputs.size(); ++i) {
    TESSERA_ASSIGN_OR_RETURN(const TensorDesc* t, RequiredDesc(ctx, false, i, inputs[i]));
    d.push_back(t);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    TESSERA_ASSIGN_OR_RETURN(const TensorDesc* t, RequiredDesc(ctx, true, i, outputs[i]));
    d.push_back(t);
  }
  const std::string& op = ctx.GetOpType();
  TESSERA_RETURN_IF_ERROR(CheckRowInput(op, inputs[0], *d[0]));
  for (size_t i = 1; i < d.size(); ++i) {
    const char* name = i < inputs.size() ? inputs[i] : outputs[i - inputs.size()];
    TESSERA_RETURN_IF_ERROR(SameDtype(op, name, *d[i], inputs[0], d[0]->dtype));
  }
  return d;
}

OpTensor Arg(int32_t index, const TensorDesc& d) {
  return OpTensor{index, 0, d.dtype, d.shape, 0};
}

Status RmsNormTiling(TilingContext& ctx) {
  const std::string& op = ctx.GetOpType();
  TESSERA_ASSIGN_OR_RETURN(auto d, RowDescs(ctx, {"x", "gamma"}, {"y"}));
  const TensorDesc &x = *d[0], &gamma = *d[1], &y = *d[2];
  TESSERA_RETURN_IF_ERROR(ShapeIs(op, "gamma", gamma, RowParamShape(x), "the last dim of x"));
  TESSERA_RETURN_IF_ERROR(ShapeIs(op, "y", y, x.shape, "the shape of x"));
  TESSERA_ASSIGN_OR_RETURN(const float eps, Epsilon(ctx));
  OpArguments args;
  args.params = {Arg(0, x), Arg(1, gamma), Arg(2, y)};
  args.attrs.Set("epsilon", static_cast<double>(eps));
  return DispatchRowType(x.dtype, [&]<class T>(T) {
    return SetRowOpTiling<typename elewise::fused::RmsNorm<T>::KernelOp>(ctx, args, x.dtype);
  });
}

Status AddRmsNormTiling(TilingContext& ctx) {
  const std::string& op = ctx.GetOpType();
  TESSERA_ASSIGN_OR_RETURN(auto d, RowDescs(ctx, {"x1", "x2", "gamma"}, {"y", "x"}));
  const TensorDesc &x1 = *d[0], &x2 = *d[1], &gamma = *d[2], &y = *d[3], &x = *d[4];
  TESSERA_RETURN_IF_ERROR(ShapeIs(op, "x2", x2, x1.shape, "the shape of x1"));
  TESSERA_RETURN_IF_ERROR(ShapeIs(op, "gamma", gamma, RowParamShape(x1), "the last dim of x1"));
  TESSERA_RETURN_IF_ERROR(ShapeIs(op, "y", y, x1.shape, "the shape of x1"));
  TESSERA_RETURN_IF_ERROR(ShapeIs(op, "x", x, x1.shape, "the shape of x1"));
  TESSERA_ASSIGN_OR_RETURN(const float eps, Epsilon(ctx));
  // The Compute's parameters: x1, x2, gamma, the sum (op output 1: x), the norm (output 0: y).
  OpArguments args;
  args.params = {Arg(0, x1), Arg(1, x2), Arg(2, gamma), Arg(4, x), Arg(3, y)};
  args.attrs.Set("epsilon", static_cast<double>(eps));
  return DispatchRowType(x1.dtype, [&]<class T>(T) {
    return SetRowOpTiling<typename elewise::fused::AddRmsNorm<T>::KernelOp>(ctx, args, x1.dtype);
  });
}

Status LayerNormTiling(TilingContext& ctx) {
  const std::string& op = ctx.GetOpType();
  TESSERA_ASSIGN_OR_RETURN(auto d, RowDescs(ctx, {"x", "gamma", "beta"}, {"y"}));
  const TensorDesc &x = *d[0], &gamma = *d[1], &beta = *d[2], &y = *d[3];
  TESSERA_ASSIGN_OR_RETURN(const int64_t axis, ctx.GetIntAttr("begin_norm_axis"));
  TESSERA_RETURN_IF_ERROR(CheckLastAxis(op, "begin_norm_axis", axis, x.shape.rank()));
  TESSERA_RETURN_IF_ERROR(ShapeIs(op, "gamma", gamma, RowParamShape(x), "the last dim of x"));
  TESSERA_RETURN_IF_ERROR(ShapeIs(op, "beta", beta, RowParamShape(x), "the last dim of x"));
  TESSERA_RETURN_IF_ERROR(ShapeIs(op, "y", y, x.shape, "the shape of x"));
  TESSERA_ASSIGN_OR_RETURN(const float eps, Epsilon(ctx));
  OpArguments args;
  args.params = {Arg(0, x), Arg(1, gamma), Arg(2, beta), Arg(3, y)};
  args.attrs.Set("epsilon", static_cast<double>(eps));
  return DispatchRowType(x.dtype, [&]<class T>(T) {
    return SetRowOpTiling<typename elewise::fused::LayerNorm<T>::KernelOp>(ctx, args, x.dtype);
  });
}

// y = x * rsqrt(mean(x^2) + epsilon) * gamma over the last axis.
class RmsNormOp : public runtime::OpDef {
 public:
  RmsNormOp() : OpDef("RmsNorm") {
    DeclareNorm(*this, {"x", "gamma"}, {"y"}, 1e-6f);
    SetTiling(RmsNormTiling);
  }
};

// x = x1 + x2 (rounded to the dtype); y = RmsNorm(x1 + x2) from the fp32 sum.
class AddRmsNormOp : public runtime::OpDef {
 public:
  AddRmsNormOp() : OpDef("AddRmsNorm") {
    DeclareNorm(*this, {"x1", "x2", "gamma"}, {"y", "x"}, 1e-6f);
    SetTiling(AddRmsNormTiling);
  }
};

// y = (x - mean) * rsqrt(var + epsilon) * gamma + beta over the last axis; begin_norm_axis
// must name the last axis.
class LayerNormOp : public runtime::OpDef {
 public:
  LayerNormOp() : OpDef("LayerNorm") {
    DeclareNorm(*this, {"x", "gamma", "beta"}, {"y"}, 1e-5f);
    Attr("begin_norm_axis").AttrType(runtime::OPTIONAL).Int(-1);
    SetTiling(LayerNormTiling);
  }
};

TESSERA_OP_ADD(RmsNormOp);
TESSERA_OP_ADD(AddRmsNormOp);
TESSERA_OP_ADD(LayerNormOp);

}  // namespace
}  // namespace tessera::ops

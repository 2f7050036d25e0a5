// Op definitions and tiling functions of RmsNorm, AddRmsNorm and LayerNorm: elewise fused
// operators (tessera/elewise/fused.h) registered as ops. Names follow aclnn: RmsNorm(x, gamma) ->
// y, AddRmsNorm(x1, x2, gamma) -> y, x, LayerNorm(x, gamma, beta) -> y, each with a float attribute
// epsilon. The statistics outputs of aclnn (rstd, mean) are not produced.
#include <cmath>
#include <string>
#include <vector>

#include "../common/reference_common.h"
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

// Declares inputs, outputs, attribute epsilon (default `eps`) and the common configuration. The
// inputs' values: x in [-2, 2] and gamma in [0.5, 1.5] unless the op narrows them.
void DeclareNorm(runtime::OpDef& def, const std::vector<const char*>& inputs,
                 const std::vector<const char*>& outputs, float eps) {
  const std::vector<Format> nd(kRowOpTypes.size(), Format::kND);
  for (const char* in : inputs) {
    const bool gamma = std::string(in) == "gamma";
    def.Input(in)
        .ParamType(runtime::REQUIRED)
        .DataType(kRowOpTypes)
        .Format(nd)
        .ValueRange(gamma ? 0.5 : -2, gamma ? 1.5 : 2);
  }
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

// RmsNorm (add = false) and AddRmsNorm (add = true: h = x1 + x2, output 1 = h) in long double:
// y = h * rsqrt(mean(h^2) + epsilon) * gamma, row by row.
Status RmsNormReference(const runtime::ReferenceArgs& args, bool add) {
  SetRowOpUlps(args);
  const runtime::ReferenceTensor& x = *args.inputs.at(0);
  const runtime::ReferenceTensor& gamma = *args.inputs.at(add ? 2 : 1);
  const runtime::ReferenceTensor& y = args.outputs.at(0);
  const long double eps = RefAttr<float>(args, "epsilon");
  const RefRows rows = RowsOf(x);
  std::vector<long double> h(static_cast<size_t>(rows.width));
  for (int64_t r = 0; r < rows.count; ++r) {
    const int64_t base = r * rows.width;
    long double ss = 0;
    for (int64_t k = 0; k < rows.width; ++k) {
      long double v = x.Get(base + k);
      if (add) v += args.inputs.at(1)->Get(base + k);
      h[static_cast<size_t>(k)] = v;
      ss += v * v;
    }
    const long double rstd = 1.0L / std::sqrt(ss / rows.width + eps);
    for (int64_t k = 0; k < rows.width; ++k) {
      const long double v = h[static_cast<size_t>(k)];
      y.Set(base + k, static_cast<double>(v * rstd * gamma.Get(k)));
      if (add) args.outputs.at(1).Set(base + k, static_cast<double>(v));
    }
  }
  return OkStatus();
}

// LayerNorm in long double, row by row. The tolerance scale of an element is
// |normalised * gamma| + |beta| + 2^-8 |x * rstd * gamma|: the kernel's fp32 rounding of the mean
// moves (x - mean) by ~2^-24 |x|, which cancellation can make large against |y|.
Status LayerNormReference(const runtime::ReferenceArgs& args) {
  SetRowOpUlps(args);
  const runtime::ReferenceTensor& x = *args.inputs.at(0);
  const runtime::ReferenceTensor& gamma = *args.inputs.at(1);
  const runtime::ReferenceTensor& beta = *args.inputs.at(2);
  const runtime::ReferenceTensor& y = args.outputs.at(0);
  const long double eps = RefAttr<float>(args, "epsilon");
  const RefRows rows = RowsOf(x);
  std::vector<double>& mag = args.magnitudes.emplace_back(static_cast<size_t>(y.size()));
  for (int64_t r = 0; r < rows.count; ++r) {
    const int64_t base = r * rows.width;
    long double mean = 0, var = 0;
    for (int64_t k = 0; k < rows.width; ++k)
      mean += x.Get(base + k);
    mean /= rows.width;
    for (int64_t k = 0; k < rows.width; ++k)
      var += (x.Get(base + k) - mean) * (x.Get(base + k) - mean);
    const long double rstd = 1.0L / std::sqrt(var / rows.width + eps);
    for (int64_t k = 0; k < rows.width; ++k) {
      const long double v = x.Get(base + k), g = gamma.Get(k), b = beta.Get(k);
      const long double scaled = (v - mean) * rstd * g;
      y.Set(base + k, static_cast<double>(scaled + b));
      mag[static_cast<size_t>(base + k)] =
          static_cast<double>(std::fabs(scaled) + std::fabs(b) + std::fabs(v * rstd * g) * 0x1p-8L);
    }
  }
  return OkStatus();
}

// y = x * rsqrt(mean(x^2) + epsilon) * gamma over the last axis.
class RmsNormOp : public runtime::OpDef {
 public:
  RmsNormOp() : OpDef("RmsNorm") {
    DeclareNorm(*this, {"x", "gamma"}, {"y"}, 1e-6f);
    SetTiling(RmsNormTiling);
    Reference([](const runtime::ReferenceArgs& a) { return RmsNormReference(a, false); },
              kRowOpFloat32Ulps);
  }
};

// x = x1 + x2 (rounded to the dtype); y = RmsNorm(x1 + x2) from the fp32 sum.
class AddRmsNormOp : public runtime::OpDef {
 public:
  AddRmsNormOp() : OpDef("AddRmsNorm") {
    DeclareNorm(*this, {"x1", "x2", "gamma"}, {"y", "x"}, 1e-6f);
    SetTiling(AddRmsNormTiling);
    Reference([](const runtime::ReferenceArgs& a) { return RmsNormReference(a, true); },
              kRowOpFloat32Ulps);
  }
};

// y = (x - mean) * rsqrt(var + epsilon) * gamma + beta over the last axis; begin_norm_axis
// must name the last axis. x in [1, 5] (a mean well away from 0), beta in [-1, 1].
class LayerNormOp : public runtime::OpDef {
 public:
  LayerNormOp() : OpDef("LayerNorm") {
    DeclareNorm(*this, {"x", "gamma", "beta"}, {"y"}, 1e-5f);
    Input("x").ValueRange(1, 5);
    Input("beta").ValueRange(-1, 1);
    Attr("begin_norm_axis").AttrType(runtime::OPTIONAL).Int(-1);
    SetTiling(LayerNormTiling);
    Reference(LayerNormReference, kRowOpFloat32Ulps);
  }
};

TESSERA_OP_ADD(RmsNormOp);
TESSERA_OP_ADD(AddRmsNormOp);
TESSERA_OP_ADD(LayerNormOp);

}  // namespace
}  // namespace tessera::ops

// Op definitions and the tiling function of the unary elementwise ops, including Adds and Muls
// (y = x + value, y = x * value with a float attribute "value"): each op is an elewise Compute
// (unary_compute.h) planned here and run by unary_kernel.cc; x may have any strides.
#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "../common/elementwise_host.h"
#include "../common/reference_common.h"
#include "tessera/runtime/op_registration.h"
#include "unary_compute.h"

namespace tessera::ops {
namespace {

using runtime::TilingContext;

// For int32 the float attribute must name an int32 exactly: silently truncating 2.5 would compute
// something the caller did not ask for.
Result<int64_t> IntScalar(const std::string& op, float value) {
  if (!std::isfinite(value) || std::trunc(value) != value || value < -2147483648.0f ||
      value >= 2147483648.0f) {
    return InvalidArgument(op + ": attribute value " + std::to_string(value) +
                           " is not an int32 value, as an int32 input requires");
  }
  return static_cast<int64_t>(value);
}

// Adds/Muls take their scalar at run time: each call writes it into its own copy of the tiling
// data (the plan is shared by every value). The Compute reads one attribute, "value", as fp32 bits
// (an int32 input truncates it in the kernel, so it must name an int32 exactly).
Status WriteScalarValue(const runtime::RunTimeValueContext& c) {
  auto t = c.GetTiling<elewise::op_kernel::ElewiseTilingData>();
  if (t.numAttrs != 1) {
    return Internal(c.op_type + ": the plan holds " + std::to_string(t.numAttrs) +
                    " attributes, expected only \"value\"");
  }
  const float value = std::get<float>(c.value);
  if (c.input_dtypes.at(0) == DataType::kInt32) {
    TESSERA_RETURN_IF_ERROR(IntScalar(c.op_type, value).status());
  }
  t.attrBits[0] = static_cast<int64_t>(std::bit_cast<uint32_t>(value));
  c.SetTiling(t);
  return OkStatus();
}

// Checks the call and plans UnaryCompute<T, Fn> for the call's dtype.
template <class Fn>
Status UnaryTiling(TilingContext& ctx, const std::vector<DataType>& dtypes) {
  const std::string& op = ctx.GetOpType();
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* x, ElementwiseInput(ctx, 0, "x"));
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* y, ElementwiseOutput(ctx, 0, "y"));
  const DataType dtype = x->dtype;
  if (y->dtype != dtype) {
    return InvalidArgument(op + ": x and y must have one dtype, got " + DtypeText(dtype) + " and " +
                           DtypeText(y->dtype));
  }
  if (std::find(dtypes.begin(), dtypes.end(), dtype) == dtypes.end()) {
    return InvalidArgument(op + ": dtype " + DtypeText(dtype) + " is not supported");
  }
  if (!(y->shape == x->shape)) {
    return InvalidArgument(op + ": output y has shape " + y->shape.ToString() +
                           ", expected the shape of x " + x->shape.ToString());
  }
  elewise::op_kernel::OpArguments args;
  args.params = {ElementwiseTensor(0, *x), ElementwiseTensor(1, *y)};
  if constexpr (Fn::kHasValue) {
    TESSERA_ASSIGN_OR_RETURN(const float value, ctx.GetFloatAttr("value"));
    if (dtype == DataType::kInt32) TESSERA_RETURN_IF_ERROR(IntScalar(op, value).status());
    args.attrs.Set("value", static_cast<double>(value));
  }
  return DispatchElementwiseType(dtype, [&]<class T>(T) -> Status {
    if constexpr (kUnaryHas<Fn, T>) {
      return SetElementwiseTiling<ElementwiseKernel<UnaryCompute<T, Fn>>>(ctx, args,
                                                                          UnaryKey(dtype));
    } else {
      return InvalidArgument(op + ": dtype " + DtypeText(dtype) + " is not supported");
    }
  });
}

Status SameShapeInferShape(runtime::InferShapeContext& ctx) {
  if (ctx.inputs().size() != 1 || ctx.outputs().size() != 1) {
    return InvalidArgument("unary op InferShape: expected 1 input and 1 output");
  }
  ctx.outputs()[0] = ctx.inputs()[0];
  ctx.outputs()[0].strides.clear();
  return OkStatus();
}

const std::vector<DataType> kFloatTypes = {DataType::kFloat32, DataType::kFloat16,
                                           DataType::kBfloat16};
const std::vector<DataType> kFloatAndInt32 = {DataType::kFloat32, DataType::kFloat16,
                                              DataType::kBfloat16, DataType::kInt32};

using UnaryFn = double (*)(double x, double value);

// The domain of x: [-100, 100] unless the op narrows it.
struct Domain {
  double lo = -100, hi = 100;
};

// y = f(x) (or f(x, value)), y of x's dtype and shape. The reference computes `fn` in double
// (value rounded to y's dtype first, as the kernels hold it in the tensor's type) and rounds once
// to y's dtype: `ulps` 1 for the exact ops, 2 for the transcendental ones (fp32 math within ~1
// ulp, then rounded).
template <class Fn>
class UnaryOpDef : public runtime::OpDef {
 public:
  UnaryOpDef(const char* type, const std::vector<DataType>& dtypes, UnaryFn fn, double ulps,
             Domain domain)
      : OpDef(type) {
    constexpr bool has_value = Fn::kHasValue;
    const std::vector<Format> nd(dtypes.size(), Format::kND);
    Input("x")
        .ParamType(runtime::REQUIRED)
        .DataType(dtypes)
        .Format(nd)
        .ValueRange(domain.lo, domain.hi);
    Output("y").ParamType(runtime::REQUIRED).DataType(dtypes).Format(nd);
    if (has_value) Attr("value").AttrType(runtime::REQUIRED).Float().RunTimeValue(WriteScalarValue);
    SetTiling([dtypes](TilingContext& ctx) { return UnaryTiling<Fn>(ctx, dtypes); });
    SetInferShape(SameShapeInferShape);
    TilingDataType<elewise::op_kernel::ElewiseTilingData>();
    Reference(
        [fn](const runtime::ReferenceArgs& args) {
          const double value = Fn::kHasValue ? RoundToDtype(args.outputs.at(0).desc.dtype,
                                                            RefAttr<float>(args, "value"))
                                             : 0;
          return ElementwiseReference(args, value, fn);
        },
        ulps);
    for (const char* soc : kBuiltinSocs)
      AddConfig(soc);
  }
};

#define TESSERA_UNARY_OP(Name, dtypes, fn, ulps, domain)                  \
  class Name##Op : public UnaryOpDef<Name##Fn> {                          \
   public:                                                                \
    Name##Op() : UnaryOpDef<Name##Fn>(#Name, dtypes, fn, ulps, domain) {} \
  };                                                                      \
  TESSERA_OP_ADD(Name##Op)

TESSERA_UNARY_OP(
    Abs, kFloatAndInt32, [](double x, double) { return std::fabs(x); }, 1, Domain{});
TESSERA_UNARY_OP(
    Exp, kFloatTypes, [](double x, double) { return std::exp(x); }, 2, (Domain{-10, 10}));
TESSERA_UNARY_OP(
    Log, kFloatTypes, [](double x, double) { return std::log(x); }, 2, (Domain{1e-3, 1e3}));
TESSERA_UNARY_OP(
    Sqrt, kFloatTypes, [](double x, double) { return std::sqrt(x); }, 1, (Domain{0, 1e4}));
TESSERA_UNARY_OP(
    Rsqrt, kFloatTypes, [](double x, double) { return 1 / std::sqrt(x); }, 2, (Domain{1e-3, 1e3}));
TESSERA_UNARY_OP(
    Relu, kFloatAndInt32, [](double x, double) { return x < 0 ? 0 : x; }, 1, Domain{});
TESSERA_UNARY_OP(
    Sigmoid, kFloatTypes, [](double x, double) { return 1 / (1 + std::exp(-x)); }, 2,
    (Domain{-20, 20}));
TESSERA_UNARY_OP(
    Adds, kFloatAndInt32, [](double x, double v) { return x + v; }, 1, Domain{});
TESSERA_UNARY_OP(
    Muls, kFloatAndInt32, [](double x, double v) { return x * v; }, 1, Domain{});

}  // namespace
}  // namespace tessera::ops

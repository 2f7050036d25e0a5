// Op definitions and the tiling function of the binary elementwise ops, with numpy broadcasting
// between x1 and x2 (any of numpy's cases) and inputs of any strides: each op is an elewise
// Compute (binary_compute.h) planned here and run by binary_kernel.cc.
#include <algorithm>
#include <string>
#include <vector>

#include "../common/elementwise_host.h"
#include "../common/reference_common.h"
#include "binary_compute.h"
#include "tessera/runtime/op_registration.h"

namespace tessera::ops {
namespace {

using runtime::TilingContext;

// numpy rule: dimensions are aligned from the right; each pair must be equal or contain a 1.
Result<Shape> BroadcastShapes(const std::string& op, const Shape& a, const Shape& b) {
  const int rank = std::max(a.rank(), b.rank());
  int64_t dims[Shape::kMaxRank];
  for (int i = 0; i < rank; ++i) {
    const int ia = i - (rank - a.rank()), ib = i - (rank - b.rank());
    const int64_t da = ia < 0 ? 1 : a.dim(ia), db = ib < 0 ? 1 : b.dim(ib);
    if (da != db && da != 1 && db != 1) {
      return InvalidArgument(op + ": shapes x1 " + a.ToString() + " and x2 " + b.ToString() +
                             " cannot be broadcast: dimension " + std::to_string(i - rank) +
                             " is " + std::to_string(da) + " in x1 and " + std::to_string(db) +
                             " in x2 (numpy rule: equal, or one of them 1)");
    }
    dims[i] = da == 1 ? db : da;
  }
  return Shape::Make(std::span<const int64_t>(dims, static_cast<size_t>(rank)));
}

// Checks the call as numpy would and plans BinaryCompute<T, Fn> for the call's dtype.
template <class Fn>
Status BinaryTiling(TilingContext& ctx, const std::vector<DataType>& dtypes) {
  const std::string& op = ctx.GetOpType();
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* x1, ElementwiseInput(ctx, 0, "x1"));
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* x2, ElementwiseInput(ctx, 1, "x2"));
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* y, ElementwiseOutput(ctx, 0, "y"));
  const DataType dtype = x1->dtype;
  if (x2->dtype != dtype || y->dtype != dtype) {
    return InvalidArgument(op + ": x1, x2 and y must have one dtype, got " + DtypeText(dtype) +
                           ", " + DtypeText(x2->dtype) + " and " + DtypeText(y->dtype));
  }
  if (std::find(dtypes.begin(), dtypes.end(), dtype) == dtypes.end()) {
    return InvalidArgument(op + ": dtype " + DtypeText(dtype) + " is not supported");
  }
  TESSERA_ASSIGN_OR_RETURN(const Shape out, BroadcastShapes(op, x1->shape, x2->shape));
  if (!(y->shape == out)) {
    return InvalidArgument(op + ": output y has shape " + y->shape.ToString() +
                           ", but broadcasting x1 " + x1->shape.ToString() + " and x2 " +
                           x2->shape.ToString() + " gives " + out.ToString());
  }
  elewise::op_kernel::OpArguments args;
  args.params = {ElementwiseTensor(0, *x1), ElementwiseTensor(1, *x2), ElementwiseTensor(2, *y)};
  return DispatchElementwiseType(dtype, [&]<class T>(T) -> Status {
    if constexpr (kBinaryHas<Fn, T>) {
      return SetElementwiseTiling<ElementwiseKernel<BinaryCompute<T, Fn>>>(ctx, args,
                                                                           DtypeField(dtype));
    } else {
      return InvalidArgument(op + ": dtype " + DtypeText(dtype) + " is not supported");
    }
  });
}

Status BinaryInferShape(runtime::InferShapeContext& ctx) {
  const auto& in = ctx.inputs();
  if (in.size() != 2 || ctx.outputs().size() != 1) {
    return InvalidArgument("binary op InferShape: expected 2 inputs and 1 output");
  }
  TESSERA_ASSIGN_OR_RETURN(Shape out, BroadcastShapes("InferShape", in[0].shape, in[1].shape));
  ctx.outputs()[0] = TensorDesc{in[0].dtype, out, in[0].format, {}};
  return OkStatus();
}

const std::vector<DataType> kFloatTypes = {DataType::kFloat32, DataType::kFloat16,
                                           DataType::kBfloat16};
const std::vector<DataType> kFloatAndInt32 = {DataType::kFloat32, DataType::kFloat16,
                                              DataType::kBfloat16, DataType::kInt32};

using BinaryFn = double (*)(double, double);

// y = x1 <op> x2, both inputs of y's dtype. The reference computes `fn` in double with numpy
// broadcasting and rounds once to y's dtype: 1 ulp.
template <class Fn>
class BinaryOpDef : public runtime::OpDef {
 public:
  BinaryOpDef(const char* type, const std::vector<DataType>& dtypes, BinaryFn fn) : OpDef(type) {
    const std::vector<Format> nd(dtypes.size(), Format::kND);
    Input("x1").ParamType(runtime::REQUIRED).DataType(dtypes).Format(nd);
    Input("x2").ParamType(runtime::REQUIRED).DataType(dtypes).Format(nd);
    Output("y").ParamType(runtime::REQUIRED).DataType(dtypes).Format(nd);
    SetTiling([dtypes](TilingContext& ctx) { return BinaryTiling<Fn>(ctx, dtypes); });
    SetInferShape(BinaryInferShape);
    TilingDataType<elewise::op_kernel::ElewiseTilingData>();
    Reference(
        [fn](const runtime::ReferenceArgs& args) { return ElementwiseReference(args, 0, fn); }, 1);
    for (const char* soc : kBuiltinSocs)
      AddConfig(soc);
  }
};

#define TESSERA_BINARY_OP(Name, dtypes, fn)                  \
  class Name##Op : public BinaryOpDef<Name##Fn> {            \
   public:                                                   \
    Name##Op() : BinaryOpDef<Name##Fn>(#Name, dtypes, fn) {} \
  };                                                         \
  TESSERA_OP_ADD(Name##Op)

TESSERA_BINARY_OP(Add, kFloatAndInt32, [](double a, double b) { return a + b; });
TESSERA_BINARY_OP(Sub, kFloatAndInt32, [](double a, double b) { return a - b; });
TESSERA_BINARY_OP(Mul, kFloatAndInt32, [](double a, double b) { return a * b; });
TESSERA_BINARY_OP(Maximum, kFloatAndInt32, [](double a, double b) { return std::max(a, b); });
TESSERA_BINARY_OP(Minimum, kFloatAndInt32, [](double a, double b) { return std::min(a, b); });

// Divisors drawn away from 0: |x2| in [0.5, 100], either sign.
class DivOp : public BinaryOpDef<DivFn> {
 public:
  DivOp() : BinaryOpDef<DivFn>("Div", kFloatTypes, [](double a, double b) { return a / b; }) {
    Input("x2").ValueRange(0.5, 100, /*random_sign=*/true);
  }
};
TESSERA_OP_ADD(DivOp);

}  // namespace
}  // namespace tessera::ops

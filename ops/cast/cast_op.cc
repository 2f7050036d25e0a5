// Op definition and tiling function of Cast: y = x converted to the DataType whose code is the
// required int attribute "dst_type" (y's dtype must be that type). Each dtype pair is an elewise
// Compute (cast_compute.h) planned here and run by cast_kernel.cc; x may have any strides.
#include <algorithm>
#include <string>
#include <vector>

#include "../common/elementwise_host.h"
#include "../common/reference_common.h"
#include "cast_compute.h"
#include "tessera/runtime/op_registration.h"

namespace tessera::ops {
namespace {

using runtime::TilingContext;

constexpr DataType kCastTypes[] = {DataType::kFloat32, DataType::kFloat16, DataType::kBfloat16,
                                   DataType::kInt32};

bool IsCastType(DataType d) {
  return std::find(std::begin(kCastTypes), std::end(kCastTypes), d) != std::end(kCastTypes);
}

std::string CastTypesText() {
  std::string s;
  for (DataType d : kCastTypes) {
    s += (s.empty() ? "" : ", ") + DtypeText(d) + " (" + std::to_string(static_cast<int>(d)) + ")";
  }
  return s;
}

// The DataType named by attribute dst_type, if Cast supports it.
Result<DataType> DstType(const std::string& op, int64_t code) {
  if (code < 0 || code > 255 || !IsValidDataType(static_cast<int>(code)) ||
      !IsCastType(static_cast<DataType>(code))) {
    return InvalidArgument(op + ": dst_type " + std::to_string(code) +
                           " is not a supported DataType code; expected one of " + CastTypesText());
  }
  return static_cast<DataType>(code);
}

Status CastTiling(TilingContext& ctx) {
  const std::string& op = ctx.GetOpType();
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* x, ElementwiseInput(ctx, 0, "x"));
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* y, ElementwiseOutput(ctx, 0, "y"));
  TESSERA_ASSIGN_OR_RETURN(const int64_t dst_code, ctx.GetIntAttr("dst_type"));
  TESSERA_ASSIGN_OR_RETURN(const DataType dst, DstType(op, dst_code));
  if (y->dtype != dst) {
    return InvalidArgument(op + ": dst_type is " + DtypeText(dst) + " but output y is " +
                           DtypeText(y->dtype));
  }
  if (!IsCastType(x->dtype)) {
    return InvalidArgument(op + ": input dtype " + DtypeText(x->dtype) +
                           " is not supported; expected one of " + CastTypesText());
  }
  if (!(y->shape == x->shape)) {
    return InvalidArgument(op + ": output y has shape " + y->shape.ToString() +
                           ", expected the shape of x " + x->shape.ToString());
  }
  elewise::op_kernel::OpArguments args;
  args.params = {ElementwiseTensor(0, *x), ElementwiseTensor(1, *y)};
  const uint64_t key = CastKey(x->dtype, dst);
  return DispatchElementwiseType(x->dtype, [&]<class S>(S) {
    return DispatchElementwiseType(dst, [&]<class D>(D) {
      return SetElementwiseTiling<ElementwiseKernel<CastCompute<S, D>>>(ctx, args, key);
    });
  });
}

Status CastInferShape(runtime::InferShapeContext& ctx) {
  if (ctx.inputs().size() != 1 || ctx.outputs().size() != 1) {
    return InvalidArgument("Cast InferShape: expected 1 input and 1 output");
  }
  const auto it = ctx.attrs().find("dst_type");
  if (it == ctx.attrs().end() || !std::holds_alternative<int64_t>(it->second)) {
    return InvalidArgument("Cast InferShape: the int attribute dst_type is missing");
  }
  TESSERA_ASSIGN_OR_RETURN(const DataType dst,
                           DstType("Cast InferShape", std::get<int64_t>(it->second)));
  ctx.outputs()[0] = TensorDesc{dst, ctx.inputs()[0].shape, ctx.inputs()[0].format, {}};
  return OkStatus();
}

// Every (source, destination) pair of kCastTypes, identity included (a copy). The reference is
// the conversion itself: storing x in y's dtype rounds to nearest even (float types) or
// truncates toward zero (int32); 1 ulp.
class CastOp : public runtime::OpDef {
 public:
  CastOp() : OpDef("Cast") {
    std::vector<DataType> from, to;
    for (DataType s : kCastTypes) {
      for (DataType d : kCastTypes)
        from.push_back(s), to.push_back(d);
    }
    const std::vector<Format> nd(from.size(), Format::kND);
    Input("x").ParamType(runtime::REQUIRED).DataType(from).Format(nd);
    Output("y").ParamType(runtime::REQUIRED).DataType(to).Format(nd);
    Attr("dst_type").AttrType(runtime::REQUIRED).Int();
    SetTiling(CastTiling);
    SetInferShape(CastInferShape);
    TilingDataType<elewise::op_kernel::ElewiseTilingData>();
    Reference(
        [](const runtime::ReferenceArgs& args) {
          return ElementwiseReference(args, 0, [](double x, double) { return x; });
        },
        1);
    for (const char* soc : kBuiltinSocs)
      AddConfig(soc);
  }
};
TESSERA_OP_ADD(CastOp);

}  // namespace
}  // namespace tessera::ops

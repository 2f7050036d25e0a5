// The reference test package: three ops computing y = x1 * alpha + x2 (float32, float16,
// bfloat16, int32; attr alpha int, default 2; x2's floats declared in [1, 2]) with one kernel,
// differing in their Reference():
//   RefSum       a correct reference (typed int32 buffers, double Get/Set for the float types);
//   RefWrongSum  a deliberately wrong one (x1 * alpha - x2), and alpha = 0 makes it fail;
//   RefNoRef     none.
// Built with REFERENCE_PACKAGE_ONLY_SOC="<soc>" (not as a package) RefSum is configured for that
// SoC only: the package tool test feeds such a library to tessera_package_tool.
#include "reference_tiling.h"
#include "tessera/runtime/op_registration.h"
#include "tessera/runtime/tiling_context.h"

namespace reference_package {

using namespace tessera;
using namespace tessera::runtime;

Status RefSumTiling(TilingContext& ctx) {
  const TensorDesc* x1 = ctx.GetInputDesc(0);
  const TensorDesc* x2 = ctx.GetInputDesc(1);
  const TensorDesc* y = ctx.GetOutputDesc(0);
  if (!(x1->shape == x2->shape) || !(x1->shape == y->shape)) {
    return InvalidArgument("reference test ops need equal shapes; got " + x1->shape.ToString() +
                           ", " + x2->shape.ToString() + " -> " + y->shape.ToString());
  }
  TESSERA_ASSIGN_OR_RETURN(int64_t alpha, ctx.GetIntAttr("alpha"));
  TESSERA_ASSIGN_OR_RETURN(int64_t n, x1->shape.NumElements());
  const uint32_t cores = ctx.GetPlatformInfo().aiv_cores;
  RefSumTilingData t;
  t.total = n;
  t.perCore = std::max<int64_t>(8, ((n + cores - 1) / cores + 7) / 8 * 8);
  t.alpha = alpha;
  ctx.SetBlockDim(static_cast<uint32_t>(std::max<int64_t>(1, (n + t.perCore - 1) / t.perCore)));
  switch (x1->dtype) {  // the kernel entry per dtype
    case DataType::kFloat16:
      ctx.SetTilingKey(1);
      break;
    case DataType::kBfloat16:
      ctx.SetTilingKey(2);
      break;
    case DataType::kInt32:
      ctx.SetTilingKey(3);
      break;
    default:
      ctx.SetTilingKey(0);
  }
  ctx.SetTilingData(t);
  return OkStatus();
}

int64_t Alpha(const ReferenceArgs& args) {
  return std::get<int64_t>(args.attrs.at("alpha"));
}

// y = x1 * alpha + sign * x2.
Status SumReference(const ReferenceArgs& args, double sign) {
  const ReferenceTensor& x1 = *args.inputs[0];
  const ReferenceTensor& x2 = *args.inputs[1];
  const ReferenceTensor& y = args.outputs[0];
  const int64_t alpha = Alpha(args);
  if (y.desc.dtype == DataType::kInt32) {
    const int32_t* a = x1.As<int32_t>();
    const int32_t* b = x2.As<int32_t>();
    int32_t* out = y.As<int32_t>();
    for (int64_t i = 0; i < y.size(); ++i)
      out[i] = static_cast<int32_t>(a[i] * alpha + static_cast<int64_t>(sign) * b[i]);
    return OkStatus();
  }
  for (int64_t i = 0; i < y.size(); ++i)
    y.Set(i, x1.Get(i) * static_cast<double>(alpha) + sign * x2.Get(i));
  return OkStatus();
}

void Declare(OpDef& op, const char* only_soc) {
  const std::vector<DataType> dtypes = {DataType::kFloat32, DataType::kFloat16, DataType::kBfloat16,
                                        DataType::kInt32};
  op.Input("x1").ParamType(REQUIRED).DataType(dtypes);
  op.Input("x2").ParamType(REQUIRED).DataType(dtypes).ValueRange(1, 2);
  op.Output("y").ParamType(REQUIRED).Follow("x1");
  op.Attr("alpha").AttrType(OPTIONAL).Int(2);
  op.SetTiling(RefSumTiling);
  op.TilingDataType<RefSumTilingData>();
  if (only_soc != nullptr) {
    op.AddConfig(only_soc);
    return;
  }
  for (const char* soc : {"x86-64-v2", "x86-64-v3", "x86-64-v4", "armv8-a"})
    op.AddConfig(soc);
}

#ifdef REFERENCE_PACKAGE_ONLY_SOC
constexpr const char* kOnlySoc = REFERENCE_PACKAGE_ONLY_SOC;
#else
constexpr const char* kOnlySoc = nullptr;
#endif

class RefSum : public OpDef {
 public:
  RefSum() : OpDef("RefSum") {
    Declare(*this, kOnlySoc);
    Reference([](const ReferenceArgs& args) { return SumReference(args, 1); });
  }
};

class RefWrongSum : public OpDef {
 public:
  RefWrongSum() : OpDef("RefWrongSum") {
    Declare(*this, nullptr);
    Reference([](const ReferenceArgs& args) {
      if (Alpha(args) == 0) return InvalidArgument("alpha 0 is not supported by this reference");
      return SumReference(args, -1);
    });
  }
};

class RefNoRef : public OpDef {
 public:
  RefNoRef() : OpDef("RefNoRef") { Declare(*this, nullptr); }
};

TESSERA_OP_ADD(RefSum);
TESSERA_OP_ADD(RefWrongSum);
TESSERA_OP_ADD(RefNoRef);

}  // namespace reference_package

TESSERA_OP_LIBRARY()

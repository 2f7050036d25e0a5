// Operator definitions of the test package linked into an application: Add (float32, overriding
// the built-in one) and ScaledAdd (y = alpha * x1 + x2), which only this package provides.
#include <algorithm>

#include "linked_add_tiling.h"
#include "tessera/runtime/op_registration.h"
#include "tessera/runtime/tiling_context.h"

namespace linked_add {

using namespace tessera;
using namespace tessera::runtime;

// Equal shapes, split evenly over the vector cores; alpha is 1 for Add.
Status Tiling(TilingContext& ctx, float alpha) {
  const TensorDesc* x1 = ctx.GetInputDesc(0);
  const TensorDesc* x2 = ctx.GetInputDesc(1);
  if (!(x1->shape == x2->shape) || !(x1->shape == ctx.GetOutputDesc(0)->shape)) {
    return InvalidArgument("linked_add supports equal shapes only; got " + x1->shape.ToString() +
                           ", " + x2->shape.ToString());
  }
  TESSERA_ASSIGN_OR_RETURN(int64_t n, x1->shape.NumElements());
  const int64_t cores = ctx.GetPlatformInfo().aiv_cores;
  LinkedAddTilingData t;
  t.total = n;
  t.perCore = std::max<int64_t>(1, (n + cores - 1) / cores);
  t.alpha = alpha;
  ctx.SetBlockDim(static_cast<uint32_t>(std::max<int64_t>(1, (n + t.perCore - 1) / t.perCore)));
  ctx.SetTilingKey(0);
  ctx.SetTilingData(t);
  return OkStatus();
}

Status AddTiling(TilingContext& ctx) {
  return Tiling(ctx, 1.0f);
}

Status ScaledAddTiling(TilingContext& ctx) {
  TESSERA_ASSIGN_OR_RETURN(float alpha, ctx.GetFloatAttr("alpha"));
  return Tiling(ctx, alpha);
}

class LinkedAdd : public OpDef {
 public:
  LinkedAdd() : OpDef("Add") {
    Input("x1").ParamType(REQUIRED).DataType({DataType::kFloat32});
    Input("x2").ParamType(REQUIRED).DataType({DataType::kFloat32});
    Output("y").ParamType(REQUIRED).Follow("x1");
    SetTiling(AddTiling);
    TilingDataType<LinkedAddTilingData>();
    for (const char* soc : {"x86-64-v2", "x86-64-v3", "x86-64-v4", "armv8-a"})
      AddConfig(soc);
  }
};

class ScaledAdd : public OpDef {
 public:
  ScaledAdd() : OpDef("ScaledAdd") {
    Input("x1").ParamType(REQUIRED).DataType({DataType::kFloat32});
    Input("x2").ParamType(REQUIRED).DataType({DataType::kFloat32});
    Output("y").ParamType(REQUIRED).Follow("x1");
    Attr("alpha").AttrType(OPTIONAL).Float(2.0f);
    SetTiling(ScaledAddTiling);
    TilingDataType<LinkedAddTilingData>();
    for (const char* soc : {"x86-64-v2", "x86-64-v3", "x86-64-v4", "armv8-a"})
      AddConfig(soc);
  }
};

TESSERA_OP_ADD(LinkedAdd);
TESSERA_OP_ADD(ScaledAdd);

}  // namespace linked_add

TESSERA_OP_LIBRARY()

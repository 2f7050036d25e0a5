// Ops whose kernel binaries differ by an attribute value, one per simplified-key mode:
//   ScaleMode    (mode 1): attr `mode` declares binary values 0 and 1; the key spells it
//                ("ScaleMode/d=0,p=0/DT_FLOAT,ND/DT_FLOAT,ND/mode=1"), each binary holds only
//                its entry: mode 0 -> y = x * alpha (tiling key 0), mode 1 -> y = x + alpha (1).
//   ScaleModeFn  (mode 2): the same kernels chosen by a GenSimplifiedKey callback that returns
//                "mul" or "add"; other `mode` values exercise the callback's failure paths.
#include <stdexcept>

#include "keymode_tiling.h"
#include "tessera/runtime/op_registration.h"
#include "tessera/runtime/tiling_context.h"

namespace keymode_package {

using namespace tessera;
using namespace tessera::runtime;

Status KeyModeTiling(TilingContext& ctx) {
  const TensorDesc* x = ctx.GetInputDesc(0);
  const TensorDesc* y = ctx.GetOutputDesc(0);
  if (!(x->shape == y->shape)) {
    return InvalidArgument("keymode ops need equal shapes; got " + x->shape.ToString() + " -> " +
                           y->shape.ToString());
  }
  TESSERA_ASSIGN_OR_RETURN(int64_t mode, ctx.GetIntAttr("mode"));
  TESSERA_ASSIGN_OR_RETURN(float alpha, ctx.GetFloatAttr("alpha"));
  TESSERA_ASSIGN_OR_RETURN(int64_t n, x->shape.NumElements());
  const uint32_t cores = ctx.GetPlatformInfo().aiv_cores;
  KeyModeTilingData t;
  t.total = n;
  t.perCore = std::max<int64_t>(8, ((n + cores - 1) / cores + 7) / 8 * 8);
  t.alpha = alpha;
  ctx.SetBlockDim(static_cast<uint32_t>(std::max<int64_t>(1, (n + t.perCore - 1) / t.perCore)));
  // Modes 0 and 1 have kernels; any other value asks for entry `mode`, which no binary has.
  ctx.SetTilingKey(static_cast<uint64_t>(mode));
  ctx.SetTilingData(t);
  return OkStatus();
}

void DeclareCommon(OpDef& op) {
  op.Input("x").ParamType(REQUIRED).DataType({DataType::kFloat32});
  op.Output("y").ParamType(REQUIRED).Follow("x");
  op.Attr("alpha").AttrType(OPTIONAL).Float(1.0f);
  op.SetTiling(KeyModeTiling);
  op.TilingDataType<KeyModeTilingData>();
  for (const char* soc : {"x86-64-v2", "x86-64-v3", "x86-64-v4", "armv8-a"})
    op.AddConfig(soc);
}

class ScaleMode : public OpDef {
 public:
  ScaleMode() : OpDef("ScaleMode") {
    DeclareCommon(*this);
    Attr("mode").AttrType(REQUIRED).Int().BinaryValue(0, {0}).BinaryValue(1, {1});
    SimplifiedKeyMode(1);
  }
};

// The fragment per `mode`: 0 "mul", 1 "add"; 2 fails, 3 throws, 4 returns a full key (refused),
// 5 "sub", for which no binary was built.
Result<std::string> ScaleModeFnKey(const TilingContext& ctx) {
  TESSERA_ASSIGN_OR_RETURN(int64_t mode, ctx.GetIntAttr("mode"));
  switch (mode) {
    case 0:
      return std::string("mul");
    case 1:
      return std::string("add");
    case 2:
      return InvalidArgument("mode 2 has no binary");
    case 3:
      throw std::runtime_error("mode 3 is not implemented");
    case 4:
      return std::string("ScaleModeFn/d=0,p=0/mul");
    default:
      return std::string("sub");
  }
}

class ScaleModeFn : public OpDef {
 public:
  ScaleModeFn() : OpDef("ScaleModeFn") {
    DeclareCommon(*this);
    Attr("mode").AttrType(REQUIRED).Int();
    SetGenSimplifiedKey(ScaleModeFnKey);
    SimplifiedKey("mul", {0});
    SimplifiedKey("add", {1});
  }
};

TESSERA_OP_ADD(ScaleMode);
TESSERA_OP_ADD(ScaleModeFn);

}  // namespace keymode_package

TESSERA_OP_LIBRARY()

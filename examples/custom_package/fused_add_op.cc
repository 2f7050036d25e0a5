// A custom package that overrides the built-in Add for float32: y = x1 + x2, computed through a
// workspace (to show how an op asks for one). Build it with tessera_add_op_package and put its
// directory on TESSERA_CUSTOM_OPP_PATH: calls to Add then run this kernel instead of the built-in.
// Its Reference() lets `tessera run Add ...` check the kernel against the op's own definition.
#include "fused_add_tiling.h"
#include "tessera/runtime/op_registration.h"
#include "tessera/runtime/tiling_context.h"
#include "tessera/tiling/split.h"

namespace custom_package {

using namespace tessera;
using namespace tessera::runtime;

Status FusedAddTiling(TilingContext& ctx) {
  const TensorDesc* x1 = ctx.GetInputDesc(0);
  const TensorDesc* x2 = ctx.GetInputDesc(1);
  const TensorDesc* y = ctx.GetOutputDesc(0);
  if (!(x1->shape == x2->shape) || !(x1->shape == y->shape)) {
    return InvalidArgument("custom Add supports equal shapes only; got " + x1->shape.ToString() +
                           ", " + x2->shape.ToString() + " -> " + y->shape.ToString());
  }
  TESSERA_ASSIGN_OR_RETURN(int64_t n, x1->shape.NumElements());
  const uint32_t cores = ctx.GetPlatformInfo().aiv_cores;
  FusedAddTilingData t;
  t.total = n;
  t.perCore = std::max<int64_t>(8, ((n + cores - 1) / cores + 7) / 8 * 8);
  ctx.SetBlockDim(static_cast<uint32_t>(std::max<int64_t>(1, (n + t.perCore - 1) / t.perCore)));
  ctx.SetTilingKey(0);
  ctx.SetTilingData(t);
  // One staging tile of 4 KiB per block.
  ctx.SetWorkspaceSizes({static_cast<uint64_t>(ctx.block_dim()) * 4096});
  return OkStatus();
}

// y = x1 + x2 on the host (float32 only, as the op).
Status FusedAddReference(const ReferenceArgs& args) {
  const float* x1 = args.inputs[0]->As<float>();
  const float* x2 = args.inputs[1]->As<float>();
  float* y = args.outputs[0].As<float>();
  for (int64_t i = 0; i < args.outputs[0].size(); ++i)
    y[i] = x1[i] + x2[i];
  return OkStatus();
}

class FusedAdd : public OpDef {
 public:
  FusedAdd() : OpDef("Add") {
    Input("x1").ParamType(REQUIRED).DataType({DataType::kFloat32});
    Input("x2").ParamType(REQUIRED).DataType({DataType::kFloat32});
    Output("y").ParamType(REQUIRED).Follow("x1");
    SetTiling(FusedAddTiling);
    TilingDataType<FusedAddTilingData>();
    Reference(FusedAddReference);
    for (const char* soc : {"x86-64-v2", "x86-64-v3", "x86-64-v4", "armv8-a"})
      AddConfig(soc);
  }
};

TESSERA_OP_ADD(FusedAdd);

}  // namespace custom_package

TESSERA_OP_LIBRARY()

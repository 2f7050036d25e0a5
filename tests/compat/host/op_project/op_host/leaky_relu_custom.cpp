// A vendor-style op with attributes read by index (GetAttrPointer<float>; GetListInt: a shape the
// input must have when given), a tiling key chosen by dtype and a workspace.
#include "../op_kernel/leaky_relu_custom_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus LeakyReluTiling(gert::TilingContext* context) {
  const gert::StorageShape* x = context->GetInputShape(0);
  const float* slope = context->GetAttrs()->GetAttrPointer<float>(0);
  if (x == nullptr || slope == nullptr) return ge::GRAPH_FAILED;
  const int64_t total = x->GetOriginShape().GetShapeSize();
  if (total <= 0) return ge::GRAPH_FAILED;
  const gert::TypedContinuousVector<int64_t>* expected = context->GetAttrs()->GetListInt(1);
  if (expected == nullptr) return ge::GRAPH_FAILED;
  if (expected->GetSize() != 0) {
    const gert::Shape& shape = x->GetOriginShape();
    if (expected->GetSize() != shape.GetDimNum()) return ge::GRAPH_FAILED;
    for (size_t i = 0; i < shape.GetDimNum(); ++i) {
      if (expected->GetData()[i] != shape.GetDim(i)) return ge::GRAPH_FAILED;
    }
  }
  const uint32_t blocks = total < 8 ? 1 : 4;
  LeakyReluCustomTilingData tiling{};
  tiling.totalLength = static_cast<uint32_t>(total);
  tiling.perCore = static_cast<uint32_t>((total + blocks - 1) / blocks);
  tiling.negativeSlope = *slope;
  // The raw-buffer form some samples use instead of GetTilingData<T>().
  gert::TilingData* raw = context->GetRawTilingData();
  if (raw->Append(tiling) != ge::GRAPH_SUCCESS) return ge::GRAPH_FAILED;
  context->SetBlockDim(blocks);
  context->SetTilingKey(context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT ? 1 : 2);
  context->GetWorkspaceSizes(1)[0] = 32 * blocks;
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class LeakyReluCustom : public OpDef {
 public:
  explicit LeakyReluCustom(const char* name) : OpDef(name) {
    this->Input("x")
        .ParamType(REQUIRED)
        .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->Output("y").ParamType(REQUIRED).Follow("x");
    this->Attr("negative_slope").AttrType(OPTIONAL).Float(0.0);
    this->Attr("expected_shape").AttrType(OPTIONAL).ListInt({});
    this->AICore().SetTiling(optiling::LeakyReluTiling);
    this->AICore().AddConfig("ascend910b").AddConfig("ascend310p");
  }
};
OP_ADD(LeakyReluCustom);
}  // namespace ops

// The op-host names (ops::OpDef, ge::, gert::) over tessera's runtime: a vendor tiling function
// sees shapes, dtypes and attributes by index and its results reach tessera's TilingContext;
// vendor shape and dtype functions fill tessera's InferShapeContext.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "register/op_def.h"
#include "tessera/runtime/tiling_context.h"

namespace compat_test {

struct SeenTiling {
  int64_t size0 = 0;
  bool absent_optional = false;
  ge::DataType dtype = ge::DT_UNDEFINED;
  int64_t axis = 0;
  float eps = 0;
  bool keep = false;
  std::string mode;
  std::vector<int64_t> dims;
  bool wrong_type_is_null = false;
};
SeenTiling seen;

struct PlainTiling {
  uint32_t total;
  uint32_t tile;
  float eps;
};

ge::graphStatus Tiling(gert::TilingContext* ctx) {
  seen.size0 = ctx->GetInputShape(0)->GetOriginShape().GetShapeSize();
  seen.absent_optional = ctx->GetOptionalInputShape(1) == nullptr;
  seen.dtype = ctx->GetInputDesc(0)->GetDataType();
  const gert::RuntimeAttrs* attrs = ctx->GetAttrs();
  seen.axis = *attrs->GetAttrPointer<int64_t>(0);
  seen.eps = *attrs->GetFloat(1);
  seen.keep = *attrs->GetBool(2);
  seen.mode = attrs->GetStr(3);
  const auto* dims = attrs->GetListInt(4);
  seen.dims.assign(dims->GetData(), dims->GetData() + dims->GetSize());
  seen.wrong_type_is_null =
      attrs->GetAttrPointer<float>(0) == nullptr && attrs->GetAttrPointer<int64_t>(9) == nullptr;
  PlainTiling* t = ctx->GetTilingData<PlainTiling>();
  t->total = static_cast<uint32_t>(seen.size0);
  t->tile = 16;
  t->eps = seen.eps;
  ctx->SetBlockDim(3);
  ctx->SetTilingKey(42);
  size_t* ws = ctx->GetWorkspaceSizes(2);
  ws[0] = 100;
  ws[1] = 7;
  return ge::GRAPH_SUCCESS;
}

ge::graphStatus Shape(gert::InferShapeContext* ctx) {
  gert::Shape* out = ctx->GetOutputShape(0);
  *out = *ctx->GetInputShape(0);
  out->AppendDim(*ctx->GetAttrs()->GetInt(0));
  return ge::GRAPH_SUCCESS;
}

ge::graphStatus DataType(gert::InferDataTypeContext* ctx) {
  return ctx->SetOutputDataType(0, ge::DT_INT32);
}

ge::graphStatus Failing(gert::TilingContext*) {
  return ge::GRAPH_PARAM_INVALID;
}

}  // namespace compat_test

// Vendor ops live in namespace ops, where REQUIRED and friends are found.
namespace ops {
class VendorOp : public OpDef {
 public:
  explicit VendorOp(const char* name) : OpDef(name) {
    this->Input("x")
        .ParamType(REQUIRED)
        .DataType({ge::DT_FLOAT, ge::DT_BF16})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->Input("bias").ParamType(OPTIONAL).Follow("x");
    this->Output("y").ParamType(REQUIRED).Follow("x");
    this->Attr("axis").AttrType(OPTIONAL).Int(-1);
    this->Attr("eps").AttrType(OPTIONAL).Float(1e-5);
    this->Attr("keep").AttrType(OPTIONAL).Bool(true);
    this->Attr("mode").AttrType(OPTIONAL).String("fast");
    this->Attr("dims").AttrType(OPTIONAL).ListInt({3, 1, 4});
    this->SetInferShape(compat_test::Shape).SetInferDataType(compat_test::DataType);
    this->AICore().SetTiling(compat_test::Tiling).AddConfig("ascend910b");
  }
};

class UnsupportedOp : public OpDef {
 public:
  explicit UnsupportedOp(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_UINT16}).Format({ge::FORMAT_ND});
    this->Output("y").ParamType(REQUIRED).Follow("x");
    this->AICore().SetTiling(compat_test::Failing).AddConfig("x86-64-v3");
  }
};
}  // namespace ops

namespace {

using compat_test::PlainTiling;
using compat_test::seen;

tessera::TensorDesc Desc(tessera::DataType dt, std::initializer_list<int64_t> dims) {
  return tessera::TensorDesc{dt, *tessera::Shape::Make(dims), tessera::Format::kND, {}};
}

TEST(OpHostTest, VendorTilingSeesTheCallAndItsResultsReachTessera) {
  ops::VendorOp op("VendorOp");
  ASSERT_TRUE(op.Validate().ok()) << op.Validate().ToString();
  auto attrs = op.ResolveAttrs({{"eps", 0.25f}, {"mode", std::string("exact")}});
  ASSERT_TRUE(attrs.ok());
  tessera::runtime::TilingContext ctx("VendorOp",
                                      {Desc(tessera::DataType::kBfloat16, {7, 31}), std::nullopt},
                                      {Desc(tessera::DataType::kBfloat16, {7, 31})}, *attrs, {});
  ASSERT_TRUE(tessera::runtime::RunTiling(op, ctx).ok());
  EXPECT_EQ(seen.size0, 7 * 31);
  EXPECT_TRUE(seen.absent_optional);
  EXPECT_EQ(seen.dtype, ge::DT_BF16);
  EXPECT_EQ(seen.axis, -1);
  EXPECT_EQ(seen.eps, 0.25f);
  EXPECT_TRUE(seen.keep);
  EXPECT_EQ(seen.mode, "exact");
  EXPECT_EQ(seen.dims, (std::vector<int64_t>{3, 1, 4}));
  EXPECT_TRUE(seen.wrong_type_is_null);
  EXPECT_EQ(ctx.block_dim(), 3u);
  EXPECT_EQ(ctx.tiling_key(), 42u);
  EXPECT_EQ(ctx.workspace_sizes(), (std::vector<uint64_t>{100, 7}));
  ASSERT_EQ(ctx.tiling_data().size(), sizeof(PlainTiling));
  PlainTiling t;
  std::memcpy(&t, ctx.tiling_data().data(), sizeof(t));
  EXPECT_EQ(t.total, 7u * 31u);
  EXPECT_EQ(t.tile, 16u);
  EXPECT_EQ(t.eps, 0.25f);
}

TEST(OpHostTest, VendorSocConfiguresEveryCpuLevel) {
  ops::VendorOp op("VendorOp");
  const auto socs = op.socs();
  for (const char* level : {"x86-64-v2", "x86-64-v3", "x86-64-v4", "armv8-a"})
    EXPECT_NE(std::find(socs.begin(), socs.end(), level), socs.end()) << level;
  auto combos = op.Combinations("x86-64-v3");
  ASSERT_TRUE(combos.ok());
  EXPECT_EQ(combos->size(), 2u);
}

TEST(OpHostTest, InferShapeAndDataTypeFillTesserasContext) {
  ops::VendorOp op("VendorOp");
  tessera::runtime::InferShapeContext ctx({Desc(tessera::DataType::kFloat32, {2, 5})},
                                          {{"axis", int64_t{9}}}, 1);
  ASSERT_TRUE(op.infer_shape()(ctx).ok());
  EXPECT_EQ(ctx.outputs()[0].shape, *tessera::Shape::Make({2, 5, 9}));
  EXPECT_EQ(ctx.outputs()[0].dtype, tessera::DataType::kInt32);
}

TEST(OpHostTest, UnsupportedDtypeAndFailedTilingAreNamed) {
  ops::UnsupportedOp op("UnsupportedOp");
  EXPECT_EQ(op.socs(), std::vector<std::string>{"x86-64-v3"});
  tessera::runtime::TilingContext ctx("UnsupportedOp", {Desc(tessera::DataType::kFloat32, {4})},
                                      {Desc(tessera::DataType::kFloat32, {4})}, {}, {});
  const tessera::Status st = tessera::runtime::RunTiling(op, ctx);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("dtype 7 for parameter x"), std::string::npos) << st.ToString();
}

TEST(OpHostTest, ShapeHelpers) {
  gert::Shape s{2, 3, 4};
  EXPECT_EQ(s.GetDimNum(), 3u);
  EXPECT_EQ(s.GetShapeSize(), 24);
  EXPECT_EQ(s[1], 3);
  EXPECT_EQ(s.GetDim(7), 0);
  EXPECT_EQ(gert::Shape{}.GetShapeSize(), 1);
  EXPECT_EQ((gert::Shape{int64_t{1} << 40, int64_t{1} << 40}.GetShapeSize()), -1);
  gert::TilingData raw(8);
  EXPECT_EQ(raw.Append(uint32_t{1}), ge::GRAPH_SUCCESS);
  EXPECT_EQ(raw.Append(uint64_t{1}), ge::GRAPH_FAILED);
  EXPECT_EQ(raw.GetDataSize(), 4u);
  EXPECT_EQ(raw.SetDataSize(9), ge::GRAPH_FAILED);
}

}  // namespace

#include "tessera/runtime/tiling_context.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tessera::runtime {
namespace {

BEGIN_TILING_DATA_DEF(ScaleTiling)
TILING_DATA_FIELD_DEF(int64_t, total)
TILING_DATA_FIELD_DEF(float, scale, 1.0f)
END_TILING_DATA_DEF;

bool Contains(const Status& s, const std::string& needle) {
  return std::string(s.message()).find(needle) != std::string::npos;
}

TensorDesc Desc(std::initializer_list<int64_t> dims) {
  return TensorDesc{DataType::kFloat32, *Shape::Make(dims), Format::kND, {}};
}

TilingContext MakeContext() {
  return TilingContext("Scale", {Desc({4, 8}), std::nullopt}, {Desc({4, 8})},
                       {{"scale", 2.5f}, {"axes", std::vector<int64_t>{0, 1}}},
                       PlatformInfo{48, 24, 192 * 1024, "x86-64-v4"});
}

TEST(TilingContextTest, ReadsInputsAttrsAndPlatform) {
  TilingContext ctx = MakeContext();
  ASSERT_NE(ctx.GetInputDesc(0), nullptr);
  EXPECT_EQ(*ctx.GetInputDesc(0)->shape.NumElements(), 32);
  EXPECT_EQ(ctx.GetInputDesc(1), nullptr);  // absent optional
  EXPECT_EQ(ctx.GetInputDesc(7), nullptr);
  EXPECT_EQ(*ctx.GetFloatAttr("scale"), 2.5f);
  EXPECT_EQ(*ctx.GetListIntAttr("axes"), (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(Contains(ctx.GetIntAttr("scale").status(), "attribute 'scale' is float, not int"));
  EXPECT_TRUE(Contains(ctx.GetIntAttr("nope").status(), "Scale has no attribute 'nope'"));
  EXPECT_EQ(ctx.GetPlatformInfo().aiv_cores, 48u);
  EXPECT_EQ(ctx.GetPlatformInfo().soc, "x86-64-v4");
}

TEST(TilingContextTest, TypedTilingDataRoundTrips) {
  TilingContext ctx = MakeContext();
  ScaleTiling t;
  t.total = 32;
  t.scale = 2.5f;
  ctx.SetTilingData(t);
  ctx.SetBlockDim(3);
  ctx.SetTilingKey(7);
  ctx.SetWorkspaceSizes({1, 33});
  EXPECT_TRUE(ctx.CheckResult().ok());
  EXPECT_EQ(ctx.tiling_hash(), tiling::TilingSchemaOf<ScaleTiling>().hash);
  auto back = tiling::ParseTiling<ScaleTiling>(ctx.tiling_data());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->total, 32);
  EXPECT_EQ(back->scale, 2.5f);
  EXPECT_EQ(ctx.TotalWorkspace(), 32u + 64u);
}

TEST(TilingContextTest, RunTilingReportsFailuresWithoutCrashing) {
  OpDef op("Scale");
  TilingContext ctx = MakeContext();
  EXPECT_TRUE(Contains(RunTiling(op, ctx), "The tiling function does not exist"));
  op.SetTiling([](TilingContext&) -> Status { return InvalidArgument("rows must be even"); });
  EXPECT_TRUE(Contains(RunTiling(op, ctx),
                       "Failed to execute tiling function of Scale: rows must be even"));
  op.SetTiling([](TilingContext&) -> Status { throw std::runtime_error("boom"); });
  EXPECT_TRUE(
      Contains(RunTiling(op, ctx), "Failed to execute tiling function of Scale: threw: boom"));
  op.SetTiling([](TilingContext& c) -> Status {
    c.SetBlockDim(0);
    return OkStatus();
  });
  EXPECT_TRUE(Contains(RunTiling(op, ctx), "set block dim 0; expected 1..65535"));
  op.SetTiling([](TilingContext& c) -> Status {
    c.SetBlockDim(2);
    return OkStatus();
  });
  EXPECT_TRUE(Contains(RunTiling(op, ctx), "set no tiling data"));
  op.SetTiling([](TilingContext& c) -> Status {
    c.SetBlockDim(2);
    c.SetTilingData(ScaleTiling{});
    return OkStatus();
  });
  EXPECT_TRUE(RunTiling(op, ctx).ok());
}

}  // namespace
}  // namespace tessera::runtime

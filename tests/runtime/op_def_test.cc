#include "tessera/runtime/op_def.h"

#include <gtest/gtest.h>

#include "tessera/runtime/tiling_context.h"

namespace tessera::runtime {
namespace {

bool Contains(const Status& s, const std::string& needle) {
  return std::string(s.message()).find(needle) != std::string::npos;
}

Status NoopTiling(TilingContext&) {
  return OkStatus();
}

class AddCustom : public OpDef {
 public:
  AddCustom() : OpDef("AddCustom") {
    Input("x")
        .ParamType(REQUIRED)
        .DataType({DataType::kFloat16, DataType::kFloat32, DataType::kInt32})
        .Format({Format::kND, Format::kND, Format::kND});
    Input("y")
        .ParamType(REQUIRED)
        .DataType({DataType::kFloat16, DataType::kFloat32, DataType::kInt32})
        .Format({Format::kND, Format::kND, Format::kND});
    Input("bias").ParamType(OPTIONAL).DataType(
        {DataType::kFloat16, DataType::kFloat32, DataType::kInt32});
    Output("z").ParamType(REQUIRED).Follow("x");
    Attr("alpha").AttrType(OPTIONAL).Float(1.0f);
    Attr("mode").AttrType(REQUIRED).String();
    SetTiling(NoopTiling);
    AddConfig("x86-64-v3");
    OpAICoreConfig v2;
    v2.Input("x").DataType({DataType::kFloat32, DataType::kFloat32, DataType::kInt32});
    v2.Input("y").DataType({DataType::kFloat32, DataType::kFloat32, DataType::kInt32});
    v2.Input("bias").DataType({DataType::kFloat32, DataType::kFloat32, DataType::kInt32});
    AddConfig("x86-64-v2", v2);
  }
};

TEST(OpDefTest, ValidDeclarationAndKernelName) {
  AddCustom op;
  EXPECT_TRUE(op.Validate().ok()) << op.Validate().ToString();
  EXPECT_EQ(op.KernelName(), "add_custom");
  EXPECT_EQ(OpDef("RMSNorm").KernelName(), "rms_norm");
  EXPECT_EQ(OpDef("AddRmsNorm").KernelName(), "add_rms_norm");
  EXPECT_EQ(OpDef("Conv2D").KernelName(), "conv2_d");
  EXPECT_EQ(op.socs(), (std::vector<std::string>{"x86-64-v3", "x86-64-v2"}));
}

TEST(OpDefTest, CombinationsAreColumnsWithFollowAndOverrides) {
  AddCustom op;
  auto v3 = op.Combinations("x86-64-v3");
  ASSERT_TRUE(v3.ok());
  ASSERT_EQ(v3->size(), 3u);
  EXPECT_EQ((*v3)[0].dtypes, (std::vector<DataType>{DataType::kFloat16, DataType::kFloat16,
                                                    DataType::kFloat16, DataType::kFloat16}));
  EXPECT_EQ((*v3)[2].dtypes[3], DataType::kInt32);  // z follows x
  auto v2 = op.Combinations("x86-64-v2");
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ((*v2)[0].dtypes[0], DataType::kFloat32);  // the v2 override drops float16
  EXPECT_EQ((*v2)[0].dtypes[3], DataType::kFloat32);
  auto missing = op.Combinations("armv8-a");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(Contains(missing.status(),
                       "SoC version armv8-a verification failed. This SoC is not configured "
                       "through the AddConfig API"));
  EXPECT_TRUE(Contains(missing.status(), "x86-64-v3, x86-64-v2"));
}

TEST(OpDefTest, CheckCallMatchesAndExplains) {
  AddCustom op;
  const ArgSpec f16{true, DataType::kFloat16, Format::kND};
  const ArgSpec f32{true, DataType::kFloat32, Format::kND};
  const ArgSpec absent{false, DataType::kFloat32, Format::kND};
  EXPECT_TRUE(op.CheckCall("x86-64-v3", {f16, f16, absent}, {f16}).ok());
  EXPECT_TRUE(op.CheckCall("x86-64-v3", {f32, f32, f32}, {f32}).ok());
  Status mixed = op.CheckCall("x86-64-v3", {f16, f32, absent}, {f16});
  EXPECT_EQ(mixed.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(
      mixed,
      "The dtype or format of the actual input or output of AddCustom is inconsistent with the "
      "prototype, details: x(DT_FLOAT16, ND), y(DT_FLOAT, ND), z(DT_FLOAT16, ND)"))
      << mixed.ToString();
  EXPECT_TRUE(Contains(mixed,
                       "Supported dtype and format list is:\n  x(DT_FLOAT16, ND), y(DT_FLOAT16, "
                       "ND), bias(DT_FLOAT16, ND), z(DT_FLOAT16, ND)"));
  EXPECT_FALSE(op.CheckCall("x86-64-v2", {f16, f16, absent}, {f16}).ok());  // not on v2
  EXPECT_TRUE(Contains(op.CheckCall("x86-64-v3", {absent, f16, absent}, {f16}),
                       "required input 'x' is missing"));
  EXPECT_TRUE(Contains(op.CheckCall("x86-64-v3", {f16, f16}, {f16}),
                       "AddCustom expects 3 inputs (x, y, bias), got 2"));
  EXPECT_TRUE(Contains(op.CheckCall("armv8-a", {f16, f16, absent}, {f16}),
                       "not configured through the AddConfig API"));
}

TEST(OpDefTest, AttributesResolveWithDefaultsAndKindChecks) {
  AddCustom op;
  auto attrs = op.ResolveAttrs({{"mode", std::string("fast")}});
  ASSERT_TRUE(attrs.ok()) << attrs.status().ToString();
  EXPECT_EQ(std::get<float>(attrs->at("alpha")), 1.0f);
  EXPECT_EQ(std::get<std::string>(attrs->at("mode")), "fast");
  EXPECT_TRUE(
      Contains(op.ResolveAttrs({}).status(), "required attribute 'mode' (string) is missing"));
  EXPECT_TRUE(
      Contains(op.ResolveAttrs({{"mode", std::string("a")}, {"alpha", int64_t{2}}}).status(),
               "attribute 'alpha' expects float, got int"));
  EXPECT_TRUE(Contains(op.ResolveAttrs({{"mode", std::string("a")}, {"beta", 1.0f}}).status(),
                       "AddCustom has no attribute 'beta'; its attributes are alpha, mode"));
}

TEST(OpDefTest, ValidateRejectsBadDeclarations) {
  {
    OpDef op("Bad");
    op.Input("x").DataType({DataType::kFloat32, DataType::kFloat16});
    op.Input("y").DataType({DataType::kFloat32});
    op.Output("z").Follow("x");
    op.SetTiling(NoopTiling).AddConfig("x86-64-v3");
    EXPECT_TRUE(
        Contains(op.Validate(), "'y' declares 1 dtypes but 'x' declares 2; the lists are columns"));
  }
  {
    OpDef op("Bad");
    op.Input("x").DataType({DataType::kFloat32}).Format({Format::kND, Format::kND});
    op.Output("z").Follow("x");
    op.SetTiling(NoopTiling).AddConfig("x86-64-v3");
    EXPECT_TRUE(Contains(op.Validate(), "declares 1 dtypes but 2 formats"));
  }
  {
    OpDef op("Bad");
    op.Input("x").DataType({DataType::kFloat32});
    op.Output("z").Follow("w");
    op.SetTiling(NoopTiling).AddConfig("x86-64-v3");
    EXPECT_TRUE(
        Contains(op.Validate(), "'z' follows 'w', which is not a declared input or output"));
  }
  {
    OpDef op("Bad");
    op.Input("x").DataType({DataType::kFloat32});
    op.Output("a").Follow("b");
    op.Output("b").Follow("a");
    op.SetTiling(NoopTiling).AddConfig("x86-64-v3");
    EXPECT_TRUE(Contains(op.Validate(), "forms a cycle"));
  }
  {
    OpDef op("Bad");
    op.Input("x").DataType({DataType::kFloat32});
    op.Output("z").Follow("x");
    op.Attr("k");
    op.SetTiling(NoopTiling).AddConfig("x86-64-v3");
    EXPECT_TRUE(Contains(op.Validate(), "attribute 'k' has no type"));
  }
  {
    OpDef op("Bad");
    op.Input("x").DataType({DataType::kFloat32});
    op.Output("z").Follow("x");
    op.AddConfig("x86-64-v3");
    EXPECT_TRUE(Contains(op.Validate(), "no tiling function"));
    op.SetTiling(NoopTiling);
    OpAICoreConfig c;
    c.Input("q").DataType({DataType::kFloat32});
    op.AddConfig("x86-64-v2", c);
    EXPECT_TRUE(
        Contains(op.Validate(), "AddConfig(\"x86-64-v2\") overrides 'q', which is not declared"));
  }
  {
    OpDef op("Bad");
    op.Input("x").DataType({DataType::kFloat32});
    op.Output("x").Follow("x");
    op.SetTiling(NoopTiling).AddConfig("x86-64-v3");
    EXPECT_TRUE(Contains(op.Validate(), "the name 'x' is declared twice"));
  }
}

}  // namespace
}  // namespace tessera::runtime

// The built-in package as a whole: every op of builtin_ops.h is defined, validates, is configured
// for the four SoCs, declares its tiling struct, and has exactly one kernel entry per supported
// dtype combination (and broadcast mode), with the right arity.
#include <map>
#include <set>
#include <string>
#include <utility>

#include "ops/builtin_ops.h"
#include "ops_test_util.h"

namespace tessera::ops::testing {
namespace {

#define TESSERA_OP_NAME(Op) #Op,
const std::vector<std::string> kListed = {TESSERA_BUILTIN_OPS(TESSERA_OP_NAME)};
const std::set<std::string> kRowOps = {TESSERA_BUILTIN_ROW_OPS(TESSERA_OP_NAME)};
const std::set<std::string> kMatmulOps = {TESSERA_BUILTIN_MATMUL_OPS(TESSERA_OP_NAME)};
#undef TESSERA_OP_NAME

TEST(PackageTest, EveryListedOpIsDefinedAndValid) {
  const auto ops = AllOps();
  std::set<std::string> defined;
  for (const auto& op : ops) {
    SCOPED_TRACE(op->type());
    EXPECT_TRUE(op->Validate().ok()) << op->Validate().ToString();
    EXPECT_TRUE(defined.insert(op->type()).second) << "defined twice";
    EXPECT_EQ(op->socs(),
              (std::vector<std::string>{"x86-64-v2", "x86-64-v3", "x86-64-v4", "armv8-a"}));
    EXPECT_NE(op->tiling_schema_hash(), 0u);
    EXPECT_TRUE(op->infer_shape());
  }
  EXPECT_EQ(defined, std::set<std::string>(kListed.begin(), kListed.end()));
  EXPECT_EQ(MakeOp("Maximum")->KernelName(), "maximum");
}

// Each supported combination of the vector ops has its entry: 1 per binary or unary dtype (every
// broadcast runs through the one elewise kernel), 1 per Cast pair; the matmul ops export one cube
// (AIC) or MIX entry per dtype and transpose layout (key dtype | ta << 8 | tb << 9 | mix << 10);
// nothing else is exported.
TEST(PackageTest, EntriesMatchTheSupportedCombinations) {
  std::set<std::pair<std::string, uint64_t>> expected;
  for (const auto& op : AllOps()) {
    if (kMatmulOps.count(op->type()) != 0) continue;
    auto combos = op->Combinations("x86-64-v3");
    ASSERT_TRUE(combos.ok()) << combos.status().ToString();
    for (const runtime::Combination& c : *combos) {
      const auto in = static_cast<uint64_t>(c.dtypes.front());
      if (kRowOps.count(op->type()) != 0) {
        expected.emplace(op->KernelName(), in);  // the row ops: one entry per dtype
      } else if (op->type() == "Cast") {
        expected.emplace(op->KernelName(), in | static_cast<uint64_t>(c.dtypes.back()) << 8);
      } else {
        expected.emplace(op->KernelName(), in);
      }
    }
  }
  std::set<std::pair<std::string, uint64_t>> exported;
  std::map<std::string, int> matmul_entries;
  for (const device::KernelEntryInfo& e : AllEntries()) {
    SCOPED_TRACE(std::string(e.kernel) + " key " + std::to_string(e.tiling_key));
    const std::string kernel = e.kernel;
    if (kernel == "mat_mul" || kernel == "batch_mat_mul" || kernel == "addmm" ||
        kernel == "mat_mul_act") {
      const bool mix = (e.tiling_key >> 10 & 1) != 0;
      EXPECT_STREQ(e.kernel_type, mix ? "MIX" : "AIC");
      EXPECT_EQ(e.num_args, kernel == "batch_mat_mul" ? 5u : 6u);
      EXPECT_LT(e.tiling_key, uint64_t{1} << 12);  // dtype, transposes, MIX, large tiles
      ++matmul_entries[kernel];
      continue;
    }
    EXPECT_TRUE(exported.emplace(e.kernel, e.tiling_key).second) << "exported twice";
    EXPECT_STREQ(e.kernel_type, "AIV");
    const std::string name = e.kernel;
    const bool binary = name == "add" || name == "sub" || name == "mul" || name == "div" ||
                        name == "maximum" || name == "minimum";
    // Inputs + outputs + workspace + tiling.
    const uint32_t args = name == "add_rms_norm"         ? 7u
                          : name == "layer_norm"         ? 6u
                          : binary || name == "rms_norm" ? 5u
                                                         : 4u;
    EXPECT_EQ(e.num_args, args);
  }
  EXPECT_EQ(exported, expected);
  EXPECT_EQ(exported.size(), 23u + 31u + 16u + 5u * 3);
  // 4 dtypes x 4 transpose layouts (x {AIC, MIX} for MatMul); Addmm and MatMulAct: one per dtype.
  // The float, half and bfloat16 ones again with the large tiles (tiling-key bit 11); int8 keeps
  // the default tiles only.
  EXPECT_EQ(matmul_entries, (std::map<std::string, int>{{"mat_mul", 32 + 3 * 8},
                                                        {"batch_mat_mul", 16 + 3 * 4},
                                                        {"addmm", 4 + 3},
                                                        {"mat_mul_act", 4 + 3}}));
}

TEST(PackageTest, CheckCallListsSupportedCombinations) {
  const Status st =
      MakeOp("Div")->CheckCall("x86-64-v4",
                               {runtime::ArgSpec{true, DataType::kInt32, Format::kND},
                                runtime::ArgSpec{true, DataType::kInt32, Format::kND}},
                               {runtime::ArgSpec{true, DataType::kInt32, Format::kND}});
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(Contains(st, "Supported dtype and format list is")) << st.ToString();
}

TEST(PackageTest, InferShapeBroadcastsAndFollowsDstType) {
  runtime::InferShapeContext bin(
      {Desc(DataType::kFloat16, {3, 1, 5}), Desc(DataType::kFloat16, {4, 5})}, {}, 1);
  ASSERT_TRUE(MakeOp("Add")->infer_shape()(bin).ok());
  EXPECT_EQ(bin.outputs()[0].shape.ToString(), "[3, 4, 5]");
  EXPECT_EQ(bin.outputs()[0].dtype, DataType::kFloat16);

  runtime::InferShapeContext bad({Desc(DataType::kFloat16, {3}), Desc(DataType::kFloat16, {4})}, {},
                                 1);
  EXPECT_FALSE(MakeOp("Sub")->infer_shape()(bad).ok());

  runtime::InferShapeContext cast({Desc(DataType::kFloat32, {2, 3})},
                                  {{"dst_type", static_cast<int64_t>(DataType::kBfloat16)}}, 1);
  ASSERT_TRUE(MakeOp("Cast")->infer_shape()(cast).ok());
  EXPECT_EQ(cast.outputs()[0].dtype, DataType::kBfloat16);
  EXPECT_EQ(cast.outputs()[0].shape.ToString(), "[2, 3]");

  runtime::InferShapeContext un({Desc(DataType::kInt32, {7})}, {}, 1);
  ASSERT_TRUE(MakeOp("Relu")->infer_shape()(un).ok());
  EXPECT_EQ(un.outputs()[0].shape.ToString(), "[7]");
}

}  // namespace
}  // namespace tessera::ops::testing

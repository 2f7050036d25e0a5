#include "tessera/tiling/tiling_key.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "scale_kernel.h"
#include "tessera/tiling/kernel_table.h"
#include "tessera/tiling/tpl_key.h"

namespace tessera::tiling {
namespace {

using scale_example::kScaleKey;
using scale_example::ScaleKernel;
using scale_example::ScaleKernelTable;

// Compile-time facts of the reference schema.
static_assert(kScaleKey.offset(0) == 0 && kScaleKey.offset(1) == 1);
static_assert(kScaleKey.total_bits() == 3);
static_assert(*kScaleKey.Pack({1, 128}) == 3);  // the reference example: 1 | (1 << 1)
static_assert(*kScaleKey.Pack({0, 128}) == 2);
static_assert(*kScaleKey.Pack({0, 64}) == 0);
static_assert(!kScaleKey.Pack({1, 64}).has_value());  // rejected by is_valid
static_assert(!kScaleKey.Pack({0, 96}).has_value());  // not in the list
static_assert(EnumerateValid<kScaleKey>() ==
              std::array<std::array<int64_t, 2>, 3>{{{0, 64}, {0, 128}, {1, 128}}});
static_assert(ScaleKernelTable::kInstances.size() == 3);

// A wide schema: 8 + 55 + 1 = 64 bits, the maximum.
inline constexpr StaticKeySchema kWideKey({{"Dtype", 8, Values<0, 1, 27, 255>},
                                           {"Huge", 55, Values<-5, 0, (int64_t{1} << 50), 7>},
                                           {"Flag", 1, Values<0, 1>}});
static_assert(kWideKey.total_bits() == 64);
static_assert(EnumerateValid<kWideKey>().size() == 32);

KeySchema ScaleSchema() {
  return KeySchema::FromStatic(kScaleKey);
}

std::string Message(const Status& s) {
  return std::string(s.message());
}

TEST(TilingKey, ValidateHasFourDistinctErrors) {
  const KeySchema schema = ScaleSchema();
  EXPECT_TRUE(schema.Validate({{"UseScale", 0}, {"BlockM", 64}}).ok());
  EXPECT_EQ(Message(schema.Validate({{"UseScale", 0}})),
            "TilingKey field 'BlockM' is missing; the schema has fields [UseScale, BlockM]");
  EXPECT_EQ(Message(schema.Validate({{"UseScale", 0}, {"BlockM", 64}, {"Stages", 2}})),
            "TilingKey field 'Stages' = 2 is not in the schema; the schema has fields "
            "[UseScale, BlockM]");
  EXPECT_EQ(Message(schema.Validate({{"UseScale", 0}, {"BlockM", 96}})),
            "TilingKey field 'BlockM' = 96 is not one of its values [64, 128]");
  EXPECT_EQ(
      Message(schema.Validate({{"UseScale", 1}, {"BlockM", 64}})),
      "TilingKey {UseScale: 1, BlockM: 64} is rejected by is_valid (unsupported combination)");
  EXPECT_EQ(schema.Validate({{"UseScale", 2}, {"BlockM", 64}}).code(),
            StatusCode::kInvalidArgument);
}

TEST(TilingKey, PackStoresValueIndexAtFieldOffset) {
  const KeySchema schema = ScaleSchema();
  EXPECT_EQ(schema.Pack({{"UseScale", 1}, {"BlockM", 128}}).value(), 3u);
  EXPECT_EQ(schema.Pack({{"UseScale", 0}, {"BlockM", 128}}).value(), 2u);
  EXPECT_FALSE(schema.Pack({{"UseScale", 1}, {"BlockM", 64}}).ok());
  EXPECT_EQ(Message(schema.PackValues(std::vector<int64_t>{1}).status()),
            "TilingKey needs 2 values [UseScale, BlockM], got 1");

  const KeySchema wide = KeySchema::FromStatic(kWideKey);
  // Hand-computed: Dtype 27 -> index 2; Huge 2^50 -> index 2 at bit 8; Flag 1 -> bit 63.
  const uint64_t expected = 2u | (uint64_t{2} << 8) | (uint64_t{1} << 63);
  EXPECT_EQ(wide.Pack({{"Dtype", 27}, {"Huge", int64_t{1} << 50}, {"Flag", 1}}).value(), expected);
  EXPECT_EQ(*kWideKey.Pack({27, int64_t{1} << 50, 1}), expected);
  EXPECT_EQ(wide.offset(2), 63);
}

TEST(TilingKey, PackUnpackRoundTripsEveryValidCombination) {
  for (const KeySchema& schema : {ScaleSchema(), KeySchema::FromStatic(kWideKey)}) {
    std::set<uint64_t> keys;
    const auto combos = schema.EnumerateValid();
    for (const std::vector<int64_t>& values : combos) {
      const Result<uint64_t> key = schema.PackValues(values);
      ASSERT_TRUE(key.ok()) << key.status().ToString();
      EXPECT_TRUE(keys.insert(*key).second) << "two combinations share key " << *key;
      EXPECT_EQ(schema.Unpack(*key).value(), values);
      const KeyMap decoded = schema.Decode(*key).value();
      ASSERT_EQ(decoded.size(), values.size());
      for (size_t i = 0; i < values.size(); ++i) {
        EXPECT_EQ(decoded.at(schema.fields()[i].name), values[i]);
      }
      EXPECT_EQ(schema.Pack(decoded).value(), *key);
    }
  }
}

TEST(TilingKey, UnpackRejectsMalformedKeys) {
  const KeySchema schema = ScaleSchema();
  EXPECT_EQ(Message(schema.Unpack(8).status()),
            "TilingKey 8 has bits set above the schema's 3 bits");
  // BlockM holds index 2 (bits 1-2 = 0b10) but lists two values.
  EXPECT_EQ(Message(schema.Unpack(4).status()),
            "TilingKey 4: field 'BlockM' holds index 2 but has only 2 values");
  // A rejected combination still decodes, for diagnostics.
  EXPECT_EQ(schema.Unpack(1).value(), (std::vector<int64_t>{1, 64}));
}

TEST(TilingKey, RuntimeSchemaEnforcesEveryRule) {
  const auto error = [](std::vector<KeyFieldDef> fields) {
    return Message(KeySchema::Create(std::move(fields)).status());
  };
  EXPECT_EQ(error({{"A", 0, {1}}}), "TilingKey field 'A' has bits 0; expected bits > 0");
  EXPECT_EQ(error({{"A", -3, {1}}}), "TilingKey field 'A' has bits -3; expected bits > 0");
  EXPECT_EQ(error({{"A", 2, {}}}), "TilingKey field 'A' has no values; expected a non-empty list");
  EXPECT_EQ(error({{"A", 2, {4, 8, 4}}}),
            "TilingKey field 'A' lists value 4 more than once; values must be unique");
  EXPECT_EQ(error({{"A", 1, {1, 2, 3}}}),
            "TilingKey field 'A' has 3 values, more than 2^1 = 2 that its bits can index");
  EXPECT_EQ(error({{"A", 60, {1}}, {"B", 5, {1}}}),
            "TilingKey field 'B' brings the key to 65 bits; expected at most 64 in total");
  EXPECT_EQ(error({{"A", 1, {1}}, {"A", 1, {1}}}),
            "TilingKey field 'A' is declared twice; field names must be unique");
  EXPECT_EQ(error({{"", 1, {1}}}), "TilingKey field #0 has an empty name");
  // Limits that are allowed: exactly 2^bits values, exactly 64 bits.
  EXPECT_TRUE(KeySchema::Create({{"A", 2, {1, 2, 3, 4}}, {"B", 62, {0}}}).ok());

  const KeySchema with_pred =
      KeySchema::Create({{"M", 2, {1, 2, 4}}, {"N", 1, {0, 1}}}, [](std::span<const int64_t> v) {
        return v[0] * (v[1] + 1) < 8;
      }).value();
  EXPECT_EQ(with_pred.EnumerateValid(),
            (std::vector<std::vector<int64_t>>{{1, 0}, {1, 1}, {2, 0}, {2, 1}, {4, 0}}));
  EXPECT_EQ(with_pred.total_bits(), 3);
}

TEST(TilingKey, StaticAndRuntimeEnumerationAgree) {
  const auto fixed = EnumerateValid<kScaleKey>();
  const auto dynamic = ScaleSchema().EnumerateValid();
  ASSERT_EQ(dynamic.size(), fixed.size());
  for (size_t i = 0; i < fixed.size(); ++i) {
    EXPECT_EQ(dynamic[i], std::vector<int64_t>(fixed[i].begin(), fixed[i].end()));
  }
}

// ---- Specialisation
// --------------------------------------------------------------------------------

void ReferenceScale(const std::vector<float>& in, std::vector<float>& out, bool use_scale,
                    float scale, float bias) {
  for (size_t i = 0; i < in.size(); ++i)
    out[i] = (use_scale ? in[i] * scale : in[i]) + bias;
}

TEST(KernelTable, HasExactlyTheValidInstances) {
  const auto& inst = ScaleKernelTable::kInstances;
  ASSERT_EQ(inst.size(), 3u);
  EXPECT_EQ(inst[0].key, 0u);
  EXPECT_EQ(inst[1].key, 2u);
  EXPECT_EQ(inst[2].key, 3u);
  EXPECT_EQ(inst[0].entry, (&ScaleKernel::Run<0, 64>));
  EXPECT_EQ(inst[1].entry, (&ScaleKernel::Run<0, 128>));
  EXPECT_EQ(inst[2].entry, (&ScaleKernel::Run<1, 128>));
  EXPECT_EQ(ScaleKernelTable::Find({{"UseScale", 1}, {"BlockM", 128}}).value(),
            (&ScaleKernel::Run<1, 128>));
  EXPECT_EQ(ScaleKernelTable::FindPacked(2).value(), (&ScaleKernel::Run<0, 128>));
}

TEST(KernelTable, RefusesTheFourthCombinationBeforeRunning) {
  std::vector<float> in(100, 1.0f), out(100, -7.0f);
  const auto tiling = SerializeTiling(scale_example::ScaleTilingFunc(100, 2.0f, 0.0f).data);
  const Status s = ScaleKernelTable::Launch({{"UseScale", 1}, {"BlockM", 64}}, in.data(),
                                            out.data(), int64_t{100}, tiling.data());
  EXPECT_EQ(
      Message(s),
      "TilingKey {UseScale: 1, BlockM: 64} is rejected by is_valid (unsupported combination)");
  for (float v : out)
    ASSERT_EQ(v, -7.0f);  // nothing ran
  EXPECT_EQ(Message(ScaleKernelTable::FindPacked(1).status()), Message(s));
  EXPECT_EQ(Message(ScaleKernelTable::Launch({{"UseScale", 0}}, in.data(), out.data(), int64_t{100},
                                             tiling.data())),
            "TilingKey field 'BlockM' is missing; the schema has fields [UseScale, BlockM]");
  EXPECT_FALSE(ScaleKernelTable::FindPacked(7).ok());
}

TEST(KernelTable, EveryInstanceMatchesTheScalarReference) {
  for (const auto& inst : ScaleKernelTable::kInstances) {
    const bool use_scale = inst.values[0] == 1;
    for (int64_t n : {0, 1, 63, 64, 65, 127, 128, 129, 1000, 4097}) {
      std::vector<float> in(static_cast<size_t>(n)), expected(in.size());
      for (int64_t i = 0; i < n; ++i)
        in[static_cast<size_t>(i)] = std::sin(0.37f * i) * 100.0f;
      // Sentinels after the output catch writes past n.
      std::vector<float> out(in.size() + 8, -12345.0f);
      scale_example::ScaleTiling t;
      t.total = n;
      t.tile_num = (n + inst.values[1] - 1) / inst.values[1];
      t.scale = 1.75f;
      t.bias = -0.5f;
      const KeyMap key = {{"UseScale", inst.values[0]}, {"BlockM", inst.values[1]}};
      const auto bytes = SerializeTiling(t);
      ASSERT_TRUE(ScaleKernelTable::Launch(key, in.data(), out.data(), n, bytes.data()).ok());
      ReferenceScale(in, expected, use_scale, t.scale, t.bias);
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[static_cast<size_t>(i)], expected[static_cast<size_t>(i)])
            << "key " << inst.key << " n " << n << " i " << i;
      }
      for (size_t i = in.size(); i < out.size(); ++i)
        ASSERT_EQ(out[i], -12345.0f);
    }
  }
}

TEST(KernelTable, TilingFunctionPicksALaunchableKey) {
  for (float scale : {1.0f, 3.0f}) {
    for (int64_t n : {10, 5000}) {
      const auto plan = scale_example::ScaleTilingFunc(n, scale, 2.0f);
      std::vector<float> in(static_cast<size_t>(n), 4.0f), out(in.size());
      const auto bytes = SerializeTiling(plan.data);
      ASSERT_TRUE(ScaleKernelTable::Launch(plan.key, in.data(), out.data(), n, bytes.data()).ok());
      EXPECT_EQ(out.back(), 4.0f * scale + 2.0f);
    }
  }
}

// ---- Ascend C template keys
// -------------------------------------------------------------------------

TEST(TplKey, CheckVectorFromTheReference) {
  using namespace ascendc;
  const int64_t n_spec[] = {static_cast<int64_t>(TplUintList::kMix), 2, 0, 2, 3, 5, 7, 6};
  const std::vector<TplParam> params = {
      DtypeParam("X", {10, 20, 30}).value(), FormatParam("Y", {15, 25}).value(),
      UintParam("N", 8, n_spec).value(), BoolParam("S", {0, 1}).value()};
  EXPECT_EQ(params[2].values, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 7, 6}));
  const int64_t args[] = {10, 15, 7, 1};
  EXPECT_EQ(GetTplTilingKey(params, args), 17174282u);
  EXPECT_EQ(17174282u, 10u | (15u << 8) | (6u << 16) | (1u << 24));
  const int64_t args2[] = {30, 25, 6, 0};
  EXPECT_EQ(GetTplTilingKey(params, args2), 30u | (25u << 8) | (7u << 16));

  // Undeclared values and a wrong argument count give the invalid key (all ones).
  const int64_t undeclared_dtype[] = {11, 15, 7, 1};
  EXPECT_EQ(GetTplTilingKey(params, undeclared_dtype), kInvalidTplKey);
  const int64_t undeclared_uint[] = {10, 15, 6 + 2, 1};
  EXPECT_EQ(GetTplTilingKey(params, undeclared_uint), kInvalidTplKey);
  EXPECT_EQ(EncodeTplKey(params, undeclared_uint).status().message(),
            "Template key parameter 'N' value 8 is not declared");
  const int64_t three[] = {10, 15, 7};
  EXPECT_EQ(GetTplTilingKey(params, three), kInvalidTplKey);
  EXPECT_EQ(kInvalidTplKey, ~uint64_t{0});
}

TEST(TplKey, MoreThan64BitsIsInvalid) {
  using namespace ascendc;
  std::vector<TplParam> params;
  std::vector<int64_t> args;
  for (int i = 0; i < 8; ++i) {
    std::string name = "D";
    name += std::to_string(i);
    params.push_back(DtypeParam(std::move(name), {static_cast<int64_t>(i + 1)}).value());
    args.push_back(i + 1);
  }
  uint64_t expected = 0;
  for (int i = 0; i < 8; ++i)
    expected |= static_cast<uint64_t>(i + 1) << (8 * i);
  EXPECT_EQ(GetTplTilingKey(params, args), expected);  // exactly 64 bits
  params.push_back(BoolParam("S", {0, 1}).value());
  args.push_back(0);
  EXPECT_EQ(GetTplTilingKey(params, args), kInvalidTplKey);
  EXPECT_EQ(EncodeTplKey(params, args).status().message(),
            "Template key parameter 'S' ends at bit 65; a key holds 64 bits");
}

TEST(TplKey, UintListsExpandAndDeclarationsAreChecked) {
  using namespace ascendc;
  const int64_t range[] = {0, 2, 10, 12, 20, 21};
  EXPECT_EQ(UintParam("R", 4, range).value().values, (std::vector<int64_t>{10, 11, 12, 20, 21}));
  const int64_t list[] = {1, 64, 128, 256};
  const TplParam l = UintParam("L", 2, list).value();
  EXPECT_EQ(l.values, (std::vector<int64_t>{64, 128, 256}));
  const int64_t arg[] = {256};
  EXPECT_EQ(GetTplTilingKey(std::span<const TplParam>(&l, 1), arg), 2u);

  const int64_t too_many[] = {1, 1, 2, 3, 4, 5};
  EXPECT_EQ(UintParam("L", 2, too_many).status().message(),
            "Template key UINT parameter 'L' has 5 values; a width of 2 bits indexes 4");
  EXPECT_EQ(UintParam("L", 3, list).status().message(),
            "Template key UINT parameter 'L' has bit width 3; expected 1, 2, 4 or 8");
  const int64_t bad_kind[] = {5, 1};
  EXPECT_FALSE(UintParam("L", 2, bad_kind).ok());
  const int64_t short_ranges[] = {2, 2, 0, 1};
  EXPECT_EQ(UintParam("M", 8, short_ranges).status().message(),
            "Template key UINT parameter 'M' declares 2 ranges but lists 1 lo/hi pairs");
  const int64_t reversed[] = {0, 1, 5, 3};
  EXPECT_FALSE(UintParam("R", 8, reversed).ok());
  const int64_t dup[] = {2, 1, 0, 3, 2};
  EXPECT_EQ(UintParam("M", 8, dup).status().message(),
            "Template key parameter 'M' declares value 2 twice");
  const int64_t range_extra[] = {0, 1, 0, 3, 9};
  EXPECT_FALSE(UintParam("R", 8, range_extra).ok());
  EXPECT_EQ(DtypeParam("X", {1, 256}).status().message(),
            "Template key DTYPE parameter 'X' value 256 does not fit its 8 bits [0, 255]");
  EXPECT_FALSE(FormatParam("Y", {}).ok());
  EXPECT_EQ(BoolParam("S", {0, 2}).status().message(),
            "Template key BOOL parameter 'S' value 2 is not 0 or 1");
}

}  // namespace
}  // namespace tessera::tiling

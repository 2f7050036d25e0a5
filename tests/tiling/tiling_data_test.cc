#include "tessera/tiling/tiling_data.h"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <new>
#include <nlohmann/json.hpp>
#include <string>

namespace tessera::tiling {
namespace {

// The reference example: offsets 0/8/16/24, sizeof 40.
BEGIN_TILING_DATA_DEF(ReferenceTiling)
  TILING_DATA_FIELD_DEF(int64_t, rows)
  TILING_DATA_FIELD_DEF(int64_t, cols, 7)
  TILING_DATA_FIELD_DEF(float, scale, 1.5f)
  TILING_DATA_FIELD_DEF_ARR(int64_t, 2, strides, 4, 1)
END_TILING_DATA_DEF;

static_assert(sizeof(ReferenceTiling) == 40);
static_assert(TilingSchemaOf<ReferenceTiling>().size == 40);
static_assert(kTilingFields<ReferenceTiling>[0].offset == 0);
static_assert(kTilingFields<ReferenceTiling>[1].offset == 8);
static_assert(kTilingFields<ReferenceTiling>[2].offset == 16);
static_assert(kTilingFields<ReferenceTiling>[3].offset == 24);

// Same fields under another struct name: same layout, same hash.
BEGIN_TILING_DATA_DEF(ReferenceTwin)
  TILING_DATA_FIELD_DEF(int64_t, rows)
  TILING_DATA_FIELD_DEF(int64_t, cols)
  TILING_DATA_FIELD_DEF(float, scale)
  TILING_DATA_FIELD_DEF_ARR(int64_t, 2, strides)
END_TILING_DATA_DEF;

// Padding between small and large members, and a tail pad.
BEGIN_TILING_DATA_DEF(PaddedTiling)
  TILING_DATA_FIELD_DEF(bool, flag, true)
  TILING_DATA_FIELD_DEF(float, f)
  TILING_DATA_FIELD_DEF(bool, b2)
  TILING_DATA_FIELD_DEF(int64_t, x)
  TILING_DATA_FIELD_DEF_ARR(bool, 3, mask, true, false, true)
  TILING_DATA_FIELD_DEF(float, y)
  TILING_DATA_FIELD_DEF(bool, last)
END_TILING_DATA_DEF;

// Variants of ReferenceTiling that each change one layout-relevant thing.
BEGIN_TILING_DATA_DEF(ReorderedTiling)
  TILING_DATA_FIELD_DEF(int64_t, cols)
  TILING_DATA_FIELD_DEF(int64_t, rows)
  TILING_DATA_FIELD_DEF(float, scale)
  TILING_DATA_FIELD_DEF_ARR(int64_t, 2, strides)
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(RetypedTiling)
  TILING_DATA_FIELD_DEF(int64_t, rows)
  TILING_DATA_FIELD_DEF(int64_t, cols)
  TILING_DATA_FIELD_DEF(bool, scale)
  TILING_DATA_FIELD_DEF_ARR(int64_t, 2, strides)
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(ResizedTiling)
  TILING_DATA_FIELD_DEF(int64_t, rows)
  TILING_DATA_FIELD_DEF(int64_t, cols)
  TILING_DATA_FIELD_DEF(float, scale)
  TILING_DATA_FIELD_DEF_ARR(int64_t, 3, strides)
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(ScalarVsArray1A)
  TILING_DATA_FIELD_DEF(int64_t, v)
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(ScalarVsArray1B)
  TILING_DATA_FIELD_DEF_ARR(int64_t, 1, v)
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(MaxArrayTiling)
  TILING_DATA_FIELD_DEF_ARR(float, 2048, table)
  TILING_DATA_FIELD_DEF(int64_t, n)
END_TILING_DATA_DEF;

using FieldMap = std::map<std::string, std::string, std::less<>>;

TEST(TilingData, ReferenceLayoutMatchesNativeStruct) {
  constexpr TilingSchema s = TilingSchemaOf<ReferenceTiling>();
  EXPECT_EQ(s.name, "ReferenceTiling");
  EXPECT_EQ(s.alignment, 8u);
  ASSERT_EQ(s.fields.size(), 4u);
  const std::array<std::string_view, 4> names = {"rows", "cols", "scale", "strides"};
  const std::array<size_t, 4> offsets = {
      offsetof(ReferenceTiling, rows), offsetof(ReferenceTiling, cols),
      offsetof(ReferenceTiling, scale), offsetof(ReferenceTiling, strides)};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(s.fields[i].name, names[i]);
    EXPECT_EQ(s.fields[i].offset, offsets[i]);
  }
  EXPECT_EQ(s.fields[2].type, TilingFieldType::kFloat32);
  EXPECT_EQ(s.fields[3].type, TilingFieldType::kInt64);
  EXPECT_EQ(s.fields[3].length, 2u);
  EXPECT_TRUE(s.fields[3].is_array);
  EXPECT_FALSE(s.fields[0].is_array);
  EXPECT_EQ(s.Find("scale"), &s.fields[2]);
  EXPECT_EQ(s.Find("nope"), nullptr);
}

TEST(TilingData, PaddedLayoutFollowsCAlignment) {
  // Hand-computed C layout: flag@0, f@4, b2@8, x@16, mask@24..26, y@28, last@32, sizeof 40.
  constexpr TilingSchema s = TilingSchemaOf<PaddedTiling>();
  const std::array<uint32_t, 7> expected = {0, 4, 8, 16, 24, 28, 32};
  ASSERT_EQ(s.fields.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(s.fields[i].offset, expected[i]) << i;
  EXPECT_EQ(s.size, 40u);
  EXPECT_EQ(sizeof(PaddedTiling), 40u);
  EXPECT_EQ(offsetof(PaddedTiling, mask), 24u);
  EXPECT_EQ(offsetof(PaddedTiling, last), 32u);
}

TEST(TilingData, DefaultsApply) {
  const ReferenceTiling r;
  EXPECT_EQ(r.rows, 0);
  EXPECT_EQ(r.cols, 7);
  EXPECT_EQ(r.scale, 1.5f);
  EXPECT_EQ(r.strides[0], 4);
  EXPECT_EQ(r.strides[1], 1);
  const PaddedTiling p;
  EXPECT_TRUE(p.flag);
  EXPECT_FALSE(p.b2);
  EXPECT_TRUE(p.mask[0]);
  EXPECT_FALSE(p.mask[1]);
  EXPECT_TRUE(p.mask[2]);
  const MaxArrayTiling m;
  EXPECT_EQ(m.table[2047], 0.0f);
  EXPECT_EQ(TilingSchemaOf<MaxArrayTiling>().fields[0].length, 2048u);
  EXPECT_EQ(TilingSchemaOf<MaxArrayTiling>().fields[1].offset, 8192u);
}

TEST(TilingData, SchemaHashIsStableAndLayoutSensitive) {
  // Pinned value: FNV-1a 64 of the layout, computed independently (Python) from the documented
  // byte sequence. A change here breaks compatibility with stored tiling data.
  EXPECT_EQ(TilingSchemaOf<ReferenceTiling>().hash, 0x1f931de5e8fffddcull);
  EXPECT_EQ(TilingSchemaOf<ReferenceTwin>().hash, TilingSchemaOf<ReferenceTiling>().hash);
  const uint64_t h = TilingSchemaOf<ReferenceTiling>().hash;
  EXPECT_NE(TilingSchemaOf<ReorderedTiling>().hash, h);
  EXPECT_NE(TilingSchemaOf<RetypedTiling>().hash, h);
  EXPECT_NE(TilingSchemaOf<ResizedTiling>().hash, h);
  EXPECT_NE(TilingSchemaOf<ScalarVsArray1A>().hash, TilingSchemaOf<ScalarVsArray1B>().hash);
}

TEST(TilingData, SerializeParseRoundTrip) {
  ReferenceTiling r;
  r.rows = -3;
  r.cols = 1LL << 40;
  r.scale = 0.25f;
  r.strides[0] = 11;
  r.strides[1] = 13;
  const std::vector<uint8_t> bytes = SerializeTiling(r);
  ASSERT_EQ(bytes.size(), 40u);
  int64_t cols = 0;
  std::memcpy(&cols, bytes.data() + 8, 8);  // the kernel's view: raw offsets
  EXPECT_EQ(cols, 1LL << 40);

  Result<ReferenceTiling> back = ParseTiling<ReferenceTiling>(bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->rows, -3);
  EXPECT_EQ(back->cols, 1LL << 40);
  EXPECT_EQ(back->scale, 0.25f);
  EXPECT_EQ(back->strides[1], 13);

  std::vector<uint8_t> padded = bytes;
  padded.resize(64, 0xee);
  EXPECT_TRUE(ParseTiling<ReferenceTiling>(padded).ok());
}

// Padding bytes of the serialised form are zero whatever the struct's memory held before (the
// struct is built over 0xaa bytes, as a stack object would be over old stack contents).
TEST(TilingData, SerializeZeroesPadding) {
  alignas(PaddedTiling) unsigned char storage[sizeof(PaddedTiling)];
  std::memset(storage, 0xaa, sizeof(storage));
  auto* t = new (storage) PaddedTiling;
  t->f = 2.5f;
  t->x = -7;
  const std::vector<uint8_t> bytes = SerializeTiling(*t);
  ASSERT_EQ(bytes.size(), sizeof(PaddedTiling));
  std::vector<bool> is_field(bytes.size(), false);
  for (const TilingField& f : kTilingFields<PaddedTiling>) {
    for (uint32_t i = 0; i < f.byte_size(); ++i)
      is_field[f.offset + i] = true;
  }
  size_t padding = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (is_field[i]) {
      EXPECT_EQ(bytes[i], storage[i]) << "field byte " << i;
    } else {
      ++padding;
      EXPECT_EQ(bytes[i], 0) << "padding byte " << i;
    }
  }
  EXPECT_GT(padding, 0u);  // the struct does have padding, so the test means something
  t->~PaddedTiling();
}

TEST(TilingData, ParseRejectsShortBufferAndForeignHash) {
  const std::vector<uint8_t> bytes = SerializeTiling(ReferenceTiling{});
  const Result<ReferenceTiling> shorter =
      ParseTiling<ReferenceTiling>(std::span<const uint8_t>(bytes.data(), 39));
  ASSERT_FALSE(shorter.ok());
  EXPECT_EQ(shorter.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(shorter.status().message(),
            "Tiling buffer too short for 'ReferenceTiling': need 40 bytes, got 39");

  const uint64_t twin = TilingSchemaOf<ReferenceTwin>().hash;
  EXPECT_TRUE(ParseTiling<ReferenceTiling>(bytes, twin).ok());
  const Result<ReferenceTiling> foreign =
      ParseTiling<ReferenceTiling>(bytes, TilingSchemaOf<ReorderedTiling>().hash);
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.status().message().find("Tiling schema hash mismatch for 'ReferenceTiling'"),
            std::string_view::npos)
      << foreign.status().message();

  EXPECT_TRUE(
      CheckSchemaCompatible(TilingSchemaOf<ReferenceTwin>(), TilingSchemaOf<ReferenceTiling>())
          .ok());
  const Status mismatch =
      CheckSchemaCompatible(TilingSchemaOf<ResizedTiling>(), TilingSchemaOf<ReferenceTiling>());
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.message().find("kernel expects 'ReferenceTiling' (40 bytes"),
            std::string_view::npos)
      << mismatch.message();
  EXPECT_NE(mismatch.message().find("tiling function produces 'ResizedTiling' (48 bytes"),
            std::string_view::npos)
      << mismatch.message();
}

TEST(TilingData, SetFieldsByName) {
  ReferenceTiling r;
  ASSERT_TRUE(SetTilingFields(r, {{"rows", "-12"},
                                  {"cols", " 9223372036854775807 "},
                                  {"scale", "0.5"},
                                  {"strides", "[3, 5]"}})
                  .ok());
  EXPECT_EQ(r.rows, -12);
  EXPECT_EQ(r.cols, INT64_MAX);
  EXPECT_EQ(r.scale, 0.5f);
  EXPECT_EQ(r.strides[0], 3);
  EXPECT_EQ(r.strides[1], 5);
  ASSERT_TRUE(SetTilingFields(r, {{"strides", "8,9"}}).ok());
  EXPECT_EQ(r.strides[0], 8);
  EXPECT_EQ(r.strides[1], 9);

  PaddedTiling p;
  ASSERT_TRUE(SetTilingFields(p, {{"flag", "false"}, {"b2", "1"}, {"mask", "0,1,0"}}).ok());
  EXPECT_FALSE(p.flag);
  EXPECT_TRUE(p.b2);
  EXPECT_FALSE(p.mask[0]);
  EXPECT_TRUE(p.mask[1]);
}

TEST(TilingData, SetFieldsErrorsAreDistinctAndLeaveDataUnchanged) {
  ReferenceTiling r;
  const auto message = [&](const FieldMap& values) {
    const Status s = SetTilingFields(r, values);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    return std::string(s.message());
  };
  EXPECT_EQ(message({{"strides", "1,2,3"}}), "Tiling field 'strides' expected 2 elements, got 3");
  EXPECT_EQ(message({{"strides", "[]"}}), "Tiling field 'strides' expected 2 elements, got 0");
  EXPECT_EQ(message({{"depth", "1"}}),
            "Tiling struct 'ReferenceTiling' has no field 'depth' (fields: rows, cols, scale, "
            "strides)");
  EXPECT_EQ(message({{"rows", "1.5"}}), "Tiling field 'rows' expects an int64 value, got '1.5'");
  EXPECT_EQ(message({{"rows", "99999999999999999999"}}),
            "Tiling field 'rows' expects an int64 value, got '99999999999999999999'");
  EXPECT_EQ(message({{"scale", "abc"}}), "Tiling field 'scale' expects a float32 value, got 'abc'");
  EXPECT_EQ(message({{"rows", "1,2"}}), "Tiling field 'rows' is a scalar int64, got a list '1,2'");
  EXPECT_EQ(message({{"strides", "1,x"}}),
            "Tiling field 'strides' expects an int64 value, got 'x'");
  PaddedTiling p;
  const Status bad_bool = SetTilingFields(p, {{"flag", "2"}});
  EXPECT_EQ(bad_bool.message(),
            "Tiling field 'flag' expects a bool (true/false/1/0) value, got '2'");

  // "cols" sorts before "rows"; a later failure must not leave the earlier field written.
  EXPECT_FALSE(SetTilingFields(r, {{"cols", "100"}, {"rows", "bad"}}).ok());
  EXPECT_EQ(r.cols, 7);

  std::vector<uint8_t> small(10);
  const Status short_buf = SetTilingFields(TilingSchemaOf<ReferenceTiling>(), small, {});
  EXPECT_EQ(short_buf.message(),
            "Tiling buffer too short for 'ReferenceTiling': need 40 bytes, got 10");
}

TEST(TilingData, JsonDumpDescribesLayoutAndValues) {
  ReferenceTiling r;
  r.rows = 5;
  r.scale = 0.75f;
  const nlohmann::json j = nlohmann::json::parse(TilingToJson(r));
  EXPECT_EQ(j["struct"], "ReferenceTiling");
  EXPECT_EQ(j["size"], 40);
  EXPECT_EQ(j["alignment"], 8);
  EXPECT_EQ(j["hash"], "0x1f931de5e8fffddc");
  ASSERT_EQ(j["fields"].size(), 4u);
  EXPECT_EQ(j["fields"][0]["name"], "rows");
  EXPECT_EQ(j["fields"][0]["value"], 5);
  EXPECT_EQ(j["fields"][2]["type"], "float32");
  EXPECT_EQ(j["fields"][2]["offset"], 16);
  EXPECT_EQ(j["fields"][2]["value"].get<double>(), 0.75);
  EXPECT_EQ(j["fields"][3]["length"], 2);
  EXPECT_EQ(j["fields"][3]["is_array"], true);
  EXPECT_EQ(j["fields"][3]["value"], nlohmann::json::array({4, 1}));

  const nlohmann::json pj = nlohmann::json::parse(TilingToJson(PaddedTiling{}));
  EXPECT_EQ(pj["fields"][0]["value"], true);
  EXPECT_EQ(pj["fields"][4]["value"], nlohmann::json::array({true, false, true}));

  std::vector<uint8_t> small(3);
  EXPECT_FALSE(TilingToJson(TilingSchemaOf<ReferenceTiling>(), small).ok());
}

// Tiling bytes from outside (a file, the CLI) may hold any byte in a bool field: it is shown as
// true, never loaded as an invalid bool (found by the tiling fuzz target under UBSan).
TEST(TilingData, JsonDumpOfBoolBytesOtherThanZeroAndOne) {
  constexpr TilingSchema schema = TilingSchemaOf<PaddedTiling>();
  std::vector<uint8_t> bytes(sizeof(PaddedTiling), 0);
  for (const uint8_t b : {uint8_t{0x40}, uint8_t{0xff}, uint8_t{2}}) {
    bytes[schema.fields[0].offset] = b;
    const nlohmann::json j = nlohmann::json::parse(*TilingToJson(schema, bytes));
    EXPECT_EQ(j["fields"][0]["value"], true) << int{b};
  }
  bytes[schema.fields[0].offset] = 0;
  EXPECT_EQ(nlohmann::json::parse(*TilingToJson(schema, bytes))["fields"][0]["value"], false);
}

TEST(TilingData, KernelSideAccessorReadsUnalignedArgument) {
  ReferenceTiling r;
  r.rows = 77;
  r.strides[1] = -9;
  const std::vector<uint8_t> bytes = SerializeTiling(r);
  std::vector<uint8_t> shifted(bytes.size() + 3);
  std::memcpy(shifted.data() + 3, bytes.data(), bytes.size());
  GET_TILING_DATA_WITH_STRUCT(ReferenceTiling, t, shifted.data() + 3);
  EXPECT_EQ(t.rows, 77);
  EXPECT_EQ(t.cols, 7);
  EXPECT_EQ(t.strides[1], -9);
}

// ---- Declarations that must not compile
// -----------------------------------------------------------

struct CompileOutcome {
  int exit_code;
  std::string output;
};

CompileOutcome CompileBadCase(const std::string& name) {
  const std::string cmd = std::string("'") + TESSERA_TEST_CXX + "' -std=c++20 -fsyntax-only '-I" +
                          TESSERA_TEST_INCLUDE_DIR + "' -DTESSERA_BAD_CASE_" + name + " '" +
                          TESSERA_TEST_BAD_DECLS + "' 2>&1";
  CompileOutcome out{-1, ""};
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0)
    out.output.append(buf, n);
  out.exit_code = pclose(pipe);
  return out;
}

struct BadCase {
  const char* name;
  const char* expected_diagnostic;
};

class CompileFailure : public ::testing::TestWithParam<BadCase> {};

TEST(CompileFailureHarness, ValidDeclarationsCompile) {
  const CompileOutcome ok = CompileBadCase("NONE");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

TEST_P(CompileFailure, IsRejectedWithReadableMessage) {
  const CompileOutcome out = CompileBadCase(GetParam().name);
  EXPECT_NE(out.exit_code, 0) << "compiled but should not: " << GetParam().name;
  EXPECT_NE(out.output.find(GetParam().expected_diagnostic), std::string::npos) << out.output;
}

INSTANTIATE_TEST_SUITE_P(
    TilingDeclarations, CompileFailure,
    ::testing::Values(
        BadCase{"ARRAY_0", "Tiling field 'zero': array length must be between 1 and 2048"},
        BadCase{"ARRAY_2049", "Tiling field 'big': array length must be between 1 and 2048"},
        BadCase{"DOUBLE_FIELD", "Tiling field 'd': element type must be int64_t, float or bool"},
        BadCase{"INT32_ARRAY", "Tiling field 'a': element type must be int64_t, float or bool"},
        BadCase{"DUPLICATE_NAME", "redeclaration of"},
        BadCase{"NO_FIELDS", "A TilingData struct needs at least one field"},
        BadCase{"KEY_BITS_0", "TilingKeyRuleBroken_bits_must_be_positive"},
        BadCase{"KEY_NO_VALUES", "TilingKeyRuleBroken_values_must_be_non_empty"},
        BadCase{"KEY_DUP_VALUE", "TilingKeyRuleBroken_values_must_be_unique"},
        BadCase{"KEY_TOO_MANY_VALUES", "TilingKeyRuleBroken_more_values_than_2_pow_bits"},
        BadCase{"KEY_65_BITS", "TilingKeyRuleBroken_total_bits_exceed_64"},
        BadCase{"KEY_DUP_NAME", "TilingKeyRuleBroken_field_names_must_be_unique"}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tessera::tiling

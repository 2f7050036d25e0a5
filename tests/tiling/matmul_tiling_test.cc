// TCubeTiling, TILING_DATA_FIELD_DEF_STRUCT and the host matmul tiling classes.
#include "tessera/tiling/matmul_tiling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

namespace tessera::tiling {
namespace {

using matmul_tiling::CubeFormat;
using matmul_tiling::DataType;
using matmul_tiling::MatmulApiTiling;
using matmul_tiling::MultiCoreMatmulTiling;
using matmul_tiling::TPosition;

// The classic MatmulLeakyReluCustom operator's tiling struct.
BEGIN_TILING_DATA_DEF(MatmulLeakyTiling)
  TILING_DATA_FIELD_DEF(float, alpha, 0.001f)
  TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData)
  TILING_DATA_FIELD_DEF(int64_t, tail)
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(Inner)
  TILING_DATA_FIELD_DEF(bool, on)
  TILING_DATA_FIELD_DEF(int64_t, v, 5)
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(Outer)
  TILING_DATA_FIELD_DEF(bool, first)
  TILING_DATA_FIELD_DEF_STRUCT(Inner, inner)
  TILING_DATA_FIELD_DEF_STRUCT(Inner, second)
END_TILING_DATA_DEF;
// Same layout as Outer, but the embedded struct has a different field order: other hash.
BEGIN_TILING_DATA_DEF(InnerSwapped)
  TILING_DATA_FIELD_DEF(int64_t, v)
  TILING_DATA_FIELD_DEF(bool, on)
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(OuterSwapped)
  TILING_DATA_FIELD_DEF(bool, first)
  TILING_DATA_FIELD_DEF_STRUCT(InnerSwapped, inner)
  TILING_DATA_FIELD_DEF_STRUCT(InnerSwapped, second)
END_TILING_DATA_DEF;

using FieldMap = std::map<std::string, std::string, std::less<>>;

TEST(TCubeTiling, VendorLayout) {
  constexpr TilingSchema s = TilingSchemaOf<TCubeTiling>();
  static_assert(s.size == 200 && s.alignment == 4);
  ASSERT_EQ(s.fields.size(), 50u);
  const char* names[] = {"usedCoreNum",
                         "M",
                         "N",
                         "Ka",
                         "Kb",
                         "singleCoreM",
                         "singleCoreN",
                         "singleCoreK",
                         "baseM",
                         "baseN",
                         "baseK",
                         "depthA1",
                         "depthB1",
                         "stepM",
                         "stepN",
                         "isBias",
                         "transLength",
                         "iterateOrder",
                         "shareMode",
                         "shareL1Size",
                         "shareL0CSize",
                         "shareUbSize",
                         "batchM",
                         "batchN",
                         "singleBatchM",
                         "singleBatchN",
                         "stepKa",
                         "stepKb",
                         "depthAL1CacheUB",
                         "depthBL1CacheUB",
                         "dbL0A",
                         "dbL0B",
                         "dbL0C",
                         "ALayoutInfoB",
                         "ALayoutInfoS",
                         "ALayoutInfoN",
                         "ALayoutInfoG",
                         "ALayoutInfoD",
                         "BLayoutInfoB",
                         "BLayoutInfoS",
                         "BLayoutInfoN",
                         "BLayoutInfoG",
                         "BLayoutInfoD",
                         "CLayoutInfoB",
                         "CLayoutInfoS1",
                         "CLayoutInfoN",
                         "CLayoutInfoG",
                         "CLayoutInfoS2",
                         "BatchNum",
                         "mxTypePara"};
  for (size_t i = 0; i < 50; ++i) {
    EXPECT_EQ(s.fields[i].name, names[i]) << i;
    EXPECT_EQ(s.fields[i].offset, 4 * i) << i;
    EXPECT_EQ(s.fields[i].type, TilingFieldType::kInt32) << i;
  }
  EXPECT_EQ(offsetof(TCubeTiling, baseK), 40u);
  EXPECT_EQ(offsetof(TCubeTiling, mxTypePara), 196u);
}

TEST(TilingStructField, EmbedsWithNativeLayout) {
  constexpr TilingSchema s = TilingSchemaOf<MatmulLeakyTiling>();
  ASSERT_EQ(s.fields.size(), 3u);
  EXPECT_EQ(s.fields[1].type, TilingFieldType::kStruct);
  EXPECT_EQ(s.fields[1].offset, offsetof(MatmulLeakyTiling, cubeTilingData));
  EXPECT_EQ(s.fields[1].byte_size(), 200u);
  ASSERT_NE(s.fields[1].nested, nullptr);
  EXPECT_EQ(s.fields[1].nested->name, "TCubeTiling");
  EXPECT_EQ(s.fields[2].offset, offsetof(MatmulLeakyTiling, tail));
  EXPECT_EQ(s.size, sizeof(MatmulLeakyTiling));
  // Padding from the embedded struct's alignment: bool@0, Inner@8 (align 8), second@24.
  constexpr TilingSchema o = TilingSchemaOf<Outer>();
  EXPECT_EQ(o.fields[1].offset, 8u);
  EXPECT_EQ(o.fields[2].offset, 24u);
  EXPECT_EQ(o.size, 40u);
  EXPECT_EQ(Outer{}.inner.v, 5);  // the embedded struct's defaults apply
}

TEST(TilingStructField, HashCoversTheEmbeddedLayout) {
  EXPECT_NE(TilingSchemaOf<Outer>().hash, TilingSchemaOf<OuterSwapped>().hash);
  EXPECT_FALSE(CheckSchemaCompatible(TilingSchemaOf<Outer>(), TilingSchemaOf<OuterSwapped>()).ok());
  EXPECT_TRUE(CheckSchemaCompatible(TilingSchemaOf<Outer>(), TilingSchemaOf<Outer>()).ok());
}

TEST(TilingStructField, SerialiseParseRoundTrip) {
  MatmulLeakyTiling t;
  t.alpha = 0.25f;
  t.cubeTilingData.baseM = 128;
  t.cubeTilingData.mxTypePara = -7;
  t.tail = 99;
  const std::vector<uint8_t> bytes = SerializeTiling(t);
  ASSERT_EQ(bytes.size(), sizeof(MatmulLeakyTiling));
  Result<MatmulLeakyTiling> back = ParseTiling<MatmulLeakyTiling>(bytes);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->cubeTilingData.baseM, 128);
  EXPECT_EQ(back->cubeTilingData.mxTypePara, -7);
  EXPECT_EQ(back->tail, 99);
  const MatmulLeakyTiling k = GetTilingData<MatmulLeakyTiling>(bytes.data());
  EXPECT_EQ(k.alpha, 0.25f);
}

TEST(TilingStructField, JsonShowsNestedFields) {
  MatmulLeakyTiling t;
  t.cubeTilingData.baseN = 64;
  const nlohmann::json j = nlohmann::json::parse(TilingToJson(t));
  ASSERT_EQ(j["fields"].size(), 3u);
  const auto& f = j["fields"][1];
  EXPECT_EQ(f["type"], "struct");
  EXPECT_EQ(f["struct"], "TCubeTiling");
  ASSERT_EQ(f["value"].size(), 50u);
  EXPECT_EQ(f["value"][9]["name"], "baseN");
  EXPECT_EQ(f["value"][9]["type"], "int32");
  EXPECT_EQ(f["value"][9]["value"], 64);
  EXPECT_EQ(f["value"][9]["offset"], 36);
}

TEST(TilingStructField, SetFieldsByPath) {
  MatmulLeakyTiling t;
  ASSERT_TRUE(SetTilingFields(t, {{"cubeTilingData.baseK", "32"}, {"alpha", "0.5"}}).ok());
  EXPECT_EQ(t.cubeTilingData.baseK, 32);
  EXPECT_EQ(t.alpha, 0.5f);
  Outer o;
  ASSERT_TRUE(SetTilingFields(o, {{"second.v", "-3"}, {"inner.on", "true"}}).ok());
  EXPECT_EQ(o.second.v, -3);
  EXPECT_TRUE(o.inner.on);

  // Errors leave the struct unchanged and say what is wrong.
  Status s = SetTilingFields(t, {{"cubeTilingData.baseK", "64"}, {"cubeTilingData.nope", "1"}});
  EXPECT_NE(s.message().find("Tiling struct 'TCubeTiling' has no field 'nope'"), std::string::npos)
      << s.message();
  EXPECT_EQ(t.cubeTilingData.baseK, 32);
  s = SetTilingFields(t, {{"cubeTilingData", "1"}});
  EXPECT_NE(s.message().find("is an embedded TCubeTiling; set its fields one by one"),
            std::string::npos)
      << s.message();
  s = SetTilingFields(t, {{"alpha.x", "1"}});
  EXPECT_NE(s.message().find("'alpha' is a float32, not an embedded struct"), std::string::npos)
      << s.message();
  s = SetTilingFields(t, {{"cubeTilingData.baseM", "3000000000"}});
  EXPECT_NE(s.message().find("expects an int32 value"), std::string::npos) << s.message();
}

// --- host tiling ---

struct Case {
  int32_t m, n, k;
  DataType ab, c;
  bool aTrans, bTrans, bias;
  TPosition cPos;
  int32_t dim;
};

int32_t Bytes(DataType t) {
  return matmul_tiling::DataTypeBytes(t);
}

// Every rule of the Matmul API's tiling, checked independently of the chooser.
void ExpectValid(const TCubeTiling& t, const Case& c, const MatmulPlatform& p) {
  SCOPED_TRACE("m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
               " k=" + std::to_string(c.k) + " ab=" + matmul_tiling::DataTypeName(c.ab) +
               " dim=" + std::to_string(c.dim));
  const int64_t ab = Bytes(c.ab);
  const int64_t c0 = 32 / ab;
  EXPECT_EQ(t.M, c.m);
  EXPECT_EQ(t.N, c.n);
  EXPECT_EQ(t.Ka, c.k);
  EXPECT_EQ(t.Kb, c.k);
  EXPECT_EQ(t.singleCoreK, c.k);
  EXPECT_GE(t.singleCoreM, 1);
  EXPECT_GE(t.singleCoreN, 1);
  EXPECT_LE(t.singleCoreM, c.m);
  EXPECT_LE(t.singleCoreN, c.n);
  EXPECT_EQ(t.baseM % 16, 0);
  EXPECT_EQ(t.baseN % 16, 0);
  const int64_t kAlign = (!c.aTrans && c.bTrans) ? c0 : std::max<int64_t>(c0, 16);
  EXPECT_EQ(t.baseK % kAlign, 0);
  EXPECT_GT(t.baseK, 0);
  EXPECT_LE(int64_t{t.baseM} * t.baseK * ab * t.dbL0A, p.l0a_bytes);
  EXPECT_LE(int64_t{t.baseN} * t.baseK * ab * t.dbL0B, p.l0b_bytes);
  EXPECT_LE(int64_t{t.baseM} * t.baseN * 4 * t.dbL0C, p.l0c_bytes);
  if (c.bias) {
    EXPECT_LE(int64_t{t.baseN} * 4, p.bt_bytes);
  }
  EXPECT_EQ(t.isBias, c.bias ? 1 : 0);
  EXPECT_GE(t.depthA1, t.stepM * t.stepKa);
  EXPECT_GE(t.depthB1, t.stepN * t.stepKb);
  EXPECT_LE(int64_t{t.baseM} * t.baseK * ab * t.depthA1 +
                int64_t{t.baseN} * t.baseK * ab * t.depthB1 + (c.bias ? t.baseN * 4 : 0),
            p.l1_bytes);
  if (c.cPos == TPosition::VECIN) {
    EXPECT_LE(int64_t{t.baseM} * t.baseN * Bytes(c.c), p.ub_bytes);
  }
  // No base block larger than the padded single-core block (no wasted L0).
  EXPECT_LE(t.baseM, (t.singleCoreM + 15) / 16 * 16);
  EXPECT_LE(t.baseN, (t.singleCoreN + 15) / 16 * 16);
  // The core split covers M x N exactly once and fits the cores (the element-wise check only
  // where it is cheap).
  const int64_t mBlocks = (c.m + t.singleCoreM - 1) / t.singleCoreM;
  const int64_t nBlocks = (c.n + t.singleCoreN - 1) / t.singleCoreN;
  EXPECT_EQ(t.usedCoreNum, mBlocks * nBlocks);
  EXPECT_LE(t.usedCoreNum, c.dim);
  if (int64_t{c.m} * c.n > (1 << 20)) {
    EXPECT_GE(mBlocks * t.singleCoreM, c.m);
    EXPECT_GE(nBlocks * t.singleCoreN, c.n);
    EXPECT_LT((mBlocks - 1) * t.singleCoreM, c.m);
    EXPECT_LT((nBlocks - 1) * t.singleCoreN, c.n);
    EXPECT_TRUE(CheckCubeTiling(t, p, static_cast<int32_t>(ab), c.aTrans, c.bTrans, 4).ok());
    return;
  }
  std::vector<uint8_t> covered(static_cast<size_t>(c.m) * c.n, 0);
  for (int64_t core = 0; core < t.usedCoreNum; ++core) {
    const int64_t m0 = (core % mBlocks) * t.singleCoreM, n0 = (core / mBlocks) * t.singleCoreN;
    for (int64_t i = m0; i < std::min<int64_t>(m0 + t.singleCoreM, c.m); ++i)
      for (int64_t j = n0; j < std::min<int64_t>(n0 + t.singleCoreN, c.n); ++j)
        ++covered[static_cast<size_t>(i * c.n + j)];
  }
  EXPECT_EQ(std::count(covered.begin(), covered.end(), 1), static_cast<long>(covered.size()));
  EXPECT_TRUE(CheckCubeTiling(t, p, static_cast<int32_t>(ab), c.aTrans, c.bTrans, 4).ok());
}

Result<TCubeTiling> Make(const Case& c, const MatmulPlatform& p) {
  MultiCoreMatmulTiling t(p);
  EXPECT_EQ(t.SetDim(c.dim), 0);
  t.SetAType(TPosition::GM, CubeFormat::ND, c.ab, c.aTrans);
  t.SetBType(TPosition::GM, CubeFormat::ND, c.ab, c.bTrans);
  t.SetCType(c.cPos, CubeFormat::ND, c.c);
  t.SetBiasType(TPosition::GM, CubeFormat::ND,
                c.ab == DataType::DT_INT8 ? DataType::DT_INT32 : DataType::DT_FLOAT);
  EXPECT_EQ(t.SetShape(c.m, c.n, c.k), 0);
  EXPECT_EQ(t.SetOrgShape(c.m, c.n, c.k), 0);
  t.EnableBias(c.bias);
  TCubeTiling out;
  if (t.GetTiling(out) == -1) return InvalidArgument(t.GetErrorInfo());
  EXPECT_EQ(t.GetCoreNum(), out.usedCoreNum);
  EXPECT_TRUE(t.GetErrorInfo().empty());
  return out;
}

TEST(MatmulTiling, PropertyRandomShapesAndTypes) {
  std::mt19937 rng(20261201);
  const int32_t sizes[] = {1, 7, 15, 16, 17, 31, 33, 64, 100, 255, 256, 1000, 4097, 8191};
  const DataType abs[] = {DataType::DT_FLOAT16, DataType::DT_BFLOAT16, DataType::DT_FLOAT,
                          DataType::DT_INT8};
  MatmulPlatform small;  // a tighter core, to exercise the shrinking paths
  small.l1_bytes = 96 * 1024;
  small.l0a_bytes = small.l0b_bytes = 16 * 1024;
  small.l0c_bytes = 32 * 1024;
  small.ub_bytes = 16 * 1024;
  for (int iter = 0; iter < 600; ++iter) {
    Case c;
    c.m = sizes[rng() % std::size(sizes)];
    c.n = sizes[rng() % std::size(sizes)];
    c.k = sizes[rng() % std::size(sizes)];
    c.ab = abs[rng() % 4];
    c.c = c.ab == DataType::DT_INT8    ? DataType::DT_INT32
          : c.ab == DataType::DT_FLOAT ? DataType::DT_FLOAT
          : (rng() % 2)                ? DataType::DT_FLOAT
                                       : c.ab;
    c.aTrans = rng() % 2;
    c.bTrans = rng() % 2;
    c.bias = rng() % 2;
    c.cPos = rng() % 2 ? TPosition::GM : TPosition::VECIN;
    c.dim = 1 + static_cast<int32_t>(rng() % 48);
    const MatmulPlatform p = iter % 3 == 2 ? small : MatmulPlatform{};
    Result<TCubeTiling> t = Make(c, p);
    ASSERT_TRUE(t.ok()) << t.status().message();
    ExpectValid(*t, c, p);
  }
}

TEST(MatmulTiling, SplitsOverCoresAndBalances) {
  // 1024 x 1024 over 24 cores: at most 24 blocks, no core's block larger than needed.
  Case c{1024,  1024,  256,   DataType::DT_FLOAT16, DataType::DT_FLOAT,
         false, false, false, TPosition::GM,        24};
  Result<TCubeTiling> t = Make(c, {});
  ASSERT_TRUE(t.ok());
  ExpectValid(*t, c, {});
  EXPECT_GE(t->usedCoreNum, 16);
  // The advanced-API sample: 512 x 128 x 128 over 2 AIVs with a fixed 128 x 64 split.
  MultiCoreMatmulTiling s;
  s.SetDim(2);
  s.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
  s.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
  s.SetCType(TPosition::VECIN, CubeFormat::ND, DataType::DT_FLOAT);
  s.SetBiasType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
  s.SetOrgShape(512, 128, 128);
  s.SetShape(512, 128, 128);
  s.EnableBias(true);
  ASSERT_EQ(s.SetFixSplit(128, 64, 128), 0);
  ASSERT_EQ(s.SetBufferSpace(-1, -1, 192 * 1024 - 128 * 64 * 4), 0);
  TCubeTiling out;
  ASSERT_EQ(s.GetTiling(out), 0) << s.GetErrorInfo();
  EXPECT_EQ(out.baseM, 128);
  EXPECT_EQ(out.baseN, 64);
  EXPECT_EQ(out.baseK, 128);
  EXPECT_EQ(out.usedCoreNum, 2);
  EXPECT_EQ(out.singleCoreN, 64);  // N is split across the two AIVs, as in the vendor sample
  EXPECT_EQ(out.singleCoreM, 512);
}

// With fixed base blocks a core's block is costed in whole base blocks: the fused sample's
// 1024 x 640 with 256 x 128 bases splits M over 2 cores (512 x 640: no tail block), not N
// (1024 x 320 would leave a 64-column tail), and its kernel loops over exactly 10 base blocks.
// Awkward shapes keep covering C with the fewest padded base blocks.
TEST(MatmulTiling, FixSplitAvoidsTailBlocksWhenSplittingCores) {
  struct Shape {
    int32_t m, n, baseM, baseN, dim, singleM, singleN;
  };
  for (const Shape& c :
       {Shape{1024, 640, 256, 128, 2, 512, 640}, Shape{512, 128, 128, 64, 2, 512, 64},
        Shape{784, 496, 128, 64, 4, 784, 128}}) {
    MultiCoreMatmulTiling s;
    s.SetDim(c.dim);
    s.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    s.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    s.SetCType(TPosition::VECIN, CubeFormat::ND, DataType::DT_FLOAT);
    s.SetOrgShape(c.m, c.n, 256);
    s.SetShape(c.m, c.n, 256);
    ASSERT_EQ(s.SetFixSplit(c.baseM, c.baseN, -1), 0);
    TCubeTiling out;
    ASSERT_EQ(s.GetTiling(out), 0) << s.GetErrorInfo();
    EXPECT_EQ(out.singleCoreM, c.singleM) << c.m << " x " << c.n;
    EXPECT_EQ(out.singleCoreN, c.singleN) << c.m << " x " << c.n;
    // Every candidate split's padded cost is at least the chosen one's (independent search).
    const auto padded = [&](int64_t sm, int64_t sn) {
      return (sm + c.baseM - 1) / c.baseM * c.baseM * ((sn + c.baseN - 1) / c.baseN * c.baseN);
    };
    for (int32_t md = 1; md <= c.dim; ++md) {
      for (int32_t nd = 1; md * nd <= c.dim; ++nd) {
        const int64_t sm = ((c.m + md - 1) / md + 15) / 16 * 16,
                      sn = ((c.n + nd - 1) / nd + 15) / 16 * 16;
        EXPECT_GE(padded(std::min<int64_t>(sm, c.m), std::min<int64_t>(sn, c.n)),
                  padded(out.singleCoreM, out.singleCoreN))
            << md << " x " << nd;
      }
    }
  }
}

TEST(MatmulTiling, SingleCoreTilingCoversTheShape) {
  MatmulApiTiling t;
  t.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_BFLOAT16);
  t.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_BFLOAT16, true);
  t.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_BFLOAT16);
  t.SetShape(300, 17, 4097);
  TCubeTiling out;
  ASSERT_EQ(t.GetTiling(out), 0) << t.GetErrorInfo();
  EXPECT_EQ(out.usedCoreNum, 1);
  EXPECT_EQ(out.singleCoreM, 300);
  EXPECT_EQ(out.singleCoreN, 17);
  EXPECT_EQ(out.baseN, 32);
}

TEST(MatmulTiling, UserSingleShapeAndOrgShape) {
  MultiCoreMatmulTiling t;
  t.SetDim(8);
  t.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
  t.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
  t.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
  t.SetOrgShape(1000, 300, 40, 48);
  t.SetShape(1000, 300, 40);
  ASSERT_EQ(t.SetSingleShape(250, 150), 0);
  TCubeTiling out;
  ASSERT_EQ(t.GetTiling(out), 0) << t.GetErrorInfo();
  EXPECT_EQ(out.usedCoreNum, 8);
  EXPECT_EQ(out.Ka, 40);
  EXPECT_EQ(out.Kb, 48);
  EXPECT_EQ(out.singleCoreK, 40);
}

TEST(MatmulTiling, ErrorsSayWhy) {
  const auto error_of = [](auto&& configure) {
    MultiCoreMatmulTiling t;
    t.SetDim(4);
    t.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    t.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    t.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    t.SetShape(64, 64, 64);
    configure(t);
    TCubeTiling out;
    out.baseM = 12345;
    EXPECT_EQ(t.GetTiling(out), -1);
    EXPECT_EQ(out.baseM, 12345);  // untouched on failure
    return t.GetErrorInfo();
  };
  EXPECT_NE(error_of([](auto& t) {
              t.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
            }).find("A is DT_FLOAT16 but B is DT_FLOAT"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& t) {
              t.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_INT32);
            }).find("C type DT_INT32 is not supported with A/B DT_FLOAT16"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& t) {
              t.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_INT4);
              t.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_INT4);
            }).find("A type DT_INT4 is not supported"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& t) { t.SetFixSplit(512, 256); }).find("exceeds L0C"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& t) {
              t.EnableBias(true);
              t.SetFixSplit(16, 512);
            }).find("bias table"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& t) { t.SetFixSplit(32, 32, 24); }).find("must be a multiple of 16"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& t) { t.SetSingleShape(16, 16); }).find("needs 16 cores"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& t) {
              t.SetAType(TPosition::TSCM, CubeFormat::ND, DataType::DT_FLOAT16);
            }).find("A position TSCM is not supported"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& t) {
              t.SetAType(TPosition::GM, CubeFormat::NZ, DataType::DT_FLOAT16);
            }).find("CubeFormat::ND"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& t) { t.SetOrgShape(32, 64, 64); }).find("exceeds the original"),
            std::string::npos);
  MultiCoreMatmulTiling t;
  EXPECT_EQ(t.SetShape(0, 1, 1), -1);
  EXPECT_NE(t.GetErrorInfo().find("must be at least 1"), std::string::npos);
  EXPECT_EQ(t.SetDim(0), -1);
  EXPECT_EQ(t.SetFixSplit(17), -1);
  EXPECT_NE(t.GetErrorInfo().find("multiple of 16"), std::string::npos);
  EXPECT_EQ(t.SetBufferSpace(1 << 30), -1);
  EXPECT_NE(t.GetErrorInfo().find("l1Size"), std::string::npos);
  EXPECT_EQ(t.SetTraverse(2), -1);
  TCubeTiling out;
  EXPECT_EQ(t.GetTiling(out), -1);
  EXPECT_NE(t.GetErrorInfo().find("SetAType was not called"), std::string::npos);
}

TEST(MatmulTiling, CheckCubeTilingNamesTheBrokenRule) {
  Case c{256,   256,   256,  DataType::DT_FLOAT16, DataType::DT_FLOAT,
         false, false, true, TPosition::GM,        1};
  Result<TCubeTiling> ok = Make(c, {});
  ASSERT_TRUE(ok.ok());
  const auto broken = [&](auto&& edit) {
    TCubeTiling t = *ok;
    edit(t);
    return std::string(CheckCubeTiling(t, {}, 2, false, false, 4).message());
  };
  EXPECT_NE(broken([](TCubeTiling& t) { t.baseM = 24; }).find("multiples of 16"),
            std::string::npos);
  EXPECT_NE(broken([](TCubeTiling& t) { t.baseK = 8; }).find("multiple of 16"), std::string::npos);
  EXPECT_NE(broken([](TCubeTiling& t) { t.baseM = t.baseK = 256; }).find("exceeds L0A"),
            std::string::npos);
  EXPECT_NE(broken([](TCubeTiling& t) { t.singleCoreM = 300; }).find("exceeds M x N x K"),
            std::string::npos);
  EXPECT_NE(broken([](TCubeTiling& t) { t.usedCoreNum = 0; }).find("usedCoreNum 0"),
            std::string::npos);
  EXPECT_NE(broken([](TCubeTiling& t) { t.depthA1 = 200; }).find("exceeds L1"), std::string::npos);
  EXPECT_NE(broken([](TCubeTiling& t) { t.dbL0C = 3; }).find("must each be 1 or 2"),
            std::string::npos);
  EXPECT_NE(broken([](TCubeTiling& t) { t.BatchNum = 4; }).find("batched"), std::string::npos);
}

}  // namespace
}  // namespace tessera::tiling

// The Mmad microkernels (src/kernel/cube/mmad_kernels.h) on every path this CPU supports, against
// a double reference computed from the logical matrices: random data, awkward sizes, the three
// ways C starts (zero, bias, accumulate), NaN in every padding element of A and B, and sentinels
// in every element of C outside the valid m x n region (and around the buffer).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../../../src/kernel/cube/mmad_kernels.h"
#include "tessera/core/float16.h"

namespace tessera::kernel::detail {
namespace {

// Layout formulas written out from CUBE_PLAN.md, independent of the implementation's.
size_t ZzOffset(uint32_t i, uint32_t kk, uint32_t k1, uint32_t c0) {
  return (size_t(i / 16) * k1 + kk / c0) * 16 * c0 + (i % 16) * c0 + kk % c0;
}
size_t ZnOffset(uint32_t kk, uint32_t j, uint32_t n1, uint32_t c0) {
  return (size_t(kk / c0) * n1 + j / 16) * (16 * c0) + (j % 16) * c0 + kk % c0;
}
size_t NzOffset(uint32_t i, uint32_t j, uint32_t mp) {
  return size_t(j / 16) * (mp * 16) + size_t(i) * 16 + j % 16;
}

constexpr uint32_t kSentinel = 0x7FBADBADu;  // a signalling NaN as f32; odd value as s32
constexpr size_t kGuard = 64;                // sentinel elements before and after C

struct Shape {
  uint32_t m, n, k;
};

enum class Init { kZero, kBias, kAccumulate };

uint32_t ElemBytes(MmadKind kind) {
  switch (kind) {
    case MmadKind::kF32:
      return 4;
    case MmadKind::kF16:
    case MmadKind::kBF16:
      return 2;
    case MmadKind::kS8:
      return 1;
  }
  return 4;
}

// One random element of `kind`: its bit pattern and its exact value.
struct Elem {
  uint32_t bits;
  double value;
};

Elem RandomElem(MmadKind kind, std::mt19937& rng) {
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  switch (kind) {
    case MmadKind::kF32: {
      const float v = uni(rng);
      return {std::bit_cast<uint32_t>(v), v};
    }
    case MmadKind::kF16: {
      const half h(uni(rng));
      return {h.bits, static_cast<float>(h)};
    }
    case MmadKind::kBF16: {
      const bfloat16 b(uni(rng));
      return {b.bits, static_cast<float>(b)};
    }
    case MmadKind::kS8: {
      const int v = std::uniform_int_distribution<int>(-128, 127)(rng);
      return {static_cast<uint32_t>(v) & 0xFFu, double(v)};
    }
  }
  return {0, 0.0};
}

// Padding: NaN for floating kinds, so a kernel that multiplies padding poisons its result.
uint32_t PaddingBits(MmadKind kind, std::mt19937& rng) {
  switch (kind) {
    case MmadKind::kF32:
      return 0x7FC00000u;
    case MmadKind::kF16:
      return 0x7E00u;
    case MmadKind::kBF16:
      return 0x7FC0u;
    case MmadKind::kS8:
      return rng() & 0xFFu;
  }
  return 0;
}

void Put(std::vector<uint8_t>& buf, size_t index, uint32_t bits, uint32_t bytes) {
  std::memcpy(buf.data() + index * bytes, &bits, bytes);
}

struct Case {
  std::vector<uint8_t> a, b;
  std::vector<uint32_t> c;     // kGuard + Nz storage + kGuard
  std::vector<uint32_t> bias;  // n values
  std::vector<double> ref;     // m x n, row-major
  std::vector<double> mag;     // sum of |terms| per element, for the rounding bound
};

Case MakeCase(MmadKind kind, Shape s, Init init, std::mt19937& rng) {
  const uint32_t eb = ElemBytes(kind), c0 = 32 / eb;
  const uint32_t k1 = (s.k + c0 - 1) / c0, n1 = (s.n + 15) / 16, mp = (s.m + 15) / 16 * 16;
  const bool s8 = kind == MmadKind::kS8;
  Case t;
  std::vector<double> av(size_t(s.m) * s.k), bv(size_t(s.k) * s.n);
  // A: Zz with every padding element NaN; for m == 1 exactly k elements of ND.
  const size_t a_elems = s.m == 1 ? s.k : size_t(mp) * k1 * c0;
  t.a.resize(a_elems * eb);
  for (size_t e = 0; e < a_elems; ++e)
    Put(t.a, e, PaddingBits(kind, rng), eb);
  for (uint32_t i = 0; i < s.m; ++i) {
    for (uint32_t kk = 0; kk < s.k; ++kk) {
      const Elem x = RandomElem(kind, rng);
      av[size_t(i) * s.k + kk] = x.value;
      Put(t.a, s.m == 1 ? kk : ZzOffset(i, kk, k1, c0), x.bits, eb);
    }
  }
  const size_t b_elems = size_t(k1) * c0 * n1 * 16;
  t.b.resize(b_elems * eb);
  for (size_t e = 0; e < b_elems; ++e)
    Put(t.b, e, PaddingBits(kind, rng), eb);
  for (uint32_t kk = 0; kk < s.k; ++kk) {
    for (uint32_t j = 0; j < s.n; ++j) {
      const Elem x = RandomElem(kind, rng);
      bv[size_t(kk) * s.n + j] = x.value;
      Put(t.b, ZnOffset(kk, j, n1, c0), x.bits, eb);
    }
  }
  t.c.assign(2 * kGuard + size_t(mp) * n1 * 16, kSentinel);
  t.bias.resize(s.n);
  std::uniform_real_distribution<float> uni(-4.0f, 4.0f);
  std::uniform_int_distribution<int32_t> ints(-100000, 100000);
  auto random_acc = [&](double& value) {
    if (s8) {
      const int32_t v = ints(rng);
      value = v;
      return static_cast<uint32_t>(v);
    }
    const float v = uni(rng);
    value = v;
    return std::bit_cast<uint32_t>(v);
  };
  std::vector<double> bias_value(s.n, 0.0);
  for (uint32_t j = 0; j < s.n; ++j)
    t.bias[j] = random_acc(bias_value[j]);
  t.ref.assign(size_t(s.m) * s.n, 0.0);
  t.mag.assign(size_t(s.m) * s.n, 0.0);
  for (uint32_t i = 0; i < s.m; ++i) {
    for (uint32_t j = 0; j < s.n; ++j) {
      double start = 0.0;
      if (init == Init::kAccumulate) {
        t.c[kGuard + NzOffset(i, j, mp)] = random_acc(start);
      } else if (init == Init::kBias) {
        start = bias_value[j];
      }
      double sum = start, mag = std::fabs(start);
      for (uint32_t kk = 0; kk < s.k; ++kk) {
        const double p = av[size_t(i) * s.k + kk] * bv[size_t(kk) * s.n + j];
        sum += p;
        mag += std::fabs(p);
      }
      t.ref[size_t(i) * s.n + j] = sum;
      t.mag[size_t(i) * s.n + j] = mag;
    }
  }
  return t;
}

std::string Describe(MmadPath path, MmadKind kind, Shape s, Init init) {
  static const char* kinds[] = {"f32", "f16", "bf16", "s8"};
  static const char* inits[] = {"zero", "bias", "accumulate"};
  return std::string(MmadPathName(path)) + " " + kinds[int(kind)] + " m=" + std::to_string(s.m) +
         " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) + " " + inits[int(init)];
}

// Runs one case on `path` and checks every element of the C buffer.
void Check(MmadPath path, MmadKind kind, Shape s, Init init, std::mt19937& rng) {
  Case t = MakeCase(kind, s, init, rng);
  const std::vector<uint32_t> before = t.c;
  MmadCall call{};
  call.kind = kind;
  call.a = t.a.data();
  call.b = t.b.data();
  call.c = t.c.data() + kGuard;
  call.bias = init == Init::kBias ? t.bias.data() : nullptr;
  call.m = s.m;
  call.n = s.n;
  call.k = s.k;
  call.accumulate = init == Init::kAccumulate;
  RunMmadOn(path, call);

  const std::string what = Describe(path, kind, s, init);
  const uint32_t mp = (s.m + 15) / 16 * 16;
  // Outside the valid region: untouched, including the guards.
  std::vector<bool> valid(t.c.size(), false);
  for (uint32_t i = 0; i < s.m; ++i) {
    for (uint32_t j = 0; j < s.n; ++j)
      valid[kGuard + NzOffset(i, j, mp)] = true;
  }
  for (size_t e = 0; e < t.c.size(); ++e) {
    if (!valid[e]) {
      ASSERT_EQ(t.c[e], before[e]) << what << ": wrote outside m x n at element " << e;
    }
  }
  // CATLASS tolerance, plus the f32 rounding bound of any summation order with two roundings
  // per step (vdpbf16ps): far tighter, so a missing or doubled term cannot hide in it.
  const double rtol = s.k < 2048 ? 1.0 / 256 : 1.0 / 128;
  for (uint32_t i = 0; i < s.m; ++i) {
    for (uint32_t j = 0; j < s.n; ++j) {
      const uint32_t bits = t.c[kGuard + NzOffset(i, j, mp)];
      const double ref = t.ref[size_t(i) * s.n + j];
      if (kind == MmadKind::kS8) {
        ASSERT_EQ(static_cast<int32_t>(bits), static_cast<int64_t>(ref))
            << what << " at (" << i << ", " << j << ")";
        continue;
      }
      const double out = std::bit_cast<float>(bits);
      const double err = std::fabs(out - ref);
      const double bound = (2.0 * s.k + 4.0) * std::ldexp(1.0, -24) * t.mag[size_t(i) * s.n + j];
      ASSERT_TRUE(err <= rtol * std::max(1.0, std::fabs(ref)) && err <= bound + 1e-30)
          << what << " at (" << i << ", " << j << "): got " << out << ", expected " << ref;
    }
  }
}

class MmadKernelsTest : public ::testing::TestWithParam<std::tuple<MmadPath, MmadKind>> {};

constexpr uint32_t kSizes[] = {1, 7, 15, 16, 17, 31, 64, 128, 255};

TEST_P(MmadKernelsTest, SweepsEachDimension) {
  const auto [path, kind] = GetParam();
  std::mt19937 rng(1234 + int(kind) * 7 + int(path));
  const Init inits[] = {Init::kZero, Init::kBias, Init::kAccumulate};
  int variant = 0;
  for (uint32_t v : kSizes) {
    for (Shape s : {Shape{v, 33, 47}, Shape{19, v, 40}, Shape{21, 50, v}}) {
      Check(path, kind, s, inits[variant++ % 3], rng);
      if (HasFatalFailure()) return;
    }
  }
}

TEST_P(MmadKernelsTest, LargerAndMultiBlockShapes) {
  const auto [path, kind] = GetParam();
  std::mt19937 rng(99 + int(kind) * 7 + int(path));
  const Shape shapes[] = {{255, 255, 255}, {128, 128, 128}, {1, 255, 255}, {1, 64, 1000},
                          {64, 97, 300},   {31, 100, 1001}, {16, 16, 16},  {17, 49, 257}};
  for (Shape s : shapes) {
    for (Init init : {Init::kZero, Init::kBias, Init::kAccumulate}) {
      Check(path, kind, s, init, rng);
      if (HasFatalFailure()) return;
    }
  }
}

// Shapes at the SIMD paths' block edges: row blocks that straddle two 16-row strips (AVX2 blocks
// of 6 rows), a last column fractal of 1, 8, 9 or 15 columns, K blocks of 256 units (k = 256,
// 257, 513: f32 units, s8 pairs with an odd tail in the last block), GEMV with a partial last row.
TEST_P(MmadKernelsTest, AwkwardShapesAtBlockEdges) {
  const auto [path, kind] = GetParam();
  std::mt19937 rng(4242 + int(kind) * 7 + int(path));
  const Shape shapes[] = {{1, 1, 1},    {7, 7, 7},    {31, 31, 31},  {17, 33, 65},  {1, 7, 31},
                          {1, 17, 33},  {13, 9, 513}, {40, 24, 300}, {6, 16, 256},  {12, 17, 257},
                          {100, 1, 40}, {22, 8, 1},   {47, 15, 129}, {96, 41, 511}, {5, 200, 18}};
  for (Shape s : shapes) {
    for (Init init : {Init::kZero, Init::kBias, Init::kAccumulate}) {
      Check(path, kind, s, init, rng);
      if (HasFatalFailure()) return;
    }
  }
}

std::vector<std::tuple<MmadPath, MmadKind>> AllCombinations() {
  std::vector<std::tuple<MmadPath, MmadKind>> out;
  for (MmadPath path : MmadPathsAvailable()) {
    for (MmadKind kind : {MmadKind::kF32, MmadKind::kF16, MmadKind::kBF16, MmadKind::kS8}) {
      out.emplace_back(path, kind);
    }
  }
  return out;
}

std::string ParamName(const ::testing::TestParamInfo<MmadKernelsTest::ParamType>& info) {
  static const char* kinds[] = {"F32", "F16", "BF16", "S8"};
  return std::string(MmadPathName(std::get<0>(info.param))) + "_" +
         kinds[int(std::get<1>(info.param))];
}

INSTANTIATE_TEST_SUITE_P(Paths, MmadKernelsTest, ::testing::ValuesIn(AllCombinations()), ParamName);

TEST(MmadKernels, DefaultPathIsTheBestAvailable) {
  const auto paths = MmadPathsAvailable();
  ASSERT_FALSE(paths.empty());
  EXPECT_EQ(paths.front(), MmadPath::kScalar);
  for (MmadKind kind : {MmadKind::kF32, MmadKind::kF16, MmadKind::kBF16, MmadKind::kS8}) {
    const MmadPath best = MmadDefaultPath(kind);
    EXPECT_NE(std::find(paths.begin(), paths.end(), best), paths.end());
    if (kind != MmadKind::kBF16) {
      EXPECT_EQ(best, paths.back());
    }
  }
  // RunMmad gives the same bits as the default path.
  std::mt19937 rng(5);
  Case t = MakeCase(MmadKind::kF32, {33, 70, 90}, Init::kBias, rng);
  Case u = t;
  MmadCall call{MmadKind::kF32, t.a.data(), t.b.data(), t.c.data() + kGuard,
                t.bias.data(),  33,         70,         90,
                false};
  RunMmad(call);
  call.c = u.c.data() + kGuard;
  RunMmadOn(MmadDefaultPath(MmadKind::kF32), call);
  EXPECT_EQ(t.c, u.c);
}

}  // namespace
}  // namespace tessera::kernel::detail

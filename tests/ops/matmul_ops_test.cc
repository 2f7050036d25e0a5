// The matmul operators of the built-in package (MatMul, BatchMatMul, Addmm, MatMulAct) end to end
// through the two-stage C API by name (tsrOpGetWorkspaceSize / tsrOpExecute): package lookup,
// tiling, the gemm kernels (cube and MIX launches), workspace; on random data against double
// references with CATLASS's tolerance: |out - ref| <= rtol * max(1, |ref|), rtol 1/256 for K < 2048
// else 1/128, plus the output rounding of float16 (2^-8) and bfloat16 (2^-7); int32 exact. Sizes
// from {1, 15, 16, 17, 255, 1000, 4097}, both profiles, checked mode on small cases, every error
// path (nothing launched).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "builtin_nn.h"
#include "tessera/core/float16.h"
#include "tessera/device/device.h"
#include "tessera/tessera_nn.h"

namespace {

using tessera::bfloat16;
using tessera::half;

size_t ElemSize(tsrDataType d) {
  return d == TSR_FLOAT || d == TSR_INT32 ? 4 : d == TSR_INT8 ? 1 : 2;
}
const char* Name(tsrDataType d) {
  switch (d) {
    case TSR_FLOAT:
      return "float32";
    case TSR_FLOAT16:
      return "float16";
    case TSR_BF16:
      return "bfloat16";
    case TSR_INT8:
      return "int8";
    default:
      return "int32";
  }
}
tsrDataType OutType(tsrDataType d) {
  return d == TSR_INT8 ? TSR_INT32 : d;
}

// A device tensor whose host values are doubles representable in its dtype.
struct DevTensor {
  std::vector<int64_t> shape;
  tsrDataType dtype;
  size_t numel = 1;
  void* dev = nullptr;
  tsrTensor* t = nullptr;

  DevTensor(std::vector<int64_t> s, tsrDataType d) : shape(std::move(s)), dtype(d) {
    for (int64_t x : shape)
      numel *= static_cast<size_t>(x);
    EXPECT_EQ(tsrMalloc(&dev, std::max<size_t>(1, numel * ElemSize(d))), TSR_SUCCESS);
    t = tsrCreateTensor(shape.data(), shape.size(), nullptr, d, TSR_FORMAT_ND, dev);
    EXPECT_NE(t, nullptr) << tsrGetLastErrorMessage();
  }
  ~DevTensor() {
    tsrDestroyTensor(t);
    tsrFree(dev);
  }
  DevTensor(const DevTensor&) = delete;
  DevTensor& operator=(const DevTensor&) = delete;

  void Upload(const std::vector<double>& v) {
    std::vector<uint8_t> bytes(v.size() * ElemSize(dtype));
    for (size_t i = 0; i < v.size(); ++i) {
      const float f = static_cast<float>(v[i]);
      switch (dtype) {
        case TSR_FLOAT:
          std::memcpy(&bytes[i * 4], &f, 4);
          break;
        case TSR_FLOAT16: {
          const uint16_t b = half(f).bits;
          std::memcpy(&bytes[i * 2], &b, 2);
          break;
        }
        case TSR_BF16: {
          const uint16_t b = bfloat16(f).bits;
          std::memcpy(&bytes[i * 2], &b, 2);
          break;
        }
        case TSR_INT8:
          bytes[i] = static_cast<uint8_t>(static_cast<int8_t>(v[i]));
          break;
        default: {
          const auto x = static_cast<int32_t>(v[i]);
          std::memcpy(&bytes[i * 4], &x, 4);
        }
      }
    }
    ASSERT_EQ(tsrMemcpy(dev, bytes.size(), bytes.data(), bytes.size(), TSR_MEMCPY_HOST_TO_DEVICE),
              TSR_SUCCESS);
  }
  std::vector<double> Download() const {
    std::vector<uint8_t> bytes(numel * ElemSize(dtype));
    EXPECT_EQ(tsrMemcpy(bytes.data(), bytes.size(), dev, bytes.size(), TSR_MEMCPY_DEVICE_TO_HOST),
              TSR_SUCCESS);
    std::vector<double> v(numel);
    for (size_t i = 0; i < numel; ++i) {
      switch (dtype) {
        case TSR_FLOAT: {
          float f;
          std::memcpy(&f, &bytes[i * 4], 4);
          v[i] = f;
          break;
        }
        case TSR_FLOAT16:
        case TSR_BF16: {
          uint16_t b;
          std::memcpy(&b, &bytes[i * 2], 2);
          v[i] = dtype == TSR_FLOAT16 ? static_cast<float>(half::FromBits(b))
                                      : static_cast<float>(bfloat16::FromBits(b));
          break;
        }
        default: {
          int32_t x;
          std::memcpy(&x, &bytes[i * 4], 4);
          v[i] = x;
        }
      }
    }
    return v;
  }
};

// Random values representable in `d`: [-1, 1] for floats, [-128, 127] for int8, [-1000, 1000] for
// int32.
std::vector<double> Random(size_t n, tsrDataType d, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<double> v(n);
  if (d == TSR_INT8 || d == TSR_INT32) {
    std::uniform_int_distribution<int> dist(d == TSR_INT8 ? -128 : -1000,
                                            d == TSR_INT8 ? 127 : 1000);
    for (double& x : v)
      x = dist(rng);
    return v;
  }
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (double& x : v) {
    const float f = dist(rng);
    x = d == TSR_FLOAT16 ? static_cast<float>(half(f))
        : d == TSR_BF16  ? static_cast<float>(bfloat16(f))
                         : f;
  }
  return v;
}

void ExpectMatches(const std::vector<double>& got, const std::vector<double>& ref, int64_t k,
                   tsrDataType out, const std::string& what) {
  ASSERT_EQ(got.size(), ref.size());
  const double rtol = (k < 2048 ? 1.0 / 256 : 1.0 / 128) + (out == TSR_FLOAT16 ? 0x1p-8
                                                            : out == TSR_BF16  ? 0x1p-7
                                                                               : 0.0);
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const bool ok = out == TSR_INT32
                        ? got[i] == ref[i]
                        : std::fabs(got[i] - ref[i]) <= rtol * std::max(1.0, std::fabs(ref[i]));
    if (!ok && bad++ == 0) {
      ADD_FAILURE() << what << ": element " << i << " got " << got[i] << ", expected " << ref[i];
    }
  }
  EXPECT_EQ(bad, 0u) << what;
}

tsrAttr BoolAttr(const char* name, bool v) {
  tsrAttr a{};
  a.name = name;
  a.type = TSR_ATTR_BOOL;
  a.boolValue = v ? 1 : 0;
  return a;
}
tsrAttr FloatAttr(const char* name, float v) {
  tsrAttr a{};
  a.name = name;
  a.type = TSR_ATTR_FLOAT;
  a.floatValue = v;
  return a;
}
tsrAttr StrAttr(const char* name, const char* v) {
  tsrAttr a{};
  a.name = name;
  a.type = TSR_ATTR_STRING;
  a.stringValue = v;
  return a;
}

// Stage 1 + stage 2 on the default stream; returns stage 1's status (stage 2 must succeed).
tsrStatus Call(const char* op, std::vector<const tsrTensor*> ins, const tsrTensor* out,
               const std::vector<tsrAttr>& attrs) {
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  const tsrTensor* outs[] = {out};
  const tsrStatus s = tsrOpGetWorkspaceSize(op, ins.data(), ins.size(), outs, 1, attrs.data(),
                                            attrs.size(), &ws, &exec);
  if (s != TSR_SUCCESS) return s;
  void* workspace = nullptr;
  if (ws > 0) EXPECT_EQ(tsrMalloc(&workspace, ws), TSR_SUCCESS);
  EXPECT_EQ(tsrOpExecute(workspace, ws, exec, nullptr), TSR_SUCCESS) << tsrGetLastErrorMessage();
  EXPECT_EQ(tsrSynchronizeStream(nullptr), TSR_SUCCESS) << tsrGetLastErrorMessage();
  if (workspace != nullptr) tsrFree(workspace);
  return s;
}

// ref[i][j] = sum_k x1(i, k) x2(k, j) of the stored (maybe transposed) matrices.
std::vector<double> Product(const std::vector<double>& a, bool ta, const std::vector<double>& b,
                            bool tb, int64_t m, int64_t n, int64_t k) {
  std::vector<double> ref(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t kk = 0; kk < k; ++kk) {
      const double av = a[static_cast<size_t>(ta ? kk * m + i : i * k + kk)];
      for (int64_t j = 0; j < n; ++j)
        ref[static_cast<size_t>(i * n + j)] +=
            av * b[static_cast<size_t>(tb ? j * k + kk : kk * n + j)];
    }
  }
  return ref;
}

struct MatMulCase {
  int64_t m, n, k;
  bool ta, tb, bias;
};

void RunMatMul(tsrDataType d, const MatMulCase& c, uint32_t seed) {
  const std::string what = std::string("MatMul ") + Name(d) + " M " + std::to_string(c.m) + " N " +
                           std::to_string(c.n) + " K " + std::to_string(c.k) +
                           (c.ta ? " x1^T" : "") + (c.tb ? " x2^T" : "") + (c.bias ? " bias" : "");
  SCOPED_TRACE(what);
  DevTensor x1(c.ta ? std::vector<int64_t>{c.k, c.m} : std::vector<int64_t>{c.m, c.k}, d);
  DevTensor x2(c.tb ? std::vector<int64_t>{c.n, c.k} : std::vector<int64_t>{c.k, c.n}, d);
  DevTensor bias({c.n}, OutType(d)), y({c.m, c.n}, OutType(d));
  const auto a = Random(x1.numel, d, seed), b = Random(x2.numel, d, seed + 1);
  const auto bv = Random(bias.numel, OutType(d), seed + 2);
  x1.Upload(a);
  x2.Upload(b);
  bias.Upload(bv);
  ASSERT_EQ(Call("MatMul", {x1.t, x2.t, c.bias ? bias.t : nullptr}, y.t,
                 {BoolAttr("transpose_x1", c.ta), BoolAttr("transpose_x2", c.tb)}),
            TSR_SUCCESS)
      << tsrGetLastErrorMessage();
  auto ref = Product(a, c.ta, b, c.tb, c.m, c.n, c.k);
  if (c.bias) {
    for (size_t i = 0; i < ref.size(); ++i)
      ref[i] += bv[i % static_cast<size_t>(c.n)];
  }
  ExpectMatches(y.Download(), ref, c.k, OutType(d), what);
}

constexpr tsrDataType kTypes[] = {TSR_FLOAT, TSR_FLOAT16, TSR_BF16, TSR_INT8};

TEST(MatMulOpTest, EveryDtypeLayoutAndAwkwardSize) {
  const int64_t sizes[] = {1, 15, 16, 17, 255};
  uint32_t seed = 1;
  for (tsrDataType d : kTypes) {
    for (int t = 0; t < 4; ++t) {
      // Rotate M, N, K through the sizes so every size meets every role across layouts.
      for (int i = 0; i < 5; ++i) {
        const MatMulCase c{sizes[i],     sizes[(i + t + 1) % 5], sizes[(i + 2 * t + 2) % 5],
                           (t & 1) != 0, (t & 2) != 0,           i % 2 == 1};
        RunMatMul(d, c, seed++);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(MatMulOpTest, LargerShapes) {
  RunMatMul(TSR_FLOAT, {1000, 255, 1000, false, false, false}, 100);
  RunMatMul(TSR_BF16, {255, 1000, 17, false, true, true}, 101);
  RunMatMul(TSR_FLOAT16, {1000, 17, 255, true, false, false}, 102);
  RunMatMul(TSR_INT8, {17, 1000, 1000, true, true, true}, 103);
  // 4097 once per role, small elsewhere; K = 4097 takes the K >= 2048 tolerance.
  RunMatMul(TSR_FLOAT, {4097, 16, 17, true, false, false}, 104);
  RunMatMul(TSR_BF16, {15, 4097, 16, false, false, true}, 105);
  RunMatMul(TSR_FLOAT16, {17, 15, 4097, false, true, false}, 106);
  RunMatMul(TSR_INT8, {16, 17, 4097, true, false, false}, 107);
}

TEST(MatMulOpTest, EmulatedProfileAndCheckedMode) {
  ASSERT_EQ(tsrSetProfile("ascend910b"), TSR_SUCCESS) << tsrGetLastErrorMessage();
  RunMatMul(TSR_FLOAT, {255, 1000, 17, false, true, true}, 200);
  RunMatMul(TSR_BF16, {1000, 17, 255, true, false, false}, 201);
  RunMatMul(TSR_INT8, {17, 255, 1000, false, false, true}, 202);
  ASSERT_EQ(tsrSetCheckedMode(1), TSR_SUCCESS);
  RunMatMul(TSR_FLOAT16, {17, 33, 70, true, true, true}, 203);
  RunMatMul(TSR_FLOAT, {16, 15, 17, false, false, false}, 204);
  ASSERT_EQ(tsrSetProfile("native"), TSR_SUCCESS) << tsrGetLastErrorMessage();
  RunMatMul(TSR_INT8, {15, 17, 16, true, false, true}, 205);
  RunMatMul(TSR_BF16, {1, 17, 15, false, false, true}, 206);
  ASSERT_EQ(tsrSetCheckedMode(0), TSR_SUCCESS);
}

TEST(BatchMatMulOpTest, BroadcastsBatchDims) {
  struct Case {
    std::vector<int64_t> a_batch, b_batch;
    int64_t m, n, k;
    bool ta, tb;
  };
  const Case cases[] = {{{3}, {3}, 17, 15, 16, false, false},
                        {{2, 1}, {3}, 15, 17, 33, true, false},
                        {{}, {4}, 16, 1, 17, false, true},
                        {{5, 1, 2}, {1, 3, 1}, 1, 16, 15, true, true}};
  uint32_t seed = 300;
  for (tsrDataType d : kTypes) {
    for (const Case& c : cases) {
      const size_t rank = std::max(c.a_batch.size(), c.b_batch.size());
      std::vector<int64_t> out(rank);
      for (size_t i = 0; i < rank; ++i) {
        const int64_t da =
            i + c.a_batch.size() >= rank ? c.a_batch[i + c.a_batch.size() - rank] : 1;
        const int64_t db =
            i + c.b_batch.size() >= rank ? c.b_batch[i + c.b_batch.size() - rank] : 1;
        out[i] = std::max(da, db);
      }
      auto sa = c.a_batch, sb = c.b_batch, so = out;
      sa.insert(sa.end(), {c.ta ? c.k : c.m, c.ta ? c.m : c.k});
      sb.insert(sb.end(), {c.tb ? c.n : c.k, c.tb ? c.k : c.n});
      so.insert(so.end(), {c.m, c.n});
      const std::string what =
          std::string("BatchMatMul ") + Name(d) + " case " + std::to_string(seed);
      SCOPED_TRACE(what);
      DevTensor x1(sa, d), x2(sb, d), y(so, OutType(d));
      const auto a = Random(x1.numel, d, seed), b = Random(x2.numel, d, seed + 1);
      x1.Upload(a);
      x2.Upload(b);
      ASSERT_EQ(Call("BatchMatMul", {x1.t, x2.t}, y.t,
                     {BoolAttr("adj_x1", c.ta), BoolAttr("adj_x2", c.tb)}),
                TSR_SUCCESS)
          << tsrGetLastErrorMessage();
      // Reference: walk the output batches, map each to its x1/x2 batch by broadcasting.
      std::vector<double> ref;
      const size_t mat_a = static_cast<size_t>(c.m * c.k), mat_b = static_cast<size_t>(c.k * c.n);
      size_t batches = 1;
      for (int64_t x : out)
        batches *= static_cast<size_t>(x);
      for (size_t bi = 0; bi < batches; ++bi) {
        size_t rem = bi, ia = 0, ib = 0, pa = 1, pb = 1;
        for (size_t i = rank; i-- > 0;) {
          const size_t idx = rem % static_cast<size_t>(out[i]);
          rem /= static_cast<size_t>(out[i]);
          const int64_t da =
              i + c.a_batch.size() >= rank ? c.a_batch[i + c.a_batch.size() - rank] : 1;
          const int64_t db =
              i + c.b_batch.size() >= rank ? c.b_batch[i + c.b_batch.size() - rank] : 1;
          ia += (da == 1 ? 0 : idx) * pa;
          ib += (db == 1 ? 0 : idx) * pb;
          pa *= static_cast<size_t>(da);
          pb *= static_cast<size_t>(db);
        }
        const std::vector<double> am(a.begin() + ia * mat_a, a.begin() + (ia + 1) * mat_a);
        const std::vector<double> bm(b.begin() + ib * mat_b, b.begin() + (ib + 1) * mat_b);
        const auto r = Product(am, c.ta, bm, c.tb, c.m, c.n, c.k);
        ref.insert(ref.end(), r.begin(), r.end());
      }
      ExpectMatches(y.Download(), ref, c.k, OutType(d), what);
      seed += 2;
    }
  }
}

TEST(AddmmOpTest, SelfBroadcastsAlphaBeta) {
  const std::vector<std::vector<int64_t>> selfs = {{255, 17}, {17}, {1, 17}, {255, 1}, {1}, {}};
  uint32_t seed = 400;
  for (tsrDataType d : kTypes) {
    for (const auto& ss : selfs) {
      const int64_t m = 255, n = 17, k = 16;
      const float alpha = d == TSR_INT8 ? 3.0f : 0.5f, beta = d == TSR_INT8 ? -2.0f : 1.5f;
      SCOPED_TRACE(std::string("Addmm ") + Name(d) + " self rank " + std::to_string(ss.size()));
      DevTensor self(ss, OutType(d)), m1({m, k}, d), m2({k, n}, d), y({m, n}, OutType(d));
      const auto sv = Random(self.numel, OutType(d), seed), a = Random(m1.numel, d, seed + 1),
                 b = Random(m2.numel, d, seed + 2);
      self.Upload(sv);
      m1.Upload(a);
      m2.Upload(b);
      ASSERT_EQ(Call("Addmm", {self.t, m1.t, m2.t}, y.t,
                     {FloatAttr("beta", beta), FloatAttr("alpha", alpha)}),
                TSR_SUCCESS)
          << tsrGetLastErrorMessage();
      auto ref = Product(a, false, b, false, m, n, k);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          const size_t at = ss.size() == 2 && ss[0] == m && ss[1] == n
                                ? static_cast<size_t>(i * n + j)
                            : !ss.empty() && ss.back() == n ? static_cast<size_t>(j)
                            : ss.size() == 2 && ss[0] == m  ? static_cast<size_t>(i)
                                                            : 0;
          double& r = ref[static_cast<size_t>(i * n + j)];
          r = alpha * r + beta * sv[at];
        }
      }
      ExpectMatches(y.Download(), ref, k, OutType(d), "Addmm");
      seed += 3;
    }
  }
}

double Activation(const std::string& act, double x, double slope) {
  if (act == "relu") return x > 0 ? x : 0;
  if (act == "gelu")
    return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  if (act == "silu") return x / (1 + std::exp(-x));
  if (act == "leaky_relu") return x > 0 ? x : slope * x;
  return x;
}

TEST(MatMulActOpTest, EveryActivation) {
  uint32_t seed = 500;
  for (tsrDataType d : kTypes) {
    for (const char* act : {"none", "relu", "gelu", "silu", "leaky_relu"}) {
      if (d == TSR_INT8 && std::string(act) != "none" && std::string(act) != "relu") continue;
      for (bool with_bias : {false, true}) {
        const int64_t m = 255, n = 33, k = 17;
        SCOPED_TRACE(std::string("MatMulAct ") + Name(d) + " " + act + (with_bias ? " bias" : ""));
        DevTensor x1({m, k}, d), x2({k, n}, d), bias({n}, OutType(d)), y({m, n}, OutType(d));
        const auto a = Random(x1.numel, d, seed), b = Random(x2.numel, d, seed + 1),
                   bv = Random(bias.numel, OutType(d), seed + 2);
        x1.Upload(a);
        x2.Upload(b);
        bias.Upload(bv);
        ASSERT_EQ(Call("MatMulAct", {x1.t, x2.t, with_bias ? bias.t : nullptr}, y.t,
                       {StrAttr("act", act), FloatAttr("negative_slope", 0.125f)}),
                  TSR_SUCCESS)
            << tsrGetLastErrorMessage();
        auto ref = Product(a, false, b, false, m, n, k);
        for (size_t i = 0; i < ref.size(); ++i)
          ref[i] =
              Activation(act, ref[i] + (with_bias ? bv[i % static_cast<size_t>(n)] : 0), 0.125);
        ExpectMatches(y.Download(), ref, k, OutType(d), "MatMulAct");
        seed += 3;
      }
    }
  }
}

// The tiling picks gemm::LargeTiles (256 x 512 blocks) where the profile's buffers hold them
// (native) and the 2201 tiles (128 x 256) elsewhere; the MIX hand-off ring (2 blocks of fp32 C per
// group) shows which, and the result is right either way.
TEST(MatMulActOpTest, LargeTilesOnNativeDefaultTilesOnAscend910b) {
  for (const char* profile : {"native", "ascend910b"}) {
    ASSERT_EQ(tsrSetProfile(profile), TSR_SUCCESS) << tsrGetLastErrorMessage();
    const bool native = std::string(profile) == "native";
    const uint64_t cores = tessera::device::CurrentArch().aic_cores;
    // One 256 x 512 block per AI core of the native profile.
    const int64_t m = 256 * static_cast<int64_t>(cores), n = 512, k = 7;
    const uint64_t blocks = native ? cores : std::min<uint64_t>(cores, uint64_t(m / 128) * 2);
    SCOPED_TRACE(profile);
    const uint64_t want_ws = blocks * 2 * (native ? 256 * 512 : 128 * 256) * sizeof(float);
    DevTensor x1({m, k}, TSR_FLOAT), x2({k, n}, TSR_FLOAT), y({m, n}, TSR_FLOAT);
    const auto a = Random(x1.numel, TSR_FLOAT, 700), b = Random(x2.numel, TSR_FLOAT, 701);
    x1.Upload(a);
    x2.Upload(b);
    const tsrTensor* ins[] = {x1.t, x2.t, nullptr};
    const tsrTensor* outs[] = {y.t};
    const tsrAttr attrs[] = {StrAttr("act", "relu")};
    uint64_t ws = 0;
    tsrOpExecutor* exec = nullptr;
    ASSERT_EQ(tsrOpGetWorkspaceSize("MatMulAct", ins, 3, outs, 1, attrs, 1, &ws, &exec),
              TSR_SUCCESS)
        << tsrGetLastErrorMessage();
    EXPECT_EQ(ws, want_ws) << profile;
    void* workspace = nullptr;
    ASSERT_EQ(tsrMalloc(&workspace, ws), TSR_SUCCESS);
    EXPECT_EQ(tsrOpExecute(workspace, ws, exec, nullptr), TSR_SUCCESS) << tsrGetLastErrorMessage();
    EXPECT_EQ(tsrSynchronizeStream(nullptr), TSR_SUCCESS) << tsrGetLastErrorMessage();
    tsrFree(workspace);
    auto ref = Product(a, false, b, false, m, n, k);
    for (double& r : ref)
      r = r > 0 ? r : 0;
    ExpectMatches(y.Download(), ref, k, TSR_FLOAT, std::string("MatMulAct on ") + profile);
  }
  ASSERT_EQ(tsrSetProfile("native"), TSR_SUCCESS) << tsrGetLastErrorMessage();
}

// The package's generated typed op API (builtin_nn.h) reaches the same operators.
TEST(MatMulOpTest, GeneratedOpApi) {
  const int64_t m = 17, n = 15, k = 33;
  DevTensor x1({k, m}, TSR_FLOAT), x2({k, n}, TSR_FLOAT), bias({n}, TSR_FLOAT),
      y({m, n}, TSR_FLOAT);
  const auto a = Random(x1.numel, TSR_FLOAT, 600), b = Random(x2.numel, TSR_FLOAT, 601),
             bv = Random(bias.numel, TSR_FLOAT, 602);
  x1.Upload(a);
  x2.Upload(b);
  bias.Upload(bv);
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  ASSERT_EQ(tsrMatMulGetWorkspaceSize(x1.t, x2.t, bias.t, 1, 0, y.t, &ws, &exec), TSR_SUCCESS)
      << tsrGetLastErrorMessage();
  void* workspace = nullptr;
  if (ws > 0) {
    ASSERT_EQ(tsrMalloc(&workspace, ws), TSR_SUCCESS);
  }
  ASSERT_EQ(tsrMatMul(workspace, ws, exec, nullptr), TSR_SUCCESS) << tsrGetLastErrorMessage();
  ASSERT_EQ(tsrSynchronizeStream(nullptr), TSR_SUCCESS) << tsrGetLastErrorMessage();
  if (workspace != nullptr) tsrFree(workspace);
  auto ref = Product(a, true, b, false, m, n, k);
  for (size_t i = 0; i < ref.size(); ++i)
    ref[i] += bv[i % static_cast<size_t>(n)];
  ExpectMatches(y.Download(), ref, k, TSR_FLOAT, "tsrMatMul x1^T bias");
}

// Stage 1 fails with a message containing `needle`; nothing is launched.
void ExpectError(const char* op, std::vector<const tsrTensor*> ins, const tsrTensor* out,
                 const std::vector<tsrAttr>& attrs, const std::string& needle) {
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  const tsrTensor* outs[] = {out};
  EXPECT_NE(tsrOpGetWorkspaceSize(op, ins.data(), ins.size(), outs, 1, attrs.data(), attrs.size(),
                                  &ws, &exec),
            TSR_SUCCESS);
  EXPECT_EQ(exec, nullptr);
  const std::string msg = tsrGetLastErrorMessage();
  EXPECT_NE(msg.find(needle), std::string::npos) << "message: " << msg;
}

TEST(MatmulOpErrors, ClearMessagesNothingLaunched) {
  DevTensor a({4, 5}, TSR_FLOAT), b({6, 3}, TSR_FLOAT), b5({5, 3}, TSR_FLOAT), y({4, 3}, TSR_FLOAT);
  DevTensor a16({4, 5}, TSR_FLOAT16), y16({4, 3}, TSR_FLOAT16), a3({2, 4, 5}, TSR_FLOAT);
  DevTensor i8a({4, 5}, TSR_INT8), i8b({5, 3}, TSR_INT8), y32({4, 3}, TSR_INT32),
      y8({4, 3}, TSR_INT8);
  DevTensor bias4({4}, TSR_FLOAT), y_bad({3, 4}, TSR_FLOAT), e({0, 5}, TSR_FLOAT),
      ye({0, 3}, TSR_FLOAT);
  ExpectError("MatMul", {a.t, b.t, nullptr}, y.t, {}, "K mismatch");
  ExpectError("MatMul", {a3.t, b5.t, nullptr}, y.t, {}, "must have rank 2");
  ExpectError("MatMul", {a.t, b5.t, nullptr}, y_bad.t, {}, "y has shape [3, 4], expected [4, 3]");
  ExpectError("MatMul", {a.t, b5.t, bias4.t}, y.t, {}, "bias has shape [4], expected [3]");
  ExpectError("MatMul", {a16.t, b5.t, nullptr}, y16.t, {}, "");  // dtype pair not declared
  ExpectError("MatMul", {i8a.t, i8b.t, nullptr}, y8.t, {}, "");  // int8 -> int8 not declared
  ExpectError("MatMul", {e.t, b5.t, nullptr}, ye.t, {}, "every dimension must be >= 1");
  DevTensor bx1({2, 4, 5}, TSR_FLOAT), bx2({3, 5, 3}, TSR_FLOAT), by({3, 4, 3}, TSR_FLOAT);
  ExpectError("BatchMatMul", {bx1.t, bx2.t}, by.t, {}, "cannot be broadcast: 2 vs 3");
  DevTensor self_bad({4, 2}, TSR_FLOAT);
  ExpectError("Addmm", {self_bad.t, a.t, b5.t}, y.t, {}, "cannot be broadcast to [4, 3]");
  DevTensor self32({3}, TSR_INT32);
  ExpectError("Addmm", {self32.t, i8a.t, i8b.t}, y32.t, {FloatAttr("alpha", 0.5f)},
              "integral alpha and beta");
  ExpectError("MatMulAct", {a.t, b5.t, nullptr}, y.t, {StrAttr("act", "tanh")},
              "attribute act \"tanh\" is not supported");
  ExpectError("MatMulAct", {i8a.t, i8b.t, nullptr}, y32.t, {StrAttr("act", "gelu")},
              "not supported for int8 inputs");
}

}  // namespace

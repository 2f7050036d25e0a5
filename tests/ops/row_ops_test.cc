// The row ops of the built-in package (RmsNorm, AddRmsNorm, LayerNorm, Softmax, SwiGlu) end to
// end through the typed two-stage C API: package lookup, tiling (the elewise plan), the kernel
// entries running the elewise block engine per block, workspace, against long double references
// on random data.
//
// Tolerances (every element): |got - ref| <= tol * mag + floor, where mag is |ref| (LayerNorm:
// |normalised * gamma| + |beta|, so rounding of the sum is covered) and tol is 2^-16 for float32
// (fp32 reductions over up to 70000 elements), 2^-10 for float16 and 2^-7 for bfloat16 (one
// rounding of an fp32 result to the dtype, which is half that, plus the fp32 error); floor is the
// dtype's smallest subnormal.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "builtin_nn.h"  // the built-in package's generated op API (tsrAdd, ...)
#include "tessera/core/float16.h"
#include "tessera/tessera_nn.h"

namespace {

using tessera::bfloat16;
using tessera::half;

bool LastErrorHas(const std::string& needle) {
  return std::string(tsrGetLastErrorMessage()).find(needle) != std::string::npos;
}

size_t ElemSize(tsrDataType d) {
  return d == TSR_FLOAT || d == TSR_INT32 ? 4 : 2;
}

const char* Name(tsrDataType d) {
  return d == TSR_FLOAT ? "float32" : d == TSR_FLOAT16 ? "float16" : "bfloat16";
}

// `v` rounded to dtype `d`.
float RoundTo(tsrDataType d, float v) {
  if (d == TSR_FLOAT16) return static_cast<float>(half(v));
  if (d == TSR_BF16) return static_cast<float>(bfloat16(v));
  return v;
}

// A device tensor of dtype `d` whose host values are floats representable in `d`.
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

  void Upload(const std::vector<float>& v) {
    std::vector<uint8_t> bytes(v.size() * ElemSize(dtype));
    for (size_t i = 0; i < v.size(); ++i) {
      if (dtype == TSR_FLOAT) {
        std::memcpy(&bytes[i * 4], &v[i], 4);
      } else {
        const uint16_t b = dtype == TSR_FLOAT16 ? half(v[i]).bits : bfloat16(v[i]).bits;
        std::memcpy(&bytes[i * 2], &b, 2);
      }
    }
    ASSERT_EQ(tsrMemcpy(dev, bytes.size(), bytes.data(), bytes.size(), TSR_MEMCPY_HOST_TO_DEVICE),
              TSR_SUCCESS);
  }
  std::vector<float> Download() const {
    std::vector<uint8_t> bytes(numel * ElemSize(dtype));
    if (!bytes.empty()) {
      EXPECT_EQ(tsrMemcpy(bytes.data(), bytes.size(), dev, bytes.size(), TSR_MEMCPY_DEVICE_TO_HOST),
                TSR_SUCCESS);
    }
    std::vector<float> v(numel);
    for (size_t i = 0; i < numel; ++i) {
      if (dtype == TSR_FLOAT) {
        std::memcpy(&v[i], &bytes[i * 4], 4);
      } else {
        uint16_t b;
        std::memcpy(&b, &bytes[i * 2], 2);
        v[i] = dtype == TSR_FLOAT16 ? static_cast<float>(half::FromBits(b))
                                    : static_cast<float>(bfloat16::FromBits(b));
      }
    }
    return v;
  }
};

// Uniform values in [lo, hi] rounded to `d`.
std::vector<float> Random(size_t n, float lo, float hi, tsrDataType d, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v)
    x = RoundTo(d, dist(rng));
  return v;
}

double Tolerance(tsrDataType d) {
  return d == TSR_FLOAT ? 0x1p-16 : d == TSR_FLOAT16 ? 0x1p-10 : 0x1p-7;
}

// Absolute floor: the dtype's smallest subnormal (float16 results below 2^-14 lose precision).
long double Floor(tsrDataType d) {
  return d == TSR_FLOAT ? 0x1p-149L : d == TSR_FLOAT16 ? 0x1p-24L : 0x1p-133L;
}

// Counts elements outside the tolerance; reports the first.
void ExpectClose(const std::vector<float>& got, const std::vector<long double>& ref,
                 const std::vector<long double>& mag, tsrDataType d, const std::string& what) {
  ASSERT_EQ(got.size(), ref.size());
  const long double tol = Tolerance(d);
  size_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const long double err = std::fabs(static_cast<long double>(got[i]) - ref[i]);
    if (!(err <= tol * mag[i] + Floor(d))) {
      if (wrong == 0) {
        ADD_FAILURE() << what << ": element " << i << " got " << got[i] << ", expected "
                      << static_cast<double>(ref[i]) << " (error " << static_cast<double>(err)
                      << ", allowed " << static_cast<double>(tol * mag[i]) << ")";
      }
      ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0u) << what;
}

std::vector<long double> Abs(const std::vector<long double>& v) {
  std::vector<long double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    out[i] = std::fabs(v[i]);
  return out;
}

// Runs a prepared executor with a workspace of the size it asked for.
void Execute(tsrStatus (*run)(void*, uint64_t, tsrOpExecutor*, tsrStream), tsrOpExecutor* exec,
             uint64_t ws) {
  void* workspace = nullptr;
  if (ws > 0) {
    ASSERT_EQ(tsrMalloc(&workspace, ws), TSR_SUCCESS);
  }
  EXPECT_EQ(run(workspace, ws, exec, nullptr), TSR_SUCCESS) << tsrGetLastErrorMessage();
  EXPECT_EQ(tsrSynchronizeStream(nullptr), TSR_SUCCESS) << tsrGetLastErrorMessage();
  if (workspace != nullptr) tsrFree(workspace);
}

struct Case {
  int64_t rows;
  int64_t width;
};

// Rows of width 1, 33, 4096 (one and several UB tiles) and 70000 (rows wider than the UB tile,
// swept once per pass), 1, 7 and 13 rows; the widest only with few rows to keep the suite fast.
std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (int64_t width : {1, 33, 4096})
    for (int64_t rows : {1, 7, 13})
      cases.push_back({rows, width});
  cases.push_back({1, 70000});
  cases.push_back({3, 70000});
  return cases;
}

constexpr tsrDataType kTypes[] = {TSR_FLOAT, TSR_FLOAT16, TSR_BF16};

std::string Label(const char* op, tsrDataType d, const Case& c) {
  return std::string(op) + " " + Name(d) + " [" + std::to_string(c.rows) + ", " +
         std::to_string(c.width) + "]";
}

TEST(RowOpsTest, RmsNormMatchesReference) {
  const double eps = 1e-5;
  for (tsrDataType d : kTypes) {
    for (const Case& c : Cases()) {
      SCOPED_TRACE(Label("RmsNorm", d, c));
      DevTensor x({c.rows, c.width}, d), gamma({c.width}, d), y({c.rows, c.width}, d);
      const auto xv = Random(x.numel, -2, 2, d, 11 + static_cast<uint32_t>(c.width));
      const auto gv = Random(gamma.numel, 0.5f, 1.5f, d, 12);
      x.Upload(xv);
      gamma.Upload(gv);
      uint64_t ws = 0;
      tsrOpExecutor* exec = nullptr;
      ASSERT_EQ(tsrRmsNormGetWorkspaceSize(x.t, gamma.t, eps, y.t, &ws, &exec), TSR_SUCCESS)
          << tsrGetLastErrorMessage();
      Execute(tsrRmsNorm, exec, ws);
      std::vector<long double> ref(x.numel);
      for (int64_t r = 0; r < c.rows; ++r) {
        long double ss = 0;
        for (int64_t k = 0; k < c.width; ++k)
          ss += static_cast<long double>(xv[r * c.width + k]) * xv[r * c.width + k];
        const long double rstd = 1.0L / std::sqrt(ss / c.width + static_cast<long double>(eps));
        for (int64_t k = 0; k < c.width; ++k)
          ref[r * c.width + k] = xv[r * c.width + k] * rstd * gv[k];
      }
      ExpectClose(y.Download(), ref, Abs(ref), d, "y");
    }
  }
}

TEST(RowOpsTest, AddRmsNormMatchesReference) {
  const double eps = 1e-6;
  for (tsrDataType d : kTypes) {
    for (const Case& c : Cases()) {
      SCOPED_TRACE(Label("AddRmsNorm", d, c));
      DevTensor x1({c.rows, c.width}, d), x2({c.rows, c.width}, d), gamma({c.width}, d);
      DevTensor y({c.rows, c.width}, d), x({c.rows, c.width}, d);
      const auto av = Random(x1.numel, -2, 2, d, 21 + static_cast<uint32_t>(c.rows));
      const auto bv = Random(x2.numel, -2, 2, d, 22);
      const auto gv = Random(gamma.numel, 0.5f, 1.5f, d, 23);
      x1.Upload(av);
      x2.Upload(bv);
      gamma.Upload(gv);
      uint64_t ws = 0;
      tsrOpExecutor* exec = nullptr;
      ASSERT_EQ(tsrAddRmsNormGetWorkspaceSize(x1.t, x2.t, gamma.t, eps, y.t, x.t, &ws, &exec),
                TSR_SUCCESS)
          << tsrGetLastErrorMessage();
      Execute(tsrAddRmsNorm, exec, ws);
      std::vector<long double> yref(x1.numel), xref(x1.numel);
      for (int64_t r = 0; r < c.rows; ++r) {
        long double ss = 0;
        for (int64_t k = 0; k < c.width; ++k) {
          const size_t i = static_cast<size_t>(r * c.width + k);
          xref[i] = static_cast<long double>(av[i]) + bv[i];
          ss += xref[i] * xref[i];
        }
        const long double rstd = 1.0L / std::sqrt(ss / c.width + static_cast<long double>(eps));
        for (int64_t k = 0; k < c.width; ++k) {
          const size_t i = static_cast<size_t>(r * c.width + k);
          yref[i] = xref[i] * rstd * gv[k];
        }
      }
      ExpectClose(y.Download(), yref, Abs(yref), d, "y");
      ExpectClose(x.Download(), xref, Abs(xref), d, "x");
    }
  }
}

TEST(RowOpsTest, LayerNormMatchesReference) {
  const double eps = 1e-5;
  for (tsrDataType d : kTypes) {
    for (const Case& c : Cases()) {
      SCOPED_TRACE(Label("LayerNorm", d, c));
      DevTensor x({c.rows, c.width}, d), gamma({c.width}, d), beta({c.width}, d);
      DevTensor y({c.rows, c.width}, d);
      // An offset mean: the two-pass variance must not lose it.
      const auto xv = Random(x.numel, 1, 5, d, 31 + static_cast<uint32_t>(c.width));
      const auto gv = Random(gamma.numel, 0.5f, 1.5f, d, 32);
      const auto bv = Random(beta.numel, -1, 1, d, 33);
      x.Upload(xv);
      gamma.Upload(gv);
      beta.Upload(bv);
      uint64_t ws = 0;
      tsrOpExecutor* exec = nullptr;
      ASSERT_EQ(tsrLayerNormGetWorkspaceSize(x.t, gamma.t, beta.t, eps, -1, y.t, &ws, &exec),
                TSR_SUCCESS)
          << tsrGetLastErrorMessage();
      Execute(tsrLayerNorm, exec, ws);
      std::vector<long double> ref(x.numel), mag(x.numel);
      for (int64_t r = 0; r < c.rows; ++r) {
        long double mean = 0, var = 0;
        for (int64_t k = 0; k < c.width; ++k)
          mean += xv[r * c.width + k];
        mean /= c.width;
        for (int64_t k = 0; k < c.width; ++k)
          var += (xv[r * c.width + k] - mean) * (xv[r * c.width + k] - mean);
        const long double rstd = 1.0L / std::sqrt(var / c.width + static_cast<long double>(eps));
        for (int64_t k = 0; k < c.width; ++k) {
          const size_t i = static_cast<size_t>(r * c.width + k);
          const long double scaled = (xv[i] - mean) * rstd * gv[k];
          ref[i] = scaled + bv[k];
          // Rounding the mean to fp32 moves (x - mean) by ~2^-24 * |x|.
          mag[i] = std::fabs(scaled) + std::fabs(static_cast<long double>(bv[k])) +
                   std::fabs(xv[i] * rstd * gv[k]) * 0x1p-8L;
        }
      }
      ExpectClose(y.Download(), ref, mag, d, "y");
    }
  }
}

TEST(RowOpsTest, SoftmaxMatchesReference) {
  for (tsrDataType d : kTypes) {
    for (const Case& c : Cases()) {
      SCOPED_TRACE(Label("Softmax", d, c));
      DevTensor x({c.rows, c.width}, d), y({c.rows, c.width}, d);
      const auto xv = Random(x.numel, -8, 8, d, 41 + static_cast<uint32_t>(c.width));
      x.Upload(xv);
      uint64_t ws = 0;
      tsrOpExecutor* exec = nullptr;
      ASSERT_EQ(tsrSoftmaxGetWorkspaceSize(x.t, -1, y.t, &ws, &exec), TSR_SUCCESS)
          << tsrGetLastErrorMessage();
      Execute(tsrSoftmax, exec, ws);
      std::vector<long double> ref(x.numel);
      for (int64_t r = 0; r < c.rows; ++r) {
        long double m = -INFINITY, s = 0;
        for (int64_t k = 0; k < c.width; ++k)
          m = std::max<long double>(m, xv[r * c.width + k]);
        for (int64_t k = 0; k < c.width; ++k)
          s += std::exp(xv[r * c.width + k] - m);
        for (int64_t k = 0; k < c.width; ++k)
          ref[r * c.width + k] = std::exp(xv[r * c.width + k] - m) / s;
      }
      ExpectClose(y.Download(), ref, Abs(ref), d, "y");
    }
  }
}

TEST(RowOpsTest, SwiGluMatchesReference) {
  for (tsrDataType d : kTypes) {
    for (const Case& c : Cases()) {
      SCOPED_TRACE(Label("SwiGlu", d, c));
      DevTensor x({c.rows, 2 * c.width}, d), y({c.rows, c.width}, d);
      const auto xv = Random(x.numel, -6, 6, d, 51 + static_cast<uint32_t>(c.width));
      x.Upload(xv);
      uint64_t ws = 0;
      tsrOpExecutor* exec = nullptr;
      ASSERT_EQ(tsrSwiGluGetWorkspaceSize(x.t, -1, y.t, &ws, &exec), TSR_SUCCESS)
          << tsrGetLastErrorMessage();
      Execute(tsrSwiGlu, exec, ws);
      std::vector<long double> ref(y.numel);
      for (int64_t r = 0; r < c.rows; ++r) {
        for (int64_t k = 0; k < c.width; ++k) {
          const long double a = xv[r * 2 * c.width + k], b = xv[r * 2 * c.width + c.width + k];
          ref[r * c.width + k] = a / (1.0L + std::exp(-a)) * b;
        }
      }
      ExpectClose(y.Download(), ref, Abs(ref), d, "y");
    }
  }
}

// Epsilon reaches the kernel: with a large epsilon on small data the result differs clearly
// from the default's, and each matches its reference.
TEST(RowOpsTest, EpsilonAttributeIsApplied) {
  const int64_t n = 64;
  DevTensor x({2, n}, TSR_FLOAT), gamma({n}, TSR_FLOAT), y({2, n}, TSR_FLOAT);
  const auto xv = Random(x.numel, -0.1f, 0.1f, TSR_FLOAT, 61);
  const auto gv = Random(gamma.numel, 0.5f, 1.5f, TSR_FLOAT, 62);
  x.Upload(xv);
  gamma.Upload(gv);
  for (double eps : {1e-6, 0.25}) {
    SCOPED_TRACE("epsilon " + std::to_string(eps));
    uint64_t ws = 0;
    tsrOpExecutor* exec = nullptr;
    ASSERT_EQ(tsrRmsNormGetWorkspaceSize(x.t, gamma.t, eps, y.t, &ws, &exec), TSR_SUCCESS)
        << tsrGetLastErrorMessage();
    Execute(tsrRmsNorm, exec, ws);
    std::vector<long double> ref(x.numel);
    for (int64_t r = 0; r < 2; ++r) {
      long double ss = 0;
      for (int64_t k = 0; k < n; ++k)
        ss += static_cast<long double>(xv[r * n + k]) * xv[r * n + k];
      const long double rstd = 1.0L / std::sqrt(ss / n + static_cast<long double>(eps));
      for (int64_t k = 0; k < n; ++k)
        ref[r * n + k] = xv[r * n + k] * rstd * gv[k];
    }
    ExpectClose(y.Download(), ref, Abs(ref), TSR_FLOAT, "y");
  }
}

// Leading dims fold into rows; the parameter cache serves the second call of one shape.
TEST(RowOpsTest, HigherRankAndCachedPlan) {
  DevTensor x({2, 3, 33}, TSR_BF16), y({2, 3, 33}, TSR_BF16);
  const auto xv = Random(x.numel, -8, 8, TSR_BF16, 71);
  x.Upload(xv);
  tsrRuntimeStats before{}, after{};
  for (int call = 0; call < 2; ++call) {
    ASSERT_EQ(tsrGetRuntimeStats(&before), TSR_SUCCESS);
    uint64_t ws = 0;
    tsrOpExecutor* exec = nullptr;
    ASSERT_EQ(tsrSoftmaxGetWorkspaceSize(x.t, 2, y.t, &ws, &exec), TSR_SUCCESS)
        << tsrGetLastErrorMessage();
    ASSERT_EQ(tsrGetRuntimeStats(&after), TSR_SUCCESS);
    if (call == 1) {
      EXPECT_EQ(after.cacheHits, before.cacheHits + 1);
    }
    Execute(tsrSoftmax, exec, ws);
  }
  std::vector<long double> ref(x.numel);
  for (int64_t r = 0; r < 6; ++r) {
    long double m = -INFINITY, s = 0;
    for (int64_t k = 0; k < 33; ++k)
      m = std::max<long double>(m, xv[r * 33 + k]);
    for (int64_t k = 0; k < 33; ++k)
      s += std::exp(xv[r * 33 + k] - m);
    for (int64_t k = 0; k < 33; ++k)
      ref[r * 33 + k] = std::exp(xv[r * 33 + k] - m) / s;
  }
  ExpectClose(y.Download(), ref, Abs(ref), TSR_BF16, "y");
}

// A Softmax row wider than UB keeps exp(x - max) in a workspace row per block: stage 1 reports
// it, stage 2 refuses less.
TEST(RowOpsTest, WideSoftmaxRowsNeedTheReportedWorkspace) {
  DevTensor x({3, 70000}, TSR_FLOAT), y({3, 70000}, TSR_FLOAT);
  x.Upload(Random(x.numel, -8, 8, TSR_FLOAT, 81));
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  ASSERT_EQ(tsrSoftmaxGetWorkspaceSize(x.t, -1, y.t, &ws, &exec), TSR_SUCCESS)
      << tsrGetLastErrorMessage();
  EXPECT_GE(ws, 70000u * 4);
  void* workspace = nullptr;
  ASSERT_EQ(tsrMalloc(&workspace, ws), TSR_SUCCESS);
  EXPECT_EQ(tsrSoftmax(workspace, ws - 1, exec, nullptr), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LastErrorHas("does not meet the minimum workspace size " + std::to_string(ws)))
      << tsrGetLastErrorMessage();
  tsrFree(workspace);
}

// Empty tensors: nothing to compute, the call succeeds.
TEST(RowOpsTest, EmptyRowsSucceed) {
  DevTensor x({0, 33}, TSR_FLOAT), gamma({33}, TSR_FLOAT), y({0, 33}, TSR_FLOAT);
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  ASSERT_EQ(tsrRmsNormGetWorkspaceSize(x.t, gamma.t, 1e-6, y.t, &ws, &exec), TSR_SUCCESS)
      << tsrGetLastErrorMessage();
  EXPECT_EQ(ws, 0u);
  Execute(tsrRmsNorm, exec, ws);
}

// Expects stage 1 to fail with `code` and a message containing `needle`.
#define EXPECT_STAGE1_ERROR(call, code, needle)                    \
  do {                                                             \
    uint64_t ws = 0;                                               \
    tsrOpExecutor* exec = nullptr;                                 \
    EXPECT_EQ(call, code) << tsrGetLastErrorMessage();             \
    EXPECT_TRUE(LastErrorHas(needle)) << tsrGetLastErrorMessage(); \
    EXPECT_EQ(exec, nullptr);                                      \
  } while (0)

TEST(RowOpsTest, ShapeErrorsNameTheTensor) {
  DevTensor x({4, 33}, TSR_FLOAT), y({4, 33}, TSR_FLOAT), gamma34({34}, TSR_FLOAT);
  DevTensor gamma2d({1, 33}, TSR_FLOAT), gamma({33}, TSR_FLOAT), ybad({4, 32}, TSR_FLOAT);
  EXPECT_STAGE1_ERROR(tsrRmsNormGetWorkspaceSize(x.t, gamma34.t, 1e-6, y.t, &ws, &exec),
                      TSR_ERROR_INVALID_ARGUMENT,
                      "RmsNorm: gamma has shape [34], expected [33] (the last dim of x)");
  EXPECT_STAGE1_ERROR(tsrRmsNormGetWorkspaceSize(x.t, gamma2d.t, 1e-6, y.t, &ws, &exec),
                      TSR_ERROR_INVALID_ARGUMENT, "gamma has shape [1, 33], expected [33]");
  EXPECT_STAGE1_ERROR(tsrRmsNormGetWorkspaceSize(x.t, gamma.t, 1e-6, ybad.t, &ws, &exec),
                      TSR_ERROR_INVALID_ARGUMENT,
                      "RmsNorm: y has shape [4, 32], expected [4, 33] (the shape of x)");
  EXPECT_STAGE1_ERROR(
      tsrLayerNormGetWorkspaceSize(x.t, gamma.t, gamma34.t, 1e-5, -1, y.t, &ws, &exec),
      TSR_ERROR_INVALID_ARGUMENT, "LayerNorm: beta has shape [34], expected [33]");
  DevTensor x2({4, 34}, TSR_FLOAT), sum({4, 33}, TSR_FLOAT);
  EXPECT_STAGE1_ERROR(
      tsrAddRmsNormGetWorkspaceSize(x.t, x2.t, gamma.t, 1e-6, y.t, sum.t, &ws, &exec),
      TSR_ERROR_INVALID_ARGUMENT, "AddRmsNorm: x2 has shape [4, 34], expected [4, 33]");
  DevTensor odd({4, 33}, TSR_FLOAT), half_out({4, 16}, TSR_FLOAT);
  EXPECT_STAGE1_ERROR(tsrSwiGluGetWorkspaceSize(odd.t, -1, half_out.t, &ws, &exec),
                      TSR_ERROR_INVALID_ARGUMENT, "SwiGlu: x [4, 33] needs an even last dimension");
  DevTensor even({4, 34}, TSR_FLOAT);
  EXPECT_STAGE1_ERROR(tsrSwiGluGetWorkspaceSize(even.t, -1, half_out.t, &ws, &exec),
                      TSR_ERROR_INVALID_ARGUMENT,
                      "SwiGlu: y has shape [4, 16], expected [4, 17] (x with the last dim halved)");
  const int64_t scalar_shape[1] = {1};
  tsrTensor* scalar = tsrCreateTensor(scalar_shape, 0, nullptr, TSR_FLOAT, TSR_FORMAT_ND, x.dev);
  ASSERT_NE(scalar, nullptr) << tsrGetLastErrorMessage();
  EXPECT_STAGE1_ERROR(tsrSoftmaxGetWorkspaceSize(scalar, -1, scalar, &ws, &exec),
                      TSR_ERROR_INVALID_ARGUMENT, "Softmax: x must have at least one dimension");
  tsrDestroyTensor(scalar);
}

TEST(RowOpsTest, DtypeMismatchIsRejected) {
  DevTensor x({4, 33}, TSR_FLOAT), gamma({33}, TSR_FLOAT16), y({4, 33}, TSR_FLOAT);
  EXPECT_STAGE1_ERROR(tsrRmsNormGetWorkspaceSize(x.t, gamma.t, 1e-6, y.t, &ws, &exec),
                      TSR_ERROR_INVALID_ARGUMENT, "Supported dtype and format list is");
  DevTensor xi({4, 33}, TSR_INT32), yi({4, 33}, TSR_INT32);
  EXPECT_STAGE1_ERROR(tsrSoftmaxGetWorkspaceSize(xi.t, -1, yi.t, &ws, &exec),
                      TSR_ERROR_INVALID_ARGUMENT, "Supported dtype and format list is");
}

TEST(RowOpsTest, AxisAndAttributeErrors) {
  DevTensor x({4, 34}, TSR_FLOAT), y({4, 34}, TSR_FLOAT), gamma({34}, TSR_FLOAT);
  EXPECT_STAGE1_ERROR(tsrSoftmaxGetWorkspaceSize(x.t, 0, y.t, &ws, &exec), TSR_ERROR_UNIMPLEMENTED,
                      "Softmax: attribute dim=0 selects axis 0; only the last axis (-1) is "
                      "supported");
  EXPECT_STAGE1_ERROR(tsrSoftmaxGetWorkspaceSize(x.t, 2, y.t, &ws, &exec),
                      TSR_ERROR_INVALID_ARGUMENT,
                      "Softmax: attribute dim=2 is out of range for rank 2 (expected -2..1)");
  DevTensor h({4, 17}, TSR_FLOAT);
  EXPECT_STAGE1_ERROR(tsrSwiGluGetWorkspaceSize(x.t, -2, h.t, &ws, &exec), TSR_ERROR_UNIMPLEMENTED,
                      "SwiGlu: attribute dim=-2 selects axis 0");
  EXPECT_STAGE1_ERROR(tsrRmsNormGetWorkspaceSize(x.t, gamma.t, -1.0, y.t, &ws, &exec),
                      TSR_ERROR_INVALID_ARGUMENT,
                      "RmsNorm: attribute epsilon=-1.000000 must be finite and >= 0");
  // Beyond float's range: an infinity, rejected by name (not an undefined conversion).
  EXPECT_STAGE1_ERROR(tsrRmsNormGetWorkspaceSize(x.t, gamma.t, 1e300, y.t, &ws, &exec),
                      TSR_ERROR_INVALID_ARGUMENT, "RmsNorm: attribute epsilon=inf must be finite");
  const tsrTensor* ins[3] = {x.t, gamma.t, gamma.t};
  const tsrTensor* outs[1] = {y.t};
  tsrAttr axis{};
  axis.name = "begin_norm_axis";
  axis.type = TSR_ATTR_INT;
  axis.intValue = 0;
  EXPECT_STAGE1_ERROR(
      tsrOpGetWorkspaceSize("LayerNorm", ins, 3, outs, 1, &axis, 1, &ws, &exec),
      TSR_ERROR_UNIMPLEMENTED,
      "LayerNorm: attribute begin_norm_axis=0 selects axis 0; only the last axis (-1)");
}

}  // namespace

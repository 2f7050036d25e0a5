// The vendor's advanced math, activation and softmax APIs (compat/kernel/adv) in the vendor's
// dialect: kernels with TPipe / TBuf / DataCopy calling AscendC:: names, launched through
// tessera's device runtime, checked against long double references on random data of awkward
// sizes, fp32 and half, with sentinels past each output. Built as C++17 and C++20.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "kernel_operator.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tiling/tiling_api.h"

namespace {

constexpr uint32_t kPad = 64;  // elements past the count: sentinels, and DataCopy's 32-byte units
constexpr float kSentinel = -12345.0f;

enum Op : int32_t {
  kExp,
  kLog,
  kLog10,
  kErf,
  kAcosh,
  kFrac,
  kCeil,
  kRint,
  kSigmoid,
  kGelu,
  kSilu,
  kSwish,
  kPowTT,
  kPowTS,
  kPowST,
  kFmod,
  kGeGlu,
  kSwiGlu,
  kFma,
  kClamp,
  kClampMin,
  kWhere,
  kAxpySame,
};

constexpr float kBeta = 1.702f;

template <typename T>
__global__ __vector__ void adv_custom(__gm__ uint8_t* a, __gm__ uint8_t* b, __gm__ uint8_t* y,
                                      uint32_t n, int32_t op) {
  AscendC::TPipe pipe;
  const uint32_t len = n + kPad;
  AscendC::TBuf<AscendC::QuePosition::VECCALC> ba, bb, by, bt;
  pipe.InitBuffer(ba, len * sizeof(T));
  pipe.InitBuffer(bb, len * sizeof(T));
  pipe.InitBuffer(by, len * sizeof(T));
  uint32_t minTmp = 0;
  uint32_t maxTmp = 0;
  AscendC::GetErfMaxMinTmpSize(AscendC::TensorShape({n}), sizeof(T), false, maxTmp, minTmp);
  pipe.InitBuffer(bt, minTmp);
  AscendC::GlobalTensor<T> ga, gb, gy;
  ga.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(a), len);
  gb.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(b), len);
  gy.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y), len);
  AscendC::LocalTensor<T> la = ba.Get<T>();
  AscendC::LocalTensor<T> lb = bb.Get<T>();
  AscendC::LocalTensor<T> ly = by.Get<T>();
  AscendC::LocalTensor<uint8_t> tmp = bt.Get<uint8_t>();
  AscendC::DataCopy(la, ga, len);
  AscendC::DataCopy(lb, gb, len);
  AscendC::DataCopy(ly, gy, len);  // the sentinels
  const T s0 = la.GetValue(0);
  switch (op) {
    case kExp:
      AscendC::Exp<T, 10, false>(ly, la, tmp, n);
      break;
    case kLog:
      AscendC::Log<T, false>(ly, la, n);
      break;
    case kLog10:
      AscendC::Log10(ly, la, tmp, n);
      break;
    case kErf:
      AscendC::Erf<T, false>(ly, la, tmp, n);
      break;
    case kAcosh:
      AscendC::Acosh<T>(ly, la, n);
      break;
    case kFrac:
      AscendC::Frac<T, false>(ly, la, tmp, n);
      break;
    case kCeil:
      AscendC::Ceil<T, false>(ly, la, tmp, n);
      break;
    case kRint:
      AscendC::Rint(ly, la, n);
      break;
    case kSigmoid:
      AscendC::Sigmoid(ly, la, static_cast<size_t>(n));
      AscendC::Sigmoid<T, false>(ly, la, tmp, n);
      break;
    case kGelu:
      AscendC::Gelu(ly, la, tmp, n);
      break;
    case kSilu:
      // Any count type: size_t here, int32_t (the kernel layer's overload) and uint32_t below.
      AscendC::Silu<T, false>(ly, la, static_cast<size_t>(n));
      AscendC::Silu(ly, la, static_cast<int32_t>(n));
      AscendC::Silu(ly, la, n);
      break;
    case kSwish:
      AscendC::Swish(ly, la, n, static_cast<T>(kBeta));
      break;
    case kPowTT:
      AscendC::Power<T, false>(ly, la, lb, tmp, n);
      break;
    case kPowTS:
      AscendC::Power<T, false>(ly, la, lb.GetValue(0), n);
      break;
    case kPowST:
      AscendC::Power<T, false>(ly, s0, lb, tmp, n);
      break;
    case kFmod:
      AscendC::Fmod(ly, la, lb, n);
      break;
    case kGeGlu:
      AscendC::GeGLU<T, false>(ly, la, lb, tmp, n);
      break;
    case kSwiGlu:
      AscendC::SwiGLU<T, false>(ly, la, lb, kBeta, n);
      break;
    case kFma:
      AscendC::Fma(ly, la, lb, la, tmp, n);
      break;
    case kClamp:
      AscendC::Clamp(ly, la, static_cast<T>(-1.5f), lb, n);
      break;
    case kClampMin:
      AscendC::ClampMin<T, false>(ly, la, tmp, static_cast<T>(0.25f), n);
      break;
    case kWhere: {
      // condition = a > b, then dst = cond ? a : 2.5.
      AscendC::TBuf<AscendC::QuePosition::VECCALC> bc;
      pipe.InitBuffer(bc, len);
      AscendC::LocalTensor<bool> c = bc.Get<bool>();
      for (uint32_t i = 0; i < n; ++i)
        c.SetValue(i, static_cast<float>(la.GetValue(i)) > static_cast<float>(lb.GetValue(i)));
      AscendC::Where(ly, la, static_cast<T>(2.5f), c, n);
      break;
    }
    case kAxpySame:
      AscendC::Axpy<T, T>(ly, la, static_cast<T>(0.75f), tmp, n);
      break;
    default:
      break;
  }
  AscendC::DataCopy(gy, ly, len);
}

template <typename T>
std::vector<T> ToT(const std::vector<float>& v) {
  std::vector<T> out(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    out[i] = static_cast<T>(v[i]);
  return out;
}

// Runs op on n elements (a, b and the initial y padded with sentinels), returns y widened.
template <typename T>
std::vector<float> RunOp(Op op, const std::vector<float>& a, const std::vector<float>& b,
                         const std::vector<float>& y0) {
  const uint32_t n = static_cast<uint32_t>(a.size() - kPad);
  const size_t bytes = a.size() * sizeof(T);
  std::vector<T> ha = ToT<T>(a), hb = ToT<T>(b), hy = ToT<T>(y0);
  auto da = tessera::device::Malloc(bytes);
  auto db = tessera::device::Malloc(bytes);
  auto dy = tessera::device::Malloc(bytes);
  EXPECT_TRUE(da.ok() && db.ok() && dy.ok());
  const auto h2d = tessera::device::MemcpyKind::kHostToDevice;
  EXPECT_TRUE(tessera::device::Memcpy(*da, bytes, ha.data(), bytes, h2d).ok());
  EXPECT_TRUE(tessera::device::Memcpy(*db, bytes, hb.data(), bytes, h2d).ok());
  EXPECT_TRUE(tessera::device::Memcpy(*dy, bytes, hy.data(), bytes, h2d).ok());
  tessera::device::Stream stream;
  EXPECT_TRUE(tessera::device::Launch(adv_custom<T>, 1, stream, static_cast<uint8_t*>(*da),
                                      static_cast<uint8_t*>(*db), static_cast<uint8_t*>(*dy), n,
                                      static_cast<int32_t>(op))
                  .ok());
  EXPECT_TRUE(stream.Synchronize().ok());
  EXPECT_TRUE(tessera::device::Memcpy(hy.data(), bytes, *dy, bytes,
                                      tessera::device::MemcpyKind::kDeviceToHost)
                  .ok());
  for (void* p : {*da, *db, *dy})
    EXPECT_TRUE(tessera::device::Free(p).ok());
  std::vector<float> out(hy.size());
  for (size_t i = 0; i < hy.size(); ++i)
    out[i] = static_cast<float>(hy[i]);
  return out;
}

using Ref = std::function<long double(long double, long double, long double)>;

struct Case {
  Op op;
  const char* name;
  float lo_a, hi_a, lo_b, hi_b;
  Ref ref;
  double f32_rel;  // relative tolerance for fp32 (a few ulp)
};

long double GeluTanh(long double x) {
  return x / (1 + std::exp(-2 * 0.7978845608028654L * (x + 0.044715L * x * x * x)));
}

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {kExp, "Exp", -20, 20, 0, 1, [](auto a, auto, auto) { return std::exp(a); }, 3e-7},
      {kLog, "Log", 1e-3f, 1e4f, 0, 1, [](auto a, auto, auto) { return std::log(a); }, 3e-7},
      {kLog10, "Log10", 1e-3f, 1e4f, 0, 1, [](auto a, auto, auto) { return std::log10(a); }, 3e-7},
      {kErf, "Erf", -5, 5, 0, 1, [](auto a, auto, auto) { return std::erf(a); }, 3e-7},
      {kAcosh, "Acosh", 1, 1e4f, 0, 1, [](auto a, auto, auto) { return std::acosh(a); }, 4e-7},
      {kFrac, "Frac", -1e3f, 1e3f, 0, 1, [](auto a, auto, auto) { return a - std::trunc(a); }, 0},
      {kCeil, "Ceil", -1e3f, 1e3f, 0, 1, [](auto a, auto, auto) { return std::ceil(a); }, 0},
      {kRint, "Rint", -1e3f, 1e3f, 0, 1, [](auto a, auto, auto) { return std::nearbyint(a); }, 0},
      {kSigmoid, "Sigmoid", -30, 30, 0, 1,
       [](auto a, auto, auto) { return 1 / (1 + std::exp(-a)); }, 3e-7},
      {kGelu, "Gelu", -5, 10, 0, 1, [](auto a, auto, auto) { return GeluTanh(a); }, 2e-6},
      {kSilu, "Silu", -10, 10, 0, 1, [](auto a, auto, auto) { return a / (1 + std::exp(-a)); },
       4e-7},
      {kSwish, "Swish", -10, 10, 0, 1,
       [](auto a, auto, auto) { return a / (1 + std::exp(-1.702L * a)); }, 2e-6},
      {kPowTT, "Power(tensor, tensor)", 0.1f, 10, -5, 5,
       [](auto a, auto b, auto) { return std::pow(a, b); }, 6e-7},
      {kPowTS, "Power(tensor, scalar)", 0.1f, 10, -5, 5,
       [](auto a, auto, auto b0) { return std::pow(a, b0); }, 6e-7},
      {kPowST, "Power(scalar, tensor)", 0.1f, 10, -5, 5,
       [](auto, auto b, auto a0) { return std::pow(a0, b); }, 6e-7},
      {kFmod, "Fmod", -1e4f, 1e4f, 0.5f, 30, [](auto a, auto b, auto) { return std::fmod(a, b); },
       0},
      {kGeGlu, "GeGLU", -3, 3, -5, 10, [](auto a, auto b, auto) { return a * GeluTanh(b); }, 2e-6},
      {kSwiGlu, "SwiGLU", -3, 3, -8, 8,
       [](auto a, auto b, auto) { return a * b / (1 + std::exp(-1.702L * b)); }, 2e-6},
      {kFma, "Fma", -100, 100, -100, 100, [](auto a, auto b, auto) { return a * b + a; }, 1e-7},
      {kClamp, "Clamp", -5, 5, 0, 3,
       [](auto a, auto b, auto) { return std::min(std::max(a, -1.5L), b); }, 0},
      {kClampMin, "ClampMin", -5, 5, 0, 1, [](auto a, auto, auto) { return std::max(a, 0.25L); },
       0},
      {kWhere, "Where", -5, 5, -5, 5, [](auto a, auto b, auto) { return a > b ? a : 2.5L; }, 0},
  };
  return cases;
}

// Relative error bound for half results: the fp32 result rounded once (half an ulp) plus the
// fp32 error, against the reference computed from the half inputs.
constexpr double kHalfRel = 1.0 / 1024;

template <typename T>
void CheckCase(const Case& c, uint32_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> ua(c.lo_a, c.hi_a), ub(c.lo_b, c.hi_b);
  std::vector<float> a(n + kPad), b(n + kPad), y0(n + kPad, kSentinel);
  for (uint32_t i = 0; i < n + kPad; ++i) {
    a[i] = static_cast<float>(static_cast<T>(ua(rng)));
    b[i] = static_cast<float>(static_cast<T>(ub(rng)));
  }
  const std::vector<float> y = RunOp<T>(c.op, a, b, y0);
  const bool is_half = sizeof(T) == 2;
  for (uint32_t i = 0; i < n; ++i) {
    const long double third = c.op == kPowST ? a[0] : b[0];
    const long double want = c.ref(a[i], b[i], third);
    const double tol = is_half ? kHalfRel : c.f32_rel;
    if (is_half && std::fabs(want) > 65520.0L) {  // beyond half's range: rounds to infinity
      ASSERT_TRUE(std::isinf(y[i]) && (y[i] > 0) == (want > 0)) << c.name << " i=" << i;
      continue;
    }
    const long double err = std::fabs(static_cast<long double>(y[i]) - want);
    // Absolute floor for results near 0 (a relative bound means nothing there).
    const long double floor = is_half ? 1e-4L : 1e-30L;
    ASSERT_LE(err, tol * std::fabs(want) + floor)
        << c.name << " n=" << n << " i=" << i << " a=" << a[i] << " b=" << b[i] << " got " << y[i]
        << " want " << static_cast<double>(want);
  }
  for (uint32_t i = n; i < n + kPad; ++i)
    ASSERT_EQ(y[i], static_cast<float>(static_cast<T>(kSentinel))) << c.name << " wrote past n";
}

TEST(AdvMathKernels, Float) {
  std::mt19937 rng(__cplusplus % 1000 + 1);
  for (const Case& c : Cases())
    for (uint32_t n : {1u, 7u, 31u, 4097u})
      CheckCase<float>(c, n, rng);
}

TEST(AdvMathKernels, Half) {
  std::mt19937 rng(__cplusplus % 1000 + 2);
  for (const Case& c : Cases()) {
    if (c.op == kAcosh || c.op == kLog || c.op == kLog10 || c.op == kExp) continue;  // below
    for (uint32_t n : {1u, 7u, 31u, 4097u})
      CheckCase<half>(c, n, rng);
  }
  // Narrower ranges that stay inside half's.
  const Case narrow[] = {
      {kExp, "Exp", -8, 8, 0, 1, [](auto a, auto, auto) { return std::exp(a); }, 0},
      {kLog, "Log", 0.01f, 1000, 0, 1, [](auto a, auto, auto) { return std::log(a); }, 0},
      {kAcosh, "Acosh", 1.01f, 1000, 0, 1, [](auto a, auto, auto) { return std::acosh(a); }, 0},
  };
  for (const Case& c : narrow)
    for (uint32_t n : {1u, 31u, 4097u})
      CheckCase<half>(c, n, rng);
}

TEST(AdvMathKernels, AxpyAccumulates) {
  std::mt19937 rng(7);
  for (uint32_t n : {1u, 7u, 4097u}) {
    std::uniform_real_distribution<float> u(-10, 10);
    std::vector<float> a(n + kPad), b(n + kPad), y0(n + kPad, kSentinel);
    for (uint32_t i = 0; i < n; ++i) {
      a[i] = u(rng);
      y0[i] = u(rng);
    }
    const std::vector<float> y = RunOp<float>(kAxpySame, a, b, y0);
    for (uint32_t i = 0; i < n; ++i)
      ASSERT_EQ(y[i], std::fma(a[i], 0.75f, y0[i])) << i;
    for (uint32_t i = n; i < n + kPad; ++i)
      ASSERT_EQ(y[i], kSentinel);
  }
}

// ---- Integer, logical and classification APIs, and Axpy half -> float.

__global__ __vector__ void bits_custom(__gm__ uint8_t* a, __gm__ uint8_t* b, __gm__ uint8_t* y,
                                       __gm__ uint8_t* f, __gm__ uint8_t* out_bool, uint32_t n) {
  AscendC::TPipe pipe;
  const uint32_t len = n + kPad;
  AscendC::TBuf<AscendC::TPosition::VECCALC> ba, bb, by, bf, bo, bh, bacc;
  pipe.InitBuffer(ba, len * 2);
  pipe.InitBuffer(bb, len * 2);
  pipe.InitBuffer(by, len * 2);
  pipe.InitBuffer(bf, len * 4);
  pipe.InitBuffer(bo, len * 4);
  AscendC::GlobalTensor<int16_t> ga, gb, gy;
  AscendC::GlobalTensor<float> gf;
  AscendC::GlobalTensor<uint8_t> go;
  ga.SetGlobalBuffer(reinterpret_cast<__gm__ int16_t*>(a), len);
  gb.SetGlobalBuffer(reinterpret_cast<__gm__ int16_t*>(b), len);
  gy.SetGlobalBuffer(reinterpret_cast<__gm__ int16_t*>(y), len * 2);
  gf.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(f), len);
  go.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(out_bool), len * 4);
  AscendC::LocalTensor<int16_t> la = ba.Get<int16_t>(), lb = bb.Get<int16_t>(),
                                ly = by.Get<int16_t>();
  AscendC::LocalTensor<float> lf = bf.Get<float>();
  AscendC::LocalTensor<uint8_t> lo = bo.Get<uint8_t>();
  AscendC::DataCopy(la, ga, len);
  AscendC::DataCopy(lb, gb, len);
  AscendC::DataCopy(lf, gf, len);
  AscendC::DataCopy(ly, gy, len);
  AscendC::DataCopy(lo, go, len * 4);
  AscendC::Xor<int16_t, false>(ly, la, lb, n);
  AscendC::DataCopy(gy, ly, len);
  AscendC::BitwiseAnd(ly, la, lb, n);
  AscendC::DataCopy(gy[len], ly, len);
  AscendC::LocalTensor<bool> finite = lo.ReinterpretCast<bool>();
  AscendC::IsFinite(finite, lf, n);
  AscendC::LocalTensor<bool> both = lo[len].ReinterpretCast<bool>();
  AscendC::LogicalAnd(both, la, lb, n);
  // Floating sources: -0 counts as zero. Numeric IsFinite result: 1.0 / 0.0.
  AscendC::LocalTensor<bool> both_f = lo[2 * len].ReinterpretCast<bool>();
  AscendC::LogicalAnd(both_f, lf, lf, n);
  AscendC::DataCopy(go, lo, len * 4);
  AscendC::IsFinite(lf, lf, n);
  AscendC::DataCopy(gf, lf, len);
}

TEST(AdvMathKernels, BitwiseLogicalAndIsFinite) {
  std::mt19937 rng(9);
  for (uint32_t n : {1u, 7u, 31u, 4097u}) {
    const uint32_t len = n + kPad;
    std::vector<int16_t> a(len), b(len), y(2 * len, 77);
    std::vector<float> f(len);
    std::vector<uint8_t> o(4 * len, 200);
    for (uint32_t i = 0; i < len; ++i) {
      a[i] = static_cast<int16_t>(rng());
      b[i] = static_cast<int16_t>(rng() % 3 == 0 ? 0 : rng());
      const uint32_t k = rng() % 8;
      f[i] = k == 0   ? std::numeric_limits<float>::infinity()
             : k == 1 ? -std::numeric_limits<float>::infinity()
             : k == 2 ? std::numeric_limits<float>::quiet_NaN()
             : k == 3 ? -0.0f
             : k == 4 ? 0.0f
                      : static_cast<float>(static_cast<int32_t>(rng())) * 1e30f;
    }
    auto put = [](const void* p, size_t bytes) {
      auto d = tessera::device::Malloc(bytes);
      EXPECT_TRUE(d.ok());
      EXPECT_TRUE(
          tessera::device::Memcpy(*d, bytes, p, bytes, tessera::device::MemcpyKind::kHostToDevice)
              .ok());
      return static_cast<uint8_t*>(*d);
    };
    uint8_t* da = put(a.data(), len * 2);
    uint8_t* db = put(b.data(), len * 2);
    uint8_t* dy = put(y.data(), len * 4);
    uint8_t* df = put(f.data(), len * 4);
    uint8_t* dout = put(o.data(), len * 4);
    tessera::device::Stream stream;
    ASSERT_TRUE(tessera::device::Launch(bits_custom, 1, stream, da, db, dy, df, dout, n).ok());
    ASSERT_TRUE(stream.Synchronize().ok());
    const auto d2h = tessera::device::MemcpyKind::kDeviceToHost;
    ASSERT_TRUE(tessera::device::Memcpy(y.data(), len * 4, dy, len * 4, d2h).ok());
    ASSERT_TRUE(tessera::device::Memcpy(o.data(), len * 4, dout, len * 4, d2h).ok());
    std::vector<float> fin(len);
    ASSERT_TRUE(tessera::device::Memcpy(fin.data(), len * 4, df, len * 4, d2h).ok());
    for (uint32_t i = 0; i < n; ++i) {
      ASSERT_EQ(y[i], static_cast<int16_t>(a[i] ^ b[i])) << i;
      ASSERT_EQ(y[len + i], static_cast<int16_t>(a[i] & b[i])) << i;
      ASSERT_EQ(o[i], std::isfinite(f[i]) ? 1 : 0) << i;
      ASSERT_EQ(o[len + i], (a[i] != 0 && b[i] != 0) ? 1 : 0) << i;
      ASSERT_EQ(o[2 * len + i], f[i] != 0.0f ? 1 : 0) << i << " " << f[i];
      ASSERT_EQ(fin[i], std::isfinite(f[i]) ? 1.0f : 0.0f) << i;
    }
    for (uint32_t i = n; i < len; ++i) {
      ASSERT_EQ(y[i], 77);
      ASSERT_EQ(o[i], 200);
      ASSERT_EQ(o[len + i], 200);
      ASSERT_EQ(o[2 * len + i], 200);
    }
    for (uint8_t* p : {da, db, dy, df, dout})
      ASSERT_TRUE(tessera::device::Free(p).ok());
  }
}

// ---- CumSum and the softmax family on rows x cols.

enum RowOp : int32_t {
  kCumLast,
  kCumCols,
  kSoftMax,
  kLogSoftMax,
  kFlash,
  kFlashUpdate,
  kGrad,
  kGradFront,
  kSimple
};

constexpr AscendC::CumSumConfig kCumLastCfg = {true, false, true};
constexpr AscendC::CumSumConfig kCumColsCfg = {false, false, true};

template <typename T>
__global__ __vector__ void rows_custom(__gm__ uint8_t* x, __gm__ uint8_t* g, __gm__ uint8_t* y,
                                       __gm__ uint8_t* stats, uint32_t rows, uint32_t cols,
                                       uint32_t valid, int32_t op) {
  AscendC::TPipe pipe;
  const uint32_t len = rows * cols + kPad;
  constexpr uint32_t kBlk = 32 / sizeof(T);
  const uint32_t slen = rows * kBlk * 4 + cols + kPad;  // + CumSum's lastRow
  AscendC::TBuf<AscendC::TPosition::VECCALC> bx, bg, by, bs;
  pipe.InitBuffer(bx, len * sizeof(T));
  pipe.InitBuffer(bg, len * sizeof(T));
  pipe.InitBuffer(by, len * sizeof(T));
  pipe.InitBuffer(bs, slen * sizeof(T));
  AscendC::GlobalTensor<T> gx, gg, gy, gs;
  gx.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x), len);
  gg.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(g), len);
  gy.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y), len);
  gs.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(stats), slen);
  AscendC::LocalTensor<T> lx = bx.Get<T>(), lg = bg.Get<T>(), ly = by.Get<T>(), ls = bs.Get<T>();
  AscendC::DataCopy(lx, gx, len);
  AscendC::DataCopy(lg, gg, len);
  AscendC::DataCopy(ly, gy, len);
  AscendC::DataCopy(ls, gs, slen);
  const uint32_t sb = rows * kBlk;  // one statistics tensor
  AscendC::LocalTensor<T> sum = ls, max = ls[sb], expmax = ls[2 * sb], spare = ls[3 * sb];
  AscendC::SoftMaxTiling tiling;
  AscendC::SoftMaxTilingFunc(AscendC::TensorShape({rows, cols}), sizeof(T), 0, tiling);
  const AscendC::SoftMaxShapeInfo shape = {rows, cols, rows, valid};
  AscendC::LocalTensor<uint8_t> none;
  switch (op) {
    case kCumLast:
      AscendC::CumSum<T, kCumLastCfg>(ly, spare, lx, AscendC::CumSumInfo{rows, cols});
      break;
    case kCumCols:
      AscendC::CumSum<T, kCumColsCfg>(ly, spare, lx, none, AscendC::CumSumInfo{rows, cols});
      break;
    case kSoftMax:
      AscendC::SoftMax<T>(ly, sum, max, lx, none, tiling, shape);
      break;
    case kLogSoftMax: {
      AscendC::LogSoftMaxTiling lt;
      AscendC::LogSoftMax<T>(ly, sum, max, lx, none, lt, shape);
      break;
    }
    case kFlash:
      AscendC::SoftmaxFlashV2<T, false>(ly, sum, max, lx, expmax, sum, max, tiling, shape);
      break;
    case kFlashUpdate:
      // Running statistics from the first half of the columns, then the update with the rest.
      AscendC::SoftmaxFlashV2<T, false>(ly, sum, max, lg, expmax, sum, max, tiling, shape);
      AscendC::SoftmaxFlashV2<T, true>(ly, sum, max, lx, expmax, sum, max, none, tiling, shape);
      break;
    case kGrad:
      AscendC::SoftmaxGrad<T, false>(ly, lg, lx, none, tiling, false, shape);
      break;
    case kGradFront:
      AscendC::SoftmaxGradFront<T>(spare, lg, lx, tiling, shape);
      break;
    case kSimple:
      AscendC::SoftMax<T>(ly, sum, max, lx, tiling, shape);
      AscendC::SimpleSoftMax<T>(ly, sum, max, lg, none, tiling, shape);
      break;
    default:
      break;
  }
  AscendC::DataCopy(gy, ly, len);
  AscendC::DataCopy(gs, ls, slen);
}

template <typename T>
void CheckRows(RowOp op, uint32_t rows, uint32_t cols, uint32_t valid, std::mt19937& rng) {
  constexpr uint32_t kBlk = 32 / sizeof(T);
  const uint32_t len = rows * cols + kPad;
  const uint32_t slen = rows * kBlk * 4 + cols + kPad;  // + CumSum's lastRow
  std::uniform_real_distribution<float> u(-3, 3);
  std::vector<T> x(len), g(len), y(len, static_cast<T>(kSentinel)),
      s(slen, static_cast<T>(kSentinel));
  for (uint32_t i = 0; i < len; ++i) {
    x[i] = static_cast<T>(u(rng));
    g[i] = static_cast<T>(u(rng));
  }
  std::vector<uint8_t*> dev;
  auto put = [&](const std::vector<T>& v) {
    auto d = tessera::device::Malloc(v.size() * sizeof(T));
    EXPECT_TRUE(d.ok());
    EXPECT_TRUE(tessera::device::Memcpy(*d, v.size() * sizeof(T), v.data(), v.size() * sizeof(T),
                                        tessera::device::MemcpyKind::kHostToDevice)
                    .ok());
    dev.push_back(static_cast<uint8_t*>(*d));
    return dev.back();
  };
  uint8_t *dx = put(x), *dg = put(g), *dy = put(y), *ds = put(s);
  tessera::device::Stream stream;
  ASSERT_TRUE(tessera::device::Launch(rows_custom<T>, 1, stream, dx, dg, dy, ds, rows, cols, valid,
                                      static_cast<int32_t>(op))
                  .ok());
  ASSERT_TRUE(stream.Synchronize().ok());
  const auto d2h = tessera::device::MemcpyKind::kDeviceToHost;
  ASSERT_TRUE(tessera::device::Memcpy(y.data(), len * sizeof(T), dy, len * sizeof(T), d2h).ok());
  ASSERT_TRUE(tessera::device::Memcpy(s.data(), slen * sizeof(T), ds, slen * sizeof(T), d2h).ok());
  for (uint8_t* p : dev)
    ASSERT_TRUE(tessera::device::Free(p).ok());
  const double tol = sizeof(T) == 2 ? 2.0 / 1024 : 2e-6;
  auto X = [&](uint32_t r, uint32_t c) {
    return static_cast<long double>(static_cast<float>(x[r * cols + c]));
  };
  auto G = [&](uint32_t r, uint32_t c) {
    return static_cast<long double>(static_cast<float>(g[r * cols + c]));
  };
  auto Y = [&](uint32_t r, uint32_t c) {
    return static_cast<long double>(static_cast<float>(y[r * cols + c]));
  };
  auto S = [&](uint32_t which, uint32_t r, uint32_t j) {
    return static_cast<long double>(static_cast<float>(s[which * rows * kBlk + r * kBlk + j]));
  };
  // slack: the absolute error an fp32 sum may carry (its terms' magnitudes times a few eps).
  auto near = [&](long double got, long double want, const char* what, uint32_t r, uint32_t c,
                  long double slack = 0) {
    ASSERT_LE(std::fabs(got - want),
              tol * std::fabs(want) + slack + (sizeof(T) == 2 ? 2e-3L : 1e-6L))
        << what << " rows=" << rows << " cols=" << cols << " valid=" << valid << " r=" << r
        << " c=" << c << " got " << static_cast<double>(got) << " want "
        << static_cast<double>(want);
  };
  for (uint32_t r = 0; r < rows; ++r) {
    long double mx = -INFINITY, sm = 0, front = 0, mx_g = -INFINITY, sm_g = 0, front_abs = 0;
    for (uint32_t c = 0; c < valid; ++c) {
      mx = std::max(mx, X(r, c));
      mx_g = std::max(mx_g, G(r, c));
      front += X(r, c) * G(r, c);
      front_abs += std::fabs(X(r, c) * G(r, c));
    }
    const long double front_slack = 4 * 6e-8L * front_abs;
    for (uint32_t c = 0; c < valid; ++c) {
      sm += std::exp(X(r, c) - mx);
      sm_g += std::exp(G(r, c) - mx_g);
    }
    for (uint32_t c = 0; c < valid; ++c) {
      switch (op) {
        case kSoftMax:
          near(Y(r, c), std::exp(X(r, c) - mx) / sm, "SoftMax", r, c);
          break;
        case kLogSoftMax:
          near(Y(r, c), std::log10(std::exp(X(r, c) - mx) / sm), "LogSoftMax", r, c);
          break;
        case kFlash:
          near(Y(r, c), std::exp(X(r, c) - mx), "SoftmaxFlashV2", r, c);
          break;
        case kGrad:
          near(Y(r, c), (G(r, c) - front) * X(r, c), "SoftmaxGrad", r, c,
               front_slack * std::fabs(X(r, c)));
          break;
        case kSimple:
          near(Y(r, c), std::exp(G(r, c) - mx) / sm, "SimpleSoftMax", r, c);
          break;
        default:
          break;
      }
    }
    for (uint32_t j = 0; j < kBlk; ++j) {
      if (op == kSoftMax || op == kLogSoftMax || op == kFlash) {
        near(S(0, r, j), sm, "sum", r, j);
        near(S(1, r, j), mx, "max", r, j);
      }
      if (op == kFlashUpdate) {
        const long double m = std::max(mx, mx_g);
        near(S(1, r, j), m, "updated max", r, j);
        near(S(2, r, j), std::exp(mx_g - m), "expMax", r, j);
        near(S(0, r, j), std::exp(mx_g - m) * sm_g + sm * std::exp(mx - m), "updated sum", r, j);
      }
      if (op == kGradFront) near(S(3, r, j), front, "SoftmaxGradFront", r, j, front_slack);
    }
    if (op == kCumLast || op == kCumCols) {
      // The vendor's line-by-line order: one fp32 sum per step, each result rounded to T.
      for (uint32_t c = 0; c < cols; ++c) {
        float acc = 0;
        if (op == kCumLast) {
          for (uint32_t k = 0; k <= c; ++k)
            acc += static_cast<float>(X(r, k));
        } else {
          for (uint32_t k = 0; k <= r; ++k)
            acc += static_cast<float>(X(k, c));
        }
        const float want = static_cast<float>(static_cast<T>(acc));
        ASSERT_EQ(static_cast<float>(Y(r, c)), want) << "CumSum r=" << r << " c=" << c;
        if (r == rows - 1) {
          ASSERT_EQ(static_cast<float>(s[3 * rows * kBlk + c]), want) << "lastRow c=" << c;
        }
      }
    }
    // Columns past `valid` are left alone.
    if (op == kSoftMax || op == kLogSoftMax || op == kFlash || op == kGrad || op == kSimple) {
      for (uint32_t c = valid; c < cols; ++c)
        ASSERT_EQ(static_cast<float>(y[r * cols + c]),
                  static_cast<float>(static_cast<T>(kSentinel)));
    }
  }
  for (uint32_t i = rows * cols; i < len; ++i)
    ASSERT_EQ(static_cast<float>(y[i]), static_cast<float>(static_cast<T>(kSentinel)))
        << "past the rows";
}

TEST(AdvMathKernels, CumSumAndSoftmaxFamily) {
  std::mt19937 rng(21);
  const uint32_t shapes[][3] = {{1, 8, 8}, {7, 40, 33}, {31, 64, 64}, {3, 1040, 1031}};
  for (RowOp op : {kCumLast, kCumCols, kSoftMax, kLogSoftMax, kFlash, kFlashUpdate, kGrad,
                   kGradFront, kSimple}) {
    for (const auto& sh : shapes) {
      const uint32_t valid = op == kCumLast || op == kCumCols ? sh[1] : sh[2];
      CheckRows<float>(op, sh[0], sh[1], valid, rng);
      CheckRows<half>(op, sh[0], sh[1], valid, rng);
      if (HasFatalFailure()) return;
    }
  }
}

// ---- Checked mode: a count beyond a tensor fails the block, naming the API and the operand.

__global__ __vector__ void overflow_custom(int32_t which) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> bx, by;
  pipe.InitBuffer(bx, 32 * sizeof(float));
  pipe.InitBuffer(by, 64 * sizeof(float));
  AscendC::LocalTensor<float> x = bx.Get<float>();
  AscendC::LocalTensor<float> y = by.Get<float>();
  AscendC::Duplicate(x, 1.5f, 32);
  AscendC::SoftMaxTiling tiling;
  switch (which) {
    case 0:
      AscendC::Erf(y, x, 48u);
      break;
    case 1:
      AscendC::Power<float, false>(y, x, 2.0f, 48u);
      break;
    case 2:
      AscendC::Clamp(y, x, 0.0f, 1.0f, 40u);
      break;
    case 3: {
      const AscendC::SoftMaxShapeInfo shape = {2, 16, 2, 16};
      AscendC::SoftMax<float, false, false, true>(y, y, y, x, tiling, shape);  // NZ
      break;
    }
    default:
      AscendC::Erf(y, x, 32u);
      break;
  }
}

std::string RunChecked(int32_t which) {
  tessera::device::Stream stream;
  tessera::Status st = tessera::device::Launch(
      tessera::device::LaunchConfig{1, tessera::device::KernelType::kAiv, "adv_overflow"},
      overflow_custom, stream, which);
  if (st.ok()) st = stream.Synchronize();
  stream.ResetError();
  return std::string(st.message());
}

TEST(AdvMathCheckedMode, CountBeyondTensorNamesTheApi) {
  const bool previous = tessera::device::CheckedMode();
  tessera::device::SetCheckedMode(true);
  EXPECT_NE(RunChecked(0).find("Erf: src: count 48 exceeds the tensor's 32 elements"),
            std::string::npos)
      << RunChecked(0);
  EXPECT_NE(RunChecked(1).find("Power: src: count 48 exceeds"), std::string::npos);
  EXPECT_NE(RunChecked(2).find("Clamp: src: count 40 exceeds"), std::string::npos);
  EXPECT_NE(RunChecked(3).find("SoftMax: the NZ data format is not supported"), std::string::npos)
      << RunChecked(3);
  EXPECT_EQ(RunChecked(4), "");
  tessera::device::SetCheckedMode(previous);
}

TEST(AdvMathTiling, QueriesKeepMinBelowMax) {
  uint32_t mx = 7, mn = 9;
  AscendC::GetAcoshMaxMinTmpSize(AscendC::TensorShape({4096}), 4, false, mx, mn);
  EXPECT_LE(mn, mx);
  EXPECT_TRUE(AscendC::GetExpMaxMinTmpSize(AscendC::TensorShape({31}), 2, true, mx, mn));
  EXPECT_LE(mn, mx);
  AscendC::GetPowerMaxMinTmpSize(AscendC::TensorShape({16}), AscendC::TensorShape({1}), false, 4,
                                 false, mx, mn);
  EXPECT_LE(mn, mx);
  EXPECT_LE(AscendC::GetSoftMaxMinTmpSize(AscendC::TensorShape({8, 64}), 4, false),
            AscendC::GetSoftMaxMaxTmpSize(AscendC::TensorShape({8, 64}), 4, false));
  AscendC::tiling::SoftMaxTiling t;
  AscendC::SoftMaxTilingFunc(AscendC::TensorShape({2, 3, 40}), 2, 0, t);
  EXPECT_EQ(t.srcM, 6u);
  EXPECT_EQ(t.srcK, 40u);
  EXPECT_EQ(t.outMaxK, 16u);
  EXPECT_EQ(t.srcSize, 240u);
}

}  // namespace

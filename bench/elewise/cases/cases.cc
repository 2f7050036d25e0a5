#include "cases.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <tuple>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "operators.h"
#include "tessera/core/float16.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tessera/elewise/elewise.h"
#include "tessera/elewise/fused.h"

#if TESSERA_BENCH_HAVE_EIGEN
#include "eigen_peers.h"
#endif
#if TESSERA_BENCH_HAVE_BUILTIN_OPS
#include "builtin_nn.h"  // the built-in package's generated op API (tsrAdd, ...)
#include "tessera/tessera_nn.h"
#endif

namespace tessera::bench {
namespace {

using namespace tessera::elewise;
namespace tdev = tessera::device;

constexpr int64_t kElements = int64_t{64} << 20;
constexpr int64_t kOpElements = int64_t{32} << 20;  // the built-in ops' cases
constexpr int64_t kRows = 16384;
constexpr int64_t kCols = 4096;
constexpr float kEpsilon = 1e-6f;
// Bytes of cpu0's unified cache of `level` as Linux reports it for this core (sysfs: a share of an
// L3 split among core complexes, where sysconf gives the whole chip's); 0 when unknown.
int64_t CacheBytes(int level) {
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level_file(dir + "/level"), type_file(dir + "/type"), size_file(dir + "/size");
    int l = 0;
    std::string type, size;
    if (!(level_file >> l) || !(type_file >> type) || !(size_file >> size)) break;
    if (l != level || type != "Unified" || size.empty()) continue;
    const int64_t unit = size.back() == 'K' ? 1024 : size.back() == 'M' ? 1024 * 1024 : 1;
    return std::strtoll(size.c_str(), nullptr, 10) * unit;
  }
  return 0;
}

// Elements of the in-cache slice: every stream of it (at most 16 bytes per element, a*b+c) fits
// in the workers' L2 plus half the L3 (Zen 1: 2 x 512 KiB + 4 MiB -> 320K elements), at most 1M
// (4 MiB in + 4 MiB out, the size on CPUs with large L3s). Launches per timing: kInCacheRepeats.
int64_t InCacheElementsBudget() {
  static const int64_t budget = [] {
    const int64_t l2 = CacheBytes(2);
    if (l2 <= 0) return int64_t{1} << 20;
    const int64_t bytes = l2 * tdev::WorkerThreads() + CacheBytes(3) / 2;
    return std::clamp<int64_t>(bytes / 16, int64_t{64} << 10, int64_t{1} << 20);
  }();
  return budget;
}
constexpr int kInCacheRepeats = 10;

// ---- operators under test ------------------------------------------------------------------

// The compiled operators when they were built and this CPU runs their SoC, else the interpreter's.
std::unique_ptr<OperatorRunner> MakeOperator(BenchOp op) {
#if TESSERA_BENCH_HAVE_COMPILED_OPERATORS
  if (__builtin_cpu_supports(TESSERA_BENCH_COMPILED_SOC)) return MakeCompiledOperator(op);
#endif
  return MakeInterpretedOperator(op);
}

// ---- device buffers with random data ----------------------------------------------------------

class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (ptr_ != nullptr) (void)tdev::Free(ptr_);
  }
  // `count` values uniform in [-2, 2) (fp32, or rounded to bfloat16 when bf16).
  Status Fill(int64_t count, bool bf16, uint32_t seed) {
    const size_t bytes = static_cast<size_t>(count) * (bf16 ? 2 : 4);
    TESSERA_ASSIGN_OR_RETURN(ptr_, tdev::Malloc(bytes));
    std::vector<char> host(bytes);
    uint32_t s = seed;
    for (int64_t i = 0; i < count; ++i) {
      s = s * 1664525u + 1013904223u;
      const float v = static_cast<float>(s >> 8) * (1.0f / 16777216.0f) * 4.0f - 2.0f;
      if (bf16) {
        const uint16_t b = FloatToBfloat16Bits(v);
        std::memcpy(host.data() + i * 2, &b, 2);
      } else {
        std::memcpy(host.data() + i * 4, &v, 4);
      }
    }
    return tdev::Memcpy(ptr_, bytes, host.data(), bytes, tdev::MemcpyKind::kHostToDevice);
  }
  float* f() const { return static_cast<float*>(ptr_); }
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

TensorArg Tensor2(void* p, DataType t, std::vector<int64_t> dims) {
  return TensorArg{p, t, *Shape::Make(dims), 0};
}

// ---- limits: plain SIMD loops with streaming stores ----------------------------------------

std::pair<int64_t, int64_t> Slice(int64_t n) {
  const int64_t per = (n / tdev::GetBlockNum() + 63) / 64 * 64;
  const int64_t begin = std::min<int64_t>(n, per * tdev::GetBlockIdx());
  return {begin, std::min<int64_t>(n, begin + per)};
}

// out = a * b + c: 3 reads, 1 write.
void Fma3Kernel(float* out, const float* a, const float* b, const float* c, int64_t n) {
  auto [i, end] = Slice(n);
#if defined(__x86_64__)
  for (; i < end && reinterpret_cast<uintptr_t>(out + i) % 16 != 0; ++i)
    out[i] = a[i] * b[i] + c[i];
  for (; i + 4 <= end; i += 4) {
    const __m128 r =
        _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)), _mm_loadu_ps(c + i));
    _mm_stream_ps(out + i, r);
  }
  _mm_sfence();
#endif
  for (; i < end; ++i)
    out[i] = a[i] * b[i] + c[i];
}

// out = x (bytes): 1 read, 1 write.
void CopyKernel(char* out, const char* x, int64_t bytes) {
  auto [i, end] = Slice(bytes);
#if defined(__x86_64__)
  for (; i < end && reinterpret_cast<uintptr_t>(out + i) % 16 != 0; ++i)
    out[i] = x[i];
  for (; i + 16 <= end; i += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i)));
  }
  _mm_sfence();
#endif
  for (; i < end; ++i)
    out[i] = x[i];
}

// out = a + b: 2 reads, 1 write.
void Add2Kernel(float* out, const float* a, const float* b, int64_t n) {
  auto [i, end] = Slice(n);
#if defined(__x86_64__)
  for (; i < end && reinterpret_cast<uintptr_t>(out + i) % 16 != 0; ++i)
    out[i] = a[i] + b[i];
  for (; i + 4 <= end; i += 4)
    _mm_stream_ps(out + i, _mm_add_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)));
  _mm_sfence();
#endif
  for (; i < end; ++i)
    out[i] = a[i] + b[i];
}

// out = the high halves of x's fp32 bit patterns (bfloat16 by truncation): 4 bytes read, 2
// written per element.
void Narrow16Kernel(uint16_t* out, const uint32_t* x, int64_t n) {
  auto [i, end] = Slice(n);
#if defined(__x86_64__)
  for (; i < end && reinterpret_cast<uintptr_t>(out + i) % 16 != 0; ++i)
    out[i] = static_cast<uint16_t>(x[i] >> 16);
  for (; i + 8 <= end; i += 8) {
    // Arithmetic shifts keep the high halves in int16 range, so the saturating pack is exact.
    const __m128i lo = _mm_srai_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i)), 16);
    const __m128i hi =
        _mm_srai_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i + 4)), 16);
    _mm_stream_si128(reinterpret_cast<__m128i*>(out + i), _mm_packs_epi32(lo, hi));
  }
  _mm_sfence();
#endif
  for (; i < end; ++i)
    out[i] = static_cast<uint16_t>(x[i] >> 16);
}

tdev::LaunchConfig LimitConfig(const char* name) {
  return tdev::LaunchConfig{tdev::WorkerThreads(), tdev::KernelType::kAiv, name, false};
}

Status CopyLimit(const tdev::Stream& s, void* out, const void* in, int64_t bytes) {
  return tdev::Launch(LimitConfig("limit_copy"), CopyKernel, s, static_cast<char*>(out),
                      static_cast<const char*>(in), bytes);
}

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class F>
Result<double> TimedLaunch(const tdev::Stream& s, F&& launch) {
  const auto t0 = std::chrono::steady_clock::now();
  TESSERA_RETURN_IF_ERROR(launch());
  TESSERA_RETURN_IF_ERROR(s.Synchronize());
  return Seconds(t0);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// ---- the cases -----------------------------------------------------------------------------

class FmaCase final : public Case {
 public:
  explicit FmaCase(int64_t n)
      : Case("fma_f32", "a*b+c fp32", {n}, "float32", 16.0 * static_cast<double>(n)), n_(n) {}
  Status Init() {
    TESSERA_RETURN_IF_ERROR(a_.Fill(n_, false, 1));
    TESSERA_RETURN_IF_ERROR(b_.Fill(n_, false, 2));
    TESSERA_RETURN_IF_ERROR(c_.Fill(n_, false, 3));
    TESSERA_RETURN_IF_ERROR(out_.Fill(n_, false, 4));
    args_ = ArgumentsBuilder{}
                .inputOutput(Tensor2(a_.get(), DataType::kFloat32, {n_}),
                             Tensor2(b_.get(), DataType::kFloat32, {n_}),
                             Tensor2(c_.get(), DataType::kFloat32, {n_}),
                             Tensor2(out_.get(), DataType::kFloat32, {n_}))
                .build();
    const int64_t m = InCacheElements();
    small_args_ = ArgumentsBuilder{}
                      .inputOutput(Tensor2(a_.get(), DataType::kFloat32, {m}),
                                   Tensor2(b_.get(), DataType::kFloat32, {m}),
                                   Tensor2(c_.get(), DataType::kFloat32, {m}),
                                   Tensor2(out_.get(), DataType::kFloat32, {m}))
                      .build();
    return OkStatus();
  }

 protected:
  Status ElewiseInCache(const tdev::Stream& s) override { return op_->Run(small_args_, s); }
  int64_t InCacheElements() const override { return std::min(n_, InCacheElementsBudget()); }
  Status Limit(const tdev::Stream& s) override {
    return tdev::Launch(LimitConfig("limit_fma"), Fma3Kernel, s, out_.f(),
                        static_cast<const float*>(a_.f()), static_cast<const float*>(b_.f()),
                        static_cast<const float*>(c_.f()), n_);
  }
  Status Elewise(const tdev::Stream& s) override { return op_->Run(args_, s); }
  void Eigen() override {
#if TESSERA_BENCH_HAVE_EIGEN
    EigenFma(a_.f(), b_.f(), c_.f(), out_.f(), n_);
#endif
  }

 private:
  int64_t n_;
  Buffer a_, b_, c_, out_;
  Arguments args_, small_args_;
  std::unique_ptr<OperatorRunner> op_ = MakeOperator(BenchOp::kFma);
};

class UnaryCase final : public Case {
 public:
  using EigenFn = void (*)(const float*, float*, int64_t);
  UnaryCase(std::string id, std::string title, BenchOp op, int64_t n, EigenFn eigen)
      : Case(std::move(id), std::move(title), {n}, "float32", 8.0 * static_cast<double>(n)),
        n_(n),
        eigen_(eigen),
        op_(MakeOperator(op)) {}
  Status Init() {
    TESSERA_RETURN_IF_ERROR(x_.Fill(n_, false, 11));
    TESSERA_RETURN_IF_ERROR(out_.Fill(n_, false, 12));
    args_ = ArgumentsBuilder{}
                .inputOutput(Tensor2(x_.get(), DataType::kFloat32, {n_}),
                             Tensor2(out_.get(), DataType::kFloat32, {n_}))
                .build();
    const int64_t m = InCacheElements();
    small_args_ = ArgumentsBuilder{}
                      .inputOutput(Tensor2(x_.get(), DataType::kFloat32, {m}),
                                   Tensor2(out_.get(), DataType::kFloat32, {m}))
                      .build();
    return OkStatus();
  }

 protected:
  Status ElewiseInCache(const tdev::Stream& s) override { return op_->Run(small_args_, s); }
  int64_t InCacheElements() const override { return std::min(n_, InCacheElementsBudget()); }
  Status Limit(const tdev::Stream& s) override {
    return CopyLimit(s, out_.get(), x_.get(), n_ * 4);
  }
  Status Elewise(const tdev::Stream& s) override { return op_->Run(args_, s); }
  void Eigen() override {
    if (eigen_ != nullptr) eigen_(x_.f(), out_.f(), n_);
  }

 private:
  int64_t n_;
  EigenFn eigen_;
  Buffer x_, out_;
  Arguments args_, small_args_;
  std::unique_ptr<OperatorRunner> op_;
};

class RmsNormCase final : public Case {
 public:
  RmsNormCase(int64_t rows, bool bf16)
      : Case(bf16 ? "rmsnorm_bf16" : "rmsnorm_f32", bf16 ? "RMSNorm bf16" : "RMSNorm fp32",
             {rows, kCols}, bf16 ? "bfloat16" : "float32",
             (bf16 ? 4.0 : 8.0) * static_cast<double>(rows * kCols)),
        rows_(rows),
        bf16_(bf16),
        op_(MakeOperator(bf16 ? BenchOp::kRmsNormBf16 : BenchOp::kRmsNormF32)) {}
  Status Init() {
    TESSERA_RETURN_IF_ERROR(x_.Fill(rows_ * kCols, bf16_, 21));
    TESSERA_RETURN_IF_ERROR(gamma_.Fill(kCols, bf16_, 22));
    TESSERA_RETURN_IF_ERROR(out_.Fill(rows_ * kCols, bf16_, 23));
    const DataType t = bf16_ ? DataType::kBfloat16 : DataType::kFloat32;
    const auto make = [&](int64_t rows) {
      return ArgumentsBuilder{}
          .inputOutput(Tensor2(x_.get(), t, {rows, kCols}), Tensor2(gamma_.get(), t, {kCols}),
                       Tensor2(out_.get(), t, {rows, kCols}))
          .attr("epsilon", static_cast<double>(kEpsilon))
          .build();
    };
    args_ = make(rows_);
    small_args_ = make(InCacheElements() / kCols);
    return OkStatus();
  }

 protected:
  Status ElewiseInCache(const tdev::Stream& s) override { return op_->Run(small_args_, s); }
  int64_t InCacheElements() const override {
    return std::min(rows_, InCacheElementsBudget() / kCols) * kCols;
  }
  Status Limit(const tdev::Stream& s) override {
    return CopyLimit(s, out_.get(), x_.get(), rows_ * kCols * (bf16_ ? 2 : 4));
  }
  Status Elewise(const tdev::Stream& s) override { return op_->Run(args_, s); }
  void Eigen() override {
#if TESSERA_BENCH_HAVE_EIGEN
    if (bf16_) {
      EigenRmsNormBf16(x_.get(), gamma_.get(), out_.get(), rows_, kCols, kEpsilon);
    } else {
      EigenRmsNorm(x_.f(), gamma_.f(), out_.f(), rows_, kCols, kEpsilon);
    }
#endif
  }

 private:
  int64_t rows_;
  bool bf16_;
  Buffer x_, gamma_, out_;
  Arguments args_, small_args_;
  std::unique_ptr<OperatorRunner> op_;
};

class SoftmaxCase final : public Case {
 public:
  explicit SoftmaxCase(int64_t rows)
      : Case("softmax_f32", "Softmax fp32", {rows, kCols}, "float32",
             8.0 * static_cast<double>(rows * kCols)),
        rows_(rows) {}
  Status Init() {
    TESSERA_RETURN_IF_ERROR(x_.Fill(rows_ * kCols, false, 31));
    TESSERA_RETURN_IF_ERROR(out_.Fill(rows_ * kCols, false, 32));
    const auto make = [&](int64_t rows) {
      return ArgumentsBuilder{}
          .inputOutput(Tensor2(x_.get(), DataType::kFloat32, {rows, kCols}),
                       Tensor2(out_.get(), DataType::kFloat32, {rows, kCols}))
          .build();
    };
    args_ = make(rows_);
    small_args_ = make(InCacheElements() / kCols);
    return OkStatus();
  }

 protected:
  Status ElewiseInCache(const tdev::Stream& s) override { return op_->Run(small_args_, s); }
  int64_t InCacheElements() const override {
    return std::min(rows_, InCacheElementsBudget() / kCols) * kCols;
  }
  Status Limit(const tdev::Stream& s) override {
    return CopyLimit(s, out_.get(), x_.get(), rows_ * kCols * 4);
  }
  Status Elewise(const tdev::Stream& s) override { return op_->Run(args_, s); }
  void Eigen() override {
#if TESSERA_BENCH_HAVE_EIGEN
    EigenSoftmax(x_.f(), out_.f(), rows_, kCols);
#endif
  }

 private:
  int64_t rows_;
  Buffer x_, out_;
  Arguments args_, small_args_;
  std::unique_ptr<OperatorRunner> op_ = MakeOperator(BenchOp::kSoftmaxF32);
};

#if TESSERA_BENCH_HAVE_BUILTIN_OPS
// A built-in op called as a user would: the whole two-stage C API call (GetWorkspaceSize, the
// launch, stream synchronize) per run, on tsrTensors over the case's device buffers.
class BuiltinOpCase final : public Case {
 public:
  enum class Kind { kAdd, kMul, kSigmoid, kCastToBf16 };
  BuiltinOpCase(std::string id, std::string title, Kind kind, int64_t n)
      : Case(std::move(id), std::move(title), {n}, "float32", Bytes(kind, n)), kind_(kind), n_(n) {}
  ~BuiltinOpCase() override {
    for (tsrTensor* t : {x1_, x2_, y_, small_x1_, small_x2_, small_y_})
      tsrDestroyTensor(t);
    if (stream_ != nullptr) tsrDestroyStream(stream_);
  }
  Status Init() {
    const bool binary = kind_ == Kind::kAdd || kind_ == Kind::kMul;
    const bool bf16_out = kind_ == Kind::kCastToBf16;
    TESSERA_RETURN_IF_ERROR(a_.Fill(n_, false, 41));
    if (binary) TESSERA_RETURN_IF_ERROR(b_.Fill(n_, false, 42));
    TESSERA_RETURN_IF_ERROR(out_.Fill(n_, bf16_out, 43));
    const tsrDataType out_type = bf16_out ? TSR_BF16 : TSR_FLOAT;
    const auto make = [&](void* p, tsrDataType t, int64_t n) {
      return tsrCreateTensor(&n, 1, nullptr, t, TSR_FORMAT_ND, p);
    };
    const int64_t m = InCacheElements();
    x1_ = make(a_.get(), TSR_FLOAT, n_);
    small_x1_ = make(a_.get(), TSR_FLOAT, m);
    if (binary) {
      x2_ = make(b_.get(), TSR_FLOAT, n_);
      small_x2_ = make(b_.get(), TSR_FLOAT, m);
    }
    y_ = make(out_.get(), out_type, n_);
    small_y_ = make(out_.get(), out_type, m);
    if (x1_ == nullptr || y_ == nullptr || small_x1_ == nullptr || small_y_ == nullptr ||
        (binary && (x2_ == nullptr || small_x2_ == nullptr))) {
      return Internal(std::string("bench: tsrCreateTensor: ") + tsrGetLastErrorMessage());
    }
    if (tsrCreateStream(&stream_) != TSR_SUCCESS) {
      return Internal(std::string("bench: tsrCreateStream: ") + tsrGetLastErrorMessage());
    }
    return OkStatus();
  }

 protected:
  Status ElewiseInCache(const tdev::Stream&) override {
    return Call(small_x1_, small_x2_, small_y_);
  }
  int64_t InCacheElements() const override { return std::min(n_, InCacheElementsBudget()); }
  Status Limit(const tdev::Stream& s) override {
    switch (kind_) {
      case Kind::kAdd:
      case Kind::kMul:
        return tdev::Launch(LimitConfig("limit_add"), Add2Kernel, s, out_.f(),
                            static_cast<const float*>(a_.f()), static_cast<const float*>(b_.f()),
                            n_);
      case Kind::kSigmoid:
        return CopyLimit(s, out_.get(), a_.get(), n_ * 4);
      case Kind::kCastToBf16:
        return tdev::Launch(LimitConfig("limit_narrow"), Narrow16Kernel, s,
                            static_cast<uint16_t*>(out_.get()),
                            static_cast<const uint32_t*>(a_.get()), n_);
    }
    return OkStatus();
  }
  Status Elewise(const tdev::Stream&) override { return Call(x1_, x2_, y_); }
  void Eigen() override {}
  bool HasPeer() const override { return false; }

 private:
  static double Bytes(Kind kind, int64_t n) {
    const double per = kind == Kind::kCastToBf16 ? 6.0 : kind == Kind::kSigmoid ? 8.0 : 12.0;
    return per * static_cast<double>(n);
  }

  Status Call(tsrTensor* x1, tsrTensor* x2, tsrTensor* y) {
    uint64_t ws = 0;
    tsrOpExecutor* exec = nullptr;
    tsrStatus st = TSR_SUCCESS;
    switch (kind_) {
      case Kind::kAdd:
        st = tsrAddGetWorkspaceSize(x1, x2, y, &ws, &exec);
        if (st == TSR_SUCCESS) st = tsrAdd(nullptr, ws, exec, stream_);
        break;
      case Kind::kMul:
        st = tsrMulGetWorkspaceSize(x1, x2, y, &ws, &exec);
        if (st == TSR_SUCCESS) st = tsrMul(nullptr, ws, exec, stream_);
        break;
      case Kind::kSigmoid:
        st = tsrSigmoidGetWorkspaceSize(x1, y, &ws, &exec);
        if (st == TSR_SUCCESS) st = tsrSigmoid(nullptr, ws, exec, stream_);
        break;
      case Kind::kCastToBf16:
        st = tsrCastGetWorkspaceSize(x1, TSR_BF16, y, &ws, &exec);
        if (st == TSR_SUCCESS) st = tsrCast(nullptr, ws, exec, stream_);
        break;
    }
    if (st == TSR_SUCCESS) st = tsrSynchronizeStream(stream_);
    if (st != TSR_SUCCESS) {
      return Internal(std::string("bench: ") + id() + ": " + tsrGetLastErrorMessage());
    }
    return OkStatus();
  }

  Kind kind_;
  int64_t n_;
  Buffer a_, b_, out_;
  tsrTensor *x1_ = nullptr, *x2_ = nullptr, *y_ = nullptr;
  tsrTensor *small_x1_ = nullptr, *small_x2_ = nullptr, *small_y_ = nullptr;
  tsrStream stream_ = nullptr;
};

// A built-in row operator through the two-stage C API on [rows, 4096] (SwiGlu: x [rows, 4096] ->
// y [rows, 2048]), fp32 or bf16; the limit streams the same bytes (a copy, or two reads and a
// write for SwiGlu).
class BuiltinRowOpCase final : public Case {
 public:
  enum class Kind { kRmsNorm, kLayerNorm, kSoftmax, kSwiGlu };
  BuiltinRowOpCase(std::string id, std::string title, Kind kind, int64_t rows, bool bf16)
      : Case(std::move(id), std::move(title), {rows, kCols}, bf16 ? "bfloat16" : "float32",
             (kind == Kind::kSwiGlu ? 1.5 : 2.0) * (bf16 ? 2.0 : 4.0) *
                 static_cast<double>(rows * kCols)),
        kind_(kind),
        rows_(rows),
        bf16_(bf16) {}
  ~BuiltinRowOpCase() override {
    for (tsrTensor* t : {x_t_, gamma_t_, beta_t_, y_t_, small_x_t_, small_y_t_})
      tsrDestroyTensor(t);
    if (stream_ != nullptr) tsrDestroyStream(stream_);
  }
  Status Init() {
    const int64_t out_cols = kind_ == Kind::kSwiGlu ? kCols / 2 : kCols;
    TESSERA_RETURN_IF_ERROR(x_.Fill(rows_ * kCols, bf16_, 51));
    TESSERA_RETURN_IF_ERROR(gamma_.Fill(kCols, bf16_, 52));
    TESSERA_RETURN_IF_ERROR(beta_.Fill(kCols, bf16_, 53));
    TESSERA_RETURN_IF_ERROR(out_.Fill(rows_ * out_cols, bf16_, 54));
    const tsrDataType t = bf16_ ? TSR_BF16 : TSR_FLOAT;
    const auto make = [&](void* p, std::vector<int64_t> dims) {
      return tsrCreateTensor(dims.data(), dims.size(), nullptr, t, TSR_FORMAT_ND, p);
    };
    const int64_t small_rows = InCacheElements() / kCols;
    x_t_ = make(x_.get(), {rows_, kCols});
    y_t_ = make(out_.get(), {rows_, out_cols});
    small_x_t_ = make(x_.get(), {small_rows, kCols});
    small_y_t_ = make(out_.get(), {small_rows, out_cols});
    gamma_t_ = make(gamma_.get(), {kCols});
    beta_t_ = make(beta_.get(), {kCols});
    for (tsrTensor* p : {x_t_, gamma_t_, beta_t_, y_t_, small_x_t_, small_y_t_}) {
      if (p == nullptr) {
        return Internal(std::string("bench: tsrCreateTensor: ") + tsrGetLastErrorMessage());
      }
    }
    if (tsrCreateStream(&stream_) != TSR_SUCCESS) {
      return Internal(std::string("bench: tsrCreateStream: ") + tsrGetLastErrorMessage());
    }
    return OkStatus();
  }

 protected:
  Status ElewiseInCache(const tdev::Stream&) override { return Call(small_x_t_, small_y_t_); }
  int64_t InCacheElements() const override {
    return std::min(rows_, InCacheElementsBudget() / kCols) * kCols;
  }
  Status Limit(const tdev::Stream& s) override {
    const int64_t bytes = rows_ * kCols * (bf16_ ? 2 : 4);
    if (kind_ != Kind::kSwiGlu) return CopyLimit(s, out_.get(), x_.get(), bytes);
    // Two streams in (the halves of x), one out, of bytes / 2 each.
    const int64_t n = bytes / 8;
    return tdev::Launch(LimitConfig("limit_add"), Add2Kernel, s, out_.f(),
                        static_cast<const float*>(x_.f()), static_cast<const float*>(x_.f()) + n,
                        n);
  }
  Status Elewise(const tdev::Stream&) override { return Call(x_t_, y_t_); }
  void Eigen() override {}
  bool HasPeer() const override { return false; }

 private:
  Status Call(tsrTensor* x, tsrTensor* y) {
    uint64_t ws = 0;
    tsrOpExecutor* exec = nullptr;
    tsrStatus st = TSR_SUCCESS;
    switch (kind_) {
      case Kind::kRmsNorm:
        st = tsrRmsNormGetWorkspaceSize(x, gamma_t_, kEpsilon, y, &ws, &exec);
        if (st == TSR_SUCCESS) st = tsrRmsNorm(nullptr, ws, exec, stream_);
        break;
      case Kind::kLayerNorm:
        st = tsrLayerNormGetWorkspaceSize(x, gamma_t_, beta_t_, kEpsilon, -1, y, &ws, &exec);
        if (st == TSR_SUCCESS) st = tsrLayerNorm(nullptr, ws, exec, stream_);
        break;
      case Kind::kSoftmax:
        st = tsrSoftmaxGetWorkspaceSize(x, -1, y, &ws, &exec);
        if (st == TSR_SUCCESS) st = tsrSoftmax(nullptr, ws, exec, stream_);
        break;
      case Kind::kSwiGlu:
        st = tsrSwiGluGetWorkspaceSize(x, -1, y, &ws, &exec);
        if (st == TSR_SUCCESS) st = tsrSwiGlu(nullptr, ws, exec, stream_);
        break;
    }
    if (st == TSR_SUCCESS && ws > 0) {
      return Internal("bench: " + id() + " asked for a workspace; the case passes none");
    }
    if (st == TSR_SUCCESS) st = tsrSynchronizeStream(stream_);
    if (st != TSR_SUCCESS) {
      return Internal(std::string("bench: ") + id() + ": " + tsrGetLastErrorMessage());
    }
    return OkStatus();
  }

  Kind kind_;
  int64_t rows_;
  bool bf16_;
  Buffer x_, gamma_, beta_, out_;
  tsrTensor *x_t_ = nullptr, *gamma_t_ = nullptr, *beta_t_ = nullptr, *y_t_ = nullptr;
  tsrTensor *small_x_t_ = nullptr, *small_y_t_ = nullptr;
  tsrStream stream_ = nullptr;
};
#endif

template <class C>
Result<std::unique_ptr<Case>> Made(std::unique_ptr<C> c) {
  TESSERA_RETURN_IF_ERROR(c->Init());
  return std::unique_ptr<Case>(std::move(c));
}

}  // namespace

Case::Case(std::string id, std::string title, std::vector<int64_t> shape, std::string dtype,
           double bytes)
    : id_(std::move(id)),
      title_(std::move(title)),
      shape_(std::move(shape)),
      dtype_(std::move(dtype)),
      bytes_(bytes) {}

int64_t Case::elements() const {
  int64_t n = 1;
  for (int64_t d : shape_)
    n *= d;
  return n;
}

Result<RoundTimes> Case::RunRound(const tdev::Stream& stream, bool ceiling, bool emulated) {
  RoundTimes t;
  TESSERA_ASSIGN_OR_RETURN(t.limit, TimedLaunch(stream, [&] { return Limit(stream); }));
  TESSERA_ASSIGN_OR_RETURN(t.elewise, TimedLaunch(stream, [&] { return Elewise(stream); }));
  if (emulated) {
    // The same call on the NPU profile: its plan (block count, UB tiles) is the emulated one.
    TESSERA_RETURN_IF_ERROR(tdev::SetProfile("ascend910b"));
    Result<double> e = TimedLaunch(stream, [&] { return Elewise(stream); });
    TESSERA_RETURN_IF_ERROR(tdev::SetProfile("native"));
    TESSERA_ASSIGN_OR_RETURN(t.emulated, std::move(e));
  }
  if (EigenAvailable() && HasPeer()) {
    const auto t0 = std::chrono::steady_clock::now();
    Eigen();
    t.eigen = Seconds(t0);
  }
  if (ceiling) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < kInCacheRepeats; ++k)
      TESSERA_RETURN_IF_ERROR(ElewiseInCache(stream));
    TESSERA_RETURN_IF_ERROR(stream.Synchronize());
    t.in_cache_seconds_per_element =
        Seconds(t0) / (kInCacheRepeats * static_cast<double>(InCacheElements()));
  }
  return t;
}

std::vector<std::string> CaseIds() {
  std::vector<std::string> ids = {"fma_f32",     "sigmoid_f32",  "gelu_f32",
                                  "rmsnorm_f32", "rmsnorm_bf16", "softmax_f32"};
#if TESSERA_BENCH_HAVE_BUILTIN_OPS
  for (const char* id : {"op_add_f32", "op_mul_f32", "op_sigmoid_f32", "op_cast_f32_bf16"})
    ids.emplace_back(id);
  for (const char* op : {"rmsnorm", "layernorm", "softmax", "swiglu"}) {
    for (const char* t : {"f32", "bf16"})
      ids.push_back(std::string("op_") + op + "_" + t);
  }
#endif
  return ids;
}

Result<std::unique_ptr<Case>> MakeCase(const std::string& id, double scale) {
  if (!(scale > 0) || !std::isfinite(scale)) {
    return InvalidArgument("bench: scale must be a positive number, got " + std::to_string(scale));
  }
  const auto scaled = [&](int64_t n) -> Result<int64_t> {
    const double v = std::round(static_cast<double>(n) * scale);
    if (v < 1) {
      return InvalidArgument("bench: scale " + std::to_string(scale) + " leaves case " + id +
                             " with no work");
    }
    if (v > static_cast<double>(n) * 64) {
      return InvalidArgument("bench: scale " + std::to_string(scale) + " is above 64");
    }
    return static_cast<int64_t>(v);
  };
#if TESSERA_BENCH_HAVE_EIGEN
  constexpr auto eigen_sigmoid = &EigenSigmoid;
  constexpr auto eigen_gelu = &EigenGelu;
#else
  constexpr void (*eigen_sigmoid)(const float*, float*, int64_t) = nullptr;
  constexpr void (*eigen_gelu)(const float*, float*, int64_t) = nullptr;
#endif
  if (id == "fma_f32") {
    TESSERA_ASSIGN_OR_RETURN(int64_t n, scaled(kElements));
    return Made(std::make_unique<FmaCase>(n));
  }
  if (id == "sigmoid_f32") {
    TESSERA_ASSIGN_OR_RETURN(int64_t n, scaled(kElements));
    return Made(
        std::make_unique<UnaryCase>(id, "sigmoid fp32", BenchOp::kSigmoid, n, eigen_sigmoid));
  }
  if (id == "gelu_f32") {
    TESSERA_ASSIGN_OR_RETURN(int64_t n, scaled(kElements));
    return Made(std::make_unique<UnaryCase>(id, "gelu (tanh) fp32", BenchOp::kGelu, n, eigen_gelu));
  }
  if (id == "rmsnorm_f32" || id == "rmsnorm_bf16") {
    TESSERA_ASSIGN_OR_RETURN(int64_t rows, scaled(kRows));
    return Made(std::make_unique<RmsNormCase>(rows, id == "rmsnorm_bf16"));
  }
  if (id == "softmax_f32") {
    TESSERA_ASSIGN_OR_RETURN(int64_t rows, scaled(kRows));
    return Made(std::make_unique<SoftmaxCase>(rows));
  }
#if TESSERA_BENCH_HAVE_BUILTIN_OPS
  using Kind = BuiltinOpCase::Kind;
  for (const auto& [op_id, title, kind] :
       {std::tuple{"op_add_f32", "Add fp32 (C API)", Kind::kAdd},
        std::tuple{"op_mul_f32", "Mul fp32 (C API)", Kind::kMul},
        std::tuple{"op_sigmoid_f32", "Sigmoid fp32 (C API)", Kind::kSigmoid},
        std::tuple{"op_cast_f32_bf16", "Cast fp32->bf16 (C API)", Kind::kCastToBf16}}) {
    if (id != op_id) continue;
    TESSERA_ASSIGN_OR_RETURN(int64_t n, scaled(kOpElements));
    return Made(std::make_unique<BuiltinOpCase>(id, title, kind, n));
  }
  using RowKind = BuiltinRowOpCase::Kind;
  for (const auto& [name, title, kind] : {std::tuple{"rmsnorm", "RmsNorm", RowKind::kRmsNorm},
                                          std::tuple{"layernorm", "LayerNorm", RowKind::kLayerNorm},
                                          std::tuple{"softmax", "Softmax", RowKind::kSoftmax},
                                          std::tuple{"swiglu", "SwiGlu", RowKind::kSwiGlu}}) {
    for (const bool bf16 : {false, true}) {
      if (id != std::string("op_") + name + (bf16 ? "_bf16" : "_f32")) continue;
      TESSERA_ASSIGN_OR_RETURN(int64_t rows, scaled(kRows));
      return Made(std::make_unique<BuiltinRowOpCase>(
          id, std::string(title) + (bf16 ? " bf16" : " fp32") + " (C API)", kind, rows, bf16));
    }
  }
#endif
  std::string known;
  for (const std::string& k : CaseIds())
    known.append(known.empty() ? "" : ", ").append(k);
  return InvalidArgument("bench: unknown case '" + id + "'; cases are " + known);
}

bool EigenAvailable() {
  return EigenUnavailableReason().empty();
}

std::string EigenUnavailableReason() {
#if !TESSERA_BENCH_HAVE_EIGEN
  return "Eigen 3 was not found when tessera was built";
#elif TESSERA_BENCH_PEER_NEEDS_AVX2
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    return "the Eigen peers are compiled for x86-64-v3 and this CPU lacks AVX2/FMA";
  }
  return "";
#else
  return "";
#endif
}

CaseResult Summarize(const Case& c, const std::vector<RoundTimes>& rounds) {
  std::vector<double> t_limit, t_case, t_eigen, r_limit, r_eigen, t_ceiling, r_emulated;
  for (const RoundTimes& t : rounds) {
    t_limit.push_back(t.limit);
    t_case.push_back(t.elewise);
    r_limit.push_back(t.limit / t.elewise);
    if (t.eigen) {
      t_eigen.push_back(*t.eigen);
      r_eigen.push_back(*t.eigen / t.elewise);
    }
    if (t.in_cache_seconds_per_element) t_ceiling.push_back(*t.in_cache_seconds_per_element);
    if (t.emulated) r_emulated.push_back(*t.emulated / t.elewise);
  }
  CaseResult r;
  r.id = c.id();
  r.title = c.title();
  r.shape = c.shape();
  r.dtype = c.dtype();
  r.bytes = c.bytes();
  r.rounds = static_cast<int>(rounds.size());
  r.gbps = c.bytes() / Median(t_case) * 1e-9;
  r.limit_gbps = c.bytes() / Median(t_limit) * 1e-9;
  r.ratio_limit = Median(r_limit);
  if (!t_eigen.empty()) {
    r.eigen_gbps = c.bytes() / Median(t_eigen) * 1e-9;
    r.ratio_eigen = Median(r_eigen);
  }
  if (!t_ceiling.empty()) {
    const double spe = Median(t_ceiling);
    r.ceiling_gelems = 1e-9 / spe;
    r.ceiling_gbps = c.bytes() / static_cast<double>(c.elements()) / spe * 1e-9;
    r.compute_bound = *r.ceiling_gbps < r.limit_gbps;
  }
  if (!r_emulated.empty()) r.ratio_emulated = Median(r_emulated);
  return r;
}

Result<CaseResult> Measure(Case& c, const SuiteOptions& options, const tdev::Stream& stream) {
  if (options.rounds < 1) {
    return InvalidArgument("bench: rounds must be at least 1, got " +
                           std::to_string(options.rounds));
  }
  // Warm-up: page faults, caches, the workspace and argument pools.
  TESSERA_RETURN_IF_ERROR(c.RunRound(stream, options.ceiling, options.emulated).status());
  std::vector<RoundTimes> rounds;
  for (int k = 0; k < options.rounds; ++k) {
    TESSERA_ASSIGN_OR_RETURN(RoundTimes t, c.RunRound(stream, options.ceiling, options.emulated));
    rounds.push_back(t);
  }
  return Summarize(c, rounds);
}

Result<std::vector<CaseResult>> RunSuite(const SuiteOptions& options) {
  std::vector<std::string> ids;
  for (const std::string& id : CaseIds()) {
    if (id.find(options.filter) != std::string::npos) ids.push_back(id);
  }
  if (ids.empty()) {
    std::string known;
    for (const std::string& k : CaseIds())
      known.append(known.empty() ? "" : ", ").append(k);
    return InvalidArgument("bench: filter '" + options.filter + "' matches no case; cases are " +
                           known);
  }
  tdev::Stream stream;
  std::vector<CaseResult> results;
  for (const std::string& id : ids) {
    TESSERA_ASSIGN_OR_RETURN(std::unique_ptr<Case> c, MakeCase(id, options.scale));
    TESSERA_ASSIGN_OR_RETURN(CaseResult r, Measure(*c, options, stream));
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace tessera::bench

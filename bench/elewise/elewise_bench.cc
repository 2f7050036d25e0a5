// elewise throughput on the native profile, against
//   - the limit: a plain SIMD loop with the same input/output streams and streaming stores,
//     launched the same way (one block per worker);
//   - the peer: Eigen Tensor on a ThreadPoolDevice with as many threads (eigen_peers.cc).
// Bandwidth drifts by up to 2x within seconds on a shared machine, so every benchmark alternates
// limit, elewise and Eigen runs and reports the median of the per-round ratios (ratio_limit =
// limit time / elewise time, ratio_eigen = Eigen time / elewise time) and GB/s from median times.
// BM_InCache_* measure the compute ceiling of the math-heavy cases on L2-resident data.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "eigen_peers.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tessera/elewise/elewise.h"
#include "tessera/elewise/ops.h"

namespace {

using namespace tessera;
using namespace tessera::elewise;
namespace tdev = tessera::device;

constexpr int64_t kElements = int64_t{64} << 20;
constexpr int64_t kRows = 16384;
constexpr int64_t kCols = 4096;

// ---- operators under test ------------------------------------------------------------------

struct FmaCompute {
  template <template <class> class T>
  constexpr auto Compute() const {
    auto a = PlaceHolder<1, T<float>>();
    auto b = PlaceHolder<2, T<float>>();
    auto c = PlaceHolder<3, T<float>>();
    auto out = PlaceHolder<4, T<float>, ParamUsage::OUT>();
    return (out = a * b + c);
  }
};

struct SigmoidCompute {
  template <template <class> class T>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, T<float>>();
    auto out = PlaceHolder<2, T<float>, ParamUsage::OUT>();
    return (out = Sigmoid(x));
  }
};

struct GeluCompute {
  template <template <class> class T>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, T<float>>();
    auto out = PlaceHolder<2, T<float>, ParamUsage::OUT>();
    return (out = Gelu(x));
  }
};

template <class C>
using Op = DeviceAdapter<KernelBuilder<BlockBuilder<C>>>;

// ---- buffers -------------------------------------------------------------------------------

void* DeviceFill(int64_t bytes, uint32_t seed) {
  void* p = *tdev::Malloc(static_cast<size_t>(bytes));
  std::vector<float> h(static_cast<size_t>(bytes / 4));
  uint32_t s = seed;
  for (float& v : h) {
    s = s * 1664525u + 1013904223u;
    v = static_cast<float>(s >> 8) * (1.0f / 16777216.0f) * 4.0f - 2.0f;
  }
  (void)tdev::Memcpy(p, static_cast<size_t>(bytes), h.data(), static_cast<size_t>(bytes),
                     tdev::MemcpyKind::kHostToDevice);
  return p;
}

struct Buffers {
  float* a;
  float* b;
  float* c;
  float* out;
  float* gamma;
  void* bf_x;  // bfloat16 [kRows, kCols]
  void* bf_gamma;
  void* bf_out;
  static Buffers& Get() {
    static Buffers* b = [] {
      auto* x = new Buffers();
      x->a = static_cast<float*>(DeviceFill(kElements * 4, 1));
      x->b = static_cast<float*>(DeviceFill(kElements * 4, 2));
      x->c = static_cast<float*>(DeviceFill(kElements * 4, 3));
      x->out = static_cast<float*>(DeviceFill(kElements * 4, 4));
      x->gamma = static_cast<float*>(DeviceFill(kCols * 4, 5));
      x->bf_x = DeviceFill(kRows * kCols * 2, 6);  // bit patterns of small random floats
      x->bf_gamma = DeviceFill(kCols * 2, 7);
      x->bf_out = DeviceFill(kRows * kCols * 2, 8);
      // Make the bfloat16 buffers hold ordinary values (the top halves of the fp32 fill).
      auto* bx = static_cast<uint16_t*>(x->bf_x);
      for (int64_t i = 0; i < kRows * kCols; ++i)
        bx[i] = 0x3F80 | (bx[i] & 0x807F);
      auto* bg = static_cast<uint16_t*>(x->bf_gamma);
      for (int64_t i = 0; i < kCols; ++i)
        bg[i] = 0x3F80 | (bg[i] & 0x007F);
      return x;
    }();
    return *b;
  }
};

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
  for (; i + 16 <= end; i += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i)));
  }
  _mm_sfence();
#endif
  for (; i < end; ++i)
    out[i] = x[i];
}

Status LaunchFmaLimit(const tdev::Stream& s) {
  Buffers& b = Buffers::Get();
  return tdev::Launch(
      tdev::LaunchConfig{tdev::WorkerThreads(), tdev::KernelType::kAiv, "limit_fma"}, Fma3Kernel, s,
      b.out, static_cast<const float*>(b.a), static_cast<const float*>(b.b),
      static_cast<const float*>(b.c), kElements);
}

Status LaunchCopyLimit(const tdev::Stream& s, void* out, const void* in, int64_t bytes) {
  return tdev::Launch(
      tdev::LaunchConfig{tdev::WorkerThreads(), tdev::KernelType::kAiv, "limit_copy"}, CopyKernel,
      s, static_cast<char*>(out), static_cast<const char*>(in), bytes);
}

// ---- the alternating comparison ------------------------------------------------------------

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

void Compare(benchmark::State& state, double bytes, const std::function<Status()>& limit,
             const std::function<Status()>& elewise, const std::function<void()>& eigen) {
  tdev::Stream stream;
  const auto timed = [&](const std::function<Status()>& launch) {
    const auto t0 = std::chrono::steady_clock::now();
    Status st = launch();
    if (st.ok()) st = stream.Synchronize();
    if (!st.ok()) state.SkipWithError(st.ToString().c_str());
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::vector<double> t_limit, t_case, t_eigen, r_limit, r_eigen;
  for (auto _ : state) {
    const double l = timed(limit);
    const double c = timed(elewise);
    const auto t0 = std::chrono::steady_clock::now();
    eigen();
    const double e = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t_limit.push_back(l);
    t_case.push_back(c);
    t_eigen.push_back(e);
    r_limit.push_back(l / c);
    r_eigen.push_back(e / c);
  }
  state.counters["GBps"] = bytes / Median(t_case) * 1e-9;
  state.counters["limit_GBps"] = bytes / Median(t_limit) * 1e-9;
  state.counters["eigen_GBps"] = bytes / Median(t_eigen) * 1e-9;
  state.counters["ratio_limit"] = Median(r_limit);
  state.counters["ratio_eigen"] = Median(r_eigen);
}

TensorArg F32(void* p, std::initializer_list<int64_t> dims) {
  return TensorArg{p, DataType::kFloat32, *Shape::Make(dims), 0};
}
TensorArg Bf16(void* p, std::initializer_list<int64_t> dims) {
  return TensorArg{p, DataType::kBfloat16, *Shape::Make(dims), 0};
}

void BM_FmaF32(benchmark::State& state) {
  Buffers& b = Buffers::Get();
  Op<FmaCompute> op;
  const auto args = ArgumentsBuilder{}
                        .inputOutput(F32(b.a, {kElements}), F32(b.b, {kElements}),
                                     F32(b.c, {kElements}), F32(b.out, {kElements}))
                        .build();
  tdev::Stream s;
  Compare(
      state, 16.0 * kElements, [&] { return LaunchFmaLimit(s); }, [&] { return op.Run(args, s); },
      [&] { bench::EigenFma(b.a, b.b, b.c, b.out, kElements); });
}

template <class C, void (*Eigen)(const float*, float*, int64_t)>
void UnaryCase(benchmark::State& state) {
  Buffers& b = Buffers::Get();
  Op<C> op;
  const auto args =
      ArgumentsBuilder{}.inputOutput(F32(b.a, {kElements}), F32(b.out, {kElements})).build();
  tdev::Stream s;
  Compare(
      state, 8.0 * kElements, [&] { return LaunchCopyLimit(s, b.out, b.a, kElements * 4); },
      [&] { return op.Run(args, s); }, [&] { Eigen(b.a, b.out, kElements); });
}

void BM_SigmoidF32(benchmark::State& state) {
  UnaryCase<SigmoidCompute, bench::EigenSigmoid>(state);
}
void BM_GeluF32(benchmark::State& state) {
  UnaryCase<GeluCompute, bench::EigenGelu>(state);
}

void BM_RmsNormF32(benchmark::State& state) {
  Buffers& b = Buffers::Get();
  ops::RmsNorm<float> op;
  const auto args =
      ArgumentsBuilder{}
          .inputOutput(F32(b.a, {kRows, kCols}), F32(b.gamma, {kCols}), F32(b.out, {kRows, kCols}))
          .attr("epsilon", 1e-6)
          .build();
  tdev::Stream s;
  Compare(
      state, 8.0 * kRows * kCols, [&] { return LaunchCopyLimit(s, b.out, b.a, kRows * kCols * 4); },
      [&] { return op.Run(args, s); },
      [&] { bench::EigenRmsNorm(b.a, b.gamma, b.out, kRows, kCols, 1e-6f); });
}

void BM_RmsNormBf16(benchmark::State& state) {
  Buffers& b = Buffers::Get();
  ops::RmsNorm<bfloat16> op;
  const auto args = ArgumentsBuilder{}
                        .inputOutput(Bf16(b.bf_x, {kRows, kCols}), Bf16(b.bf_gamma, {kCols}),
                                     Bf16(b.bf_out, {kRows, kCols}))
                        .attr("epsilon", 1e-6)
                        .build();
  tdev::Stream s;
  Compare(
      state, 4.0 * kRows * kCols,
      [&] { return LaunchCopyLimit(s, b.bf_out, b.bf_x, kRows * kCols * 2); },
      [&] { return op.Run(args, s); },
      [&] { bench::EigenRmsNormBf16(b.bf_x, b.bf_gamma, b.bf_out, kRows, kCols, 1e-6f); });
}

void BM_SoftmaxF32(benchmark::State& state) {
  Buffers& b = Buffers::Get();
  ops::Softmax<float> op;
  const auto args =
      ArgumentsBuilder{}.inputOutput(F32(b.a, {kRows, kCols}), F32(b.out, {kRows, kCols})).build();
  tdev::Stream s;
  Compare(
      state, 8.0 * kRows * kCols, [&] { return LaunchCopyLimit(s, b.out, b.a, kRows * kCols * 4); },
      [&] { return op.Run(args, s); }, [&] { bench::EigenSoftmax(b.a, b.out, kRows, kCols); });
}

// Compute ceiling: the same operator on 1M floats (in + out = 8 MB, cache-resident), ten
// launches per iteration so launch latency is amortised.
template <class C>
void InCache(benchmark::State& state) {
  Buffers& b = Buffers::Get();
  constexpr int64_t n = int64_t{1} << 20;
  Op<C> op;
  const auto args = ArgumentsBuilder{}.inputOutput(F32(b.a, {n}), F32(b.out, {n})).build();
  tdev::Stream s;
  for (auto _ : state) {
    Status st;
    for (int k = 0; k < 10 && st.ok(); ++k)
      st = op.Run(args, s);
    if (st.ok()) st = s.Synchronize();
    if (!st.ok()) state.SkipWithError(st.ToString().c_str());
  }
  state.SetBytesProcessed(state.iterations() * 10 * n * 8);
  state.SetItemsProcessed(state.iterations() * 10 * n);
}
void BM_InCache_Sigmoid(benchmark::State& state) {
  InCache<SigmoidCompute>(state);
}
void BM_InCache_Gelu(benchmark::State& state) {
  InCache<GeluCompute>(state);
}

BENCHMARK(BM_FmaF32)->Iterations(25)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SigmoidF32)->Iterations(25)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GeluF32)->Iterations(25)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RmsNormF32)->Iterations(25)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RmsNormBf16)->Iterations(25)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SoftmaxF32)->Iterations(25)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_InCache_Sigmoid)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_InCache_Gelu)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

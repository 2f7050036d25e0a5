// Many host threads calling the two-stage API at once, each on its own stream, with mixed ops,
// shapes and dtypes; every result is checked. Run under ThreadSanitizer in CI.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include "tessera/core/float16.h"
#include "tessera/device/memory.h"
#include "tessera/runtime/op_runtime.h"

namespace tessera::runtime {
namespace {

TensorDesc Desc(DataType t, int64_t n) {
  return TensorDesc{t, *Shape::Make({n}), Format::kND, {}};
}

// One call on `stream`: y = op(x1[, x2]) for float32 or bfloat16; returns the max error.
double CallOnce(const std::string& op, DataType dtype, int64_t n, std::mt19937& rng,
                const device::Stream& stream, bool* ok) {
  const size_t elem = DataTypeSize(dtype);
  std::uniform_real_distribution<float> dist(0.5f, 4.0f);
  std::vector<float> a(n), b(n);
  for (int64_t i = 0; i < n; ++i)
    a[i] = dist(rng), b[i] = dist(rng);
  std::vector<uint8_t> ha(n * elem), hb(n * elem);
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == DataType::kBfloat16) {
      a[i] = static_cast<float>(bfloat16(a[i]));
      b[i] = static_cast<float>(bfloat16(b[i]));
      reinterpret_cast<bfloat16*>(ha.data())[i] = bfloat16(a[i]);
      reinterpret_cast<bfloat16*>(hb.data())[i] = bfloat16(b[i]);
    } else {
      reinterpret_cast<float*>(ha.data())[i] = a[i];
      reinterpret_cast<float*>(hb.data())[i] = b[i];
    }
  }
  const size_t bytes = n * elem;
  void* x1 = *device::Malloc(bytes);
  void* x2 = *device::Malloc(bytes);
  void* y = *device::Malloc(bytes);
  (void)device::MemcpyAsync(x1, bytes, ha.data(), bytes, device::MemcpyKind::kHostToDevice, stream);
  (void)device::MemcpyAsync(x2, bytes, hb.data(), bytes, device::MemcpyKind::kHostToDevice, stream);
  OpCall call;
  call.op_type = op;
  call.inputs.push_back(TensorArg{Desc(dtype, n), x1});
  if (op == "Add" || op == "Mul") call.inputs.push_back(TensorArg{Desc(dtype, n), x2});
  call.outputs.push_back(TensorArg{Desc(dtype, n), y});
  uint64_t ws = 0;
  double worst = 0;
  auto exec = PrepareOp(call, &ws);
  *ok = exec.ok() && ExecuteOp(**exec, nullptr, 0, stream).ok();
  std::vector<uint8_t> hy(bytes);
  *ok = *ok &&
        device::MemcpyAsync(hy.data(), bytes, y, bytes, device::MemcpyKind::kDeviceToHost, stream)
            .ok();
  *ok = *ok && stream.Synchronize().ok();
  for (int64_t i = 0; *ok && i < n; ++i) {
    const double got = dtype == DataType::kBfloat16
                           ? static_cast<float>(reinterpret_cast<bfloat16*>(hy.data())[i])
                           : reinterpret_cast<float*>(hy.data())[i];
    const double want = op == "Add"   ? double{a[i]} + b[i]
                        : op == "Mul" ? double{a[i]} * b[i]
                                      : std::sqrt(double{a[i]});
    worst = std::max(worst, std::fabs(got - want) / std::fabs(want));
  }
  for (void* p : {x1, x2, y})
    (void)device::Free(p);
  return worst;
}

TEST(ConcurrencyTest, EightThreadsMixedCalls) {
  constexpr int kThreads = 8;
  constexpr int kCalls = 250;
  std::atomic<int> failures{0};
  std::atomic<int> calls{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures, &calls] {
      auto stream = device::Stream::Create();
      std::mt19937 rng(static_cast<unsigned>(t));
      const char* ops[] = {"Add", "Mul", "Sqrt"};
      const int64_t sizes[] = {1, 7, 33, 1024, 4097};
      for (int i = 0; i < kCalls; ++i) {
        const std::string op = ops[(i + t) % 3];
        const DataType dtype = (i % 2) ? DataType::kBfloat16 : DataType::kFloat32;
        bool ok = false;
        const double err = CallOnce(op, dtype, sizes[(i * 7 + t) % 5], rng, *stream, &ok);
        const double tolerance = dtype == DataType::kBfloat16 ? 1.0 / 128 : 1e-6;
        if (!ok || err > tolerance) failures.fetch_add(1);
        calls.fetch_add(1);
      }
    });
  }
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(calls.load(), kThreads * kCalls);
  // Only a few distinct (op, dtype, shape) keys exist: almost every call was a cache hit.
  const RuntimeStats s = GetRuntimeStats();
  EXPECT_LE(s.tiling_calls, 3u * 2u * 5u);
}

}  // namespace
}  // namespace tessera::runtime

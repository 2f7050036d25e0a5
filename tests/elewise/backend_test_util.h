// The harness of the back-end equality tests: one call's device buffers (random inputs shared
// by both back ends, an output copy per back end with guard bytes after it) and the check that
// the interpreter (BlockBuilder) and the compiled engine (CompiledBlockBuilder) wrote the same
// bytes. The test files are built with the build machine's -march, so the compiled code runs.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tessera/core/float16.h"
#include "tessera/device/device.h"
#include "tessera/device/memory.h"
#include "tessera/device/stream.h"
#include "tessera/elewise/compiled.h"

namespace tessera::elewise::backend_test {

using namespace ::tessera::elewise;

using fused::AR;

inline constexpr size_t kGuardBytes = 64;

// Device buffers of one call: random inputs shared by both back ends, one copy of every output
// per back end (pre-filled with the same guard pattern).
class Call {
 public:
  ~Call() {
    for (void* p : owned_)
      (void)device::Free(p);
  }

  // Input tensor of `shape` with element `strides` (empty: dense) or `row_stride` (0: dense).
  Call& In(DataType t, std::vector<int64_t> shape, std::vector<int64_t> strides = {},
           int64_t row_stride = 0, double lo = -4.0, double hi = 4.0) {
    int64_t span = 1;
    if (!strides.empty()) {
      for (size_t k = 0; k < shape.size(); ++k)
        span += (shape[k] - 1) * strides[k];
    } else {
      for (int64_t d : shape)
        span *= d;
      if (row_stride > 0) span = (span / shape.back() - 1) * row_stride + shape.back();
    }
    void* p = Alloc(static_cast<size_t>(span) * DataTypeSize(t));
    std::uniform_real_distribution<double> dist(lo, hi);
    for (int64_t i = 0; i < span; ++i) {
      const double v = dist(rng_);
      char* at = static_cast<char*>(p) + i * DataTypeSize(t);
      switch (t) {
        case DataType::kFloat16: {
          const uint16_t b = FloatToHalfBits(static_cast<float>(v));
          std::memcpy(at, &b, 2);
          break;
        }
        case DataType::kBfloat16: {
          const uint16_t b = FloatToBfloat16Bits(static_cast<float>(v));
          std::memcpy(at, &b, 2);
          break;
        }
        case DataType::kInt32: {
          const auto i32 = static_cast<int32_t>(std::floor(v * 1000.0));
          std::memcpy(at, &i32, 4);
          break;
        }
        default: {
          const auto f = static_cast<float>(v);
          std::memcpy(at, &f, 4);
        }
      }
    }
    TensorArg a{p, t, *Shape::Make(shape), row_stride, std::move(strides)};
    for (auto& params : params_)
      params.emplace_back(a);
    return *this;
  }
  Call& Out(DataType t, std::vector<int64_t> shape) {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    const size_t bytes = static_cast<size_t>(n) * DataTypeSize(t);
    for (int b = 0; b < 2; ++b) {
      void* p = Alloc(bytes + kGuardBytes);
      std::memset(p, 0xA5, bytes + kGuardBytes);
      outputs_[b].push_back({p, bytes + kGuardBytes});
      params_[b].emplace_back(TensorArg{p, t, *Shape::Make(shape), 0, {}});
    }
    return *this;
  }
  Call& Scalar(float v) {
    for (auto& params : params_)
      params.emplace_back(ScalarArg{DataType::kFloat32, v, 0});
    return *this;
  }
  Call& Attr(std::string name, double v) {
    attrs_.Set(std::move(name), v);
    return *this;
  }

  Arguments For(int backend) const { return Arguments{params_[backend], attrs_}; }

  void ExpectSameOutputs() const {
    ASSERT_EQ(outputs_[0].size(), outputs_[1].size());
    for (size_t k = 0; k < outputs_[0].size(); ++k) {
      const auto* a = static_cast<const unsigned char*>(outputs_[0][k].first);
      const auto* b = static_cast<const unsigned char*>(outputs_[1][k].first);
      const size_t n = outputs_[0][k].second;
      size_t i = 0;
      while (i < n && a[i] == b[i])
        ++i;
      EXPECT_EQ(i, n) << "output " << k << " differs at byte " << i << " of " << n
                      << " (interpreter " << int{a[i]} << ", compiled " << int{b[i]} << ")";
      for (size_t g = n - kGuardBytes; g < n; ++g)
        ASSERT_EQ(b[g], 0xA5) << "output " << k << ": the compiled back end wrote past the end";
    }
  }

 private:
  void* Alloc(size_t bytes) {
    void* p = *device::Malloc(bytes);
    owned_.push_back(p);
    return p;
  }

  std::mt19937 rng_{12345};
  std::vector<Argument> params_[2];
  std::vector<std::pair<void*, size_t>> outputs_[2];
  Attributes attrs_;
  std::vector<void*> owned_;
};

template <class C>
void ExpectBackendsAgree(const Call& call) {
  using Interpreted = DeviceAdapter<KernelBuilder<BlockBuilder<C>>>;
  using Compiled = DeviceAdapter<KernelBuilder<CompiledBlockBuilder<C>>>;
  if (device::CheckedMode()) GTEST_SKIP() << "checked mode runs the interpreter for both back ends";
  ASSERT_TRUE(CompiledBlockBuilder<C>::UsesCompiledCode() ||
              !compiled::Covers(BlockBuilder<C>::Program()))
      << "the compiled back end should run here (built with the machine's -march)";
  const Result<device::Stream> stream = device::Stream::Create();
  ASSERT_TRUE(stream.ok());
  Interpreted interpreted;
  Compiled compiled;
  const Status a = interpreted.run(call.For(0), *stream);
  ASSERT_TRUE(a.ok()) << a.ToString();
  const Status b = compiled.run(call.For(1), *stream);
  ASSERT_TRUE(b.ok()) << b.ToString();
  const Status s = stream->Synchronize();
  ASSERT_TRUE(s.ok()) << s.ToString();
  call.ExpectSameOutputs();
}

template <class T>
constexpr DataType kType = expr::DataTypeOf<T>();

}  // namespace tessera::elewise::backend_test

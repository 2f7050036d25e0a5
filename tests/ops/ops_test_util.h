// Helpers for the built-in op tests: create an op from the op library's factories, run its tiling
// function, find its kernel entry by (kernel name, tiling key) and launch it on device memory -
// the runtime's path, without packages - plus typed host data and scalar references.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "builtin_op_factories.h"
#include "tessera/core/data_type.h"
#include "tessera/core/float16.h"
#include "tessera/core/tensor_desc.h"
#include "tessera/kernel/kernel_entry.h"
#include "tessera/runtime/op_def.h"
#include "tessera/runtime/tiling_context.h"

namespace tessera::ops::testing {

// Every entry of the kernel library.
std::vector<device::KernelEntryInfo> AllEntries();
// The entry (kernel, key) or nullptr.
const device::KernelEntryInfo* FindEntry(const std::string& kernel, uint64_t key);

// The platform of the active device profile.
runtime::PlatformInfo CurrentPlatform();

struct OpResult {
  std::vector<uint8_t> y;  // the output's bytes
  uint64_t tiling_key = 0;
  uint32_t block_dim = 0;
};

// Validates op `type`, runs its tiling on `inputs`/`output`/`attrs`, launches the entry for the
// tiling key on device copies of `input_bytes` and returns the output. Every failure (tiling,
// missing entry, kernel error) is the returned Status.
Result<OpResult> RunOp(const std::string& type, const std::vector<TensorDesc>& inputs,
                       const std::vector<std::vector<uint8_t>>& input_bytes,
                       const TensorDesc& output,
                       const std::map<std::string, runtime::AttrValue>& attrs = {},
                       const runtime::PlatformInfo& platform = CurrentPlatform());

// Runs only the tiling function (for error tests).
Status TilingOnly(const std::string& type, const std::vector<TensorDesc>& inputs,
                  const TensorDesc& output,
                  const std::map<std::string, runtime::AttrValue>& attrs = {});

TensorDesc Desc(DataType dtype, const std::vector<int64_t>& dims);
int64_t Numel(const std::vector<int64_t>& dims);

inline bool Contains(const Status& s, const std::string& needle) {
  return std::string(s.message()).find(needle) != std::string::npos;
}

template <class T>
std::vector<uint8_t> ToBytes(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}
template <class T>
std::vector<T> FromBytes(const std::vector<uint8_t>& b) {
  std::vector<T> out(b.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), b.data(), b.size());
  return out;
}

// Uniform random values in [lo, hi] (integers for int32), converted to T.
template <class T>
std::vector<T> Random(size_t n, double lo, double hi, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> out(n);
  if constexpr (std::is_same_v<T, int32_t>) {
    std::uniform_int_distribution<int64_t> dist(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
    for (auto& v : out)
      v = static_cast<int32_t>(dist(rng));
  } else {
    std::uniform_real_distribution<double> dist(lo, hi);
    for (auto& v : out)
      v = T(static_cast<float>(dist(rng)));
  }
  return out;
}

// Bit-level equality (NaN equals NaN of any payload) for exact results.
template <class T>
bool SameValue(T a, T b) {
  if constexpr (std::is_same_v<T, int32_t>) {
    return a == b;
  } else {
    const float fa = static_cast<float>(a), fb = static_cast<float>(b);
    if (fa != fa && fb != fb) return true;
    uint32_t ba, bb;
    std::memcpy(&ba, &fa, 4);
    std::memcpy(&bb, &fb, 4);
    return ba == bb;
  }
}

// Relative tolerance of one rounding to T after an fp32 result within ~1 ulp (for the
// transcendental ops), plus an absolute floor of T's smallest subnormal.
template <class T>
constexpr long double kRelTol = std::is_same_v<T, float>  ? 0x1p-22L
                                : std::is_same_v<T, half> ? 0x1p-10L
                                                          : 0x1p-7L;
template <class T>
constexpr long double kAbsTol = std::is_same_v<T, half> ? 0x1p-24L : 0x1p-149L;

template <class T>
bool Close(T got, long double ref) {
  const long double g = static_cast<float>(got);
  if (ref != ref) return g != g;
  if (ref == static_cast<long double>(INFINITY) || ref == -static_cast<long double>(INFINITY)) {
    return g == ref;
  }
  const long double diff = g > ref ? g - ref : ref - g;
  return diff <= kRelTol<T> * (ref < 0 ? -ref : ref) + kAbsTol<T>;
}

// Sets checked mode for its lifetime, then restores the previous mode.
class CheckedScope {
 public:
  explicit CheckedScope(bool on);
  ~CheckedScope();
  CheckedScope(const CheckedScope&) = delete;
  CheckedScope& operator=(const CheckedScope&) = delete;

 private:
  bool previous_;
};

}  // namespace tessera::ops::testing

// Shared by the advanced-API headers: checked-mode range checks on LocalTensor views and the
// fp32 round trip that half / bfloat16 computations go through.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/core/float16.h"
#include "tessera/kernel/kernel.h"

namespace tessera::compat::adv {

using kernel::LocalTensor;

// Checked mode: fails the block unless `count` elements fit in `t` (a live buffer). Reads are
// checked as reads; `Written` also marks the elements as written for the unwritten-output check.
template <class T>
void CheckRead(const LocalTensor<T>& t, uint64_t count, const char* api, const char* role) {
  if (!t.checked()) return;
  t.CheckRange(count, api, role);
  kernel::detail::ShadowCheckRead(t.data(), count * sizeof(T), t.data(), sizeof(T), t.GetPosition(),
                                  api, role);
}
template <class T>
void CheckWrite(const LocalTensor<T>& t, uint64_t count, const char* api) {
  if (t.checked()) t.CheckRange(count, api, "dst");
}
template <class T>
void CheckSpace(const LocalTensor<T>& t, uint64_t count, const char* api, const char* role) {
  if (t.checked()) t.CheckRange(count, api, role);
}
// Fails the block (in both modes) when a shape or parameter cannot be computed.
inline void Require(bool ok, const char* api, const std::string& message) {
  if (!ok) kernel::KernelFail(api, message);
}

template <class T>
inline constexpr bool kIsFloating =
    std::is_same_v<T, float> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

template <class T>
float ToF32(T v) {
  return static_cast<float>(v);
}
template <class T>
T FromF32(float v) {
  return static_cast<T>(v);
}

// Elements of T in one 32-byte block, and `n` rounded up to whole blocks.
template <class T>
constexpr uint32_t AlignToBlock(uint32_t n) {
  constexpr uint32_t per = 32 / sizeof(T);
  return (n + per - 1) / per * per;
}

}  // namespace tessera::compat::adv

// The vendor's headers see the kernel layer's names inside AscendC (kernel_operator.h says the
// same after including the advanced APIs).
namespace AscendC {
using namespace ::tessera::kernel;
}  // namespace AscendC

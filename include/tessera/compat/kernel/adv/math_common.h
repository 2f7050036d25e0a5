// Shared pieces of the vendor's advanced math and activation APIs (compat/kernel/adv): argument
// checks in checked mode (TESSERA_CHECK=1: a count beyond a tensor fails the block, naming the
// API) and the calls into the Highway kernels of math_dispatch.h.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/compat/kernel/adv/detail/math_dispatch.h"
#include "tessera/kernel/detail/pipe_phase.h"
#include "tessera/kernel/detail/vector_dispatch.h"
#include "tessera/kernel/local_tensor.h"

namespace tessera::compat::adv {

template <class T>
inline constexpr bool kFloat = ::tessera::kernel::vec::kIsFloatType<T>;

template <class T>
using Local = ::tessera::kernel::LocalTensor<T>;

// dst and every tensor source hold `count` elements; marks dst's elements written.
template <class T, class... S>
void CheckOperands(const char* api, uint32_t count, const Local<T>& dst, const S&... srcs) {
  if (!dst.checked()) return;
  dst.CheckRange(count, api, "dst");
  (srcs.CheckRange(count, api, "src"), ...);
  ::tessera::kernel::detail::ShadowWritten(dst.data(), uint64_t{count} * sizeof(T));
}

template <class T>
void RunUnary(UnaryFn fn, const char* api, const Local<T>& dst, const Local<T>& src, uint32_t count,
              float param = 0.0f) {
  static_assert(kFloat<T>, "this API takes float, half or bfloat16_t tensors");
  const ::tessera::kernel::detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  CheckOperands(api, count, dst, src);
  if (count > 0) {
    Unary(fn, ::tessera::kernel::vec::DTypeOf<T>(), dst.data(), src.data(), count, param);
  }
}

// An operand that is a tensor or a scalar: its data (nullptr for a scalar) and its value as a
// float (0 for a tensor).
template <class T, class B>
const void* DataOf(const B& b) {
  if constexpr (std::is_same_v<B, Local<T>>) {
    return b.data();
  } else {
    return nullptr;
  }
}
template <class T, class B>
float ScalarOf(const B& b) {
  if constexpr (std::is_same_v<B, Local<T>>) {
    return 0.0f;
  } else {
    return static_cast<float>(b);
  }
}
template <class T, class A>
void CheckIfTensor(const char* api, uint32_t count, const A& a) {
  if constexpr (std::is_same_v<A, Local<T>>) {
    if (a.checked()) a.CheckRange(count, api, "src");
  }
}

template <class T, class A, class B>
void RunBinary(BinaryFn fn, const char* api, const Local<T>& dst, const A& a, const B& b,
               uint32_t count, float param = 0.0f) {
  static_assert(kFloat<T>, "this API takes float, half or bfloat16_t tensors");
  const ::tessera::kernel::detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  CheckOperands(api, count, dst);
  CheckIfTensor<T>(api, count, a);
  CheckIfTensor<T>(api, count, b);
  if (count > 0) {
    Binary(fn, ::tessera::kernel::vec::DTypeOf<T>(), dst.data(), DataOf<T>(a), DataOf<T>(b), count,
           ScalarOf<T>(a), ScalarOf<T>(b), param);
  }
}

}  // namespace tessera::compat::adv

// The portable Mmad: plain loops over the fractal layouts, one dot product per C element.
#include <cstring>
#include <type_traits>

#include "mmad_kernels.h"
#include "mmad_layout.h"
#include "tessera/core/float16.h"

namespace tessera::kernel::detail {
namespace {

template <typename In>
float ToFloat(In v) {
  if constexpr (sizeof(In) == 2) {
    return static_cast<float>(v);
  } else {
    return v;
  }
}

template <typename In, typename Acc>
void ScalarMmad(const MmadCall& call) {
  constexpr uint32_t c0 = 32 / sizeof(In);
  const auto* a = static_cast<const In*>(call.a);
  const auto* b = static_cast<const In*>(call.b);
  auto* c = static_cast<Acc*>(call.c);
  const auto* bias = static_cast<const Acc*>(call.bias);
  const uint32_t k1 = (call.k + c0 - 1) / c0;
  const uint32_t n1 = (call.n + 15) / 16;
  const uint32_t mp = (call.m + 15) / 16 * 16;
  for (uint32_t i = 0; i < call.m; ++i) {
    for (uint32_t j = 0; j < call.n; ++j) {
      Acc* out = c + L0cOffset(i, j, mp);
      // Integers accumulate in int64 and wrap to int32 at the end (the cube's s32 accumulator
      // cannot overflow for k <= 4095 anyway); floats accumulate in f32 in k order.
      using Sum = std::conditional_t<std::is_integral_v<Acc>, int64_t, float>;
      Sum sum = call.accumulate ? Sum(*out) : (bias != nullptr ? Sum(bias[j]) : Sum(0));
      for (uint32_t kk = 0; kk < call.k; ++kk) {
        const In av = call.m == 1 ? a[kk] : a[L0aOffset(i, kk, k1, c0)];
        const In bv = b[L0bOffset(kk, j, n1, c0)];
        if constexpr (std::is_integral_v<Acc>) {
          sum += int64_t(av) * int64_t(bv);
        } else {
          sum += ToFloat(av) * ToFloat(bv);
        }
      }
      if constexpr (std::is_integral_v<Acc>) {
        const auto bits = static_cast<uint32_t>(static_cast<uint64_t>(sum));
        std::memcpy(out, &bits, sizeof(bits));
      } else {
        *out = sum;
      }
    }
  }
}

}  // namespace

void RunMmadScalar(const MmadCall& call) {
  switch (call.kind) {
    case MmadKind::kF32:
      ScalarMmad<float, float>(call);
      break;
    case MmadKind::kF16:
      ScalarMmad<half, float>(call);
      break;
    case MmadKind::kBF16:
      ScalarMmad<bfloat16, float>(call);
      break;
    case MmadKind::kS8:
      ScalarMmad<int8_t, int32_t>(call);
      break;
  }
}

}  // namespace tessera::kernel::detail

// The vendor's advanced math APIs (adv_api/math/*.h) in namespace AscendC, on tessera's kernel
// layer. Floating functions run the Highway kernels over tessera's one math library
// (tessera/kernel/detail/math-inl.h; max ulp per function in docs/ascendc_adv_math.md); half and
// bfloat16_t are computed in fp32 and rounded once. The temporary buffer (`sharedTmpBuffer`) and
// `isReuseSource` forms are accepted for source compatibility: tessera needs no scratch space, so
// the host queries (tiling/math/*.h) report 0 bytes. Forms without calCount process
// src.GetSize() elements. Checked mode (TESSERA_CHECK=1) fails the block when a count leaves a
// tensor, naming the API.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/compat/kernel/adv/math_common.h"
#include "tessera/kernel/vector.h"

namespace AscendC {
// Declared in a nested namespace that AscendC imports, so that a qualified AscendC::Name finds
// these overloads together with the kernel layer's same-named instructions (Exp, Sigmoid, Axpy,
// ...) instead of hiding them.
namespace adv_api {

using ::tessera::kernel::LocalTensor;

// ---- Configuration types (accepted; tessera's results do not depend on the algorithm choice
// beyond the accuracy stated per function).
enum class PowerAlgo { INTRINSIC = 0, DOUBLE_FLOAT_TECH = 1 };
struct PowerConfig {
  PowerAlgo algo = PowerAlgo::INTRINSIC;
};
constexpr PowerConfig defaultPowerConfig = {PowerAlgo::INTRINSIC};

constexpr uint32_t FMOD_ITERATION_NUM_MAX = 11;
enum class FmodAlgo { NORMAL = 0, ITERATION_COMPENSATION = 1 };
struct FmodConfig {
  FmodAlgo algo = FmodAlgo::NORMAL;
  uint32_t iterationNum = FMOD_ITERATION_NUM_MAX;
};
constexpr FmodConfig DEFAULT_FMOD_CONFIG = {FmodAlgo::NORMAL, FMOD_ITERATION_NUM_MAX};

enum class ErfAlgo { PADE_APPROXIMATION = 0, SUBSECTION_POLYNOMIAL_APPROXIMATION = 1 };
struct ErfConfig {
  ErfAlgo algo = ErfAlgo::PADE_APPROXIMATION;
};
constexpr ErfConfig defaultErfConfig = {ErfAlgo::PADE_APPROXIMATION};

struct RintConfig {
  bool isReuseSource;
};
constexpr RintConfig DEFAULT_RINT_CONFIG = {false};
struct FmaConfig {
  bool isReuseSource;
};
constexpr FmaConfig DEFAULT_FMA_CONFIG = {false};
struct ClampConfig {
  bool isReuseSource;
};
constexpr ClampConfig DEFAULT_CLAMP_CONFIG = {false};
struct BitwiseAndConfig {
  bool isReuseSource;
};
constexpr BitwiseAndConfig DEFAULT_BITWISE_AND_CONFIG = {false};
struct LogicalAndConfig {
  bool isReuseSource;
};
constexpr LogicalAndConfig DEFAULT_LOGICAL_AND_CONFIG = {false};

enum class CumSumAlgorithm { CUMSUM_ALGORITHM_LINEBYLINE = 0, CUMSUM_ALGORITHM_SKLANSKY = 1 };
struct CumSumConfig {
  bool isLastAxis{true};
  bool isReuseSource{false};
  bool outputLastRow{false};
  CumSumAlgorithm algorithm{CumSumAlgorithm::CUMSUM_ALGORITHM_LINEBYLINE};
};
constexpr CumSumConfig defaultCumSumConfig = {true, false, true};
struct CumSumInfo {
  uint32_t outter{0};
  uint32_t inner{0};
};

// ---- Exp and logarithms.

// e^x (tessera's Exp, max 1 ulp; the vendor's Taylor expansion level is not needed for accuracy).
template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount) {
  ::tessera::kernel::Exp(dst, src, static_cast<int32_t>(calCount));
}
template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&,
         const uint32_t calCount) {
  ::tessera::kernel::Exp(dst, src, static_cast<int32_t>(calCount));
}

// ln x (tessera's Ln, max 1 ulp).
template <typename T, bool isReuseSource = false>
void Log(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t calCount) {
  ::tessera::kernel::Ln(dst, src, static_cast<int32_t>(calCount));
}
template <typename T, bool isReuseSource = false>
void Log(const LocalTensor<T>& dst, const LocalTensor<T>& src) {
  ::tessera::kernel::Ln(dst, src, static_cast<int32_t>(src.GetSize()));
}

// The four vendor forms of a unary function: (dst, src, tmp, calCount), (dst, src, tmp),
// (dst, src, calCount), (dst, src).
#define TESSERA_ADV_UNARY(Name, Fn)                                                            \
  template <typename T, bool isReuseSource = false>                                            \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&, \
            const uint32_t calCount) {                                                         \
    ::tessera::compat::adv::RunUnary(::tessera::compat::adv::UnaryFn::Fn, #Name, dst, src,     \
                                     calCount);                                                \
  }                                                                                            \
  template <typename T, bool isReuseSource = false>                                            \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                              \
            const LocalTensor<uint8_t>& sharedTmpBuffer) {                                     \
    Name<T, isReuseSource>(dst, src, sharedTmpBuffer, src.GetSize());                          \
  }                                                                                            \
  template <typename T, bool isReuseSource = false>                                            \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount) {   \
    ::tessera::compat::adv::RunUnary(::tessera::compat::adv::UnaryFn::Fn, #Name, dst, src,     \
                                     calCount);                                                \
  }                                                                                            \
  template <typename T, bool isReuseSource = false>                                            \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src) {                            \
    Name<T, isReuseSource>(dst, src, src.GetSize());                                           \
  }

// log2 x and log10 x: ln x times the constant (max 2 ulp).
TESSERA_ADV_UNARY(Log2, kLog2)
TESSERA_ADV_UNARY(Log10, kLog10)
// acosh x (x >= 1; NaN below), max 3 ulp.
TESSERA_ADV_UNARY(Acosh, kAcosh)
// x - trunc(x), exact, with x's sign.
TESSERA_ADV_UNARY(Frac, kFrac)
// Rounding to integral values, exact: up, down, toward zero.
TESSERA_ADV_UNARY(Ceil, kCeil)
TESSERA_ADV_UNARY(Floor, kFloor)
TESSERA_ADV_UNARY(Trunc, kTrunc)
#undef TESSERA_ADV_UNARY

// erf x, max 2 ulp (either ErfAlgo).
template <typename T, bool isReuseSource = false, const ErfConfig& config = defaultErfConfig>
void Erf(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&,
         const uint32_t calCount) {
  ::tessera::compat::adv::RunUnary(::tessera::compat::adv::UnaryFn::kErf, "Erf", dst, src,
                                   calCount);
}
template <typename T, bool isReuseSource = false, const ErfConfig& config = defaultErfConfig>
void Erf(const LocalTensor<T>& dst, const LocalTensor<T>& src,
         const LocalTensor<uint8_t>& sharedTmpBuffer) {
  Erf<T, isReuseSource, config>(dst, src, sharedTmpBuffer, src.GetSize());
}
template <typename T, bool isReuseSource = false, const ErfConfig& config = defaultErfConfig>
void Erf(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount) {
  ::tessera::compat::adv::RunUnary(::tessera::compat::adv::UnaryFn::kErf, "Erf", dst, src,
                                   calCount);
}
template <typename T, bool isReuseSource = false, const ErfConfig& config = defaultErfConfig>
void Erf(const LocalTensor<T>& dst, const LocalTensor<T>& src) {
  Erf<T, isReuseSource, config>(dst, src, src.GetSize());
}

// Round to nearest, ties to even (exact).
template <const RintConfig& config = DEFAULT_RINT_CONFIG, typename T>
void Rint(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&,
          const uint32_t count) {
  ::tessera::compat::adv::RunUnary(::tessera::compat::adv::UnaryFn::kRint, "Rint", dst, src, count);
}
template <const RintConfig& config = DEFAULT_RINT_CONFIG, typename T>
void Rint(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
  ::tessera::compat::adv::RunUnary(::tessera::compat::adv::UnaryFn::kRint, "Rint", dst, src, count);
}

// ---- Power: base and exponent each a tensor or a scalar (C99 pow; a few ulp, see the docs).

#define TESSERA_ADV_POWER(A, B)                                                                   \
  template <typename T, bool isReuseSource = false,                                               \
            const PowerConfig& config = defaultPowerConfig>                                       \
  void Power(const LocalTensor<T>& dst, A src0, B src1, const LocalTensor<uint8_t>&,              \
             uint32_t calCount) {                                                                 \
    ::tessera::compat::adv::RunBinary(::tessera::compat::adv::BinaryFn::kPow, "Power", dst, src0, \
                                      src1, calCount);                                            \
  }                                                                                               \
  template <typename T, bool isReuseSource = false,                                               \
            const PowerConfig& config = defaultPowerConfig>                                       \
  void Power(const LocalTensor<T>& dst, A src0, B src1, uint32_t calCount) {                      \
    ::tessera::compat::adv::RunBinary(::tessera::compat::adv::BinaryFn::kPow, "Power", dst, src0, \
                                      src1, calCount);                                            \
  }                                                                                               \
  template <typename T, bool isReuseSource = false,                                               \
            const PowerConfig& config = defaultPowerConfig>                                       \
  void Power(const LocalTensor<T>& dst, A src0, B src1, const LocalTensor<uint8_t>&) {            \
    ::tessera::compat::adv::RunBinary(::tessera::compat::adv::BinaryFn::kPow, "Power", dst, src0, \
                                      src1, dst.GetSize());                                       \
  }                                                                                               \
  template <typename T, bool isReuseSource = false,                                               \
            const PowerConfig& config = defaultPowerConfig>                                       \
  void Power(const LocalTensor<T>& dst, A src0, B src1) {                                         \
    ::tessera::compat::adv::RunBinary(::tessera::compat::adv::BinaryFn::kPow, "Power", dst, src0, \
                                      src1, dst.GetSize());                                       \
  }
TESSERA_ADV_POWER(const LocalTensor<T>&, const LocalTensor<T>&)
TESSERA_ADV_POWER(const LocalTensor<T>&, const T&)
TESSERA_ADV_POWER(const T&, const LocalTensor<T>&)
#undef TESSERA_ADV_POWER

// ---- Fmod: the C library's fmod, exact (the result has src0's sign).

template <typename T, bool isReuseSource = false, const FmodConfig& config = DEFAULT_FMOD_CONFIG>
void Fmod(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
          const LocalTensor<uint8_t>&, const uint32_t calCount) {
  ::tessera::compat::adv::RunBinary(::tessera::compat::adv::BinaryFn::kFmod, "Fmod", dst, src0,
                                    src1, calCount);
}
template <typename T, bool isReuseSource = false, const FmodConfig& config = DEFAULT_FMOD_CONFIG>
void Fmod(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
          const uint32_t calCount) {
  ::tessera::compat::adv::RunBinary(::tessera::compat::adv::BinaryFn::kFmod, "Fmod", dst, src0,
                                    src1, calCount);
}
template <typename T, bool isReuseSource = false, const FmodConfig& config = DEFAULT_FMOD_CONFIG>
void Fmod(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
          const LocalTensor<uint8_t>& sharedTmpBuffer) {
  Fmod<T, isReuseSource, config>(dst, src0, src1, sharedTmpBuffer, src0.GetSize());
}
template <typename T, bool isReuseSource = false, const FmodConfig& config = DEFAULT_FMOD_CONFIG>
void Fmod(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1) {
  Fmod<T, isReuseSource, config>(dst, src0, src1, src0.GetSize());
}

// ---- Fused and mixed-type arithmetic.

// dst = src0 * src1 + src2 with one rounding (fp32; 16-bit types then rounded once more).
template <const FmaConfig& config = DEFAULT_FMA_CONFIG, typename T>
void Fma(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         const LocalTensor<T>& src2, const uint32_t count) {
  static_assert(::tessera::compat::adv::kFloat<T>, "Fma takes float, half or bfloat16_t tensors");
  const ::tessera::kernel::detail::PipeScope phase(dst.checked(), ::tessera::device::TracePipe::kV);
  ::tessera::compat::adv::CheckOperands("Fma", count, dst, src0, src1, src2);
  if (count > 0) {
    ::tessera::compat::adv::Fma(::tessera::kernel::vec::DTypeOf<T>(), dst.data(), src0.data(),
                                src1.data(), src2.data(), count);
  }
}
template <const FmaConfig& config = DEFAULT_FMA_CONFIG, typename T>
void Fma(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         const LocalTensor<T>& src2, const LocalTensor<uint8_t>&, const uint32_t count) {
  Fma<config>(dst, src0, src1, src2, count);
}

// dst += src * scalarValue, dst float or the source type (half -> float accumulates in fp32).
template <typename T, typename U, bool isReuseSource = false>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U scalarValue,
          const LocalTensor<uint8_t>&, const uint32_t calCount) {
  static_assert(
      ::tessera::compat::adv::kFloat<U> && (std::is_same_v<T, U> || std::is_same_v<T, float>),
      "Axpy: dst is float or the source type; the source is float, half or bfloat16_t");
  const ::tessera::kernel::detail::PipeScope phase(dst.checked(), ::tessera::device::TracePipe::kV);
  if (dst.checked()) {
    dst.CheckRange(calCount, "Axpy", "dst");
    src.CheckRange(calCount, "Axpy", "src");
  }
  if (calCount > 0) {
    ::tessera::compat::adv::Axpy(::tessera::kernel::vec::DTypeOf<T>(),
                                 ::tessera::kernel::vec::DTypeOf<U>(), dst.data(), src.data(),
                                 static_cast<float>(scalarValue), calCount);
  }
}

// ---- Clamping. NaN passes through; the bounds are tensors or scalars.

namespace adv_detail {
// A scalar operand's bit pattern as T (0 for a tensor).
template <typename T, typename B>
uint32_t ScalarBits(const B& b) {
  if constexpr (std::is_same_v<B, LocalTensor<T>>) {
    return 0;
  } else {
    const T v = static_cast<T>(b);
    if constexpr (sizeof(T) == 4) {
      uint32_t bits;
      __builtin_memcpy(&bits, &v, 4);
      return bits;
    } else if constexpr (sizeof(T) == 2) {
      uint16_t bits;
      __builtin_memcpy(&bits, &v, 2);
      return bits;
    } else {
      uint8_t bits;
      __builtin_memcpy(&bits, &v, 1);
      return bits;
    }
  }
}

// Clamp through the Highway kernel: tensor bounds by pointer, scalar bounds by value.
template <typename T, typename Lo, typename Hi>
void ClampRun(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, const Lo& lo,
              const Hi& hi, bool use_lo, bool use_hi, uint32_t count) {
  static_assert(::tessera::compat::adv::kFloat<T>, "Clamp takes float, half or bfloat16_t");
  const ::tessera::kernel::detail::PipeScope phase(dst.checked(), ::tessera::device::TracePipe::kV);
  ::tessera::compat::adv::CheckOperands(api, count, dst, src);
  ::tessera::compat::adv::CheckIfTensor<T>(api, count, lo);
  ::tessera::compat::adv::CheckIfTensor<T>(api, count, hi);
  if (count == 0) return;
  ::tessera::compat::adv::Clamp(::tessera::kernel::vec::DTypeOf<T>(), dst.data(), src.data(),
                                ::tessera::compat::adv::DataOf<T>(lo),
                                ::tessera::compat::adv::DataOf<T>(hi), count,
                                ::tessera::compat::adv::ScalarOf<T>(lo),
                                ::tessera::compat::adv::ScalarOf<T>(hi), use_lo, use_hi);
}
}  // namespace adv_detail

// dst = min(max(src, min), max); min and max each a tensor or a scalar.
template <const ClampConfig& config = DEFAULT_CLAMP_CONFIG, typename T, typename U, typename S>
void Clamp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& min, const S& max,
           const uint32_t count) {
  adv_detail::ClampRun("Clamp", dst, src, min, max, true, true, count);
}
// dst = min(src, scalar).
template <typename T, bool isReuseSource = false>
void ClampMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T scalar,
              const uint32_t calCount) {
  adv_detail::ClampRun("ClampMax", dst, src, scalar, scalar, false, true, calCount);
}
template <typename T, bool isReuseSource = false>
void ClampMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&,
              const T scalar, const uint32_t calCount) {
  ClampMax<T, isReuseSource>(dst, src, scalar, calCount);
}
// dst = max(src, scalar).
template <typename T, bool isReuseSource = false>
void ClampMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T scalar,
              const uint32_t calCount) {
  adv_detail::ClampRun("ClampMin", dst, src, scalar, scalar, true, false, calCount);
}
template <typename T, bool isReuseSource = false>
void ClampMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&,
              const T scalar, const uint32_t calCount) {
  ClampMin<T, isReuseSource>(dst, src, scalar, calCount);
}

// The vendor's overflow-mode switch (kernel_utils.h), which its Where samples set around the
// computation. tessera's arithmetic is always IEEE (Inf / NaN, no saturation): a no-op.
struct AscendCUtils {
  static void SetOverflow(uint64_t) {}
};

// ---- Selection, classification, bitwise and logical operations (exact).

// dst = condition ? src0 : src1; src0 and src1 each a tensor or a scalar, condition bool (or
// any type, non-zero = true).
template <typename T, typename U, typename S, typename V>
void Where(const LocalTensor<T>& dst, const U& src0, const S& src1, const LocalTensor<V>& condition,
           const uint32_t count) {
  static_assert(sizeof(V) == 1, "Where: the condition is a bool (or uint8_t) tensor");
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4,
                "Where: elements of 1, 2 or 4 bytes");
  const ::tessera::kernel::detail::PipeScope phase(dst.checked(), ::tessera::device::TracePipe::kV);
  ::tessera::compat::adv::CheckOperands("Where", count, dst, condition);
  ::tessera::compat::adv::CheckIfTensor<T>("Where", count, src0);
  ::tessera::compat::adv::CheckIfTensor<T>("Where", count, src1);
  if (count == 0) return;
  ::tessera::compat::adv::Where(
      sizeof(T), dst.data(), reinterpret_cast<const uint8_t*>(condition.data()),
      ::tessera::compat::adv::DataOf<T>(src0), ::tessera::compat::adv::DataOf<T>(src1),
      adv_detail::ScalarBits<T>(src0), adv_detail::ScalarBits<T>(src1), count);
}

// dst = isfinite(src): true / false for a bool dst, 1 / 0 for a dst of the source type.
template <typename T, typename U>
void IsFinite(const LocalTensor<U>& dst, const LocalTensor<T>& src, uint32_t calCount) {
  static_assert(::tessera::compat::adv::kFloat<T>, "IsFinite takes float, half or bfloat16_t");
  static_assert(sizeof(U) == 1 || std::is_same_v<U, T>,
                "IsFinite: dst is bool (or uint8_t) or of the source type");
  const ::tessera::kernel::detail::PipeScope phase(dst.checked(), ::tessera::device::TracePipe::kV);
  ::tessera::compat::adv::CheckOperands("IsFinite", calCount, dst, src);
  if (calCount == 0) return;
  ::tessera::compat::adv::IsFinite(::tessera::kernel::vec::DTypeOf<T>(), dst.data(), sizeof(U) == 1,
                                   src.data(), calCount);
}

namespace adv_detail {
template <typename T>
void BitwiseRun(::tessera::compat::adv::BitFn fn, const char* api, const LocalTensor<T>& dst,
                const LocalTensor<T>& a, const LocalTensor<T>& b, uint32_t count) {
  static_assert(std::is_integral_v<T>, "bitwise APIs take integer tensors");
  const ::tessera::kernel::detail::PipeScope phase(dst.checked(), ::tessera::device::TracePipe::kV);
  ::tessera::compat::adv::CheckOperands(api, count, dst, a, b);
  if (count > 0)
    ::tessera::compat::adv::Bitwise(fn, dst.data(), a.data(), b.data(), count * sizeof(T));
}
}  // namespace adv_detail

// dst = src0 ^ src1 (integer types).
template <typename T, bool isReuseSource = false>
void Xor(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         const uint32_t calCount) {
  adv_detail::BitwiseRun(::tessera::compat::adv::BitFn::kXor, "Xor", dst, src0, src1, calCount);
}
template <typename T, bool isReuseSource = false>
void Xor(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         const LocalTensor<uint8_t>&, const uint32_t calCount) {
  Xor<T, isReuseSource>(dst, src0, src1, calCount);
}
template <typename T, bool isReuseSource = false>
void Xor(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         const LocalTensor<uint8_t>&) {
  Xor<T, isReuseSource>(dst, src0, src1, src0.GetSize());
}
template <typename T, bool isReuseSource = false>
void Xor(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1) {
  Xor<T, isReuseSource>(dst, src0, src1, src0.GetSize());
}

// dst = src0 & src1 (integer types).
template <const BitwiseAndConfig& config = DEFAULT_BITWISE_AND_CONFIG, typename T>
void BitwiseAnd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                const uint32_t count) {
  adv_detail::BitwiseRun(::tessera::compat::adv::BitFn::kAnd, "BitwiseAnd", dst, src0, src1, count);
}

// dst = (src0 != 0) && (src1 != 0), dst bool (or numeric 1 / 0).
template <const LogicalAndConfig& config = DEFAULT_LOGICAL_AND_CONFIG, typename T, typename U>
void LogicalAnd(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                const uint32_t count) {
  static_assert(sizeof(T) == 1, "LogicalAnd: dst is a bool (or uint8_t) tensor");
  static_assert(sizeof(U) == 1 || sizeof(U) == 2 || sizeof(U) == 4,
                "LogicalAnd: sources of 1, 2 or 4 bytes");
  const ::tessera::kernel::detail::PipeScope phase(dst.checked(), ::tessera::device::TracePipe::kV);
  ::tessera::compat::adv::CheckOperands("LogicalAnd", count, dst, src0, src1);
  if (count == 0) return;
  ::tessera::compat::adv::LogicalAnd(
      sizeof(U), std::is_floating_point_v<U> || ::tessera::compat::adv::kFloat<U>,
      reinterpret_cast<uint8_t*>(dst.data()), src0.data(), src1.data(), count);
}

// ---- CumSum over a row-major outter x inner tensor: along inner (isLastAxis) or down the
// columns; lastRow gets the last row of the result when outputLastRow.
// Sums run in fp32 in order (each partial rounded once to T), as the vendor's line-by-line
// algorithm; Sklansky's order is not reproduced (its rounding differs in the last bits).
template <typename T, const CumSumConfig& config = defaultCumSumConfig>
void CumSum(const LocalTensor<T>& dst, const LocalTensor<T>& lastRow, const LocalTensor<T>& src,
            const CumSumInfo& cumSumInfo) {
  static_assert(::tessera::compat::adv::kFloat<T>, "CumSum takes float, half or bfloat16_t");
  const ::tessera::kernel::detail::PipeScope phase(dst.checked(), ::tessera::device::TracePipe::kV);
  const uint32_t rows = cumSumInfo.outter;
  const uint32_t cols = cumSumInfo.inner;
  const uint32_t n = rows * cols;
  ::tessera::compat::adv::CheckOperands("CumSum", n, dst, src);
  if (n == 0) return;
  ::tessera::compat::adv::CumSum(::tessera::kernel::vec::DTypeOf<T>(), dst.data(), src.data(), rows,
                                 cols, config.isLastAxis);
  const T* out = dst.data();
  if (config.outputLastRow && rows > 0) {
    if (lastRow.checked()) lastRow.CheckRange(cols, "CumSum", "lastRow");
    T* last = lastRow.data();
    for (uint32_t c = 0; c < cols; ++c)
      last[c] = out[(rows - 1) * cols + c];
  }
}
template <typename T, const CumSumConfig& config = defaultCumSumConfig>
void CumSum(const LocalTensor<T>& dst, const LocalTensor<T>& lastRow, const LocalTensor<T>& src,
            const LocalTensor<uint8_t>&, const CumSumInfo& cumSumInfo) {
  CumSum<T, config>(dst, lastRow, src, cumSumInfo);
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC

// Rounded(v): v as its own rounded fp32 value. An empty asm the value must pass through keeps the
// compiler from contracting it with the next operation (a product and an add into one FMA, which
// -ffp-contract=fast, GCC's default, does wherever it sees both). Both elewise back ends pass every
// result through it where it could meet an add, so a statement's value never depends on what the
// optimiser fused, and the interpreter and the compiled engine agree bit for bit on any target.
// Include once per Highway target (toggle guard, as math-inl.h).
#if defined(TESSERA_ELEWISE_DETAIL_ROUNDED_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TESSERA_ELEWISE_DETAIL_ROUNDED_INL_H_
#undef TESSERA_ELEWISE_DETAIL_ROUNDED_INL_H_
#else
#define TESSERA_ELEWISE_DETAIL_ROUNDED_INL_H_
#endif

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace tessera::elewise::rounding {
namespace HWY_NAMESPACE {

template <class V>
HWY_INLINE V Rounded(V v) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128 && \
    (defined(__GNUC__) || defined(__clang__))
#if HWY_TARGET <= HWY_AVX3
  asm("" : "+v"(v.raw));
#else
  asm("" : "+x"(v.raw));
#endif
#endif
  return v;
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::elewise::rounding
HWY_AFTER_NAMESPACE();

#endif  // TESSERA_ELEWISE_DETAIL_ROUNDED_INL_H_

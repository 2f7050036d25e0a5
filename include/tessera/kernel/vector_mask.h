// The vector mask register of Ascend C: what the mask + repeat instructions called with
// isSetMask = false (and MASK_PLACEHOLDER as their mask) select.
//
//   SetMaskCount();                                  // counter mode
//   SetVectorMask<int32_t, MaskMode::COUNTER>(144);  // 144 elements in all
//   Copy<int32_t, false>(dst, src, MASK_PLACEHOLDER, 1, {1, 8, 8, 8});
//   SetMaskNorm();                                   // back to a bit per element
//   ResetMask();                                     // every element selected
//
// NORMAL mode (the default): the register holds a bit per element of one repeat and the
// instruction runs its own repeatTimes. COUNTER mode: the register's low word is the number of
// elements of the whole instruction; repeatTimes is ignored and the instruction runs
// ceil(count / elements per repeat) repeats, the last one partial. An instruction called with
// isSetMask = true (the default) in NORMAL mode takes its own mask argument and leaves it in the
// register, as the NPU does. Each block has its own register; a new block starts in NORMAL mode
// with every bit set.
#pragma once

#include <cstdint>
#include <string>

#include "tessera/kernel/check.h"
#include "tessera/kernel/vector_types.h"

namespace tessera::kernel {
namespace detail {

struct VectorMaskState {
  bool counter = false;
  uint64_t bits[2] = {~uint64_t{0}, ~uint64_t{0}};  // COUNTER: bits[0] is the element count
};

// The running block's register (outside a kernel: the calling thread's).
VectorMaskState& MaskRegister();

// The reduction special registers: the value (fp32) and index of the last ReduceSum /
// ReduceMax / ReduceMin or ReduceRepeat (its last repeat), read by GetReduceRepeatSumSpr /
// GetReduceRepeatMaxMinSpr.
struct ReduceSpr {
  float value = 0.0f;
  uint32_t index = 0;
};
ReduceSpr& ReduceRegister();

// The first `len` bits set (len <= 128).
inline void FirstBits(uint64_t len, uint64_t out[2]) {
  out[0] = len >= 64 ? ~uint64_t{0} : (uint64_t{1} << len) - 1;
  out[1] = len >= 128 ? ~uint64_t{0} : len > 64 ? (uint64_t{1} << (len - 64)) - 1 : 0;
}

}  // namespace detail

// Counter mode: the register counts the elements of the whole instruction.
void SetMaskCount();
// Normal mode: the register holds a bit per element of each repeat.
void SetMaskNorm();
// Every element of a repeat selected (NORMAL) / the register's bits all set.
void ResetMask();

// Sets the register from two words: in NORMAL mode bit e selects element e of each repeat (bit
// e - 64 of maskHigh for e >= 64; maskHigh must be 0 for 32-bit T); in COUNTER mode maskLow is
// the element count (maskHigh ignored).
template <class T, MaskMode mode = MaskMode::NORMAL>
void SetVectorMask(uint64_t maskHigh, uint64_t maskLow) {
  detail::VectorMaskState& m = detail::MaskRegister();
  if (m.counter || mode == MaskMode::COUNTER) {
    m.bits[0] = maskLow;
    m.bits[1] = 0;
    return;
  }
  TESSERA_KERNEL_CHECK(CheckedLaunch(), sizeof(T) != 4 || maskHigh == 0, "SetVectorMask",
                       "maskHigh must be 0 for 32-bit elements (a repeat holds 64)");
  m.bits[0] = maskLow;
  m.bits[1] = maskHigh;
}
// NORMAL: the first `len` elements of each repeat (1 .. 256 / sizeof(T)); COUNTER: `len`
// elements in all.
template <class T, MaskMode mode = MaskMode::NORMAL>
void SetVectorMask(int32_t len) {
  detail::VectorMaskState& m = detail::MaskRegister();
  if (m.counter || mode == MaskMode::COUNTER) {
    TESSERA_KERNEL_CHECK(CheckedLaunch(), len >= 0, "SetVectorMask",
                         "count " + std::to_string(len) + " is negative");
    m.bits[0] = static_cast<uint64_t>(static_cast<uint32_t>(len));
    m.bits[1] = 0;
    return;
  }
  constexpr int32_t kPerRepeat = static_cast<int32_t>(256 / sizeof(T));
  TESSERA_KERNEL_CHECK(
      CheckedLaunch(), len >= 1 && len <= kPerRepeat, "SetVectorMask",
      "len " + std::to_string(len) + " is outside [1, " + std::to_string(kPerRepeat) + "]");
  detail::FirstBits(static_cast<uint64_t>(len < 0 ? 0 : len), m.bits);
}

}  // namespace tessera::kernel

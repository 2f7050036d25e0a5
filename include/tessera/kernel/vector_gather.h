// Gathering inside UB, with Ascend C's names: GatherMask (compact the elements a bit pattern
// selects), Gather (elements at byte offsets) and Gatherb (32-byte blocks at byte offsets).
// Elements are 2 or 4 bytes; data moves are bit-exact.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "tessera/kernel/check.h"
#include "tessera/kernel/detail/pipe_phase.h"
#include "tessera/kernel/local_tensor.h"

namespace tessera::kernel {

// GatherMask addressing: src0's block stride and repeat stride (32-byte blocks), the repeat
// count (NORMAL mode), and the pattern tensor's repeat stride (32-byte blocks).
struct GatherMaskParams {
  uint16_t src0BlockStride = 1;
  uint16_t repeatTimes = 1;
  uint16_t src0RepeatStride = 8;
  uint16_t src1RepeatStride = 1;
};

// Gatherb: dst block stride and repeat stride (32-byte blocks).
struct GatherRepeatParams {
  uint16_t dstBlkStride = 1;
  uint16_t dstRepStride = 8;
};

enum class GatherMaskMode : uint8_t { VERSION_V1 = 0 };
inline constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V1;

namespace vec {

// The built-in patterns 1..7 as the bits of 64 consecutive elements.
inline uint64_t BuiltinGatherPattern(uint8_t pattern) {
  switch (pattern) {
    case 1:
      return 0x5555555555555555ull;  // even elements
    case 2:
      return 0xAAAAAAAAAAAAAAAAull;  // odd elements
    case 3:
      return 0x1111111111111111ull;  // the first of every four
    case 4:
      return 0x2222222222222222ull;
    case 5:
      return 0x4444444444444444ull;
    case 6:
      return 0x8888888888888888ull;
    default:
      return ~0ull;  // 7: every element
  }
}

// Packs the selected elements of each repeat into dst; `pattern_of(r, e)` is element e's bit
// in repeat r. Returns the number written.
template <class T, class PatternOf>
uint64_t RunGatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src, bool counter,
                       uint32_t mask, const GatherMaskParams& p, const PatternOf& pattern_of,
                       const char* api) {
  constexpr uint64_t kPerBlock = 32 / sizeof(T);
  constexpr uint64_t kPerRepeat = 8 * kPerBlock;
  // COUNTER (reduceMode = true): `mask` elements in all; NORMAL: whole repeats.
  const uint64_t repeats = counter ? (uint64_t{mask} + kPerRepeat - 1) / kPerRepeat : p.repeatTimes;
  const uint64_t total = counter ? uint64_t{mask} : repeats * kPerRepeat;
  if (dst.checked() && total > 0) {
    // The last element read: in COUNTER mode the last repeat may stop inside any block.
    const uint64_t last = total - 1 - (repeats - 1) * kPerRepeat;
    const uint64_t end =
        ((repeats - 1) * p.src0RepeatStride + last / kPerBlock * p.src0BlockStride) * kPerBlock +
        last % kPerBlock + 1;
    TESSERA_KERNEL_CHECK(true, end <= src.GetSize(), api,
                         "src0: " + std::to_string(total) + " elements in " +
                             std::to_string(repeats) + " repeats with strides read up to " +
                             std::to_string(end) + " elements, the tensor has " +
                             std::to_string(src.GetSize()));
  }
  T* d = dst.data();
  const T* s = src.data();
  uint64_t written = 0;
  for (uint64_t r = 0; r < repeats; ++r) {
    for (uint64_t e = 0; e < kPerRepeat && r * kPerRepeat + e < total; ++e) {
      if (!pattern_of(r, e)) continue;
      const uint64_t at =
          (r * p.src0RepeatStride + e / kPerBlock * p.src0BlockStride) * kPerBlock + e % kPerBlock;
      TESSERA_KERNEL_CHECK(
          dst.checked(), written < dst.GetSize() && dst.Live(), api,
          "dst: more than its " + std::to_string(dst.GetSize()) + " elements are selected");
      d[written++] = s[at];
    }
  }
  if (dst.checked()) detail::ShadowWritten(d, written * sizeof(T));
  return written;
}

}  // namespace vec

// GatherMask with a built-in pattern (1 even, 2 odd, 3..6 the 1st..4th of every four, 7 all)
// or a pattern tensor (bit e of the pattern's bytes selects element e of a repeat; repeat r reads
// the bits at r * src1RepeatStride * 32 bytes). reduceMode = false runs repeatTimes whole
// repeats (mask unused); true (COUNTER) takes the first `mask` elements in all, repeat by repeat.
// The selected elements are packed into dst in order; rsvdCnt = their number.
template <class T, GatherMaskMode mode = defaultGatherMaskMode>
void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, uint8_t src1Pattern,
                bool reduceMode, uint32_t mask, const GatherMaskParams& gatherMaskParams,
                uint64_t& rsvdCnt) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "GatherMask: elements are 2 or 4 bytes");
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  TESSERA_KERNEL_CHECK(dst.checked(), src1Pattern >= 1 && src1Pattern <= 7, "GatherMask",
                       "src1Pattern " + std::to_string(src1Pattern) + " is outside [1, 7]");
  const uint64_t bits = vec::BuiltinGatherPattern(src1Pattern);
  rsvdCnt = vec::RunGatherMask(
      dst, src0, reduceMode, mask, gatherMaskParams,
      [bits](uint64_t, uint64_t e) { return (bits >> (e % 64) & 1) != 0; }, "GatherMask");
}
template <class T, class U, GatherMaskMode mode = defaultGatherMaskMode>
void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                const LocalTensor<U>& src1Pattern, bool reduceMode, uint32_t mask,
                const GatherMaskParams& gatherMaskParams, uint64_t& rsvdCnt) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "GatherMask: elements are 2 or 4 bytes");
  static_assert(std::is_integral_v<U>, "GatherMask: the pattern tensor holds integers");
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  constexpr uint64_t kPerRepeat = 256 / sizeof(T);
  const auto* bytes = reinterpret_cast<const uint8_t*>(src1Pattern.data());
  const uint64_t pattern_bytes = uint64_t{src1Pattern.GetSize()} * sizeof(U);
  const uint64_t rep_bytes = uint64_t{gatherMaskParams.src1RepeatStride} * 32;
  if (src1Pattern.checked()) {
    const uint64_t repeats =
        reduceMode ? (uint64_t{mask} + kPerRepeat - 1) / kPerRepeat : gatherMaskParams.repeatTimes;
    // Bytes up to the last element's bit (COUNTER mode may stop inside the last repeat).
    const uint64_t total = reduceMode ? uint64_t{mask} : repeats * kPerRepeat;
    const uint64_t need =
        total == 0 ? 0
                   : (repeats - 1) * rep_bytes + (total - 1 - (repeats - 1) * kPerRepeat) / 8 + 1;
    TESSERA_KERNEL_CHECK(true, need <= pattern_bytes && src1Pattern.Live(), "GatherMask",
                         "src1Pattern: " + std::to_string(need) +
                             " pattern bytes needed, the tensor has " +
                             std::to_string(pattern_bytes));
  }
  rsvdCnt = vec::RunGatherMask(
      dst, src0, reduceMode, mask, gatherMaskParams,
      [bytes, rep_bytes](uint64_t r, uint64_t e) {
        return (bytes[r * rep_bytes + e / 8] >> (e % 8) & 1) != 0;
      },
      "GatherMask");
}

// Gather: dst[i] = the element at byte srcBaseAddr + srcOffset[i] of src, for i < count.
template <class T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
            const LocalTensor<uint32_t>& srcOffset, uint32_t srcBaseAddr, uint32_t count) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Gather: elements are 2 or 4 bytes");
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  if (dst.checked()) {
    dst.CheckRange(count, "Gather", "dst");
    srcOffset.CheckRange(count, "Gather", "srcOffset");
  }
  const auto* base = reinterpret_cast<const uint8_t*>(src.data());
  const uint64_t src_bytes = uint64_t{src.GetSize()} * sizeof(T);
  const uint32_t* off = srcOffset.data();
  T* d = dst.data();
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t at = uint64_t{srcBaseAddr} + off[i];
    TESSERA_KERNEL_CHECK(
        dst.checked(), at % sizeof(T) == 0 && at + sizeof(T) <= src_bytes, "Gather",
        "srcOffset[" + std::to_string(i) + "] = byte " + std::to_string(at) +
            " is unaligned or outside src's " + std::to_string(src_bytes) + " bytes");
    std::memcpy(static_cast<void*>(d + i), base + at, sizeof(T));
  }
}

// Gatherb: block k of repeat r of dst ((r * dstRepStride + k * dstBlkStride) * 32 bytes) is the
// 32 bytes of src at byte offset[8r + k].
template <class T>
void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
             const LocalTensor<uint32_t>& offset, uint8_t repeatTime,
             const GatherRepeatParams& repeatParams) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  if (dst.checked() && repeatTime > 0)
    offset.CheckRange(uint64_t{repeatTime} * 8, "Gatherb", "offset");
  auto* d = reinterpret_cast<uint8_t*>(dst.data());
  const auto* s = reinterpret_cast<const uint8_t*>(src0.data());
  const uint64_t src_bytes = uint64_t{src0.GetSize()} * sizeof(T);
  const uint64_t dst_bytes = uint64_t{dst.GetSize()} * sizeof(T);
  for (uint64_t r = 0; r < repeatTime; ++r) {
    for (uint64_t k = 0; k < 8; ++k) {
      const uint64_t from = offset.data()[r * 8 + k];
      const uint64_t to = (r * repeatParams.dstRepStride + k * repeatParams.dstBlkStride) * 32;
      TESSERA_KERNEL_CHECK(dst.checked(), from + 32 <= src_bytes && to + 32 <= dst_bytes, "Gatherb",
                           "block " + std::to_string(r * 8 + k) + ": source byte " +
                               std::to_string(from) + " or destination byte " + std::to_string(to) +
                               " leaves its tensor");
      if (dst.checked()) detail::ShadowWritten(d + to, 32);
      std::memcpy(d + to, s + from, 32);
    }
  }
}

}  // namespace tessera::kernel

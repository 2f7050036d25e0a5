// Vector-unit data movement inside UB: Copy (mask + repeat addressing), Brcb (broadcast each
// element to a 32-byte block) and CreateVecIndex (an index sequence), with Ascend C's names and
// argument orders. Elements are 2 or 4 bytes of any type; data moves are bit-exact.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "tessera/core/float16.h"
#include "tessera/kernel/check.h"
#include "tessera/kernel/detail/pipe_phase.h"
#include "tessera/kernel/detail/repeat_walk.h"
#include "tessera/kernel/detail/vector_dispatch.h"
#include "tessera/kernel/local_tensor.h"
#include "tessera/kernel/vector_types.h"

namespace tessera::kernel {
namespace vec {

template <class T>
inline constexpr bool kIsMoveType = std::is_trivially_copyable_v<T> &&
                                    (sizeof(T) == 2 || sizeof(T) == 4);

template <class T>
void RunCopy(bool is_set_mask, const LocalTensor<T>& dst, const LocalTensor<T>& src,
             uint64_t mask_len, const uint64_t* mask_bits, uint8_t repeat,
             const CopyRepeatParams& p) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  const detail::RepeatSelection sel = detail::ResolveRepeats(
      sizeof(T), is_set_mask, mask_len, mask_bits, repeat, dst.checked(), "Copy");
  const detail::RepeatStride stride[2] = {{p.dstStride, p.dstRepeatSize},
                                          {p.srcStride, p.srcRepeatSize}};
  if (dst.checked()) {
    dst.CheckRange(detail::RepeatExtent(sizeof(T), sel, stride, 0), "Copy", "dst");
    src.CheckRange(detail::RepeatExtent(sizeof(T), sel, stride, 1), "Copy", "src");
  }
  T* d = dst.data();
  const T* s = src.data();
  detail::WalkRuns(sizeof(T), sel, stride, [&](const uint64_t* off, uint64_t len) {
    std::memmove(d + off[0], s + off[1], len * sizeof(T));
  });
}

}  // namespace vec

// Copy, UB -> UB through the vector unit. Per repeat r, block b (0..7) of 32 bytes, element j:
//   dst[(r * dstRepeatSize + b * dstStride) * E + j] = src[(r * srcRepeatSize + b * srcStride) * E
//   + j]
// (E = 32 / sizeof(T)) for the elements the mask selects: `mask` = the first `mask` elements of
// each repeat, `mask[2]` = a bit per element; in COUNTER mode (vector_mask.h) `mask` is the
// element count of the whole copy. isSetMask = false takes the mask register instead (pass
// MASK_PLACEHOLDER). Unselected elements of dst keep their values.
template <class T, bool isSetMask = true>
void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, uint8_t repeatTime,
          const CopyRepeatParams& repeatParams) {
  static_assert(vec::kIsMoveType<T>, "Copy: elements are 2 or 4 bytes");
  vec::RunCopy(isSetMask, dst, src, mask, nullptr, repeatTime, repeatParams);
}
template <class T, bool isSetMask = true>
void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[2],
          uint8_t repeatTime, const CopyRepeatParams& repeatParams) {
  static_assert(vec::kIsMoveType<T>, "Copy: elements are 2 or 4 bytes");
  vec::RunCopy(isSetMask, dst, src, 0, mask, repeatTime, repeatParams);
}

// Brcb: each repeat reads 8 consecutive elements of src; element k fills all 32 / sizeof(T)
// elements of dst's 32-byte block at (r * dstRepStride + k * dstBlkStride) * 32 bytes.
// Repeat r reads src[8r .. 8r + 7].
template <class T>
void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, uint8_t repeatTime,
          const BrcbRepeatParams& repeatParams) {
  static_assert(vec::kIsMoveType<T>, "Brcb: elements are 2 or 4 bytes");
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  constexpr uint64_t kPerBlock = 32 / sizeof(T);
  const uint64_t blk = repeatParams.dstBlkStride;
  const uint64_t rep = repeatParams.dstRepStride;
  if (dst.checked() && repeatTime > 0) {
    src0.CheckRange(uint64_t{repeatTime} * 8, "Brcb", "src0");
    TESSERA_KERNEL_CHECK(true, dst.Live(), "Brcb", "dst: use after FreeTensor");
    // Blocks may leave gaps; the farthest one ends the extent.
    uint64_t end = 0;
    for (uint64_t k = 0; k < 8; ++k) {
      const uint64_t e = ((repeatTime - 1u) * rep + k * blk + 1) * kPerBlock;
      if (e > end) end = e;
    }
    TESSERA_KERNEL_CHECK(true, end <= dst.GetSize(), "Brcb",
                         "dst: repeatTime " + std::to_string(repeatTime) + " with dstBlkStride " +
                             std::to_string(blk) + ", dstRepStride " + std::to_string(rep) +
                             " touches elements up to " + std::to_string(end) +
                             ", beyond the tensor's " + std::to_string(dst.GetSize()));
    for (uint64_t r = 0; r < repeatTime; ++r) {
      for (uint64_t k = 0; k < 8; ++k)
        detail::ShadowWritten(dst.data() + (r * rep + k * blk) * kPerBlock, 32);
    }
  }
  T* d = dst.data();
  const T* s = src0.data();
  for (uint64_t r = 0; r < repeatTime; ++r) {
    for (uint64_t k = 0; k < 8; ++k) {
      T* block = d + (r * rep + k * blk) * kPerBlock;
      const T v = s[r * 8 + k];
      for (uint64_t j = 0; j < kPerBlock; ++j)
        block[j] = v;  // one 32-byte vector store after vectorisation
    }
  }
}

// dst[i] = firstValue + i for i < count: int16 / int32 wrap; half / float are each the single
// rounding of the exact value (exact while |firstValue + i| stays below 2048 / 2^24).
template <class T>
void CreateVecIndex(const LocalTensor<T>& dst, const T& firstValue, uint32_t count) {
  constexpr bool kInt = std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t>;
  constexpr bool kFloat = std::is_same_v<T, half> || std::is_same_v<T, float>;
  static_assert(kInt || kFloat, "CreateVecIndex: element types are int16, int32, half, float");
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  if (dst.checked()) dst.CheckRange(count, "CreateVecIndex", "dst");
  if (count == 0) return;
  vec::Scalar first;
  if constexpr (kInt) {
    first.i = static_cast<int32_t>(firstValue);
  } else {
    first.f = static_cast<float>(firstValue);
  }
  vec::Iota(sizeof(T), kFloat, dst.data(), first, count);
}

}  // namespace tessera::kernel

// The per-repeat reductions of Ascend C's basic API: ReduceRepeat (each repeat to one value,
// with the extreme's index for MAX / MIN), ReduceDataBlock (each 32-byte block of a repeat to
// one value) and ReducePairElem (adjacent element pairs summed). float and half; dst and src
// have the same type.
//
// The source is addressed as by the mask + repeat instructions (srcBlkStride, srcRepStride in
// 32-byte blocks; mask and COUNTER mode as in vector_mask.h). Sums accumulate in fp32 and are
// rounded once; MAX / MIN ties keep the lowest index; NaN inputs give an unspecified value.
// Outputs with no selected input (a block or pair the mask leaves empty) are not written.
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

// A running reduction of fp32 values with the in-repeat index of the extreme.
struct RepeatAccumulator {
  ReduceType type;
  float value = 0.0f;
  uint32_t index = 0;
  bool any = false;

  void Take(float v, uint32_t i) {
    if (type == ReduceType::SUM) {
      value = any ? value + v : v;
    } else if (!any || (type == ReduceType::MAX ? v > value : v < value)) {
      value = v;
      index = i;
    }
    any = true;
  }
};

// Reduces src[0, len) (a run of contiguous selected elements) into acc; `first` is the run's
// first in-repeat index.
template <class T>
void AccumulateRun(RepeatAccumulator& acc, const T* src, uint64_t len, uint32_t first) {
  float widened[128];  // a run lies in one repeat: at most 128 elements
  const float* p = nullptr;
  if constexpr (std::is_same_v<T, float>) {
    p = src;
  } else {
    vec::Cast(DType::kF32, DTypeOf<T>(), RoundMode::CAST_NONE, widened, src, len);
    p = widened;
  }
  float out[2] = {};
  const ReduceOp op = acc.type == ReduceType::SUM   ? ReduceOp::kSum
                      : acc.type == ReduceType::MAX ? ReduceOp::kMax
                                                    : ReduceOp::kMin;
  vec::Reduce(op, DType::kF32, out, 2, p, 1, len, op != ReduceOp::kSum);
  uint32_t idx = 0;
  std::memcpy(&idx, &out[1], 4);
  acc.Take(out[0], first + (op == ReduceOp::kSum ? 0 : idx));
}

template <class T>
T FromFloat(float v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else {
    return T(v);
  }
}

template <class T>
void CheckReduceTypes(const char* api) {
  (void)api;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>,
                "ReduceRepeat / ReduceDataBlock / ReducePairElem: element types are float and "
                "half");
}

// The selection of repeat r alone (the last repeat may be a COUNTER-mode remainder).
inline detail::RepeatSelection OneRepeat(const detail::RepeatSelection& sel, uint64_t r) {
  detail::RepeatSelection one;
  const uint64_t* bits = r + 1 == sel.repeats ? sel.last : sel.bits;
  one.bits[0] = one.last[0] = bits[0];
  one.bits[1] = one.last[1] = bits[1];
  one.repeats = 1;
  return one;
}

template <class T>
void CheckSourceExtent(const LocalTensor<T>& src, const detail::RepeatSelection& sel,
                       const detail::RepeatStride& s, const char* api) {
  const detail::RepeatStride stride[1] = {s};
  src.CheckRange(detail::RepeatExtent(sizeof(T), sel, stride, 0), api, "src");
}

}  // namespace vec

// ReduceRepeat: repeat r's selected elements reduced to one value written at
// dst[r * dstRepStride * unit]; unit = 2 elements for MAX / MIN with ORDER_VALUE_INDEX (value,
// index) or ORDER_INDEX_VALUE (index, value), 1 element for SUM and ORDER_ONLY_VALUE, and 4
// bytes (a uint32 index) for ORDER_ONLY_INDEX. An index in a 2-element unit is the element
// type's bit pattern of the integer (uint16 for half, uint32 for float), as Ascend C stores it.
// The index is the element's position in its repeat (0 .. 256 / sizeof(T) - 1).
template <ReduceType reduceType, class T, class U, bool isSetMask = true>
void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[2],
                  int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride,
                  int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX);

namespace vec {
template <ReduceType reduceType, class T>
void RunReduceRepeat(bool is_set_mask, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     uint64_t mask_len, const uint64_t* mask_bits, int32_t repeat, int32_t dst_rep,
                     int32_t src_blk, int32_t src_rep, ReduceOrder order) {
  static_assert(reduceType != ReduceType::NONE, "ReduceRepeat: ReduceType::NONE reduces nothing");
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  const char* api = "ReduceRepeat";
  TESSERA_KERNEL_CHECK(dst.checked(),
                       repeat >= 0 && repeat <= 255 && dst_rep >= 0 && src_blk >= 0 && src_rep >= 0,
                       api,
                       "repeatTime " + std::to_string(repeat) +
                           " must be in [0, 255] and strides " + "non-negative");
  if (repeat < 0 || dst_rep < 0 || src_blk < 0 || src_rep < 0) return;
  const detail::RepeatSelection sel =
      detail::ResolveRepeats(sizeof(T), is_set_mask, mask_len, mask_bits,
                             static_cast<uint64_t>(repeat), dst.checked(), api);
  if (reduceType == ReduceType::SUM) order = ReduceOrder::ORDER_ONLY_VALUE;
  const bool pair =
      order == ReduceOrder::ORDER_VALUE_INDEX || order == ReduceOrder::ORDER_INDEX_VALUE;
  // Element offset of repeat r's result, and the elements one result takes.
  const uint64_t unit = pair ? 2 : order == ReduceOrder::ORDER_ONLY_INDEX ? 4 / sizeof(T) : 1;
  const uint64_t width = unit;
  const detail::RepeatStride s{static_cast<uint64_t>(src_blk), static_cast<uint64_t>(src_rep)};
  if (dst.checked() && sel.repeats > 0) {
    vec::CheckSourceExtent(src, sel, s, api);
    dst.CheckRange((sel.repeats - 1) * uint64_t(dst_rep) * unit + width, api, "dst");
  }
  constexpr uint64_t kPerBlock = 32 / sizeof(T);
  const detail::RepeatStride stride[2] = {{s.blk, 0}, {1, 8}};  // src in the repeat, position
  for (uint64_t r = 0; r < sel.repeats; ++r) {
    RepeatAccumulator acc{reduceType};
    const T* base = src.data() + r * s.rep * kPerBlock;
    detail::WalkRuns(sizeof(T), OneRepeat(sel, r), stride, [&](const uint64_t* off, uint64_t len) {
      AccumulateRun(acc, base + off[0], len, static_cast<uint32_t>(off[1]));
    });
    if (!acc.any) continue;
    detail::ReduceSpr& spr = detail::ReduceRegister();
    spr.value = acc.value;
    spr.index = acc.index;
    T* out = dst.data() + r * uint64_t(dst_rep) * unit;
    const T value = FromFloat<T>(acc.value);
    T index_bits{};
    if constexpr (sizeof(T) == 2) {
      const uint16_t i16 = static_cast<uint16_t>(acc.index);
      std::memcpy(static_cast<void*>(&index_bits), &i16, 2);
    } else {
      std::memcpy(static_cast<void*>(&index_bits), &acc.index, 4);
    }
    switch (order) {
      case ReduceOrder::ORDER_VALUE_INDEX:
        out[0] = value;
        out[1] = index_bits;
        break;
      case ReduceOrder::ORDER_INDEX_VALUE:
        out[0] = index_bits;
        out[1] = value;
        break;
      case ReduceOrder::ORDER_ONLY_INDEX:
        std::memcpy(static_cast<void*>(out), &acc.index, 4);
        break;
      default:
        out[0] = value;
        break;
    }
  }
}
}  // namespace vec

template <ReduceType reduceType, class T, class U, bool isSetMask>
void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[2],
                  int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride,
                  int32_t srcRepStride, ReduceOrder order) {
  static_assert(std::is_same_v<T, U>, "ReduceRepeat: dst and src have the same type");
  vec::CheckReduceTypes<T>("ReduceRepeat");
  vec::RunReduceRepeat<reduceType>(isSetMask, dst, src, 0, mask, repeatTime, dstRepStride,
                                   srcBlkStride, srcRepStride, order);
}
// The continuous-mask form: the first `mask` elements of each repeat.
template <ReduceType reduceType, class T, class U, bool isSetMask = true>
void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, int32_t mask,
                  int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride,
                  int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  static_assert(std::is_same_v<T, U>, "ReduceRepeat: dst and src have the same type");
  vec::CheckReduceTypes<T>("ReduceRepeat");
  vec::RunReduceRepeat<reduceType>(isSetMask, dst, src, static_cast<uint64_t>(mask < 0 ? 0 : mask),
                                   nullptr, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                                   order);
}

namespace vec {
// ReduceDataBlock (blocks == true) and ReducePairElem (blocks == false).
template <ReduceType reduceType, class T>
void RunBlockOrPair(bool blocks, bool is_set_mask, const LocalTensor<T>& dst,
                    const LocalTensor<T>& src, uint64_t mask_len, const uint64_t* mask_bits,
                    int32_t repeat, int32_t dst_rep, int32_t src_blk, int32_t src_rep) {
  static_assert(reduceType != ReduceType::NONE, "ReduceType::NONE reduces nothing");
  const char* api = blocks ? "ReduceDataBlock" : "ReducePairElem";
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  TESSERA_KERNEL_CHECK(dst.checked(),
                       repeat >= 0 && repeat <= 255 && dst_rep >= 0 && src_blk >= 0 && src_rep >= 0,
                       api,
                       "repeatTime " + std::to_string(repeat) +
                           " must be in [0, 255] and strides " + "non-negative");
  if (repeat < 0 || dst_rep < 0 || src_blk < 0 || src_rep < 0) return;
  const detail::RepeatSelection sel =
      detail::ResolveRepeats(sizeof(T), is_set_mask, mask_len, mask_bits,
                             static_cast<uint64_t>(repeat), dst.checked(), api);
  constexpr uint64_t kPerBlock = 32 / sizeof(T);
  constexpr uint64_t kPerRepeat = 8 * kPerBlock;
  // Results per repeat: 8 (one per block) or half the repeat's elements (one per pair).
  const uint64_t per = blocks ? 8 : kPerRepeat / 2;
  const detail::RepeatStride s{static_cast<uint64_t>(src_blk), static_cast<uint64_t>(src_rep)};
  if (dst.checked() && sel.repeats > 0) {
    vec::CheckSourceExtent(src, sel, s, api);
    dst.CheckRange((sel.repeats - 1) * uint64_t(dst_rep) * per + per, api, "dst");
  }
  T* d = dst.data();
  const T* p = src.data();
  for (uint64_t r = 0; r < sel.repeats; ++r) {
    const uint64_t* bits = r + 1 == sel.repeats ? sel.last : sel.bits;
    T* out = d + r * uint64_t(dst_rep) * per;
    for (uint64_t k = 0; k < 8; ++k) {
      const T* block = p + (r * s.rep + k * s.blk) * kPerBlock;
      const uint64_t first = k * kPerBlock;
      uint64_t b = (bits[first / 64] >> (first % 64)) &
                   (kPerBlock == 64 ? ~uint64_t{0} : (uint64_t{1} << kPerBlock) - 1);
      if (b == 0) continue;
      if (!blocks && b == (uint64_t{1} << kPerBlock) - 1 && reduceType == ReduceType::SUM) {
        vec::PairSum(DTypeOf<T>(), out + first / 2, block, kPerBlock / 2);  // a whole block at once
        continue;
      }
      if (blocks) {
        RepeatAccumulator acc{reduceType};
        while (b != 0) {
          const uint64_t start = static_cast<uint64_t>(__builtin_ctzll(b));
          const uint64_t len = static_cast<uint64_t>(__builtin_ctzll(~(b >> start)));
          b &= ~(((uint64_t{1} << len) - 1) << start);
          AccumulateRun(acc, block + start, len, static_cast<uint32_t>(start));
        }
        out[k] = FromFloat<T>(acc.value);
        continue;
      }
      for (uint64_t j = 0; j < kPerBlock; j += 2) {  // pairs with one or two selected elements
        const uint64_t two = b >> j & 3;
        if (two == 0) continue;
        RepeatAccumulator acc{reduceType};
        if (two & 1) acc.Take(static_cast<float>(block[j]), 0);
        if (two & 2) acc.Take(static_cast<float>(block[j + 1]), 1);
        out[(first + j) / 2] = FromFloat<T>(acc.value);
      }
    }
  }
}
}  // namespace vec

// ReduceDataBlock: each 32-byte block k of repeat r reduced (over its selected elements) to
// dst[r * dstRepStride * 8 + k].
template <ReduceType reduceType, class T, class U, bool isSetMask = true>
void ReduceDataBlock(const LocalTensor<T>& dst, const LocalTensor<U>& src, int32_t mask,
                     int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride,
                     int32_t srcRepStride) {
  static_assert(std::is_same_v<T, U>, "ReduceDataBlock: dst and src have the same type");
  vec::CheckReduceTypes<T>("ReduceDataBlock");
  vec::RunBlockOrPair<reduceType>(true, isSetMask, dst, src,
                                  static_cast<uint64_t>(mask < 0 ? 0 : mask), nullptr, repeatTime,
                                  dstRepStride, srcBlkStride, srcRepStride);
}
template <ReduceType reduceType, class T, class U, bool isSetMask = true>
void ReduceDataBlock(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[2],
                     int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride,
                     int32_t srcRepStride) {
  static_assert(std::is_same_v<T, U>, "ReduceDataBlock: dst and src have the same type");
  vec::CheckReduceTypes<T>("ReduceDataBlock");
  vec::RunBlockOrPair<reduceType>(true, isSetMask, dst, src, 0, mask, repeatTime, dstRepStride,
                                  srcBlkStride, srcRepStride);
}

// ReducePairElem (SUM): elements 2j and 2j + 1 of repeat r summed (those the mask selects) into
// dst[r * dstRepStride * (128 / sizeof(T)) + j].
template <ReduceType reduceType, class T, class U, bool isSetMask = true>
void ReducePairElem(const LocalTensor<T>& dst, const LocalTensor<U>& src, int32_t mask,
                    int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride,
                    int32_t srcRepStride) {
  static_assert(std::is_same_v<T, U>, "ReducePairElem: dst and src have the same type");
  static_assert(reduceType == ReduceType::SUM, "ReducePairElem: only ReduceType::SUM");
  vec::CheckReduceTypes<T>("ReducePairElem");
  vec::RunBlockOrPair<reduceType>(false, isSetMask, dst, src,
                                  static_cast<uint64_t>(mask < 0 ? 0 : mask), nullptr, repeatTime,
                                  dstRepStride, srcBlkStride, srcRepStride);
}
template <ReduceType reduceType, class T, class U, bool isSetMask = true>
void ReducePairElem(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[2],
                    int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride,
                    int32_t srcRepStride) {
  static_assert(std::is_same_v<T, U>, "ReducePairElem: dst and src have the same type");
  static_assert(reduceType == ReduceType::SUM, "ReducePairElem: only ReduceType::SUM");
  vec::CheckReduceTypes<T>("ReducePairElem");
  vec::RunBlockOrPair<reduceType>(false, isSetMask, dst, src, 0, mask, repeatTime, dstRepStride,
                                  srcBlkStride, srcRepStride);
}

namespace vec {
// The mask + repeat form of ReduceMax / ReduceMin / ReduceSum: every repeat's selected elements
// (unit block stride) reduced to dst[0]; with `index`, dst[1] holds the extreme's element offset
// in src as the element type's bit pattern.
template <ReduceType reduceType, class T>
void RunReduceAll(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                  int32_t mask, int32_t repeat, int32_t src_rep, bool index) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  TESSERA_KERNEL_CHECK(dst.checked(), repeat >= 0 && repeat <= 255 && src_rep >= 0, api,
                       "repeatTime " + std::to_string(repeat) +
                           " must be in [0, 255] and srcRepStride non-negative");
  if (repeat <= 0 || src_rep < 0) return;
  const detail::RepeatSelection sel =
      detail::ResolveRepeats(sizeof(T), true, static_cast<uint64_t>(mask < 0 ? 0 : mask), nullptr,
                             static_cast<uint64_t>(repeat), dst.checked(), api);
  constexpr uint64_t kPerBlock = 32 / sizeof(T);
  const detail::RepeatStride s{1, static_cast<uint64_t>(src_rep)};
  if (dst.checked()) {
    CheckSourceExtent(src, sel, s, api);
    dst.CheckRange(index ? 2 : 1, api, "dst");
  }
  RepeatAccumulator acc{reduceType};
  const detail::RepeatStride stride[1] = {{1, 0}};
  for (uint64_t r = 0; r < sel.repeats; ++r) {
    const uint64_t base = r * s.rep * kPerBlock;
    detail::WalkRuns(sizeof(T), OneRepeat(sel, r), stride, [&](const uint64_t* off, uint64_t len) {
      AccumulateRun(acc, src.data() + base + off[0], len, static_cast<uint32_t>(base + off[0]));
    });
  }
  if (!acc.any) return;
  detail::ReduceSpr& spr = detail::ReduceRegister();
  spr.value = acc.value;
  spr.index = acc.index;
  dst.data()[0] = FromFloat<T>(acc.value);
  if (index) {
    if constexpr (sizeof(T) == 2) {
      const uint16_t i16 = static_cast<uint16_t>(acc.index);
      std::memcpy(static_cast<void*>(dst.data() + 1), &i16, 2);
    } else {
      std::memcpy(static_cast<void*>(dst.data() + 1), &acc.index, 4);
    }
  }
}
}  // namespace vec

// ReduceMax / ReduceMin / ReduceSum over `repeatTime` repeats of the first `mask` elements each,
// repeat r starting srcRepStride * r blocks into src; the result in dst[0] (and, with calIndex,
// the extreme's element offset in src in dst[1]). sharedTmpBuffer is accepted for Ascend C
// compatibility and not used. float and half.
template <class T>
void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<T>& sharedTmpBuffer, int32_t mask, int32_t repeatTime,
               int32_t srcRepStride, bool calIndex = false) {
  vec::CheckReduceTypes<T>("ReduceMax");
  (void)sharedTmpBuffer;
  vec::RunReduceAll<ReduceType::MAX>("ReduceMax", dst, src, mask, repeatTime, srcRepStride,
                                     calIndex);
}
template <class T>
void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<T>& sharedTmpBuffer, int32_t mask, int32_t repeatTime,
               int32_t srcRepStride, bool calIndex = false) {
  vec::CheckReduceTypes<T>("ReduceMin");
  (void)sharedTmpBuffer;
  vec::RunReduceAll<ReduceType::MIN>("ReduceMin", dst, src, mask, repeatTime, srcRepStride,
                                     calIndex);
}
template <class T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<T>& sharedTmpBuffer, int32_t mask, int32_t repeatTime,
               int32_t srcRepStride) {
  vec::CheckReduceTypes<T>("ReduceSum");
  (void)sharedTmpBuffer;
  vec::RunReduceAll<ReduceType::SUM>("ReduceSum", dst, src, mask, repeatTime, srcRepStride, false);
}

// The reduction special registers (vector_mask.h): the last sum, rounded to T.
template <class T>
T GetReduceRepeatSumSpr() {
  return vec::FromFloat<T>(detail::ReduceRegister().value);
}
// The last extreme (and its index).
template <class T>
void GetReduceRepeatMaxMinSpr(T& maxMinValue, T& maxMinIndex) {
  const detail::ReduceSpr& spr = detail::ReduceRegister();
  maxMinValue = vec::FromFloat<T>(spr.value);
  maxMinIndex = static_cast<T>(spr.index);
}
template <class T>
void GetReduceRepeatMaxMinSpr(T& maxMinValue) {
  maxMinValue = vec::FromFloat<T>(detail::ReduceRegister().value);
}

}  // namespace tessera::kernel

// Host side of the sort family and TopK: the temporary-buffer queries and TopKTilingFunc. tessera
// sorts in host memory of its own (tessera/compat/kernel/adv/sort.h), so it reports maxValue =
// minValue = 0 bytes.
#pragma once

#include <cstdint>

#include "tessera/compat/vendor/tiling/sort/sort_config.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/utils/types.h"

namespace AscendC {

inline void GetSortMaxMinTmpSize(const TensorShape& /*srcShape*/, TensorDataType /*valueType*/,
                                 TensorDataType /*indexType*/, bool /*isReuseSource*/,
                                 const SortConfig& /*config*/, uint32_t& maxValue,
                                 uint32_t& minValue) {
  maxValue = 0;
  minValue = 0;
}

namespace tiling_detail {
// The shape fields of TopkTiling; false for a shape TopK refuses.
inline bool FillTopkTiling(int32_t inner, int32_t outter, int32_t k, uint32_t dataTypeSize,
                           TopKMode mode, tiling::TopkTiling& t) {
  if (inner <= 0 || inner % 32 != 0 || outter <= 0 || k <= 0 || k > inner ||
      (dataTypeSize != 2 && dataTypeSize != 4) || (mode == TopKMode::TOPK_NSMALL && inner != 32))
    return false;
  // allDataSize is an int32 field: a larger problem cannot be described.
  if (int64_t{inner} * outter > INT32_MAX) return false;
  t = tiling::TopkTiling{};
  t.allDataSize = inner * outter;
  t.innerDataSize = inner;
  t.sortRepeat = static_cast<uint32_t>(inner / 32);
  t.mrgSortRepeat = inner / 32;
  t.kAlignFourBytes = (k + 7) / 8 * 8;
  t.kAlignTwoBytes = (k + 15) / 16 * 16;
  return true;
}
}  // namespace tiling_detail

// TopK sorts in memory of its own: no temporary buffer (maxValue = minValue = 0). False for a
// shape TopK refuses (inner not a positive multiple of 32, Small mode with inner != 32, or
// inner * outter past INT32_MAX).
inline bool GetTopKMaxMinTmpSize(const platform_ascendc::PlatformAscendC& /*ascendcPlatform*/,
                                 const int32_t inner, const int32_t outter,
                                 const bool /*isReuseSource*/, const bool /*isInitIndex*/,
                                 enum TopKMode mode, const bool /*isLargest*/,
                                 const uint32_t dataTypeSize, uint32_t& maxValue,
                                 uint32_t& minValue) {
  maxValue = 0;
  minValue = 0;
  tiling::TopkTiling t;
  return tiling_detail::FillTopkTiling(inner, outter, 1, dataTypeSize, mode, t);
}
inline bool TopKTilingFunc(const platform_ascendc::PlatformAscendC& /*ascendcPlatform*/,
                           const int32_t inner, const int32_t outter, const int32_t k,
                           const uint32_t dataTypeSize, const bool /*isInitIndex*/,
                           enum TopKMode mode, const bool /*isLargest*/,
                           tiling::TopkTiling& topKTiling) {
  return tiling_detail::FillTopkTiling(inner, outter, k, dataTypeSize, mode, topKTiling);
}

}  // namespace AscendC

// optiling::TopkTiling, the host class a tiling-data class embeds with
// TILING_DATA_FIELD_DEF_STRUCT (the vendor's topk_tilingdata.h): the fields and layout of
// AscendC::tiling::TopkTiling.
#if __has_include("register/tilingdata_base.h")
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TopkTiling)
TILING_DATA_FIELD_DEF(int32_t, tmpLocalSize);
TILING_DATA_FIELD_DEF(int32_t, allDataSize);
TILING_DATA_FIELD_DEF(int32_t, innerDataSize);
TILING_DATA_FIELD_DEF(uint32_t, sortRepeat);
TILING_DATA_FIELD_DEF(int32_t, mrgSortRepeat);
TILING_DATA_FIELD_DEF(int32_t, kAlignFourBytes);
TILING_DATA_FIELD_DEF(int32_t, kAlignTwoBytes);
TILING_DATA_FIELD_DEF(int32_t, maskOffset);
TILING_DATA_FIELD_DEF(int32_t, maskVreducev2FourBytes);
TILING_DATA_FIELD_DEF(int32_t, maskVreducev2TwoBytes);
TILING_DATA_FIELD_DEF(int32_t, mrgSortSrc1offset);
TILING_DATA_FIELD_DEF(int32_t, mrgSortSrc2offset);
TILING_DATA_FIELD_DEF(int32_t, mrgSortSrc3offset);
TILING_DATA_FIELD_DEF(int32_t, mrgSortTwoQueueSrc1Offset);
TILING_DATA_FIELD_DEF(int32_t, mrgFourQueueTailPara1);
TILING_DATA_FIELD_DEF(int32_t, mrgFourQueueTailPara2);
TILING_DATA_FIELD_DEF(int32_t, srcIndexOffset);
TILING_DATA_FIELD_DEF(uint32_t, copyUbToUbBlockCount);
TILING_DATA_FIELD_DEF(int32_t, topkMrgSrc1MaskSizeOffset);
TILING_DATA_FIELD_DEF(int32_t, topkNSmallSrcIndexOffset);
TILING_DATA_FIELD_DEF(uint32_t, vreduceValMask0);
TILING_DATA_FIELD_DEF(uint32_t, vreduceValMask1);
TILING_DATA_FIELD_DEF(uint32_t, vreduceIdxMask0);
TILING_DATA_FIELD_DEF(uint32_t, vreduceIdxMask1);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask0);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask1);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask2);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask3);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask4);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask5);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask6);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask7);
END_TILING_DATA_DEF;
}  // namespace optiling

namespace AscendC {
inline bool TopKTilingFunc(const platform_ascendc::PlatformAscendC& ascendcPlatform,
                           const int32_t inner, const int32_t outter, const int32_t k,
                           const uint32_t dataTypeSize, const bool isInitIndex, enum TopKMode mode,
                           const bool isLargest, optiling::TopkTiling& topKTiling) {
  tiling::TopkTiling t;
  if (!TopKTilingFunc(ascendcPlatform, inner, outter, k, dataTypeSize, isInitIndex, mode, isLargest,
                      t))
    return false;
  topKTiling.set_tmpLocalSize(t.tmpLocalSize);
  topKTiling.set_allDataSize(t.allDataSize);
  topKTiling.set_innerDataSize(t.innerDataSize);
  topKTiling.set_sortRepeat(t.sortRepeat);
  topKTiling.set_mrgSortRepeat(t.mrgSortRepeat);
  topKTiling.set_kAlignFourBytes(t.kAlignFourBytes);
  topKTiling.set_kAlignTwoBytes(t.kAlignTwoBytes);
  return true;
}
}  // namespace AscendC
#endif

// The vendor's sort configuration (SortType, SortConfig) and TopK's (TopKMode, TopKInfo,
// TopKConfig, the TopkTiling struct), shared by the kernel side
// (tessera/compat/kernel/adv/sort.h) and the host side (tiling/sort/sort_tiling.h), so a file that
// includes both sees one definition.
#pragma once

#include <cstdint>

namespace AscendC {

enum class SortType { RADIX_SORT, MERGE_SORT };

struct SortConfig {
  SortType type = SortType::RADIX_SORT;
  bool isDescend = false;
  bool hasSrcIndex = false;
  bool hasDstIndex = false;
};

inline constexpr SortConfig DEFAULT_SORT_CONFIG = {SortType::RADIX_SORT, false, false, false};

// TopK: Normal mode takes rows of any inner length (a multiple of 32), Small mode rows of 32.
enum class TopKMode { TOPK_NORMAL, TOPK_NSMALL };
enum class TopKAlgo { RADIX_SELECT, MERGE_SORT };
enum class TopKOrder { UNSET, LARGEST, SMALLEST };
struct TopKConfig {
  TopKAlgo algo = TopKAlgo::MERGE_SORT;
  TopKOrder order = TopKOrder::UNSET;
  bool sorted = true;
};
inline constexpr TopKConfig defaultTopKConfig = {};

// The shape TopK sorts: outter rows of inner elements (inner a multiple of 32), n of them valid.
struct TopKInfo {
  int32_t outter = 1;
  int32_t inner;
  int32_t n;
};

namespace tiling {
// The vendor's TopK tiling (kernel_tiling's TopkTiling), field for field, so a tiling struct that
// embeds it has the vendor's layout. TopKTilingFunc fills the shape fields (allDataSize,
// innerDataSize, sortRepeat, kAlignFourBytes, kAlignTwoBytes, mrgSortRepeat); the rest are the
// vendor's instruction parameters, which tessera's TopK does not read, and stay 0.
struct TopkTiling {
  int32_t tmpLocalSize = 0;
  int32_t allDataSize = 0;
  int32_t innerDataSize = 0;
  uint32_t sortRepeat = 0;
  int32_t mrgSortRepeat = 0;
  int32_t kAlignFourBytes = 0;
  int32_t kAlignTwoBytes = 0;
  int32_t maskOffset = 0;
  int32_t maskVreducev2FourBytes = 0;
  int32_t maskVreducev2TwoBytes = 0;
  int32_t mrgSortSrc1offset = 0;
  int32_t mrgSortSrc2offset = 0;
  int32_t mrgSortSrc3offset = 0;
  int32_t mrgSortTwoQueueSrc1Offset = 0;
  int32_t mrgFourQueueTailPara1 = 0;
  int32_t mrgFourQueueTailPara2 = 0;
  int32_t srcIndexOffset = 0;
  uint32_t copyUbToUbBlockCount = 0;
  int32_t topkMrgSrc1MaskSizeOffset = 0;
  int32_t topkNSmallSrcIndexOffset = 0;
  uint32_t vreduceValMask0 = 0;
  uint32_t vreduceValMask1 = 0;
  uint32_t vreduceIdxMask0 = 0;
  uint32_t vreduceIdxMask1 = 0;
  uint16_t vreducehalfValMask0 = 0;
  uint16_t vreducehalfValMask1 = 0;
  uint16_t vreducehalfValMask2 = 0;
  uint16_t vreducehalfValMask3 = 0;
  uint16_t vreducehalfValMask4 = 0;
  uint16_t vreducehalfValMask5 = 0;
  uint16_t vreducehalfValMask6 = 0;
  uint16_t vreducehalfValMask7 = 0;
};
}  // namespace tiling

}  // namespace AscendC

using TopkTiling = AscendC::tiling::TopkTiling;

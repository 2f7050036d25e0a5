// The vendor's Pad on a [height, width] tensor: with width * sizeof(T) not a multiple of 32, the
// source rows are contiguous (stride width) and each destination row (stride width rounded up to
// 32 bytes) is leftPad values, the source row, rightPad values; with an aligned width, the columns
// [oriWidth, oriWidth + rightPad) of each row take padValue (leftPad must be 0). Shape from the
// tiling (srcHeight, srcWidth, srcOriWidth); no temporary is needed.
#pragma once

#include <cstdint>
#include <string>

#include "tessera/compat/kernel/adv/detail/adv_common.h"

// clang-format off
#define TESSERA_PAD_TILING_FIELDS(F) \
  F(uint32_t, srcHeight)             \
  F(uint32_t, srcWidth)              \
  F(uint32_t, srcOriWidth)           \
  F(uint32_t, widthWithoutLastBlock) \
  F(uint32_t, blocksPerRow)          \
  F(uint32_t, heightTiling)          \
  F(uint32_t, heightFractal)         \
  F(uint32_t, heightFractalTail)     \
  F(uint32_t, mainLoopOffset)        \
  F(uint32_t, tailBlockOffset)       \
  F(uint32_t, tmpBuffer1BlockNum)    \
  F(uint32_t, tmpBuffer1RowNum)      \
  F(uint32_t, tmpBuffer2Offset)      \
  F(uint32_t, widthTiling)           \
  F(uint32_t, widthFractal)          \
  F(uint32_t, widthFractalTail)      \
  F(uint32_t, widthFractalTailAlingned) \
  F(uint32_t, brcbTiling)            \
  F(uint32_t, brcbFractal)           \
  F(uint32_t, brcbFractalTail)       \
  F(uint32_t, maxRepeatTimes)        \
  F(uint32_t, brcbTilingRepeatTimes) \
  F(uint32_t, brcbTilingRepeatTimesTail) \
  F(uint32_t, brcbFractalTailRepeatTimes) \
  F(uint32_t, brcbFractalTailRepeatTimesTail) \
  F(uint32_t, reserved)
// clang-format on

#define TESSERA_PAD_PLAIN_FIELD_(type, name) type name = 0;

namespace AscendC::tiling {
// Pad's tiling in the vendor's field order; tessera's Pad reads srcHeight, srcWidth, srcOriWidth.
struct PadTiling {
  TESSERA_PAD_TILING_FIELDS(TESSERA_PAD_PLAIN_FIELD_)
};
}  // namespace AscendC::tiling
using AscendC::tiling::PadTiling;

namespace AscendC {

struct PadParams {
  PadParams() = default;
  PadParams(uint16_t left, uint16_t right, int32_t value)
      : leftPad(left), rightPad(right), padValue(value) {}
  uint16_t leftPad = 0;
  uint16_t rightPad = 0;
  int32_t padValue = 0;
};

// The functions are declared in AscendC::adv_api, which AscendC imports: a qualified
// AscendC::Name then finds these and the kernel layer's same-named instructions together.
namespace adv_api {

template <typename T>
void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, PadParams& padParams,
         const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, PadTiling& tiling) {
  using namespace ::tessera::compat::adv;
  const char* api = "Pad";
  const uint32_t height = tiling.srcHeight, width = tiling.srcWidth;
  const uint32_t aligned = AlignToBlock<T>(width);
  const T value = static_cast<T>(static_cast<float>(padParams.padValue));
  if (aligned == width) {
    const uint32_t ori = tiling.srcOriWidth;
    Require(padParams.leftPad == 0 && ori <= width, api,
            "an aligned width " + std::to_string(width) +
                " takes only rightPad, with srcOriWidth " + std::to_string(ori) + " <= width");
    CheckSpace(srcTensor, uint64_t{height} * width, api, "src");
    CheckWrite(dstTensor, uint64_t{height} * width, api);
    const uint32_t end = ori + padParams.rightPad < width ? ori + padParams.rightPad : width;
    for (uint32_t r = 0; r < height; ++r) {
      const T* s = srcTensor.data() + uint64_t{r} * width;
      T* d = dstTensor.data() + uint64_t{r} * width;
      for (uint32_t j = 0; j < width; ++j)
        d[j] = j >= ori && j < end ? value : s[j];
    }
    return;
  }
  Require(width + padParams.leftPad + padParams.rightPad == aligned, api,
          "width " + std::to_string(width) + " + leftPad " + std::to_string(padParams.leftPad) +
              " + rightPad " + std::to_string(padParams.rightPad) +
              " must equal the 32-byte aligned width " + std::to_string(aligned));
  CheckRead(srcTensor, uint64_t{height} * width, api, "src");
  CheckWrite(dstTensor, uint64_t{height} * aligned, api);
  // Back to front, so dst may be src itself (each row moves right).
  for (uint32_t r = height; r-- > 0;) {
    const T* s = srcTensor.data() + uint64_t{r} * width;
    T* d = dstTensor.data() + uint64_t{r} * aligned;
    for (uint32_t j = aligned; j-- > 0;)
      d[j] = j < padParams.leftPad || j >= padParams.leftPad + width ? value
                                                                     : s[j - padParams.leftPad];
  }
}
template <typename T>
void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, PadParams& padParams,
         PadTiling& tiling) {
  Pad(dstTensor, srcTensor, padParams, LocalTensor<uint8_t>(), tiling);
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC

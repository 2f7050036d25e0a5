// Host side of UnPad: optiling::UnPadTiling (the vendor's fields, saved in the layout of the
// kernel's AscendC::tiling::UnPadTiling), the temporary-buffer query (0 bytes: tessera's UnPad
// needs none) and UnPadTilingFunc, which fills the shape fields from srcShape [height, width].
#pragma once

#include <cstdint>
#include <vector>

#include "register/tilingdata_base.h"
#include "tessera/compat/kernel/adv/unpad.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/utils/types.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(UnPadTiling)
TILING_DATA_FIELD_DEF(uint32_t, srcHeight);
TILING_DATA_FIELD_DEF(uint32_t, srcWidth);
TILING_DATA_FIELD_DEF(uint32_t, tmpBuffer1BlockNum);
TILING_DATA_FIELD_DEF(uint32_t, tmpBuffer1RowNum);
TILING_DATA_FIELD_DEF(uint32_t, tmpBuffer2Offset);
TILING_DATA_FIELD_DEF(uint32_t, widthTiling);
TILING_DATA_FIELD_DEF(uint32_t, widthFractal);
TILING_DATA_FIELD_DEF(uint32_t, widthFractalTail);
END_TILING_DATA_DEF;
}  // namespace optiling

namespace tessera::compat::adv {

// Fills the shape fields; false (tiling unchanged) unless srcShape is 2-D with positive dims.
template <class Tiling>
bool FillUnPadTiling(const AscendC::TensorShape& src, uint32_t stackBufferSize, Tiling& t) {
  const std::vector<int64_t>& s = src.GetDims();
  if (s.size() != 2) return false;
  for (int64_t v : s)
    if (v <= 0 || v > int64_t{UINT32_MAX}) return false;
  t.srcHeight = static_cast<uint32_t>(s[0]);
  t.srcWidth = static_cast<uint32_t>(s[1]);
  t.tmpBuffer2Offset = stackBufferSize;
  return true;
}

}  // namespace tessera::compat::adv

namespace AscendC {

inline void GetUnPadMaxMinTmpSize(const platform_ascendc::PlatformAscendC& /*ascendcPlatform*/,
                                  const TensorShape& /*srcShape*/, const uint32_t /*typeSize*/,
                                  uint32_t& maxValue, uint32_t& minValue) {
  maxValue = 0;
  minValue = 0;
}
inline void UnPadTilingFunc(const TensorShape srcShape, const uint32_t stackBufferSize,
                            const uint32_t /*typeSize*/, optiling::UnPadTiling& tiling) {
  ::tessera::compat::adv::FillUnPadTiling(srcShape, stackBufferSize, tiling);
}
inline void UnPadTilingFunc(const TensorShape srcShape, const uint32_t stackBufferSize,
                            const uint32_t /*typeSize*/, AscendC::tiling::UnPadTiling& tiling) {
  ::tessera::compat::adv::FillUnPadTiling(srcShape, stackBufferSize, tiling);
}

}  // namespace AscendC

// Host side of Pad: optiling::PadTiling (the vendor's fields, saved in the layout of the kernel's
// AscendC::tiling::PadTiling), the temporary-buffer query (0 bytes: tessera's Pad needs none) and
// PadTilingFunc, which fills the shape fields from srcShape [height, width] and oriSrcShape
// [height, oriWidth].
#pragma once

#include <cstdint>
#include <vector>

#include "register/tilingdata_base.h"
#include "tessera/compat/kernel/adv/pad.h"
#include "tiling/utils/types.h"

#define TESSERA_PAD_CLASS_FIELD_(type, name) TILING_DATA_FIELD_DEF(type, name);

namespace optiling {
BEGIN_TILING_DATA_DEF(PadTiling)
TESSERA_PAD_TILING_FIELDS(TESSERA_PAD_CLASS_FIELD_)
END_TILING_DATA_DEF;
}  // namespace optiling

namespace tessera::compat::adv {

// Fills the shape fields; false (tiling unchanged) unless both shapes are 2-D with positive dims,
// the same height and oriWidth <= width.
template <class Tiling>
bool FillPadTiling(const AscendC::TensorShape& src, const AscendC::TensorShape& ori,
                   uint32_t stackBufferSize, Tiling& t) {
  const std::vector<int64_t>& s = src.GetDims();
  const std::vector<int64_t>& o = ori.GetDims();
  if (s.size() != 2 || o.size() != 2) return false;
  for (int64_t v : {s[0], s[1], o[0], o[1]})
    if (v <= 0 || v > int64_t{UINT32_MAX}) return false;
  if (o[0] != s[0] || o[1] > s[1]) return false;
  t.srcHeight = static_cast<uint32_t>(s[0]);
  t.srcWidth = static_cast<uint32_t>(s[1]);
  t.srcOriWidth = static_cast<uint32_t>(o[1]);
  t.tmpBuffer2Offset = stackBufferSize;
  return true;
}

}  // namespace tessera::compat::adv

namespace AscendC {

inline void GetPadMaxMinTmpSize(const TensorShape& /*srcShape*/, const uint32_t /*typeSize*/,
                                uint32_t& maxValue, uint32_t& minValue) {
  maxValue = 0;
  minValue = 0;
}
inline void PadTilingFunc(const TensorShape srcShape, const TensorShape oriSrcShape,
                          const uint32_t stackBufferSize, const uint32_t /*typeSize*/,
                          optiling::PadTiling& tiling) {
  ::tessera::compat::adv::FillPadTiling(srcShape, oriSrcShape, stackBufferSize, tiling);
}
inline void PadTilingFunc(const TensorShape srcShape, const TensorShape oriSrcShape,
                          const uint32_t stackBufferSize, const uint32_t /*typeSize*/,
                          AscendC::tiling::PadTiling& tiling) {
  ::tessera::compat::adv::FillPadTiling(srcShape, oriSrcShape, stackBufferSize, tiling);
}

}  // namespace AscendC

// Host queries of the vendor's advanced math APIs (adv_api/math/*_tiling.h): the temporary
// buffer a kernel must give each API. tessera's implementations (compat/kernel/adv/math.h) need
// no scratch space, so every query reports minValue = maxValue = 0 bytes (the vendor's contract
// min <= max holds; a kernel may still pass a larger buffer, which is ignored) and the buffer
// factor queries report no live nodes and no extra bytes. Sizes are in bytes.
#pragma once

#include <cstdint>

#include "graph/tensor.h"

namespace AscendC {

using TensorShape = ge::Shape;

}  // namespace AscendC

namespace platform_ascendc {
class PlatformAscendC;
}  // namespace platform_ascendc

namespace AscendC {
namespace tiling_detail {
inline void NoScratch(uint32_t& maxValue, uint32_t& minValue) {
  maxValue = 0;
  minValue = 0;
}
inline void NoFactor(uint32_t& maxLiveNodeCount, uint32_t& extraBuf) {
  maxLiveNodeCount = 0;
  extraBuf = 0;
}
}  // namespace tiling_detail

// Get<Func>MaxMinTmpSize(srcShape, typeSize, isReuseSource, maxValue, minValue) and
// Get<Func>TmpBufferFactorSize(typeSize, maxLiveNodeCount, extraBuf) for the unary and binary
// functions of compat/kernel/adv/math.h.
#define TESSERA_TILING_NO_SCRATCH(Func)                                                  \
  inline void Get##Func##MaxMinTmpSize(const TensorShape&, const uint32_t, const bool,   \
                                       uint32_t& maxValue, uint32_t& minValue) {         \
    tiling_detail::NoScratch(maxValue, minValue);                                        \
  }                                                                                      \
  inline void Get##Func##TmpBufferFactorSize(const uint32_t, uint32_t& maxLiveNodeCount, \
                                             uint32_t& extraBuf) {                       \
    tiling_detail::NoFactor(maxLiveNodeCount, extraBuf);                                 \
  }
TESSERA_TILING_NO_SCRATCH(Acosh)
TESSERA_TILING_NO_SCRATCH(Axpy)
TESSERA_TILING_NO_SCRATCH(Ceil)
TESSERA_TILING_NO_SCRATCH(Floor)
TESSERA_TILING_NO_SCRATCH(Trunc)
TESSERA_TILING_NO_SCRATCH(Clamp)
TESSERA_TILING_NO_SCRATCH(Erf)
TESSERA_TILING_NO_SCRATCH(Frac)
TESSERA_TILING_NO_SCRATCH(Fmod)
TESSERA_TILING_NO_SCRATCH(Log)
TESSERA_TILING_NO_SCRATCH(Xor)
#undef TESSERA_TILING_NO_SCRATCH

// Exp: returns true (the query always succeeds).
inline bool GetExpMaxMinTmpSize(const TensorShape&, const uint32_t, const bool, uint32_t& maxValue,
                                uint32_t& minValue) {
  tiling_detail::NoScratch(maxValue, minValue);
  return true;
}
inline void GetExpTmpBufferFactorSize(const uint32_t, uint32_t& maxLiveNodeCount,
                                      uint32_t& extraBuffer) {
  tiling_detail::NoFactor(maxLiveNodeCount, extraBuffer);
}

// Power: base and exponent shapes (a scalar is shape {1}), integer or floating elements.
inline void GetPowerMaxMinTmpSize(const TensorShape&, const TensorShape&, const bool,
                                  const uint32_t, const bool, uint32_t& maxValue,
                                  uint32_t& minValue) {
  tiling_detail::NoScratch(maxValue, minValue);
}
inline void GetPowerTmpBufferFactorSize(const bool, const bool, const bool, const uint32_t,
                                        uint32_t& maxLiveNodeCount, uint32_t& extraBuffer) {
  tiling_detail::NoFactor(maxLiveNodeCount, extraBuffer);
}

// Rint (also the query the vendor's Fma sample uses): takes the platform, as the vendor's does.
inline void GetRintMaxMinTmpSize(const platform_ascendc::PlatformAscendC&, const TensorShape&,
                                 const uint32_t, const bool, uint32_t& maxValue,
                                 uint32_t& minValue) {
  tiling_detail::NoScratch(maxValue, minValue);
}
inline void GetRintTmpBufferFactorSize(const platform_ascendc::PlatformAscendC&, const uint32_t,
                                       uint32_t& maxLivedNodeCount, uint32_t& extraBuf) {
  tiling_detail::NoFactor(maxLivedNodeCount, extraBuf);
}

// CumSum along the last axis or down the columns.
inline void GetCumSumMaxMinTmpSize(const TensorShape&, const uint32_t, const bool, const bool,
                                   uint32_t& maxValue, uint32_t& minValue) {
  tiling_detail::NoScratch(maxValue, minValue);
}

}  // namespace AscendC

// Host side of LayerNorm / LayerNormGrad / LayerNormGradBeta / DeepNorm / RmsNorm: the optiling::
// tiling classes (the vendor's fields, saved in the layout the kernels' AscendC::tiling structs
// read), the temporary buffer queries and the Get...NDTilingInfo functions that fill the shape
// fields.
//
// srcShape is [B, S, H] or [B, S, H, originalH] (H = the row stride in elements, a multiple of
// 32 bytes in the vendor's samples; originalH <= H the elements normalised). tessera's kernels
// compute without temporaries, so every Max/Min query reports 0 bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "register/tilingdata_base.h"
#include "tessera/compat/kernel/adv/normalization_tiling.h"
#include "tiling/utils/types.h"

#define TESSERA_TILING_CLASS_FIELD_(type, name) TILING_DATA_FIELD_DEF(type, name);

namespace optiling {
BEGIN_TILING_DATA_DEF(LayerNormTiling)
TESSERA_LAYERNORM_TILING_FIELDS(TESSERA_TILING_CLASS_FIELD_)
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(DeepNormTiling)
TESSERA_LAYERNORM_TILING_FIELDS(TESSERA_TILING_CLASS_FIELD_)
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(RmsNormTiling)
TESSERA_RMSNORM_TILING_FIELDS(TESSERA_TILING_CLASS_FIELD_)
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(LayerNormGradTiling)
TESSERA_LAYERNORM_GRAD_TILING_FIELDS(TESSERA_TILING_CLASS_FIELD_)
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(LayerNormGradBetaTiling)
TESSERA_LAYERNORM_GRAD_BETA_TILING_FIELDS(TESSERA_TILING_CLASS_FIELD_)
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(LayerNormSeparateTiling)
TESSERA_LAYERNORM_SEPARATE_TILING_FIELDS(TESSERA_TILING_CLASS_FIELD_)
END_TILING_DATA_DEF;
}  // namespace optiling

namespace tessera::compat::adv {

// B, S, H and originalH of a LayerNorm srcShape; false unless it has 3 or 4 positive dims
// (originalH <= H) whose element counts fit in uint32_t.
struct NormDims {
  uint32_t b = 0, s = 0, h = 0, original_h = 0;
};
inline bool ParseNormShape(const AscendC::TensorShape& shape, NormDims* out) {
  const std::vector<int64_t>& d = shape.GetDims();
  if (d.size() != 3 && d.size() != 4) return false;
  for (int64_t v : d)
    if (v <= 0 || v > int64_t{UINT32_MAX}) return false;
  out->b = static_cast<uint32_t>(d[0]);
  out->s = static_cast<uint32_t>(d[1]);
  out->h = static_cast<uint32_t>(d[2]);
  out->original_h = d.size() == 4 ? static_cast<uint32_t>(d[3]) : out->h;
  // The tiling's element counts (B*S*H, and B*S rounded up to 8 rows) are uint32_t fields.
  const uint64_t rows = uint64_t{out->b} * out->s;
  const uint64_t rows_aligned = (rows + 7) / 8 * 8;
  if (rows_aligned > UINT32_MAX || rows_aligned * out->h > UINT32_MAX) return false;
  return out->original_h <= out->h;
}

template <class Tiling>
void FillLayerNormShape(const NormDims& n, Tiling& t) {
  t.bLength = n.b;
  t.sLength = n.s;
  t.hLength = n.h;
  t.originalHLength = n.original_h;
  t.inputXSize = n.b * n.s * n.h;
  t.meanVarSize = n.b * n.s;
  t.loopRound = 1;
  t.inputRoundSize = t.inputXSize;
  t.meanVarRoundSize = t.meanVarSize;
  t.bshCurLength = t.inputXSize;
  t.bsCurLength = t.meanVarSize;
  t.lastDimValueBack = 1.0f / static_cast<float>(n.original_h);
}

// The [A, R] shape of LayerNorm's rstd form into LayerNormSeparateTiling; false unless srcShape
// has 2 positive dims whose product fits in uint32_t.
template <class Tiling>
bool FillLayerNormSeparateShape(const AscendC::TensorShape& shape, uint32_t stackBufferSize,
                                Tiling& t) {
  const std::vector<int64_t>& d = shape.GetDims();
  if (d.size() != 2) return false;
  for (int64_t v : d)
    if (v <= 0 || v > int64_t{UINT32_MAX}) return false;
  if (uint64_t(d[0]) * uint64_t(d[1]) > UINT32_MAX) return false;  // inputXSize is uint32_t
  const uint32_t a = static_cast<uint32_t>(d[0]), r = static_cast<uint32_t>(d[1]);
  t.aLength = a;
  t.rLength = r;
  t.inputXSize = a * r;
  t.meanVarSize = a;
  t.tmpBufSize = stackBufferSize;
  t.loopRound = 1;
  t.inputRoundSize = a * r;
  t.meanVarRoundSize = a;
  t.arCurLength = a * r;
  t.aCurLength = a;
  t.rValueBack = 1.0f / static_cast<float>(r);
  return true;
}

template <class Tiling>
void FillLayerNormGradShape(const NormDims& n, uint32_t stackBufferSize, Tiling& t) {
  t.stackBufferSize = stackBufferSize;
  t.bLength = n.b;
  t.sLength = n.s;
  t.hLength = n.h;
  t.originalHLength = n.original_h;
  t.oneCalSize = n.b * n.s * n.h;
  t.nohCalSize = n.b * n.s;
  t.loopNum = 1;
}

template <class Tiling>
void FillLayerNormGradBetaShape(const NormDims& n, uint32_t stackBufferSize, Tiling& t) {
  t.stackBufferSize = stackBufferSize;
  t.bLength = n.b;
  t.sLength = n.s;
  t.hLength = n.h;
  t.originalHLength = n.original_h;
  t.bshLength = n.b * n.s * n.h;
  t.bsLength = n.b * n.s;
  t.oneCalSize = t.bshLength;
  t.loopRound = 1;
  t.bshCurLength = t.bshLength;
  t.bsCurLength = t.bsLength;
}

// Fills a DeepNorm tiling from srcShape [B, S, H] and originSrcShape [B, S, originalH]; false
// (tiling unchanged) for malformed shapes or a basic block that is not one.
template <class Tiling>
bool GetDeepNormTilingInfoImpl(const AscendC::TensorShape& srcShape,
                               const AscendC::TensorShape& originSrcShape,
                               const uint32_t stackBufferSize, const bool isBasicBlock,
                               Tiling& tiling) {
  ::tessera::compat::adv::NormDims n, o;
  if (!::tessera::compat::adv::ParseNormShape(srcShape, &n) ||
      !::tessera::compat::adv::ParseNormShape(originSrcShape, &o))
    return false;
  if (o.b != n.b || o.s != n.s || o.h > n.h) return false;
  if (isBasicBlock && (n.h % 64 != 0 || (n.b * n.s) % 8 != 0)) return false;
  n.original_h = o.h;
  ::tessera::compat::adv::FillLayerNormShape(n, tiling);
  tiling.tmpBufSize = stackBufferSize;
  return true;
}
// RmsNorm's shape fields, one pass over the whole input (loopRound 1, no tail).
template <class Tiling>
bool FillRmsNormTiling(const AscendC::TensorShape& srcShape,
                       const AscendC::TensorShape& originSrcShape, bool isBasicBlock, Tiling& t) {
  NormDims n, o;
  if (!ParseNormShape(srcShape, &n) || !ParseNormShape(originSrcShape, &o)) return false;
  if (o.b != n.b || o.s != n.s || o.h > n.h) return false;
  if (isBasicBlock && (n.h % 64 != 0 || (n.b * n.s) % 8 != 0)) return false;
  t.bLength = n.b;
  t.sLength = n.s;
  t.hLength = n.h;
  t.originalHLength = o.h;
  t.reciprocalOfHLength = 1.0f / static_cast<float>(o.h);
  t.mainBshLength = n.b * n.s * n.h;
  t.mainBsLength = n.b * n.s;
  t.mainBsLengthAlign = (n.b * n.s + 7) / 8 * 8;
  t.loopRound = 1;
  t.inputTailPos = t.mainBshLength;
  return true;
}

}  // namespace tessera::compat::adv

namespace AscendC {

// Temporary bytes LayerNorm needs: maxValue = minValue = 0 (a malformed srcShape also gives 0;
// GetLayerNormNDTilingInfo then leaves the tiling zero and the kernel reports the shape).
inline void GetLayerNormMaxMinTmpSize(const TensorShape& /*srcShape*/, const uint32_t /*typeSize*/,
                                      const bool /*isReuseSource*/, uint32_t& maxValue,
                                      uint32_t& minValue) {
  maxValue = 0;
  minValue = 0;
}
// The same for LayerNorm's rstd form (LayerNormPara / LayerNormSeparateTiling) and Normalize.
inline void GetLayerNormMaxMinTmpSize(const TensorShape& /*srcShape*/, const uint32_t /*typeSize*/,
                                      const bool /*isReuseSource*/, const bool /*isComputeRstd*/,
                                      const bool /*isOnlyOutput*/, uint32_t& maxValue,
                                      uint32_t& minValue) {
  maxValue = 0;
  minValue = 0;
}
inline void GetNormalizeMaxMinTmpSize(const TensorShape& /*srcShape*/, const uint32_t /*typeSizeU*/,
                                      const uint32_t /*typeSizeT*/, const bool /*isReuseSource*/,
                                      const bool /*isComputeRstd*/, const bool /*isOnlyOutput*/,
                                      uint32_t& maxValue, uint32_t& minValue) {
  maxValue = 0;
  minValue = 0;
}
// The same for LayerNormGrad.
inline void GetLayerNormGradMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize,
                                          const bool isReuseSource, uint32_t& maxValue,
                                          uint32_t& minValue) {
  GetLayerNormMaxMinTmpSize(srcShape, typeSize, isReuseSource, maxValue, minValue);
}
// The same for LayerNormGradBeta.
inline void GetLayerNormGradBetaMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize,
                                              const bool isReuseSource, uint32_t& maxValue,
                                              uint32_t& minValue) {
  GetLayerNormMaxMinTmpSize(srcShape, typeSize, isReuseSource, maxValue, minValue);
}

// Fills the LayerNorm tiling for srcShape; a malformed shape leaves `tiling` unchanged.
inline void GetLayerNormNDTilingInfo(const TensorShape& srcShape, const uint32_t stackBufferSize,
                                     const uint32_t /*typeSize*/, const bool /*isReuseSource*/,
                                     optiling::LayerNormTiling& tiling) {
  ::tessera::compat::adv::NormDims n;
  if (!::tessera::compat::adv::ParseNormShape(srcShape, &n)) return;
  ::tessera::compat::adv::FillLayerNormShape(n, tiling);
  tiling.tmpBufSize = stackBufferSize;
}
inline void GetLayerNormNDTilingInfo(const TensorShape& srcShape, const uint32_t stackBufferSize,
                                     const uint32_t /*typeSize*/, const bool /*isReuseSource*/,
                                     AscendC::tiling::LayerNormTiling& tiling) {
  ::tessera::compat::adv::NormDims n;
  if (!::tessera::compat::adv::ParseNormShape(srcShape, &n)) return;
  ::tessera::compat::adv::FillLayerNormShape(n, tiling);
  tiling.tmpBufSize = stackBufferSize;
}

// Fills the LayerNormSeparateTiling for an [A, R] srcShape; a malformed shape leaves `tiling`
// unchanged.
inline void GetLayerNormNDTilingInfo(const TensorShape& srcShape, const uint32_t stackBufferSize,
                                     const uint32_t /*typeSize*/, const bool /*isReuseSource*/,
                                     const bool /*isComputeRstd*/,
                                     optiling::LayerNormSeparateTiling& tiling) {
  ::tessera::compat::adv::FillLayerNormSeparateShape(srcShape, stackBufferSize, tiling);
}
inline void GetLayerNormNDTilingInfo(const TensorShape& srcShape, const uint32_t stackBufferSize,
                                     const uint32_t /*typeSize*/, const bool /*isReuseSource*/,
                                     const bool /*isComputeRstd*/,
                                     AscendC::tiling::LayerNormSeparateTiling& tiling) {
  ::tessera::compat::adv::FillLayerNormSeparateShape(srcShape, stackBufferSize, tiling);
}

// Fills the LayerNormGrad tiling for srcShape; a malformed shape leaves `tiling` unchanged.
inline void GetLayerNormGradNDTilingInfo(const TensorShape srcShape, const uint32_t stackBufferSize,
                                         const uint32_t /*typeSize*/, const bool /*isReuseSource*/,
                                         optiling::LayerNormGradTiling& tiling) {
  ::tessera::compat::adv::NormDims n;
  if (!::tessera::compat::adv::ParseNormShape(srcShape, &n)) return;
  ::tessera::compat::adv::FillLayerNormGradShape(n, stackBufferSize, tiling);
}
inline void GetLayerNormGradNDTilingInfo(const TensorShape srcShape, const uint32_t stackBufferSize,
                                         const uint32_t /*typeSize*/, const bool /*isReuseSource*/,
                                         AscendC::tiling::LayerNormGradTiling& tiling) {
  ::tessera::compat::adv::NormDims n;
  if (!::tessera::compat::adv::ParseNormShape(srcShape, &n)) return;
  ::tessera::compat::adv::FillLayerNormGradShape(n, stackBufferSize, tiling);
}

// Fills the LayerNormGradBeta tiling for srcShape; a malformed shape leaves `tiling` unchanged.
inline void GetLayerNormGradBetaNDTilingInfo(const TensorShape srcShape,
                                             const uint32_t stackBufferSize,
                                             const uint32_t /*typeSize*/,
                                             const bool /*isReuseSource*/,
                                             optiling::LayerNormGradBetaTiling& tiling) {
  ::tessera::compat::adv::NormDims n;
  if (!::tessera::compat::adv::ParseNormShape(srcShape, &n)) return;
  ::tessera::compat::adv::FillLayerNormGradBetaShape(n, stackBufferSize, tiling);
}
inline void GetLayerNormGradBetaNDTilingInfo(const TensorShape srcShape,
                                             const uint32_t stackBufferSize,
                                             const uint32_t /*typeSize*/,
                                             const bool /*isReuseSource*/,
                                             AscendC::tiling::LayerNormGradBetaTiling& tiling) {
  ::tessera::compat::adv::NormDims n;
  if (!::tessera::compat::adv::ParseNormShape(srcShape, &n)) return;
  ::tessera::compat::adv::FillLayerNormGradBetaShape(n, stackBufferSize, tiling);
}

// DeepNorm: temporary bytes (0); false when isBasicBlock is asked for a shape that is not a
// basic block (H a multiple of 64, B * S a multiple of 8), as the vendor's query does.
inline bool GetDeepNormMaxMinTmpSize(const TensorShape& srcShape, const uint32_t /*typeSize*/,
                                     const bool /*isReuseSource*/, const bool isBasicBlock,
                                     uint32_t& maxValue, uint32_t& minValue) {
  ::tessera::compat::adv::NormDims n;
  if (!::tessera::compat::adv::ParseNormShape(srcShape, &n)) return false;
  if (isBasicBlock && (n.h % 64 != 0 || (n.b * n.s) % 8 != 0)) return false;
  maxValue = 0;
  minValue = 0;
  return true;
}

inline bool GetDeepNormTilingInfo(const TensorShape& srcShape, const TensorShape& originSrcShape,
                                  const uint32_t stackBufferSize, const uint32_t /*typeSize*/,
                                  const bool /*isReuseSource*/, const bool isBasicBlock,
                                  optiling::DeepNormTiling& tiling) {
  return ::tessera::compat::adv::GetDeepNormTilingInfoImpl(srcShape, originSrcShape,
                                                           stackBufferSize, isBasicBlock, tiling);
}
inline bool GetDeepNormTilingInfo(const TensorShape& srcShape, const TensorShape& originSrcShape,
                                  const uint32_t stackBufferSize, const uint32_t /*typeSize*/,
                                  const bool /*isReuseSource*/, const bool isBasicBlock,
                                  AscendC::tiling::DeepNormTiling& tiling) {
  return ::tessera::compat::adv::GetDeepNormTilingInfoImpl(srcShape, originSrcShape,
                                                           stackBufferSize, isBasicBlock, tiling);
}

// RmsNorm: temporary bytes (0); false when isBasicBlock is asked for a shape that is not a basic
// block (H a multiple of 64, B * S a multiple of 8), as the vendor's query does.
inline bool GetRmsNormMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize,
                                    uint32_t& maxValue, uint32_t& minValue,
                                    const bool isBasicBlock = false) {
  return GetDeepNormMaxMinTmpSize(srcShape, typeSize, false, isBasicBlock, maxValue, minValue);
}
// Fills the RmsNorm tiling from srcShape [B, S, H] and originSrcShape [B, S, originalH]; false
// (tiling unchanged) for malformed shapes or a basic block that is not one.
inline bool GetRmsNormTilingInfo(const TensorShape& srcShape, const TensorShape& originSrcShape,
                                 const uint32_t /*stackBufferByteSize*/,
                                 const uint32_t /*typeSize*/, optiling::RmsNormTiling& tiling,
                                 const bool isBasicBlock = false) {
  return ::tessera::compat::adv::FillRmsNormTiling(srcShape, originSrcShape, isBasicBlock, tiling);
}
inline bool GetRmsNormTilingInfo(const TensorShape& srcShape, const TensorShape& originSrcShape,
                                 const uint32_t /*stackBufferByteSize*/,
                                 const uint32_t /*typeSize*/,
                                 AscendC::tiling::RmsNormTiling& tiling,
                                 const bool isBasicBlock = false) {
  return ::tessera::compat::adv::FillRmsNormTiling(srcShape, originSrcShape, isBasicBlock, tiling);
}

}  // namespace AscendC

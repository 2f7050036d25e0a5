// Host queries of the vendor's advanced activation APIs (adv_api/activation/*_tiling.h: GeGLU,
// Gelu, Sigmoid, Silu, Swish, SwiGLU) and of the softmax family (softmax_tiling.h,
// logsoftmax_tiling.h). tessera's implementations (compat/kernel/adv/activation.h, softmax.h)
// need no scratch space in UB, so every temporary-size query reports 0 bytes (min = max, the
// vendor's min <= max contract) and a kernel's larger buffer is ignored. The tiling functions
// fill AscendC::tiling::SoftMaxTiling with the shape: srcM = the product of all dims but the
// last, srcK = the last dim, the statistics block [srcM, 32 / dataTypeSize].
#pragma once

#include <cstdint>

#include "graph/tensor.h"
#include "tessera/compat/kernel/adv/softmax_tiling.h"
#include "tiling/math/math_tiling.h"

namespace AscendC {

inline void GetGeGLUMaxMinTmpSize(const TensorShape&, const uint32_t, const bool,
                                  uint32_t& maxValue, uint32_t& minValue) {
  tiling_detail::NoScratch(maxValue, minValue);
}
inline void GetGeGLUTmpBufferFactorSize(const uint32_t, uint32_t& maxLiveNodeCount,
                                        uint32_t& extraBuf) {
  tiling_detail::NoFactor(maxLiveNodeCount, extraBuf);
}
inline uint32_t GetGeluMinTmpSize(const TensorShape&, const uint32_t) {
  return 0;
}
inline uint32_t GetGeluMaxTmpSize(const TensorShape&, const uint32_t) {
  return 0;
}
inline void GetGeluMaxMinTmpSize(const TensorShape&, const uint32_t, uint32_t& maxValue,
                                 uint32_t& minValue) {
  tiling_detail::NoScratch(maxValue, minValue);
}
inline void GetSigmoidMaxMinTmpSize(const TensorShape&, const uint32_t, const bool,
                                    uint32_t& maxValue, uint32_t& minValue) {
  tiling_detail::NoScratch(maxValue, minValue);
}
inline void GetSiluTmpSize(const TensorShape&, const uint32_t, const bool, uint32_t& maxValue,
                           uint32_t& minValue) {
  tiling_detail::NoScratch(maxValue, minValue);
}
inline void GetSwishTmpSize(const TensorShape&, const uint32_t, const bool, uint32_t& maxValue,
                            uint32_t& minValue) {
  tiling_detail::NoScratch(maxValue, minValue);
}
// The vendor's argument order: isReuseSource last.
inline void GetSwiGLUMaxMinTmpSize(const TensorShape&, const uint32_t, uint32_t& maxValue,
                                   uint32_t& minValue, const bool) {
  tiling_detail::NoScratch(maxValue, minValue);
}
inline void GetSwiGLUTmpBufferFactorSize(const uint32_t, uint32_t& maxLiveNodeCount,
                                         uint32_t& extraBuffer) {
  tiling_detail::NoFactor(maxLiveNodeCount, extraBuffer);
}

// ---- Softmax family.

inline uint32_t GetSoftMaxMaxTmpSize(const TensorShape&, const uint32_t, const bool) {
  return 0;
}
inline uint32_t GetSoftMaxMinTmpSize(const TensorShape&, const uint32_t, const bool) {
  return 0;
}
inline uint32_t GetLogSoftMaxMaxTmpSize(const TensorShape, const uint32_t, const bool) {
  return 0;
}
inline uint32_t GetLogSoftMaxMinTmpSize(const TensorShape, const uint32_t, const bool) {
  return 0;
}
inline uint32_t GetSoftMaxFlashV2MinTmpSize(const TensorShape&, const uint32_t, const uint32_t,
                                            const bool, const bool = false, const bool = false) {
  return 0;
}
inline uint32_t GetSoftMaxFlashV2MaxTmpSize(const TensorShape&, const uint32_t, const uint32_t,
                                            const bool, const bool = false, const bool = false) {
  return 0;
}
inline uint32_t GetSoftMaxGradMaxTmpSize(const TensorShape&, const uint32_t, const bool,
                                         const bool) {
  return 0;
}
inline uint32_t GetSoftMaxGradMinTmpSize(const TensorShape&, const uint32_t, const bool,
                                         const bool) {
  return 0;
}

namespace tiling_detail {
inline void FillSoftMaxTiling(const TensorShape& shape, uint32_t dataTypeSize,
                              tiling::SoftMaxTiling& t) {
  const size_t n = shape.GetDimNum();
  uint64_t rows = 1;
  for (size_t i = 0; i + 1 < n; ++i)
    rows *= static_cast<uint64_t>(shape.GetDim(i) > 0 ? shape.GetDim(i) : 0);
  const uint32_t cols =
      n > 0 && shape.GetDim(n - 1) > 0 ? static_cast<uint32_t>(shape.GetDim(n - 1)) : 0;
  const uint32_t m = n > 0 ? static_cast<uint32_t>(rows) : 0;
  const uint32_t block = dataTypeSize == 0 ? 8 : 32 / dataTypeSize;
  t = {};
  t.srcM = m;
  t.srcK = cols;
  t.srcSize = m * cols;
  t.outMaxM = m;
  t.outMaxK = block;
  t.outMaxSize = m * block;
  t.splitM = m;
  t.splitK = cols;
  t.splitSize = m * cols;
  t.reduceM = m;
  t.reduceK = block;
  t.reduceSize = m * block;
  t.rangeM = m == 0 ? 0 : 1;
}
}  // namespace tiling_detail

inline void SoftMaxTilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize,
                              const uint32_t, tiling::SoftMaxTiling& softmaxTiling) {
  tiling_detail::FillSoftMaxTiling(srcShape, dataTypeSize, softmaxTiling);
}
inline void LogSoftMaxTilingFunc(const TensorShape srcShape, const uint32_t dataTypeSize,
                                 const uint32_t, tiling::LogSoftMaxTiling& softmaxTiling) {
  tiling_detail::FillSoftMaxTiling(srcShape, dataTypeSize, softmaxTiling);
}
inline void SoftMaxFlashV2TilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize1,
                                     const uint32_t, const uint32_t,
                                     tiling::SoftMaxTiling& softmaxFlashTiling, const bool,
                                     const bool = false, const bool = false) {
  tiling_detail::FillSoftMaxTiling(srcShape, dataTypeSize1, softmaxFlashTiling);
}
inline void SoftMaxGradTilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize,
                                  const uint32_t, tiling::SoftMaxTiling& softmaxGradTiling,
                                  const bool = false) {
  tiling_detail::FillSoftMaxTiling(srcShape, dataTypeSize, softmaxGradTiling);
}
// tessera's softmax has no separate basic-block path: true when the shape is the vendor's basic
// block (rows a multiple of 8, columns a multiple of 64 below 2048), for code that branches on it.
inline bool IsBasicBlockInSoftMax(tiling::SoftMaxTiling& tiling, const uint32_t = 2) {
  return tiling.srcM % 8 == 0 && tiling.srcK % 64 == 0 && tiling.srcK < 2048;
}

}  // namespace AscendC

// The host classes optiling::SoftMaxTiling / LogSoftMaxTiling (the vendor's softmax_tilingdata.h),
// which a tiling-data class embeds with TILING_DATA_FIELD_DEF_STRUCT: declared with the
// registration macros of register/tilingdata_base.h when that header is present. Their fields and
// layout are those of AscendC::tiling::SoftMaxTiling, which the kernel reads.
#if __has_include("register/tilingdata_base.h")
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SoftMaxTiling)
TILING_DATA_FIELD_DEF(uint32_t, srcM);
TILING_DATA_FIELD_DEF(uint32_t, srcK);
TILING_DATA_FIELD_DEF(uint32_t, srcSize);
TILING_DATA_FIELD_DEF(uint32_t, outMaxM);
TILING_DATA_FIELD_DEF(uint32_t, outMaxK);
TILING_DATA_FIELD_DEF(uint32_t, outMaxSize);
TILING_DATA_FIELD_DEF(uint32_t, splitM);
TILING_DATA_FIELD_DEF(uint32_t, splitK);
TILING_DATA_FIELD_DEF(uint32_t, splitSize);
TILING_DATA_FIELD_DEF(uint32_t, reduceM);
TILING_DATA_FIELD_DEF(uint32_t, reduceK);
TILING_DATA_FIELD_DEF(uint32_t, reduceSize);
TILING_DATA_FIELD_DEF(uint32_t, rangeM);
TILING_DATA_FIELD_DEF(uint32_t, tailM);
TILING_DATA_FIELD_DEF(uint32_t, tailSplitSize);
TILING_DATA_FIELD_DEF(uint32_t, tailReduceSize);
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(LogSoftMaxTiling)
TILING_DATA_FIELD_DEF(uint32_t, srcM);
TILING_DATA_FIELD_DEF(uint32_t, srcK);
TILING_DATA_FIELD_DEF(uint32_t, srcSize);
TILING_DATA_FIELD_DEF(uint32_t, outMaxM);
TILING_DATA_FIELD_DEF(uint32_t, outMaxK);
TILING_DATA_FIELD_DEF(uint32_t, outMaxSize);
TILING_DATA_FIELD_DEF(uint32_t, splitM);
TILING_DATA_FIELD_DEF(uint32_t, splitK);
TILING_DATA_FIELD_DEF(uint32_t, splitSize);
TILING_DATA_FIELD_DEF(uint32_t, reduceM);
TILING_DATA_FIELD_DEF(uint32_t, reduceK);
TILING_DATA_FIELD_DEF(uint32_t, reduceSize);
TILING_DATA_FIELD_DEF(uint32_t, rangeM);
TILING_DATA_FIELD_DEF(uint32_t, tailM);
TILING_DATA_FIELD_DEF(uint32_t, tailSplitSize);
TILING_DATA_FIELD_DEF(uint32_t, tailReduceSize);
END_TILING_DATA_DEF;
}  // namespace optiling

namespace AscendC {
namespace tiling_detail {
template <class Host>
void CopySoftMaxTiling(const tiling::SoftMaxTiling& src, Host& dst) {
  dst.set_srcM(src.srcM);
  dst.set_srcK(src.srcK);
  dst.set_srcSize(src.srcSize);
  dst.set_outMaxM(src.outMaxM);
  dst.set_outMaxK(src.outMaxK);
  dst.set_outMaxSize(src.outMaxSize);
  dst.set_splitM(src.splitM);
  dst.set_splitK(src.splitK);
  dst.set_splitSize(src.splitSize);
  dst.set_reduceM(src.reduceM);
  dst.set_reduceK(src.reduceK);
  dst.set_reduceSize(src.reduceSize);
  dst.set_rangeM(src.rangeM);
  dst.set_tailM(src.tailM);
  dst.set_tailSplitSize(src.tailSplitSize);
  dst.set_tailReduceSize(src.tailReduceSize);
}
}  // namespace tiling_detail

inline void SoftMaxTilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize,
                              const uint32_t localWorkSpaceSize,
                              optiling::SoftMaxTiling& softmaxTiling) {
  tiling::SoftMaxTiling t;
  SoftMaxTilingFunc(srcShape, dataTypeSize, localWorkSpaceSize, t);
  tiling_detail::CopySoftMaxTiling(t, softmaxTiling);
}
inline void LogSoftMaxTilingFunc(const TensorShape srcShape, const uint32_t dataTypeSize,
                                 const uint32_t localWorkSpaceSize,
                                 optiling::LogSoftMaxTiling& softmaxTiling) {
  tiling::LogSoftMaxTiling t;
  LogSoftMaxTilingFunc(srcShape, dataTypeSize, localWorkSpaceSize, t);
  tiling_detail::CopySoftMaxTiling(t, softmaxTiling);
}
inline void SoftMaxFlashV2TilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize1,
                                     const uint32_t dataTypeSize2,
                                     const uint32_t localWorkSpaceSize,
                                     optiling::SoftMaxTiling& softmaxFlashTiling,
                                     const bool isUpdate, const bool isBasicBlock = false,
                                     const bool isFlashOutputBrc = false) {
  tiling::SoftMaxTiling t;
  SoftMaxFlashV2TilingFunc(srcShape, dataTypeSize1, dataTypeSize2, localWorkSpaceSize, t, isUpdate,
                           isBasicBlock, isFlashOutputBrc);
  tiling_detail::CopySoftMaxTiling(t, softmaxFlashTiling);
}
inline void SoftMaxGradTilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize,
                                  const uint32_t localWorkSpaceSize,
                                  optiling::SoftMaxTiling& softmaxGradTiling,
                                  const bool isFront = false) {
  tiling::SoftMaxTiling t;
  SoftMaxGradTilingFunc(srcShape, dataTypeSize, localWorkSpaceSize, t, isFront);
  tiling_detail::CopySoftMaxTiling(t, softmaxGradTiling);
}
}  // namespace AscendC
#endif  // __has_include("register/tilingdata_base.h")

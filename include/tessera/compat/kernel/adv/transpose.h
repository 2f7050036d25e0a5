// The vendor's basic transposes: Transpose of one 16 x 16 matrix of 2-byte elements, the
// TransposeParamsExt form ([N, C, H, W] <-> [N, H, W, C]) and TransDataTo5HD for 2-byte elements
// (16 x 16 block transposes between 16 source and 16 destination addresses per repeat).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/compat/kernel/adv/detail/adv_common.h"

namespace AscendC {

enum class TransposeType : uint8_t {
  TRANSPOSE_TYPE_NONE,
  TRANSPOSE_NZ2ND_0213,
  TRANSPOSE_NZ2NZ_0213,
  TRANSPOSE_NZ2NZ_012_WITH_N,
  TRANSPOSE_NZ2ND_012_WITH_N,
  TRANSPOSE_NZ2ND_012_WITHOUT_N,
  TRANSPOSE_NZ2NZ_012_WITHOUT_N,
  TRANSPOSE_ND2ND_ONLY,
  TRANSPOSE_ND_UB_GM,
  TRANSPOSE_GRAD_ND_UB_GM,
  TRANSPOSE_ND2ND_B16,
  TRANSPOSE_NCHW2NHWC,
  TRANSPOSE_NHWC2NCHW,
};

// dstHighHalf / srcHighHalf select byte halves for 1-byte data and are ignored for 2-byte data.
// A repeat advances every source address by srcRepStride and every destination address by
// dstRepStride 32-byte blocks.
struct TransDataTo5HDParams {
  constexpr TransDataTo5HDParams() = default;
  constexpr TransDataTo5HDParams(const bool dstHighHalfIn, const bool srcHighHalfIn,
                                 const uint8_t repeatTimesIn, const uint16_t dstRepStrideIn,
                                 const uint16_t srcRepStrideIn)
      : dstHighHalf(dstHighHalfIn),
        srcHighHalf(srcHighHalfIn),
        repeatTimes(repeatTimesIn),
        dstRepStride(dstRepStrideIn),
        srcRepStride(srcRepStrideIn) {}
  bool dstHighHalf = false;
  bool srcHighHalf = false;
  uint8_t repeatTimes = 1;
  uint16_t dstRepStride = 0;
  uint16_t srcRepStride = 0;
};

struct TransposeParamsExt {
  constexpr TransposeParamsExt() = default;
  constexpr TransposeParamsExt(const uint16_t nSizeIn, const uint16_t cSizeIn,
                               const uint16_t hSizeIn, const uint16_t wSizeIn,
                               const TransposeType transposeTypeIn)
      : nSize(nSizeIn),
        cSize(cSizeIn),
        hSize(hSizeIn),
        wSize(wSizeIn),
        transposeType(transposeTypeIn) {}
  uint16_t nSize = 0;
  uint16_t cSize = 0;
  uint16_t hSize = 0;
  uint16_t wSize = 0;
  TransposeType transposeType = TransposeType::TRANSPOSE_ND2ND_B16;
};

namespace adv_api {

// dst = the transpose of the 16 x 16 row-major matrix src (2-byte elements).
template <typename T>
void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src) {
  using namespace ::tessera::compat::adv;
  static_assert(sizeof(T) == 2, "Transpose: the 16 x 16 form takes 2-byte elements");
  const char* api = "Transpose";
  CheckRead(src, 256, api, "src");
  CheckWrite(dst, 256, api);
  T tile[256];
  for (uint32_t i = 0; i < 256; ++i)
    tile[i] = src.data()[i];
  for (uint32_t r = 0; r < 16; ++r)
    for (uint32_t c = 0; c < 16; ++c)
      dst.data()[c * 16 + r] = tile[r * 16 + c];
}

// TRANSPOSE_ND2ND_B16 (the 16 x 16 form), TRANSPOSE_NCHW2NHWC and TRANSPOSE_NHWC2NCHW over
// nSize * cSize * hSize * wSize elements of 2 or 4 bytes. sharedTmpBuffer is not needed.
template <typename T>
void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<uint8_t>& /*sharedTmpBuffer*/,
               const TransposeParamsExt& transposeParams) {
  using namespace ::tessera::compat::adv;
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Transpose: T must be a 2- or 4-byte type");
  const char* api = "Transpose";
  const TransposeParamsExt& p = transposeParams;
  if (p.transposeType == TransposeType::TRANSPOSE_ND2ND_B16) {
    if constexpr (sizeof(T) == 2) {
      Transpose(dst, src);
      return;
    }
    Require(false, api, "TRANSPOSE_ND2ND_B16 takes 2-byte elements");
  }
  const bool to_nhwc = p.transposeType == TransposeType::TRANSPOSE_NCHW2NHWC;
  Require(to_nhwc || p.transposeType == TransposeType::TRANSPOSE_NHWC2NCHW, api,
          "transposeType " + std::to_string(static_cast<int>(p.transposeType)) +
              " is not ND2ND_B16, NCHW2NHWC or NHWC2NCHW");
  const uint64_t hw = uint64_t{p.hSize} * p.wSize;
  const uint64_t image = hw * p.cSize;
  const uint64_t total = image * p.nSize;
  if (total == 0) return;
  CheckRead(src, total, api, "src");
  CheckWrite(dst, total, api);
  std::vector<T> in(src.data(), src.data() + total);
  for (uint64_t n = 0; n < p.nSize; ++n)
    for (uint64_t c = 0; c < p.cSize; ++c)
      for (uint64_t s = 0; s < hw; ++s) {
        const uint64_t nchw = n * image + c * hw + s;
        const uint64_t nhwc = n * image + s * p.cSize + c;
        if (to_nhwc) {
          dst.data()[nhwc] = in[nchw];
        } else {
          dst.data()[nchw] = in[nhwc];
        }
      }
}

// Per repeat r: element i of destination block r of address d receives element d of source
// block r of address i, i.e. dst_d[r * dstRepStride * 16 + i] = src_i[r * srcRepStride * 16 + d]
// (2-byte elements; addresses as GetPhyAddr returns them).
template <typename T>
void TransDataTo5HD(const uint64_t dstList[16], const uint64_t srcList[16],
                    const TransDataTo5HDParams& params) {
  static_assert(sizeof(T) == 2, "TransDataTo5HD: tessera implements the 2-byte form");
  const uint64_t ds = uint64_t{params.dstRepStride} * 16;
  const uint64_t ss = uint64_t{params.srcRepStride} * 16;
  for (uint32_t r = 0; r < params.repeatTimes; ++r) {
    T tile[16][16];
    for (uint32_t i = 0; i < 16; ++i) {
      const T* s = reinterpret_cast<const T*>(static_cast<uintptr_t>(srcList[i])) + r * ss;
      for (uint32_t d = 0; d < 16; ++d)
        tile[d][i] = s[d];
    }
    for (uint32_t d = 0; d < 16; ++d) {
      T* out = reinterpret_cast<T*>(static_cast<uintptr_t>(dstList[d])) + r * ds;
      for (uint32_t i = 0; i < 16; ++i)
        out[i] = tile[d][i];
      ::tessera::kernel::detail::ShadowWritten(out, 16 * sizeof(T));
    }
  }
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC

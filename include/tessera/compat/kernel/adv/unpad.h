// The vendor's UnPad: removes leftPad columns at the start and rightPad columns at the end of each
// of srcHeight rows of srcWidth elements (tiling fields), writing the remaining
// srcWidth - leftPad - rightPad elements of each row contiguously. No temporaries are needed
// (GetUnPadMaxMinTmpSize reports 0); the buffer argument is accepted for signature compatibility.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/compat/kernel/adv/detail/adv_common.h"

namespace AscendC::tiling {
// UnPad's tiling in the vendor's field order; tessera's UnPad reads srcHeight and srcWidth.
struct UnPadTiling {
  uint32_t srcHeight = 0;
  uint32_t srcWidth = 0;
  uint32_t tmpBuffer1BlockNum = 0;
  uint32_t tmpBuffer1RowNum = 0;
  uint32_t tmpBuffer2Offset = 0;
  uint32_t widthTiling = 0;
  uint32_t widthFractal = 0;
  uint32_t widthFractalTail = 0;
};
}  // namespace AscendC::tiling
using AscendC::tiling::UnPadTiling;

namespace AscendC {

struct UnPadParams {
  UnPadParams() = default;
  UnPadParams(uint16_t left, uint16_t right) : leftPad(left), rightPad(right) {}
  uint16_t leftPad = 0;
  uint16_t rightPad = 0;
};

namespace adv_api {

template <typename T>
void UnPad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
           UnPadParams& unPadParams, const LocalTensor<uint8_t>& /*sharedTmpBuffer*/,
           UnPadTiling& tiling) {
  using namespace ::tessera::compat::adv;
  const char* api = "UnPad";
  const uint32_t h = tiling.srcHeight;
  const uint32_t w = tiling.srcWidth;
  const uint32_t cut = uint32_t{unPadParams.leftPad} + unPadParams.rightPad;
  Require(cut <= w, api,
          "leftPad + rightPad " + std::to_string(cut) + " exceeds srcWidth " + std::to_string(w));
  const uint32_t out_w = w - cut;
  const uint64_t in_total = uint64_t{h} * w;
  const uint64_t out_total = uint64_t{h} * out_w;
  if (out_total == 0) return;
  CheckRead(srcTensor, in_total, api, "src");
  CheckWrite(dstTensor, out_total, api);
  // dst may alias src: the rows are compacted forwards, so copy through a buffer.
  const std::vector<T> in(srcTensor.data(), srcTensor.data() + in_total);
  for (uint32_t r = 0; r < h; ++r)
    for (uint32_t j = 0; j < out_w; ++j)
      dstTensor.data()[uint64_t{r} * out_w + j] = in[uint64_t{r} * w + unPadParams.leftPad + j];
}
template <typename T>
void UnPad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
           UnPadParams& unPadParams, UnPadTiling& tiling) {
  UnPad(dstTensor, srcTensor, unPadParams, LocalTensor<uint8_t>(), tiling);
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC

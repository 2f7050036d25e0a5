// The vendor's Welford APIs: WelfordUpdate (one online step over rnLength x abLength running means
// and M2 sums, each step rounded to float as the vendor's instructions do) and WelfordFinalize
// (combines abLength partial means / M2 sums into one mean and variance, accumulated in double).
// No temporaries are needed (the host queries report 0 bytes); the buffer arguments are accepted
// for signature compatibility.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/compat/kernel/adv/detail/adv_common.h"

namespace AscendC {

struct WelfordUpdateConfig {
  constexpr WelfordUpdateConfig(const bool isInplaceIn) : isInplace(isInplaceIn) {}
  // True: outputs past abComputeLength keep the inputs' values (in-place use); false: untouched.
  bool isInplace = false;
};
inline constexpr WelfordUpdateConfig WFUPDATE_DEFAULT_CFG = {false};

// rnLength rows of abLength elements; the first abComputeLength of each row are updated; nRec is
// 1 / (the sample count after this step).
struct WelfordUpdateParam {
  uint32_t rnLength;
  uint32_t abLength;
  uint32_t abComputeLength;
  float nRec;
};

struct WelfordFinalizeConfig {
  constexpr WelfordFinalizeConfig(const bool isCorrectionIn) : isCorrection(isCorrectionIn) {}
  bool isCorrection = false;
};
inline constexpr WelfordFinalizeConfig WFFINALIZE_DEFAULT_CFG = {false};

// abLength partials: the first headCountLength hold headCount samples each, the next
// tailCountLength tailCount each (tailCount 0: every partial holds rnLength-weighted equal
// shares, mean = sum * abRec). rRec = 1 / total sample count.
struct WelfordFinalizePara {
  uint32_t rnLength;
  uint32_t abLength;
  uint32_t headCount;
  uint32_t headCountLength;
  uint32_t tailCount;
  uint32_t tailCountLength;
  float abRec;
  float rRec;
};

// The functions are declared in AscendC::adv_api, which AscendC imports: a qualified
// AscendC::Name then finds these and the kernel layer's same-named instructions together.
namespace adv_api {

// WelfordUpdate: for each row and i < abComputeLength, with d = x - inputMean:
// outputMean = inputMean + d * nRec, outputVariance = inputVariance + d * (x - outputMean).
// T (x): float or half; U (statistics): float.
template <typename T, typename U, bool isReuseSource = false,
          const WelfordUpdateConfig& config = WFUPDATE_DEFAULT_CFG>
void WelfordUpdate(const LocalTensor<U>& outputMean, const LocalTensor<U>& outputVariance,
                   const LocalTensor<U>& inputMean, const LocalTensor<U>& inputVariance,
                   const LocalTensor<T>& inputX, const LocalTensor<uint8_t>& /*sharedTmpBuffer*/,
                   const WelfordUpdateParam& para) {
  using namespace ::tessera::compat::adv;
  static_assert(std::is_same_v<U, float>, "WelfordUpdate: U must be float");
  const char* api = "WelfordUpdate";
  Require(para.abComputeLength <= para.abLength, api,
          "abComputeLength " + std::to_string(para.abComputeLength) + " exceeds abLength " +
              std::to_string(para.abLength));
  const uint64_t total = uint64_t{para.rnLength} * para.abLength;
  CheckSpace(inputX, total, api, "inputX");
  CheckSpace(inputMean, total, api, "inputMean");
  CheckSpace(inputVariance, total, api, "inputVariance");
  CheckSpace(outputMean, total, api, "dst outputMean");
  CheckSpace(outputVariance, total, api, "dst outputVariance");
  const float n_rec = para.nRec;
  for (uint32_t r = 0; r < para.rnLength; ++r) {
    const uint64_t base = uint64_t{r} * para.abLength;
    for (uint32_t i = 0; i < para.abLength; ++i) {
      const uint64_t k = base + i;
      if (i >= para.abComputeLength) {
        if (config.isInplace) {
          outputMean.data()[k] = inputMean.data()[k];
          outputVariance.data()[k] = inputVariance.data()[k];
        }
        continue;
      }
      // One float rounding per step, as the vendor's vector instructions (Sub, Muls, Add, Mul)
      // compute it; the stored products keep the compiler from fusing them into an FMA.
      const float x = ToF32(inputX.data()[k]);
      const float m = inputMean.data()[k];
      const float d = x - m;
      volatile float step = d * n_rec;
      const float mean = m + step;
      volatile float spread = d * (x - mean);
      outputVariance.data()[k] = inputVariance.data()[k] + spread;
      outputMean.data()[k] = mean;
    }
  }
}
template <typename T, typename U, bool isReuseSource = false,
          const WelfordUpdateConfig& config = WFUPDATE_DEFAULT_CFG>
void WelfordUpdate(const LocalTensor<U>& outputMean, const LocalTensor<U>& outputVariance,
                   const LocalTensor<U>& inputMean, const LocalTensor<U>& inputVariance,
                   const LocalTensor<T>& inputX, const WelfordUpdateParam& para) {
  WelfordUpdate<T, U, isReuseSource, config>(outputMean, outputVariance, inputMean, inputVariance,
                                             inputX, LocalTensor<uint8_t>(), para);
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC

namespace tessera::compat::adv {

// Combines partials with per-partial counts c_i (count(i) returns it):
// mean = rRec * sum c_i m_i, variance = rRec * sum (v_i + c_i (m_i - mean)^2).
template <class Count>
void WelfordCombine(const char* api, const LocalTensor<float>& outputMean,
                    const LocalTensor<float>& outputVariance, const LocalTensor<float>& inputMean,
                    const LocalTensor<float>& inputVariance, const AscendC::WelfordFinalizePara& p,
                    Count count) {
  CheckRead(inputMean, p.abLength, api, "inputMean");
  CheckRead(inputVariance, p.abLength, api, "inputVariance");
  CheckWrite(outputMean, 1, api);
  CheckWrite(outputVariance, 1, api);
  double mean = 0;
  for (uint32_t i = 0; i < p.abLength; ++i)
    mean += count(i) * double{inputMean.data()[i]};
  mean *= p.rRec;
  double var = 0;
  for (uint32_t i = 0; i < p.abLength; ++i) {
    const double d = inputMean.data()[i] - mean;
    var += inputVariance.data()[i] + count(i) * d * d;
  }
  outputMean.data()[0] = static_cast<float>(mean);
  outputVariance.data()[0] = static_cast<float>(var * p.rRec);
}

}  // namespace tessera::compat::adv

namespace AscendC {

namespace adv_api {

// WelfordFinalize with per-partial sample counts: writes outputMean[0] and outputVariance[0].
template <bool isReuseSource = false, const WelfordFinalizeConfig& config = WFFINALIZE_DEFAULT_CFG>
void WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                     const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                     const LocalTensor<int32_t>& counts,
                     const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, WelfordFinalizePara& para) {
  ::tessera::compat::adv::CheckRead(counts, para.abLength, "WelfordFinalize", "counts");
  const int32_t* c = counts.data();
  ::tessera::compat::adv::WelfordCombine("WelfordFinalize", outputMean, outputVariance, inputMean,
                                         inputVariance, para,
                                         [c](uint32_t i) { return static_cast<double>(c[i]); });
}
template <bool isReuseSource = false, const WelfordFinalizeConfig& config = WFFINALIZE_DEFAULT_CFG>
void WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                     const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                     const LocalTensor<int32_t>& counts, WelfordFinalizePara& para) {
  WelfordFinalize<isReuseSource, config>(outputMean, outputVariance, inputMean, inputVariance,
                                         counts, LocalTensor<uint8_t>(), para);
}

// WelfordFinalize with counts from para: headCount for the first headCountLength partials,
// tailCount for the rest; without a tail every partial weighs equally (mean = abRec * sum m_i,
// variance = rRec * sum (v_i + rnLength (m_i - mean)^2)).
template <bool isReuseSource = false, const WelfordFinalizeConfig& config = WFFINALIZE_DEFAULT_CFG>
void WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                     const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                     const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, WelfordFinalizePara& para) {
  using namespace ::tessera::compat::adv;
  const char* api = "WelfordFinalize";
  Require(para.headCountLength + para.tailCountLength == para.abLength, api,
          "headCountLength + tailCountLength must equal abLength " + std::to_string(para.abLength));
  if (para.tailCount == 0 || para.tailCountLength == 0) {
    Require(para.tailCountLength == 0, api, "tailCount is 0 but tailCountLength is not");
    // Equal weights: the mean uses abRec, the spread of the means counts rnLength samples each.
    CheckRead(inputMean, para.abLength, api, "inputMean");
    double mean = 0;
    for (uint32_t i = 0; i < para.abLength; ++i)
      mean += inputMean.data()[i];
    mean *= para.abRec;
    CheckRead(inputVariance, para.abLength, api, "inputVariance");
    CheckWrite(outputMean, 1, api);
    CheckWrite(outputVariance, 1, api);
    double var = 0;
    for (uint32_t i = 0; i < para.abLength; ++i) {
      const double d = inputMean.data()[i] - mean;
      var += inputVariance.data()[i] + static_cast<double>(para.rnLength) * d * d;
    }
    outputMean.data()[0] = static_cast<float>(mean);
    outputVariance.data()[0] = static_cast<float>(var * para.rRec);
    return;
  }
  const uint32_t head = para.headCountLength;
  const double hc = para.headCount, tc = para.tailCount;
  WelfordCombine(api, outputMean, outputVariance, inputMean, inputVariance, para,
                 [head, hc, tc](uint32_t i) { return i < head ? hc : tc; });
}
template <bool isReuseSource = false, const WelfordFinalizeConfig& config = WFFINALIZE_DEFAULT_CFG>
void WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                     const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                     WelfordFinalizePara& para) {
  WelfordFinalize<isReuseSource, config>(outputMean, outputVariance, inputMean, inputVariance,
                                         LocalTensor<uint8_t>(), para);
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC

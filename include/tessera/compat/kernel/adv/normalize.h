// The vendor's [A, R] normalisations with rstd: LayerNorm (the LayerNormPara form: y, mean and
// rstd = 1 / sqrt(variance + epsilon) per row) and Normalize (y and rstd from a given mean and
// variance). Rows are rLengthWithPadding apart, of which the first rLength are data; statistics
// accumulate in double and round once. T (x, y): float or half; U (gamma, beta): T or float. The
// temporary buffer argument is accepted for signature compatibility (the host queries report 0).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/compat/kernel/adv/detail/adv_common.h"
#include "tessera/compat/kernel/adv/detail/reduce_pattern.h"
#include "tessera/compat/kernel/adv/normalization_tiling.h"

namespace AscendC {

struct LayerNormConfig {
  bool isNoBeta = false;
  bool isNoGamma = false;
  bool isOnlyOutput = false;
  bool isOutputRstd = true;
};
inline constexpr LayerNormConfig LNCFG_NORM = {false, false, false, true};

struct LayerNormPara {
  uint32_t aLength;
  uint32_t rLength;
  uint32_t rLengthWithPadding;
};

struct NormalizeConfig {
  ReducePattern reducePattern = ReducePattern::AR;
  int32_t aLength = -1;
  bool isNoBeta = false;
  bool isNoGamma = false;
  bool isOnlyOutput = false;
};
inline constexpr NormalizeConfig NLCFG_NORM = {ReducePattern::AR, -1, false, false, false};

struct NormalizePara {
  uint32_t aLength;
  uint32_t rLength;
  uint32_t rLengthWithPadding;
};

}  // namespace AscendC

namespace tessera::compat::adv {

template <class T, class U>
void CheckNormalizeTypes() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, ::tessera::half>,
                "LayerNorm / Normalize: T must be float or half");
  static_assert(std::is_same_v<U, T> || std::is_same_v<U, float>,
                "LayerNorm / Normalize: U (gamma, beta) must be T or float");
}

inline void CheckPara(const char* api, uint32_t a, uint32_t r, uint32_t stride) {
  Require(a > 0 && r > 0 && r <= stride, api,
          "para needs aLength > 0 and 0 < rLength <= rLengthWithPadding, got aLength " +
              std::to_string(a) + " rLength " + std::to_string(r) + " rLengthWithPadding " +
              std::to_string(stride));
}

// y[row] = gamma * (x - mean) * rstd + beta over the first r elements of each row (gamma / beta
// left out as the flags say).
template <class T, class U>
void WriteNormalizedRow(const T* x, T* y, uint32_t r, double mean, double rstd, const U* gamma,
                        const U* beta) {
  for (uint32_t i = 0; i < r; ++i) {
    double v = (double{ToF32(x[i])} - mean) * rstd;
    if (gamma != nullptr) v *= ToF32(gamma[i]);
    if (beta != nullptr) v += ToF32(beta[i]);
    y[i] = FromF32<T>(static_cast<float>(v));
  }
}

}  // namespace tessera::compat::adv

namespace AscendC {
namespace adv_api {

// LayerNorm on para.aLength rows: mean[a], rstd[a] = 1 / sqrt(population variance + epsilon),
// output = gamma * (x - mean) * rstd + beta (config drops gamma / beta). The tiling is accepted for
// the vendor's signature; the shape comes from para.
template <typename U, typename T, bool isReuseSource = false,
          const LayerNormConfig& config = LNCFG_NORM>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<float>& outputMean,
               const LocalTensor<float>& outputRstd, const LocalTensor<T>& inputX,
               const LocalTensor<U>& gamma, const LocalTensor<U>& beta, const float epsilon,
               const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const LayerNormPara& para,
               const LayerNormSeparateTiling& /*tiling*/) {
  using namespace ::tessera::compat::adv;
  CheckNormalizeTypes<T, U>();
  static_assert(!config.isOnlyOutput, "LayerNorm: isOnlyOutput is not supported on dav-2201");
  const char* api = "LayerNorm";
  const uint32_t a = para.aLength, r = para.rLength, stride = para.rLengthWithPadding;
  CheckPara(api, a, r, stride);
  const uint64_t total = uint64_t{a - 1} * stride + r;
  CheckRead(inputX, total, api, "inputX");
  if constexpr (!config.isNoGamma) CheckRead(gamma, r, api, "gamma");
  if constexpr (!config.isNoBeta) CheckRead(beta, r, api, "beta");
  CheckSpace(output, total, api, "dst output");
  CheckWrite(outputMean, a, api);
  CheckWrite(outputRstd, a, api);
  for (uint32_t row = 0; row < a; ++row) {
    const T* x = inputX.data() + uint64_t{row} * stride;
    double sum = 0;
    for (uint32_t i = 0; i < r; ++i)
      sum += ToF32(x[i]);
    const double mean = sum / r;
    double sq = 0;
    for (uint32_t i = 0; i < r; ++i) {
      const double d = ToF32(x[i]) - mean;
      sq += d * d;
    }
    const double rstd = 1.0 / std::sqrt(sq / r + epsilon);
    WriteNormalizedRow(x, output.data() + uint64_t{row} * stride, r, mean, rstd,
                       config.isNoGamma ? nullptr : gamma.data(),
                       config.isNoBeta ? nullptr : beta.data());
    outputMean.data()[row] = static_cast<float>(mean);
    outputRstd.data()[row] = static_cast<float>(rstd);
  }
}
template <typename U, typename T, bool isReuseSource = false,
          const LayerNormConfig& config = LNCFG_NORM>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<float>& outputMean,
               const LocalTensor<float>& outputRstd, const LocalTensor<T>& inputX,
               const LocalTensor<U>& gamma, const LocalTensor<U>& beta, const float epsilon,
               const LayerNormPara& para, const LayerNormSeparateTiling& tiling) {
  LayerNorm<U, T, isReuseSource, config>(output, outputMean, outputRstd, inputX, gamma, beta,
                                         epsilon, LocalTensor<uint8_t>(), para, tiling);
}

// Normalize with given statistics: outputRstd[a] = 1 / sqrt(inputVariance[a] + epsilon),
// output = gamma * (x - inputMean) * rstd + beta (config drops gamma / beta). AR pattern.
template <typename U, typename T, bool isReuseSource = false,
          const NormalizeConfig& config = NLCFG_NORM>
void Normalize(const LocalTensor<T>& output, const LocalTensor<float>& outputRstd,
               const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
               const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
               const LocalTensor<U>& beta, const LocalTensor<uint8_t>& /*sharedTmpBuffer*/,
               const float epsilon, const NormalizePara& para) {
  using namespace ::tessera::compat::adv;
  CheckNormalizeTypes<T, U>();
  static_assert(config.reducePattern == ReducePattern::AR, "Normalize: only the AR pattern");
  static_assert(!config.isOnlyOutput, "Normalize: isOnlyOutput must be false");
  const char* api = "Normalize";
  const uint32_t a = para.aLength, r = para.rLength, stride = para.rLengthWithPadding;
  CheckPara(api, a, r, stride);
  const uint64_t total = uint64_t{a - 1} * stride + r;
  CheckRead(inputX, total, api, "inputX");
  CheckRead(inputMean, a, api, "inputMean");
  CheckRead(inputVariance, a, api, "inputVariance");
  if constexpr (!config.isNoGamma) CheckRead(gamma, r, api, "gamma");
  if constexpr (!config.isNoBeta) CheckRead(beta, r, api, "beta");
  CheckSpace(output, total, api, "dst output");
  CheckWrite(outputRstd, a, api);
  for (uint32_t row = 0; row < a; ++row) {
    const double rstd = 1.0 / std::sqrt(double{inputVariance.data()[row]} + epsilon);
    WriteNormalizedRow(inputX.data() + uint64_t{row} * stride,
                       output.data() + uint64_t{row} * stride, r, inputMean.data()[row], rstd,
                       config.isNoGamma ? nullptr : gamma.data(),
                       config.isNoBeta ? nullptr : beta.data());
    outputRstd.data()[row] = static_cast<float>(rstd);
  }
}
template <typename U, typename T, bool isReuseSource = false,
          const NormalizeConfig& config = NLCFG_NORM>
void Normalize(const LocalTensor<T>& output, const LocalTensor<float>& outputRstd,
               const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
               const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
               const LocalTensor<U>& beta, const float epsilon, const NormalizePara& para) {
  Normalize<U, T, isReuseSource, config>(output, outputRstd, inputMean, inputVariance, inputX,
                                         gamma, beta, LocalTensor<uint8_t>(), epsilon, para);
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC

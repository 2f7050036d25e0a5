// The vendor's LayerNorm family (and DeepNorm, RmsNorm) on [B, S, H] tensors (rows of hLength
// elements, of which the first originalHLength are data): LayerNorm (y, mean, variance),
// LayerNormGrad (dx and the normalised x that LayerNormGradBeta needs) and LayerNormGradBeta
// (dgamma, dbeta). Row statistics and the column sums accumulate in double and round once, so
// results are within one rounding of the exact value for float; half computes in fp32 precision or
// better. The temporary buffer argument is accepted for signature compatibility: these
// implementations need none (the host queries GetLayerNorm*MaxMinTmpSize report 0).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/compat/kernel/adv/detail/adv_common.h"
#include "tessera/compat/kernel/adv/normalization_tiling.h"

namespace tessera::compat::adv {

struct NormShape {
  uint32_t rows;    // B * S
  uint32_t stride;  // hLength: elements between rows
  uint32_t h;       // originalHLength: elements normalised per row
};

template <class Tiling>
NormShape CheckNormShape(const Tiling& tiling, const char* api) {
  const uint32_t h = tiling.originalHLength != 0 ? tiling.originalHLength : tiling.hLength;
  Require(tiling.hLength > 0 && h > 0 && h <= tiling.hLength, api,
          "tiling hLength " + std::to_string(tiling.hLength) + " / originalHLength " +
              std::to_string(tiling.originalHLength) +
              " is not a valid row (0 < originalHLength <= hLength); fill the tiling with the "
              "host's Get...NDTilingInfo");
  return {tiling.bLength * tiling.sLength, tiling.hLength, h};
}

// Normalises each row of value(i) (i = row * stride + column): y = gamma * (v - mean) * rstd +
// beta; writes mean and population variance per row.
template <class T, class Value>
void NormalizeRows(const char* api, const NormShape& s, Value value, const LocalTensor<T>& output,
                   const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance,
                   const LocalTensor<T>& gamma, const LocalTensor<T>& beta, double eps) {
  CheckRead(gamma, s.h, api, "gamma");
  CheckRead(beta, s.h, api, "beta");
  CheckSpace(output, uint64_t{s.rows} * s.stride, api, "dst output");
  CheckWrite(outputMean, s.rows, api);
  CheckWrite(outputVariance, s.rows, api);
  for (uint32_t r = 0; r < s.rows; ++r) {
    const uint64_t base = uint64_t{r} * s.stride;
    double sum = 0;
    for (uint32_t i = 0; i < s.h; ++i)
      sum += value(base + i);
    const double mean = sum / s.h;
    double sq = 0;
    for (uint32_t i = 0; i < s.h; ++i) {
      const double d = value(base + i) - mean;
      sq += d * d;
    }
    const double var = sq / s.h;
    const double rstd = 1.0 / std::sqrt(var + eps);
    T* y = output.data() + base;
    for (uint32_t i = 0; i < s.h; ++i)
      y[i] = FromF32<T>(static_cast<float>(
          ToF32(gamma.data()[i]) * ((value(base + i) - mean) * rstd) + ToF32(beta.data()[i])));
    outputMean.data()[r] = FromF32<T>(static_cast<float>(mean));
    outputVariance.data()[r] = FromF32<T>(static_cast<float>(var));
  }
}

}  // namespace tessera::compat::adv

namespace AscendC {

// Tessera computes the ND layout only; the struct is the vendor's optional argument.
struct LayerNormGradShapeInfo {};

// The functions are declared in AscendC::adv_api, which AscendC imports: a qualified
// AscendC::Name then finds these and the kernel layer's same-named instructions together.
namespace adv_api {

// LayerNorm over each row's originalHLength elements: mean[r], variance[r] (population),
// output = gamma * (x - mean) / sqrt(variance + epsilon) + beta. Shape from tiling (bLength,
// sLength, hLength, originalHLength); output rows keep x's stride. T: float or half.
template <typename T, bool isReuseSource = false>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
               const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
               const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
               const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const T epsilon,
               LayerNormTiling& tiling) {
  using namespace ::tessera::compat::adv;
  const NormShape s = CheckNormShape(tiling, "LayerNorm");
  CheckSpace(inputX, uint64_t{s.rows} * s.stride, "LayerNorm", "inputX");
  const T* x = inputX.data();
  NormalizeRows(
      "LayerNorm", s, [x](uint64_t i) { return double{ToF32(x[i])}; }, output, outputMean,
      outputVariance, gamma, beta, ToF32(epsilon));
}
template <typename T, bool isReuseSource = false>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
               const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
               const LocalTensor<T>& gamma, const LocalTensor<T>& beta, const T epsilon,
               LayerNormTiling& tiling) {
  LayerNorm<T, isReuseSource>(output, outputMean, outputVariance, inputX, gamma, beta,
                              LocalTensor<uint8_t>(), epsilon, tiling);
}

// LayerNormGrad: with xhat = (x - mean) * rstd, rstd = 1 / sqrt(variance + epsilon) and
// g = dy * gamma, writes resForGamma = xhat and
// outputPdX = rstd * (g - mean(g) - xhat * mean(g * xhat)) per row (the exact gradient of
// LayerNorm's output with respect to x). inputMean / inputVariance are LayerNorm's outputs.
template <typename T, bool isReuseSource = false>
void LayerNormGrad(const LocalTensor<T>& outputPdX, const LocalTensor<T>& resForGamma,
                   const LocalTensor<T>& inputDy, const LocalTensor<T>& inputX,
                   const LocalTensor<T>& inputVariance, const LocalTensor<T>& inputMean,
                   const LocalTensor<T>& inputGamma, LocalTensor<uint8_t>& /*sharedTmpBuffer*/,
                   T epsilon, LayerNormGradTiling& tiling,
                   const LayerNormGradShapeInfo& /*shapeInfo*/ = {}) {
  using namespace ::tessera::compat::adv;
  const char* api = "LayerNormGrad";
  const NormShape s = CheckNormShape(tiling, api);
  const uint64_t total = uint64_t{s.rows} * s.stride;
  CheckSpace(inputDy, total, api, "inputDy");
  CheckSpace(inputX, total, api, "inputX");
  CheckRead(inputVariance, s.rows, api, "inputVariance");
  CheckRead(inputMean, s.rows, api, "inputMean");
  CheckRead(inputGamma, s.h, api, "inputGamma");
  CheckSpace(outputPdX, total, api, "dst outputPdX");
  CheckSpace(resForGamma, total, api, "dst resForGamma");
  const double eps = ToF32(epsilon);
  for (uint32_t r = 0; r < s.rows; ++r) {
    const uint64_t base = uint64_t{r} * s.stride;
    const T* x = inputX.data() + base;
    const T* dy = inputDy.data() + base;
    const double mean = ToF32(inputMean.data()[r]);
    const double rstd = 1.0 / std::sqrt(ToF32(inputVariance.data()[r]) + eps);
    double sum_g = 0, sum_gx = 0;
    for (uint32_t i = 0; i < s.h; ++i) {
      const double xhat = (ToF32(x[i]) - mean) * rstd;
      const double g = double{ToF32(dy[i])} * ToF32(inputGamma.data()[i]);
      sum_g += g;
      sum_gx += g * xhat;
    }
    const double mean_g = sum_g / s.h, mean_gx = sum_gx / s.h;
    for (uint32_t i = 0; i < s.h; ++i) {
      const double xhat = (ToF32(x[i]) - mean) * rstd;
      const double g = double{ToF32(dy[i])} * ToF32(inputGamma.data()[i]);
      outputPdX.data()[base + i] =
          FromF32<T>(static_cast<float>(rstd * (g - mean_g - xhat * mean_gx)));
      resForGamma.data()[base + i] = FromF32<T>(static_cast<float>(xhat));
    }
  }
}
template <typename T, bool isReuseSource = false>
void LayerNormGrad(const LocalTensor<T>& outputPdX, const LocalTensor<T>& resForGamma,
                   const LocalTensor<T>& inputDy, const LocalTensor<T>& inputX,
                   const LocalTensor<T>& inputVariance, const LocalTensor<T>& inputMean,
                   const LocalTensor<T>& inputGamma, T epsilon, LayerNormGradTiling& tiling,
                   const LayerNormGradShapeInfo& shapeInfo = {}) {
  LocalTensor<uint8_t> none;
  LayerNormGrad<T, isReuseSource>(outputPdX, resForGamma, inputDy, inputX, inputVariance, inputMean,
                                  inputGamma, none, epsilon, tiling, shapeInfo);
}

// LayerNormGradBeta: outputPdGamma[i] = sum over rows of inputDy * resForGamma,
// outputPdBeta[i] = sum over rows of inputDy, for i < originalHLength.
template <typename T, bool isReuseSource = false>
void LayerNormGradBeta(const LocalTensor<T>& outputPdGamma, const LocalTensor<T>& outputPdBeta,
                       const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
                       const LocalTensor<uint8_t>& /*sharedTmpBuffer*/,
                       const LayerNormGradBetaTiling& tiling) {
  using namespace ::tessera::compat::adv;
  const char* api = "LayerNormGradBeta";
  const NormShape s = CheckNormShape(tiling, api);
  const uint64_t total = uint64_t{s.rows} * s.stride;
  CheckSpace(resForGamma, total, api, "resForGamma");
  CheckSpace(inputDy, total, api, "inputDy");
  CheckWrite(outputPdGamma, s.h, api);
  CheckWrite(outputPdBeta, s.h, api);
  std::vector<double> pd_gamma(s.h, 0.0), pd_beta(s.h, 0.0);
  for (uint32_t r = 0; r < s.rows; ++r) {
    const uint64_t base = uint64_t{r} * s.stride;
    for (uint32_t i = 0; i < s.h; ++i) {
      const double dy = ToF32(inputDy.data()[base + i]);
      pd_gamma[i] += dy * ToF32(resForGamma.data()[base + i]);
      pd_beta[i] += dy;
    }
  }
  for (uint32_t i = 0; i < s.h; ++i) {
    outputPdGamma.data()[i] = FromF32<T>(static_cast<float>(pd_gamma[i]));
    outputPdBeta.data()[i] = FromF32<T>(static_cast<float>(pd_beta[i]));
  }
}
template <typename T, bool isReuseSource = false>
void LayerNormGradBeta(const LocalTensor<T>& outputPdGamma, const LocalTensor<T>& outputPdBeta,
                       const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
                       LayerNormGradBetaTiling& tiling) {
  LayerNormGradBeta<T, isReuseSource>(outputPdGamma, outputPdBeta, resForGamma, inputDy,
                                      LocalTensor<uint8_t>(), tiling);
}

// DeepNorm: LayerNorm of alpha * src + gx over each row (mean and population variance of that
// sum in meanLocal / rstdLocal, as the vendor's samples read them). T: float or half.
template <typename T, bool isReuseSrc = false, bool isBasicBlock = false>
void DeepNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& meanLocal,
              const LocalTensor<T>& rstdLocal, const LocalTensor<T>& srcLocal,
              const LocalTensor<T>& gxLocal, const LocalTensor<T>& betaLocal,
              const LocalTensor<T>& gammaLocal, const LocalTensor<uint8_t>& /*sharedTmpBuffer*/,
              const T alpha, const T epsilon, DeepNormTiling& tiling) {
  using namespace ::tessera::compat::adv;
  const NormShape s = CheckNormShape(tiling, "DeepNorm");
  CheckSpace(srcLocal, uint64_t{s.rows} * s.stride, "DeepNorm", "srcLocal");
  CheckSpace(gxLocal, uint64_t{s.rows} * s.stride, "DeepNorm", "gxLocal");
  const T* x = srcLocal.data();
  const T* gx = gxLocal.data();
  const double a = ToF32(alpha);
  NormalizeRows(
      "DeepNorm", s, [x, gx, a](uint64_t i) { return a * ToF32(x[i]) + ToF32(gx[i]); }, dstLocal,
      meanLocal, rstdLocal, gammaLocal, betaLocal, ToF32(epsilon));
}
template <typename T, bool isReuseSrc = false, bool isBasicBlock = false>
void DeepNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& meanLocal,
              const LocalTensor<T>& rstdLocal, const LocalTensor<T>& srcLocal,
              const LocalTensor<T>& gxLocal, const LocalTensor<T>& betaLocal,
              const LocalTensor<T>& gammaLocal, const T alpha, const T epsilon,
              DeepNormTiling& tiling) {
  DeepNorm<T, isReuseSrc, isBasicBlock>(dstLocal, meanLocal, rstdLocal, srcLocal, gxLocal,
                                        betaLocal, gammaLocal, LocalTensor<uint8_t>(), alpha,
                                        epsilon, tiling);
}

// RmsNorm over each row's originalHLength elements (rows of hLength): dst = src * gamma /
// sqrt(mean(src^2) + epsilon), the mean of squares accumulated in double. T: float or half.
template <typename T, bool isBasicBlock = false>
void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
             const LocalTensor<T>& gammaLocal, const LocalTensor<uint8_t>& /*sharedTmpBuffer*/,
             const T epsilon, const RmsNormTiling& tiling) {
  using namespace ::tessera::compat::adv;
  const char* api = "RmsNorm";
  const NormShape s = CheckNormShape(tiling, api);
  const uint64_t total = uint64_t{s.rows} * s.stride;
  CheckSpace(srcLocal, total, api, "src");
  CheckRead(gammaLocal, s.h, api, "gamma");
  CheckSpace(dstLocal, total, api, "dst");
  const double eps = ToF32(epsilon);
  for (uint32_t r = 0; r < s.rows; ++r) {
    const T* x = srcLocal.data() + uint64_t{r} * s.stride;
    T* y = dstLocal.data() + uint64_t{r} * s.stride;
    double sq = 0;
    for (uint32_t i = 0; i < s.h; ++i)
      sq += double{ToF32(x[i])} * ToF32(x[i]);
    const double rrms = 1.0 / std::sqrt(sq / s.h + eps);
    for (uint32_t i = 0; i < s.h; ++i)
      y[i] = FromF32<T>(static_cast<float>(ToF32(x[i]) * rrms * ToF32(gammaLocal.data()[i])));
  }
}
template <typename T, bool isBasicBlock = false>
void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
             const LocalTensor<T>& gammaLocal, const T epsilon, const RmsNormTiling& tiling) {
  RmsNorm<T, isBasicBlock>(dstLocal, srcLocal, gammaLocal, LocalTensor<uint8_t>(), epsilon, tiling);
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC

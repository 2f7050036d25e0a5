// Eigen Tensor peers of the elewise benchmark cases, on a ThreadPoolDevice with as many threads
// as tessera's worker pool. Compiled in their own file (eigen_peers.cc) with AVX2 enabled, so the
// peer is not held back by the baseline x86-64 instruction set.
#pragma once

#include <cstdint>

namespace tessera::bench {

void EigenFma(const float* a, const float* b, const float* c, float* out, int64_t n);
void EigenSigmoid(const float* x, float* out, int64_t n);
void EigenGelu(const float* x, float* out, int64_t n);
void EigenRmsNorm(const float* x, const float* gamma, float* out, int64_t rows, int64_t cols,
                  float eps);
// bfloat16 tensors given as raw 16-bit storage.
void EigenRmsNormBf16(const void* x, const void* gamma, void* out, int64_t rows, int64_t cols,
                      float eps);
void EigenSoftmax(const float* x, float* out, int64_t rows, int64_t cols);

}  // namespace tessera::bench

#include "eigen_peers.h"

#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/Tensor>

#include "tessera/device/device.h"

namespace tessera::bench {
namespace {

Eigen::ThreadPoolDevice& Device() {
  static Eigen::ThreadPool* pool =
      new Eigen::ThreadPool(static_cast<int>(tessera::device::WorkerThreads()));
  static Eigen::ThreadPoolDevice* dev =
      new Eigen::ThreadPoolDevice(pool, static_cast<int>(tessera::device::WorkerThreads()));
  return *dev;
}

using Vec = Eigen::TensorMap<Eigen::Tensor<float, 1, Eigen::RowMajor>>;
using CVec = Eigen::TensorMap<Eigen::Tensor<const float, 1, Eigen::RowMajor>>;
template <class T>
using Mat = Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor>>;

}  // namespace

void EigenFma(const float* a, const float* b, const float* c, float* out, int64_t n) {
  Vec(out, n).device(Device()) = CVec(a, n) * CVec(b, n) + CVec(c, n);
}

void EigenSigmoid(const float* x, float* out, int64_t n) {
  Vec(out, n).device(Device()) = CVec(x, n).sigmoid();
}

void EigenGelu(const float* x, float* out, int64_t n) {
  const auto v = CVec(x, n);
  Vec(out, n).device(Device()) =
      v * 0.5f * (((v + v.cube() * 0.044715f) * 0.7978845608f).tanh() + 1.0f);
}

template <class T>
void RmsNormImpl(const T* x, const T* gamma, T* out, int64_t rows, int64_t cols, float eps) {
  const Eigen::array<Eigen::Index, 1> red{1};
  const Eigen::array<Eigen::Index, 2> col_shape{rows, 1};
  const Eigen::array<Eigen::Index, 2> row_shape{1, cols};
  const Eigen::array<Eigen::Index, 2> bcast_cols{1, cols};
  const Eigen::array<Eigen::Index, 2> bcast_rows{rows, 1};
  const auto xf = Mat<const T>(x, rows, cols).template cast<float>();
  Eigen::Tensor<float, 1, Eigen::RowMajor> inv(rows);
  inv.device(Device()) = ((xf * xf).mean(red) + eps).rsqrt();
  const auto g = Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor>>(gamma, cols)
                     .template cast<float>();
  Mat<T>(out, rows, cols).device(Device()) = (xf * inv.reshape(col_shape).broadcast(bcast_cols) *
                                              g.reshape(row_shape).broadcast(bcast_rows))
                                                 .template cast<T>();
}

void EigenRmsNorm(const float* x, const float* gamma, float* out, int64_t rows, int64_t cols,
                  float eps) {
  RmsNormImpl(x, gamma, out, rows, cols, eps);
}

void EigenRmsNormBf16(const void* x, const void* gamma, void* out, int64_t rows, int64_t cols,
                      float eps) {
  RmsNormImpl(static_cast<const Eigen::bfloat16*>(x), static_cast<const Eigen::bfloat16*>(gamma),
              static_cast<Eigen::bfloat16*>(out), rows, cols, eps);
}

void EigenSoftmax(const float* x, float* out, int64_t rows, int64_t cols) {
  const Eigen::array<Eigen::Index, 1> red{1};
  const Eigen::array<Eigen::Index, 2> col_shape{rows, 1};
  const Eigen::array<Eigen::Index, 2> bcast_cols{1, cols};
  const auto xm = Mat<const float>(x, rows, cols);
  auto om = Mat<float>(out, rows, cols);
  Eigen::Tensor<float, 1, Eigen::RowMajor> m(rows);
  Eigen::Tensor<float, 1, Eigen::RowMajor> s(rows);
  m.device(Device()) = xm.maximum(red);
  om.device(Device()) = (xm - m.reshape(col_shape).broadcast(bcast_cols)).exp();
  s.device(Device()) = om.sum(red);
  om.device(Device()) = om * s.inverse().reshape(col_shape).broadcast(bcast_cols);
}

}  // namespace tessera::bench

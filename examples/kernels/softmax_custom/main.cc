// Host program for softmax_custom.   softmax_custom [rows] [cols]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../kernel_host.h"
#include "softmax_custom_kernel.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"

using namespace tessera;

Status Run(int64_t rows, int64_t cols) {
  const device::ArchSpec& arch = device::CurrentArch();
  SoftmaxTilingData t;
  uint32_t block_dim = 1;
  if (!softmax_op::MakeTiling(rows, cols, arch.aiv_cores, arch.ub_bytes, &t, &block_dim)) {
    return InvalidArgument("softmax_custom: a row of " + std::to_string(cols) +
                           " floats does not fit a third of UB");
  }
  const std::vector<float> x =
      samples::RandomVector(static_cast<size_t>(rows * cols), -20.0f, 20.0f, 3);
  std::vector<float> y(x.size());
  TESSERA_RETURN_IF_ERROR(samples::RunUnaryKernel(softmax_custom, block_dim, t, x, y));
  double worst = 0;
  for (int64_t r = 0; r < rows; ++r) {
    long double mx = -INFINITY, sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      mx = std::max<long double>(mx, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c)
      sum += std::exp(static_cast<long double>(x[r * cols + c]) - mx);
    for (int64_t c = 0; c < cols; ++c) {
      const long double want = std::exp(static_cast<long double>(x[r * cols + c]) - mx) / sum;
      worst =
          std::max(worst, static_cast<double>(std::fabs(y[r * cols + c] - want) / (want + 1e-30L)));
    }
  }
  const bool ok = worst <= 1e-5;
  std::printf("softmax_custom: %lld x %lld on %u %s cores: max relative error %.2e: %s\n",
              static_cast<long long>(rows), static_cast<long long>(cols), block_dim,
              arch.name.c_str(), worst, ok ? "OK" : "MISMATCH");
  return ok ? OkStatus() : Internal("relative error too large");
}

int main(int argc, char** argv) {
  Status st = Run(argc > 1 ? std::atoll(argv[1]) : 1000, argc > 2 ? std::atoll(argv[2]) : 1000);
  if (!st.ok()) std::fprintf(stderr, "softmax_custom: %s\n", st.ToString().c_str());
  return st.ok() ? 0 : 1;
}

// Host program for leaky_relu_custom.   leaky_relu_custom [elements] [alpha]
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../kernel_host.h"
#include "leaky_relu_custom_kernel.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"

using namespace tessera;

Status Run(int64_t n, float alpha) {
  const device::ArchSpec& arch = device::CurrentArch();
  uint32_t block_dim = 1;
  const LeakyReluTilingData t =
      leaky_relu_op::MakeTiling(n, alpha, arch.aiv_cores, arch.ub_bytes, &block_dim);
  const std::vector<float> x = samples::RandomVector(static_cast<size_t>(n), -5.0f, 5.0f, 2);
  std::vector<float> y(x.size());
  TESSERA_RETURN_IF_ERROR(samples::RunUnaryKernel(leaky_relu_custom, block_dim, t, x, y));
  size_t wrong = 0;
  for (size_t i = 0; i < x.size(); ++i)
    wrong += y[i] != (x[i] >= 0 ? x[i] : alpha * x[i]);
  std::printf("leaky_relu_custom: %lld elements, alpha %g, %u %s cores: %s\n",
              static_cast<long long>(n), alpha, block_dim, arch.name.c_str(),
              wrong ? "MISMATCH" : "OK");
  return wrong ? Internal(std::to_string(wrong) + " wrong elements") : OkStatus();
}

int main(int argc, char** argv) {
  Status st = Run(argc > 1 ? std::atoll(argv[1]) : 1000003,
                  argc > 2 ? std::strtof(argv[2], nullptr) : 0.1f);
  if (!st.ok()) std::fprintf(stderr, "leaky_relu_custom: %s\n", st.ToString().c_str());
  return st.ok() ? 0 : 1;
}

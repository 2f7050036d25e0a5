// Host program for matmul_leakyrelu_mix: 512 x 128 x 128 half, two MIX groups of 256 rows (the
// vendor sample's shapes), alpha 0.001. Inputs are integers in [-10, 10), so the fp32 accumulation
// is exact; the reference rounds it to half, then applies LeakyRelu in fp32 rounded once to half.
#include <cstdio>
#include <random>
#include <vector>

#include "../kernel_host.h"
#include "matmul_leakyrelu_mix_kernel.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"

using namespace tessera;

Status Run() {
  constexpr uint32_t M = 512, K = 128, N = 128, baseM = 256;
  constexpr uint32_t groups = M / baseM;
  constexpr float alpha = 0.001f;
  std::vector<half> a(M * K), b(K * N), c(M * N);
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> dist(-10, 9);
  for (half& v : a)
    v = half(static_cast<float>(dist(rng)));
  for (half& v : b)
    v = half(static_cast<float>(dist(rng)));
  TESSERA_ASSIGN_OR_RETURN(auto da, samples::DeviceBytes::From(a));
  TESSERA_ASSIGN_OR_RETURN(auto db, samples::DeviceBytes::From(b));
  TESSERA_ASSIGN_OR_RETURN(auto dc, samples::DeviceBytes::From(c));
  TESSERA_ASSIGN_OR_RETURN(device::Stream stream, device::Stream::Create());
  TESSERA_RETURN_IF_ERROR(
      device::Launch(device::LaunchConfig{groups, device::KernelType::kMix, "matmul_leakyrelu_mix"},
                     matmul_leakyrelu_mix::MatmulLeakyReluKernel<M, K, N, baseM>, stream, da.get(),
                     db.get(), dc.get(), alpha));
  TESSERA_RETURN_IF_ERROR(stream.Synchronize());
  TESSERA_RETURN_IF_ERROR(dc.CopyTo(c));
  const float alpha_h = static_cast<float>(half(alpha));
  size_t wrong = 0;
  for (uint32_t i = 0; i < M; ++i) {
    for (uint32_t j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (uint32_t k = 0; k < K; ++k)
        acc += static_cast<float>(a[i * K + k]) * static_cast<float>(b[k * N + j]);
      const float x = static_cast<float>(half(acc));
      const half want = x >= 0.0f ? half(x) : half(x * alpha_h);
      wrong += want.bits != c[i * N + j].bits;
    }
  }
  std::printf("matmul_leakyrelu_mix: %ux%ux%u half, %u MIX groups (1 AIC + 2 AIV) on %s%s: %s\n", M,
              K, N, groups, device::CurrentArch().name.c_str(),
              device::CheckedMode() ? " (checked)" : "", wrong ? "MISMATCH" : "OK");
  return wrong ? Internal(std::to_string(wrong) + " wrong elements") : OkStatus();
}

int main() {
  Status st = Run();
  if (!st.ok()) std::fprintf(stderr, "matmul_leakyrelu_mix: %s\n", st.ToString().c_str());
  return st.ok() ? 0 : 1;
}

// Host program for matmul_leakyrelu_mix: 512 x 128 x 128 half, two MIX groups of 256 rows (the
// vendor sample's shapes), alpha 0.001. Inputs are integers in [-10, 10), so the fp32 accumulation
// is exact; the reference rounds it to half, then applies LeakyRelu in fp32 rounded once to half.
#include <cstdio>
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
  const std::vector<half> a = samples::SmallIntegerHalves(M * K, 11);
  const std::vector<half> b = samples::SmallIntegerHalves(K * N, 12);
  std::vector<half> c(M * N);
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
  const std::vector<float> acc = samples::MatmulF32(a, b, M, K, N);
  size_t wrong = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    const float x = static_cast<float>(half(acc[i]));
    const half want = x >= 0.0f ? half(x) : half(x * alpha_h);
    wrong += want.bits != c[i].bits;
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

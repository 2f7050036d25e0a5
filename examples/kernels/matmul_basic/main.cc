// Host program for matmul_basic: 256 x 64 x 256, two AIC blocks of 128 rows; inputs are integers in
// [-10, 10) (exact in half, as in the vendor's sample), so the fp32 accumulation is exact and the
// half result must equal the fp32 reference rounded to half.
#include <cstdio>
#include <vector>

#include "../kernel_host.h"
#include "matmul_basic_kernel.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"

using namespace tessera;

Status Run() {
  constexpr uint32_t M = 256, K = 64, N = 256, singleCoreM = 128;
  constexpr uint32_t blocks = M / singleCoreM;
  const std::vector<half> a = samples::SmallIntegerHalves(M * K, 7);
  const std::vector<half> b = samples::SmallIntegerHalves(K * N, 8);
  std::vector<half> c(M * N);
  TESSERA_ASSIGN_OR_RETURN(auto da, samples::DeviceBytes::From(a));
  TESSERA_ASSIGN_OR_RETURN(auto db, samples::DeviceBytes::From(b));
  TESSERA_ASSIGN_OR_RETURN(auto dc, samples::DeviceBytes::From(c));
  TESSERA_ASSIGN_OR_RETURN(device::Stream stream, device::Stream::Create());
  TESSERA_RETURN_IF_ERROR(
      device::Launch(device::LaunchConfig{blocks, device::KernelType::kAic, "matmul_basic"},
                     matmul_basic::MatmulKernel<M, K, N, singleCoreM, 128, 64, 256>, stream,
                     da.get(), db.get(), dc.get()));
  TESSERA_RETURN_IF_ERROR(stream.Synchronize());
  TESSERA_RETURN_IF_ERROR(dc.CopyTo(c));
  const std::vector<float> ref = samples::MatmulF32(a, b, M, K, N);
  size_t wrong = 0;
  for (size_t i = 0; i < c.size(); ++i)
    wrong += half(ref[i]).bits != c[i].bits;
  std::printf("matmul_basic: %ux%ux%u half, %u AIC blocks on %s%s: %s\n", M, K, N, blocks,
              device::CurrentArch().name.c_str(), device::CheckedMode() ? " (checked)" : "",
              wrong ? "MISMATCH" : "OK");
  return wrong ? Internal(std::to_string(wrong) + " wrong elements") : OkStatus();
}

int main() {
  Status st = Run();
  if (!st.ok()) std::fprintf(stderr, "matmul_basic: %s\n", st.ToString().c_str());
  return st.ok() ? 0 : 1;
}

// Host program for matmul_leakyrelu_highlevel: MultiCoreMatmulTiling with TCubeTiling embedded in
// the operator's tiling struct, a MIX launch, and a check against a double reference.
//   matmul_leakyrelu_highlevel [M N K [groups]]   (default 1024 640 256; TESSERA_PROFILE and
//                                                  TESSERA_CHECK apply)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "../kernel_host.h"
#include "matmul_leakyrelu_kernel.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"

using namespace tessera;
namespace mt = tessera::tiling::matmul_tiling;

Status Run(int32_t M, int32_t N, int32_t K, uint32_t groups) {
  const device::ArchSpec& arch = device::CurrentArch();
  // Tiling: C split over every AIV of the launch (SetDim counts vector cores in MIX, as on 2201).
  mt::MultiCoreMatmulTiling cubeTiling(kernel::MatmulPlatformOf(arch));
  cubeTiling.SetDim(static_cast<int32_t>(groups * arch.task_ration));
  cubeTiling.SetAType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16);
  cubeTiling.SetBType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16);
  cubeTiling.SetCType(mt::TPosition::VECIN, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
  cubeTiling.SetBiasType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
  cubeTiling.SetShape(M, N, K);
  cubeTiling.SetOrgShape(M, N, K);
  cubeTiling.SetFixSplit(128, 128, -1);
  cubeTiling.SetBias(true);
  cubeTiling.SetBufferSpace(-1, -1, -1);
  MatmulLeakyreluCustomTilingData tilingData;
  tilingData.alpha = 0.001f;
  if (cubeTiling.GetTiling(tilingData.cubeTilingData) == -1) {
    return InvalidArgument("matmul tiling failed: " + cubeTiling.GetErrorInfo());
  }
  const TCubeTiling& t = tilingData.cubeTilingData;
  // One MIX group per two clients.
  const uint32_t blockDim = static_cast<uint32_t>((t.usedCoreNum + 1) / 2);
  const std::vector<uint8_t> tilingBytes = tiling::SerializeTiling(tilingData);

  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<half> a(size_t(M) * K), b(size_t(K) * N);
  std::vector<float> bias(N), c(size_t(M) * N, 0.0f);
  for (auto& x : a)
    x = half(dist(rng));
  for (auto& x : b)
    x = half(dist(rng));
  for (auto& x : bias)
    x = dist(rng);
  TESSERA_ASSIGN_OR_RETURN(auto da, samples::DeviceBytes::From(a));
  TESSERA_ASSIGN_OR_RETURN(auto db, samples::DeviceBytes::From(b));
  TESSERA_ASSIGN_OR_RETURN(auto dbias, samples::DeviceBytes::From(bias));
  TESSERA_ASSIGN_OR_RETURN(auto dc, samples::DeviceBytes::From(c));
  TESSERA_ASSIGN_OR_RETURN(auto dt, samples::DeviceBytes::From(tilingBytes));
  std::vector<uint8_t> ws(kernel::MatmulWorkspaceBytes(blockDim));
  TESSERA_ASSIGN_OR_RETURN(auto dws, samples::DeviceBytes::From(ws));

  TESSERA_ASSIGN_OR_RETURN(device::Stream stream, device::Stream::Create());
  TESSERA_RETURN_IF_ERROR(device::Launch(
      device::LaunchConfig{blockDim, device::KernelType::kMix, "matmul_leakyrelu_custom", true},
      matmul_leakyrelu_custom, stream, da.get(), db.get(), dbias.get(), dc.get(), dws.get(),
      dt.get()));
  TESSERA_RETURN_IF_ERROR(stream.Synchronize());
  TESSERA_RETURN_IF_ERROR(dc.CopyTo(c));

  // Reference in double (i-k-j order so the inner loop streams); CATLASS's rule for fp32 output.
  const double rtol = K < 2048 ? 1.0 / 256 : 1.0 / 128;
  size_t wrong = 0;
  std::vector<double> bd(b.size()), row(static_cast<size_t>(N));
  for (size_t i = 0; i < b.size(); ++i)
    bd[i] = static_cast<float>(b[i]);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j)
      row[j] = bias[j];
    for (int64_t k = 0; k < K; ++k) {
      const double av = static_cast<float>(a[i * K + k]);
      const double* brow = bd.data() + k * N;
      for (int64_t j = 0; j < N; ++j)
        row[j] += av * brow[j];
    }
    for (int64_t j = 0; j < N; ++j) {
      const double ref = row[j] >= 0 ? row[j] : row[j] * tilingData.alpha;
      wrong += std::fabs(c[i * N + j] - ref) > rtol * std::max(1.0, std::fabs(ref));
    }
  }
  std::printf(
      "matmul_leakyrelu_highlevel: %d x %d x %d on %u MIX groups (%d AIV clients, base %d x %d "
      "x %d) of %s: %s\n",
      M, N, K, blockDim, t.usedCoreNum, t.baseM, t.baseN, t.baseK, arch.name.c_str(),
      wrong ? "MISMATCH" : "OK");
  return wrong ? Internal(std::to_string(wrong) + " wrong elements") : OkStatus();
}

int main(int argc, char** argv) {
  const int32_t M = argc > 3 ? std::atoi(argv[1]) : 1024;
  const int32_t N = argc > 3 ? std::atoi(argv[2]) : 640;
  const int32_t K = argc > 3 ? std::atoi(argv[3]) : 256;
  const uint32_t groups = argc > 4
                              ? static_cast<uint32_t>(std::atoi(argv[4]))
                              : std::min<uint32_t>(tessera::device::CurrentArch().aic_cores, 4);
  const Status st = Run(M, N, K, std::max<uint32_t>(groups, 1));
  if (!st.ok()) std::fprintf(stderr, "matmul_leakyrelu_highlevel: %s\n", st.ToString().c_str());
  return st.ok() ? 0 : 1;
}

// Host program for matmul_tilingkey: launches each of the four key instances (Dtype x TileBlock)
// as a cube kernel and checks it against a double reference; then shows that an invalid key is
// refused before any launch.
//   matmul_tilingkey [M N K [blockDim]]   (default 1024 1024 128 over the profile's AI cores;
//                                          TESSERA_PROFILE and TESSERA_CHECK apply)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "../kernel_host.h"
#include "matmul_tilingkey_kernel.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"

using namespace tessera;
using matmul_tilingkey_op::MatmulTilingKeyTable;

template <class T>
Status RunKey(int64_t dtype, int64_t tile, const MatmulTilingKeyTiling& t, uint32_t blockDim) {
  std::mt19937 rng(static_cast<uint32_t>(11 + dtype * 2 + tile));
  std::normal_distribution<float> dist(0.0f, 1.0f);  // torch.randn
  std::vector<T> a(size_t(t.M * t.K)), b(size_t(t.K * t.N));
  std::vector<float> c(size_t(t.M * t.N), 0.0f);
  for (auto& x : a)
    x = T(dist(rng));
  for (auto& x : b)
    x = T(dist(rng));
  TESSERA_ASSIGN_OR_RETURN(auto da, samples::DeviceBytes::From(a));
  TESSERA_ASSIGN_OR_RETURN(auto db, samples::DeviceBytes::From(b));
  TESSERA_ASSIGN_OR_RETURN(auto dc, samples::DeviceBytes::From(c));
  const std::vector<uint8_t> tb = tiling::SerializeTiling(t);
  TESSERA_ASSIGN_OR_RETURN(auto dt, samples::DeviceBytes::From(tb));

  // The instance for this key: a compile-time specialisation selected at run time.
  TESSERA_ASSIGN_OR_RETURN(MatmulTilingKeyTable::Entry entry,
                           MatmulTilingKeyTable::Find({{"Dtype", dtype}, {"TileBlock", tile}}));
  TESSERA_ASSIGN_OR_RETURN(device::Stream stream, device::Stream::Create());
  TESSERA_RETURN_IF_ERROR(device::Launch(
      device::LaunchConfig{blockDim, device::KernelType::kAic, "matmul_tilingkey", true}, entry,
      stream, da.get(), db.get(), dc.get(), dt.get()));
  TESSERA_RETURN_IF_ERROR(stream.Synchronize());
  TESSERA_RETURN_IF_ERROR(dc.CopyTo(c));

  // Reference in double (i-k-j order so the inner loop streams), CATLASS's rule for fp32 output.
  const double rtol = t.K < 2048 ? 1.0 / 256 : 1.0 / 128;
  size_t wrong = 0;
  std::vector<double> bd(b.size()), row(static_cast<size_t>(t.N));
  for (size_t i = 0; i < b.size(); ++i)
    bd[i] = static_cast<float>(b[i]);
  for (int64_t i = 0; i < t.M; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (int64_t k = 0; k < t.K; ++k) {
      const double av = static_cast<float>(a[i * t.K + k]);
      const double* brow = bd.data() + k * t.N;
      for (int64_t j = 0; j < t.N; ++j)
        row[j] += av * brow[j];
    }
    for (int64_t j = 0; j < t.N; ++j)
      wrong += std::fabs(c[i * t.N + j] - row[j]) > rtol * std::max(1.0, std::fabs(row[j]));
  }
  std::printf(
      "matmul_tilingkey {Dtype: %lld (%s), TileBlock: %lld (%d)}: %lld x %lld x %lld on "
      "%u AI cores: %s\n",
      static_cast<long long>(dtype), dtype == 0 ? "fp16" : "bf16", static_cast<long long>(tile),
      tile == 0 ? 64 : 128, static_cast<long long>(t.M), static_cast<long long>(t.N),
      static_cast<long long>(t.K), blockDim, wrong ? "MISMATCH" : "OK");
  return wrong ? Internal(std::to_string(wrong) + " wrong elements") : OkStatus();
}

int main(int argc, char** argv) {
  MatmulTilingKeyTiling t;
  t.M = argc > 3 ? std::atoll(argv[1]) : 1024;
  t.N = argc > 3 ? std::atoll(argv[2]) : 1024;
  t.K = argc > 3 ? std::atoll(argv[3]) : 128;
  const uint32_t blockDim =
      argc > 4 ? static_cast<uint32_t>(std::atoi(argv[4])) : device::CurrentArch().aic_cores;
  if (t.M < 1 || t.N < 1 || t.K < 16 || t.K % 16 != 0 || t.K > 256 || blockDim < 1) {
    std::fprintf(stderr,
                 "matmul_tilingkey: need M, N >= 1, K a multiple of 16 in 16..256 (one "
                 "128 x K panel per L0A/L0B), blockDim >= 1\n");
    return 1;
  }
  static_assert(MatmulTilingKeyTable::kInstances.size() == 4, "one instance per key combination");
  int failures = 0;
  for (int64_t dtype : {0, 1}) {
    for (int64_t tile : {0, 1}) {
      const Status st = dtype == 0 ? RunKey<half>(dtype, tile, t, blockDim)
                                   : RunKey<bfloat16_t>(dtype, tile, t, blockDim);
      if (!st.ok()) {
        std::fprintf(stderr, "matmul_tilingkey: %s\n", st.ToString().c_str());
        ++failures;
      }
    }
  }
  // A key outside the schema is refused with the schema's message, before any launch.
  const auto bad = MatmulTilingKeyTable::Find({{"Dtype", 2}, {"TileBlock", 0}});
  std::printf("matmul_tilingkey {Dtype: 2}: refused: %s\n",
              bad.ok() ? "NO (unexpected)" : std::string(bad.status().message()).c_str());
  return failures == 0 && !bad.ok() ? 0 : 1;
}

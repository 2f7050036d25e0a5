// Host program for add_custom: tiling, device buffers, launch, check against a scalar loop.
//   add_custom [elements]      (TESSERA_PROFILE and TESSERA_CHECK apply)
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "add_custom_tiling.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"

using namespace tessera;

Status Run(int64_t n) {
  const device::ArchSpec& arch = device::CurrentArch();
  TESSERA_ASSIGN_OR_RETURN(add_custom_op::AddCustomPlan plan,
                           add_custom_op::AddCustomTiling(n, 4, arch));
  const std::vector<uint8_t> tiling = tiling::SerializeTiling(plan.tiling);

  std::vector<float> x(static_cast<size_t>(n)), y(x.size()), z(x.size());
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = dist(rng), y[i] = dist(rng);
  const size_t bytes = x.size() * sizeof(float);
  TESSERA_ASSIGN_OR_RETURN(void* dx, device::Malloc(bytes));
  TESSERA_ASSIGN_OR_RETURN(void* dy, device::Malloc(bytes));
  TESSERA_ASSIGN_OR_RETURN(void* dz, device::Malloc(bytes));
  TESSERA_ASSIGN_OR_RETURN(void* dt, device::Malloc(tiling.size()));
  TESSERA_RETURN_IF_ERROR(
      device::Memcpy(dx, bytes, x.data(), bytes, device::MemcpyKind::kHostToDevice));
  TESSERA_RETURN_IF_ERROR(
      device::Memcpy(dy, bytes, y.data(), bytes, device::MemcpyKind::kHostToDevice));
  TESSERA_RETURN_IF_ERROR(device::Memcpy(dt, tiling.size(), tiling.data(), tiling.size(),
                                         device::MemcpyKind::kHostToDevice));

  TESSERA_ASSIGN_OR_RETURN(device::Stream stream, device::Stream::Create());
  TESSERA_RETURN_IF_ERROR(device::Launch(add_custom, plan.blockDim, stream,
                                         static_cast<uint8_t*>(dx), static_cast<uint8_t*>(dy),
                                         static_cast<uint8_t*>(dz), static_cast<uint8_t*>(dt)));
  TESSERA_RETURN_IF_ERROR(stream.Synchronize());
  TESSERA_RETURN_IF_ERROR(
      device::Memcpy(z.data(), bytes, dz, bytes, device::MemcpyKind::kDeviceToHost));
  size_t wrong = 0;
  for (size_t i = 0; i < x.size(); ++i)
    wrong += z[i] != x[i] + y[i];
  std::printf("add_custom: %lld elements on %u %s cores (tile %lld): %s\n",
              static_cast<long long>(n), plan.blockDim, arch.name.c_str(),
              static_cast<long long>(plan.tiling.tileLength), wrong ? "MISMATCH" : "OK");
  for (void* p : {dx, dy, dz, dt})
    TESSERA_RETURN_IF_ERROR(device::Free(p));
  return wrong ? Internal(std::to_string(wrong) + " wrong elements") : OkStatus();
}

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 1000003;
  Status st = Run(n);
  if (!st.ok()) std::fprintf(stderr, "add_custom: %s\n", st.ToString().c_str());
  return st.ok() ? 0 : 1;
}

// Example: allocate device memory, launch a kernel on every logical vector core, reduce with
// SyncAll, and check the result. Run with TESSERA_PROFILE=ascend910b to use 48 emulated cores.
#include <cstdio>
#include <vector>

#include "tessera/device/block.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"

using namespace tessera;
using namespace tessera::device;

// Each block scales its slice of x and writes a partial sum; block 0 adds the partials after the
// barrier.
void ScaleAndSum(float* x, int64_t n, float factor, double* partials, double* total) {
  const int64_t per_block = (n + GetBlockNum() - 1) / GetBlockNum();
  const int64_t begin = std::min<int64_t>(n, GetBlockIdx() * per_block);
  const int64_t end = std::min<int64_t>(n, begin + per_block);
  double sum = 0;
  for (int64_t i = begin; i < end; ++i) sum += (x[i] *= factor);
  partials[GetBlockIdx()] = sum;
  SyncAll();
  if (GetBlockIdx() == 0) {
    double t = 0;
    for (uint32_t b = 0; b < GetBlockNum(); ++b) t += partials[b];
    *total = t;
  }
}

Status Run() {
  const int64_t n = 4097;
  const uint32_t blocks = CurrentArch().aiv_cores;
  TESSERA_ASSIGN_OR_RETURN(void* x, Malloc(n * sizeof(float)));
  TESSERA_ASSIGN_OR_RETURN(void* partials, Malloc(blocks * sizeof(double)));
  TESSERA_ASSIGN_OR_RETURN(void* total, Malloc(sizeof(double)));
  std::vector<float> host(n);
  for (int64_t i = 0; i < n; ++i) host[i] = static_cast<float>(i % 10);
  TESSERA_RETURN_IF_ERROR(Memcpy(x, n * 4, host.data(), n * 4, MemcpyKind::kHostToDevice));

  TESSERA_ASSIGN_OR_RETURN(Stream stream, Stream::Create());
  TESSERA_RETURN_IF_ERROR(Launch(LaunchConfig{blocks, KernelType::kAiv, "scale_and_sum"},
                                 ScaleAndSum, stream, static_cast<float*>(x), n, 2.0f,
                                 static_cast<double*>(partials), static_cast<double*>(total)));
  TESSERA_RETURN_IF_ERROR(stream.Synchronize());  // kernel errors surface here

  double result = 0;
  TESSERA_RETURN_IF_ERROR(Memcpy(&result, 8, total, 8, MemcpyKind::kDeviceToHost));
  double expected = 0;
  for (int64_t i = 0; i < n; ++i) expected += 2.0 * (i % 10);
  std::printf("%u blocks on profile %s: sum %.1f (expected %.1f)\n", blocks,
              CurrentArch().name.c_str(), result, expected);
  for (void* p : {x, partials, total}) TESSERA_RETURN_IF_ERROR(Free(p));
  return result == expected ? OkStatus() : Internal("wrong sum");
}

int main() {
  Status st = Run();
  if (!st.ok()) std::fprintf(stderr, "%s\n", st.ToString().c_str());
  return st.ok() ? 0 : 1;
}

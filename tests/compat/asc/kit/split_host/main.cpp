// Plain C++ host of scale_kernel.asc: fills a vendor tiling class, copies the data and the tiling
// to the device through acl, launches through the kernel library, checks against a scalar loop.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "acl/acl.h"
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleTilingData)
TILING_DATA_FIELD_DEF(uint8_t, mode);
TILING_DATA_FIELD_DEF(uint64_t, length);
TILING_DATA_FIELD_DEF(int16_t, scale);
TILING_DATA_FIELD_DEF(int32_t, offset);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ScaleCustom, ScaleTilingData)
}  // namespace optiling

void run_scale_kernel(uint8_t* x, uint8_t* y, uint8_t* tiling, uint32_t blocks, aclrtStream stream);

#define CHECK_ACL(call)                                                      \
  do {                                                                       \
    aclError err_ = (call);                                                  \
    if (err_ != ACL_SUCCESS) {                                               \
      std::printf("[ERROR] %s: %d %s\n", #call, err_, aclGetRecentErrMsg()); \
      return 1;                                                              \
    }                                                                        \
  } while (0)

int main(int argc, char** argv) {
  const uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4097;
  std::mt19937_64 rng(n);
  std::vector<int64_t> x(n), y(n);
  for (auto& v : x)
    v = static_cast<int64_t>(rng() % 2000001) - 1000000;
  const int16_t scale = static_cast<int16_t>(static_cast<int>(rng() % 601) - 300);
  const int32_t offset = static_cast<int32_t>(rng() % 100001) - 50000;

  auto made =
      optiling::CTilingDataClassFactory::GetInstance().CreateTilingDataInstance("ScaleCustom");
  if (made == nullptr) {
    std::printf("[ERROR] ScaleCustom has no tiling class\n");
    return 1;
  }
  optiling::ScaleTilingData tiling;
  tiling.set_mode(1);
  tiling.set_length(n);
  tiling.set_scale(scale);
  tiling.set_offset(offset);
  std::vector<uint8_t> tilingHost(tiling.GetDataSize());
  tiling.SaveToBuffer(tilingHost.data(), tilingHost.size());

  CHECK_ACL(aclInit(nullptr));
  CHECK_ACL(aclrtSetDevice(0));
  aclrtStream stream = nullptr;
  CHECK_ACL(aclrtCreateStream(&stream));
  const size_t bytes = n * sizeof(int64_t);
  void *dx = nullptr, *dy = nullptr, *dt = nullptr;
  CHECK_ACL(aclrtMalloc(&dx, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&dy, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&dt, tilingHost.size(), ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMemcpy(dx, bytes, x.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK_ACL(aclrtMemcpy(dt, tilingHost.size(), tilingHost.data(), tilingHost.size(),
                        ACL_MEMCPY_HOST_TO_DEVICE));
  run_scale_kernel(static_cast<uint8_t*>(dx), static_cast<uint8_t*>(dy), static_cast<uint8_t*>(dt),
                   8, stream);
  CHECK_ACL(aclrtSynchronizeStream(stream));
  CHECK_ACL(aclrtMemcpy(y.data(), bytes, dy, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  for (uint64_t i = 0; i < n; ++i) {
    const long double want = static_cast<long double>(x[i]) * scale + offset;
    if (static_cast<long double>(y[i]) != want) {
      std::printf("[ERROR] result: y[%llu] = %lld, expected %.0Lf\n",
                  static_cast<unsigned long long>(i), static_cast<long long>(y[i]), want);
      return 1;
    }
  }
  CHECK_ACL(aclrtFree(dx));
  CHECK_ACL(aclrtFree(dy));
  CHECK_ACL(aclrtFree(dt));
  CHECK_ACL(aclrtDestroyStream(stream));
  CHECK_ACL(aclrtResetDevice(0));
  CHECK_ACL(aclFinalize());
  std::printf("test pass! n=%llu\n", static_cast<unsigned long long>(n));
  return 0;
}

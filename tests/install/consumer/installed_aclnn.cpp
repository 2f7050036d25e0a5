// A CANN application built against an installed tessera: acl runtime, tensors and the built-in
// aclnnAdd on 1031 random floats, each element checked against a scalar sum; and one acl error
// path with its message.
#include <cstdio>
#include <random>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_add.h"

#define CHECK(expr)                                                                    \
  do {                                                                                 \
    const int ret_ = static_cast<int>(expr);                                           \
    if (ret_ != 0) {                                                                   \
      std::fprintf(stderr, "%s failed (%d): %s\n", #expr, ret_, aclGetRecentErrMsg()); \
      return 1;                                                                        \
    }                                                                                  \
  } while (0)

int main() {
  const std::vector<int64_t> shape = {1031};
  const size_t bytes = shape[0] * sizeof(float);
  std::vector<float> x(shape[0]), y(shape[0]), z(shape[0], 0.0f);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (int64_t i = 0; i < shape[0]; ++i) {
    x[i] = dist(rng);
    y[i] = dist(rng);
  }
  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  if (aclrtSetDevice(5) != ACL_ERROR_RT_INVALID_DEVICEID || aclGetRecentErrMsg() == nullptr) {
    std::fprintf(stderr, "aclrtSetDevice(5) did not fail with ACL_ERROR_RT_INVALID_DEVICEID\n");
    return 1;
  }
  aclrtStream stream = nullptr;
  CHECK(aclrtCreateStream(&stream));
  void* dev[3] = {};
  aclTensor* t[3] = {};
  for (int i = 0; i < 3; ++i) {
    CHECK(aclrtMalloc(&dev[i], bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    t[i] = aclCreateTensor(shape.data(), 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape.data(), 1,
                           dev[i]);
    if (t[i] == nullptr) return 1;
  }
  CHECK(aclrtMemcpy(dev[0], bytes, x.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(aclrtMemcpy(dev[1], bytes, y.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  CHECK(aclnnAddGetWorkspaceSize(t[0], t[1], t[2], &ws, &exec));
  void* workspace = nullptr;
  if (ws > 0) CHECK(aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclnnAdd(workspace, ws, exec, stream));
  CHECK(aclrtSynchronizeStream(stream));
  CHECK(aclrtMemcpy(z.data(), bytes, dev[2], bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  for (int64_t i = 0; i < shape[0]; ++i) {
    if (z[i] != x[i] + y[i]) {
      std::fprintf(stderr, "element %lld: %g, expected %g\n", static_cast<long long>(i), z[i],
                   x[i] + y[i]);
      return 1;
    }
  }
  if (workspace != nullptr) CHECK(aclrtFree(workspace));
  for (int i = 0; i < 3; ++i) {
    CHECK(aclDestroyTensor(t[i]));
    CHECK(aclrtFree(dev[i]));
  }
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  std::printf("installed aclnnAdd: 1031 elements ok\n");
  return 0;
}

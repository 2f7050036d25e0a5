// An aclnn application written against CANN's API, as the vendor's samples are: the built-in
// aclnnAdd, then aclnnAddCustom of a custom package, on fp16 data made up here (the vendor's
// reads .bin files), checked against a host computation. Prints "test pass" and returns 0.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn/aclnn_base.h"
#include "aclnn_add_custom.h"
#include "aclnnop/aclnn_add.h"

#define CHECK_ACL(expr)                                                                      \
  do {                                                                                       \
    auto __ret = (expr);                                                                     \
    if (static_cast<int32_t>(__ret) != 0) {                                                  \
      fprintf(stderr, "[ERROR] %s failed at %s:%d, ret=%d: %s\n", #expr, __FILE__, __LINE__, \
              static_cast<int32_t>(__ret), aclGetRecentErrMsg());                            \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

int32_t main() {
  const std::vector<int64_t> shape = {8, 2049};
  const int64_t elementCount = shape[0] * shape[1];
  const size_t bufferSize = elementCount * sizeof(aclFloat16);
  std::vector<aclFloat16> x(elementCount), y(elementCount), out(elementCount, aclFloatToFloat16(0));
  std::mt19937 rng(2026);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (int64_t i = 0; i < elementCount; i++) {
    x[i] = aclFloatToFloat16(dist(rng));
    y[i] = aclFloatToFloat16(dist(rng));
  }

  const int32_t deviceId = 0;
  aclrtStream stream = nullptr;
  CHECK_ACL(aclInit(nullptr));
  CHECK_ACL(aclnnInit(nullptr));
  CHECK_ACL(aclrtSetDevice(deviceId));
  CHECK_ACL(aclrtCreateStream(&stream));

  void* xDev = nullptr;
  void* yDev = nullptr;
  void* outDev = nullptr;
  CHECK_ACL(aclrtMalloc(&xDev, bufferSize, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&yDev, bufferSize, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&outDev, bufferSize, ACL_MEM_MALLOC_HUGE_FIRST));
  aclTensor* xT = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT16, nullptr, 0,
                                  ACL_FORMAT_ND, shape.data(), shape.size(), xDev);
  aclTensor* yT = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT16, nullptr, 0,
                                  ACL_FORMAT_ND, shape.data(), shape.size(), yDev);
  aclTensor* outT = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT16, nullptr, 0,
                                    ACL_FORMAT_ND, shape.data(), shape.size(), outDev);
  CHECK_ACL(aclrtMemcpy(xDev, bufferSize, x.data(), bufferSize, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK_ACL(aclrtMemcpy(yDev, bufferSize, y.data(), bufferSize, ACL_MEMCPY_HOST_TO_DEVICE));

  bool pass = true;
  for (int op = 0; op < 2; op++) {
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    if (op == 0) {
      CHECK_ACL(aclnnAddGetWorkspaceSize(xT, yT, outT, &workspaceSize, &executor));
    } else {
      CHECK_ACL(aclnnAddCustomGetWorkspaceSize(xT, yT, outT, &workspaceSize, &executor));
    }
    void* workspace = nullptr;
    if (workspaceSize > 0) {
      CHECK_ACL(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));
    }
    if (op == 0) {
      CHECK_ACL(aclnnAdd(workspace, workspaceSize, executor, stream));
    } else {
      CHECK_ACL(aclnnAddCustom(workspace, workspaceSize, executor, stream));
    }
    CHECK_ACL(aclrtSynchronizeStream(stream));
    CHECK_ACL(aclrtMemcpy(out.data(), bufferSize, outDev, bufferSize, ACL_MEMCPY_DEVICE_TO_HOST));
    if (workspaceSize > 0) {
      CHECK_ACL(aclrtFree(workspace));
    }
    for (int64_t i = 0; i < elementCount; i++) {
      const float golden =
          aclFloat16ToFloat(aclFloatToFloat16(aclFloat16ToFloat(x[i]) + aclFloat16ToFloat(y[i])));
      if (std::fabs(aclFloat16ToFloat(out[i]) - golden) > 1e-3f) {
        printf("%s mismatch at %lld: %f vs %f\n", op == 0 ? "aclnnAdd" : "aclnnAddCustom",
               static_cast<long long>(i), aclFloat16ToFloat(out[i]), golden);
        pass = false;
        break;
      }
    }
    CHECK_ACL(aclrtMemset(outDev, bufferSize, 0, bufferSize));
  }
  printf("test %s\n", pass ? "pass" : "failed");

  aclDestroyTensor(xT);
  aclDestroyTensor(yT);
  aclDestroyTensor(outT);
  CHECK_ACL(aclrtFree(xDev));
  CHECK_ACL(aclrtFree(yDev));
  CHECK_ACL(aclrtFree(outDev));
  CHECK_ACL(aclrtDestroyStream(stream));
  CHECK_ACL(aclrtResetDevice(deviceId));
  CHECK_ACL(aclnnFinalize());
  CHECK_ACL(aclFinalize());
  return pass ? 0 : 1;
}

// Kernels of the test op project (tessera's kernel API; the vendor kernel dialect is tested by
// tests/compat/kernel). AddCustom: z = x + y in fp16. LeakyReluCustom: y = x >= 0 ? x : slope*x,
// key 1 float, key 2 fp16 (computed in float, rounded once).
#include <algorithm>
#include <cstring>

#include "add_custom_tiling.h"
#include "leaky_relu_custom_tiling.h"
#include "tessera/kernel/kernel_entry.h"
#include "tessera/kernel/kernel_operator.h"

namespace compat_test_ops {

using namespace AscendC;

__global__ __aicore__ void AddCustomKernel(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR,
                                           GM_ADDR tiling) {
  AddCustomTilingData t;
  std::memcpy(&t, tiling, sizeof(t));
  const uint32_t per = (t.totalLength + GetBlockNum() - 1) / GetBlockNum();
  const uint32_t begin = std::min<uint32_t>(t.totalLength, per * GetBlockIdx());
  const uint32_t end = std::min<uint32_t>(t.totalLength, begin + per);
  GlobalTensor<half> a, b, c;
  a.SetGlobalBuffer(reinterpret_cast<half*>(x) + begin, end - begin);
  b.SetGlobalBuffer(reinterpret_cast<half*>(y) + begin, end - begin);
  c.SetGlobalBuffer(reinterpret_cast<half*>(z) + begin, end - begin);
  for (uint32_t i = 0; i < end - begin; ++i)
    c.SetValue(i, half(static_cast<float>(a.GetValue(i)) + static_cast<float>(b.GetValue(i))));
}

template <class T>
void LeakyRelu(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  LeakyReluCustomTilingData t;
  std::memcpy(&t, tiling, sizeof(t));
  const uint32_t begin = std::min<uint32_t>(t.totalLength, t.perCore * GetBlockIdx());
  const uint32_t end = std::min<uint32_t>(t.totalLength, begin + t.perCore);
  GlobalTensor<T> in, out;
  in.SetGlobalBuffer(reinterpret_cast<T*>(x) + begin, end - begin);
  out.SetGlobalBuffer(reinterpret_cast<T*>(y) + begin, end - begin);
  for (uint32_t i = 0; i < end - begin; ++i) {
    const float v = static_cast<float>(in.GetValue(i));
    out.SetValue(i, T(v >= 0 ? v : v * t.negativeSlope));
  }
}

__global__ __aicore__ void LeakyReluFloat(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR tiling) {
  LeakyRelu<float>(x, y, tiling);
}
__global__ __aicore__ void LeakyReluHalf(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR tiling) {
  LeakyRelu<half>(x, y, tiling);
}

TESSERA_KERNEL_ENTRY(add_custom, 0, AIV, AddCustomKernel)
TESSERA_KERNEL_ENTRY(leaky_relu_custom, 1, AIV, LeakyReluFloat)
TESSERA_KERNEL_ENTRY(leaky_relu_custom, 2, AIV, LeakyReluHalf)

}  // namespace compat_test_ops

TESSERA_KERNEL_LIBRARY()

// The custom Add kernel: each block copies its slice of x1 to its 4 KiB workspace tile, adds x2
// and writes y (element loops keep the sample short; the built-in Add uses the vector API).
#include <algorithm>

#include "fused_add_tiling.h"
#include "tessera/kernel/kernel_operator.h"
#include "tessera/kernel/kernel_entry.h"

namespace custom_package {

using namespace AscendC;

__global__ __aicore__ void FusedAddKernel(GM_ADDR x1, GM_ADDR x2, GM_ADDR y, GM_ADDR workspace,
                                          GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(FusedAddTilingData, t, tiling);
  const int64_t begin = std::min<int64_t>(t.total, t.perCore * GetBlockIdx());
  const int64_t end = std::min<int64_t>(t.total, begin + t.perCore);
  GlobalTensor<float> a, b, c, ws;
  a.SetGlobalBuffer(reinterpret_cast<float*>(x1) + begin, static_cast<uint64_t>(end - begin));
  b.SetGlobalBuffer(reinterpret_cast<float*>(x2) + begin, static_cast<uint64_t>(end - begin));
  c.SetGlobalBuffer(reinterpret_cast<float*>(y) + begin, static_cast<uint64_t>(end - begin));
  ws.SetGlobalBuffer(reinterpret_cast<float*>(workspace) + GetBlockIdx() * 1024, 1024);
  for (int64_t off = 0; off < end - begin; off += 1024) {
    const int64_t n = std::min<int64_t>(1024, end - begin - off);
    for (int64_t i = 0; i < n; ++i)
      ws.SetValue(i, a.GetValue(off + i));
    for (int64_t i = 0; i < n; ++i)
      c.SetValue(off + i, ws.GetValue(i) + b.GetValue(off + i));
  }
}

TESSERA_KERNEL_ENTRY(add, 0, AIV, FusedAddKernel)

}  // namespace custom_package

TESSERA_KERNEL_LIBRARY()

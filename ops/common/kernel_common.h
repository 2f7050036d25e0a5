// Device-side helpers shared by the kernels of the built-in elementwise ops.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "op_keys.h"
#include "tessera/core/data_type.h"
#include "tessera/kernel/kernel_entry.h"
#include "tessera/kernel/kernel_operator.h"
#include "tessera/tiling/split.h"
#include "tessera/tiling/tiling_data.h"

namespace tessera::ops {

using namespace AscendC;

template <class T>
inline constexpr uint32_t kBlockElems = 32 / sizeof(T);

template <class T>
constexpr uint32_t AlignUp(uint32_t n) {
  return (n + kBlockElems<T> - 1) / kBlockElems<T> * kBlockElems<T>;
}

// The uniform split a tiling struct carries (fields named as in ATVOSS).
template <class Tiling>
constexpr tiling::UniformSplitConfig SplitOf(const Tiling& t) {
  return {static_cast<uint32_t>(t.blockNum), static_cast<uint64_t>(t.unitNumPerCore),
          static_cast<uint64_t>(t.moreUnitCoreNum), static_cast<uint64_t>(t.tailNum),
          static_cast<uint64_t>(t.unitNum)};
}

// GM -> UB of `len` elements: DataCopy when whole aligned 32-byte blocks move, else DataCopyPad,
// which zero-fills the rest of the last 32-byte block so no lane of the tile holds stale data.
template <class T>
void CopyIn(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t len) {
  if (len % kBlockElems<T> == 0 && reinterpret_cast<uintptr_t>(src.data()) % 32 == 0) {
    DataCopy(dst, src, len);
  } else {
    const auto pad = static_cast<uint8_t>(AlignUp<T>(len) - len);
    DataCopyPad(dst, src, DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0},
                DataCopyPadExtParams<T>{true, 0, pad, T{}});
  }
}

// UB -> GM of `len` elements; the tail of a partial block moves with DataCopyPad so nothing past
// `len` is written.
template <class T>
void CopyOut(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t len) {
  if (len % kBlockElems<T> == 0 && reinterpret_cast<uintptr_t>(dst.data()) % 32 == 0) {
    DataCopy(dst, src, len);
  } else {
    DataCopyPad(dst, src, DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0});
  }
}

// The staged loop of a one-input, one-output kernel: `count` elements of `x` stream through UB in
// tiles of `tile` (double buffered by the queues' depth), `body(out, in, len)` computes each tile.
template <class S, class D, class Body>
void StreamTiles(TPipe& pipe, const GlobalTensor<S>& x, const GlobalTensor<D>& y, uint64_t count,
                 uint32_t tile, Body&& body) {
  TQue<TPosition::VECIN, kBufferNum> inQ;
  TQue<TPosition::VECOUT, kBufferNum> outQ;
  pipe.InitBuffer(inQ, kBufferNum, tile * static_cast<uint32_t>(sizeof(S)));
  pipe.InitBuffer(outQ, kBufferNum, tile * static_cast<uint32_t>(sizeof(D)));
  for (uint64_t done = 0; done < count; done += tile) {
    const auto len = static_cast<uint32_t>(std::min<uint64_t>(tile, count - done));
    LocalTensor<S> in = inQ.AllocTensor<S>();
    CopyIn(in, x[done], len);
    inQ.EnQue(in);
    in = inQ.DeQue<S>();
    LocalTensor<D> out = outQ.AllocTensor<D>();
    body(out, in, len);
    inQ.FreeTensor(in);
    outQ.EnQue(out);
    out = outQ.DeQue<D>();
    CopyOut(y[done], out, len);
    outQ.FreeTensor(out);
  }
}

}  // namespace tessera::ops

// Device-side helpers shared by the kernels of the built-in elementwise ops.
#pragma once

#include <cstdint>
#include <type_traits>

#include "op_keys.h"
#include "tessera/core/data_type.h"
#include "tessera/kernel/kernel_operator.h"
#include "tessera/kernel/kernel_entry.h"
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

}  // namespace tessera::ops

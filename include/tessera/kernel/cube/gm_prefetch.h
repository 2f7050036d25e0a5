// A tessera extension of the cube API with no NPU counterpart: a prefetch hint for a later
// DataCopy GM -> L1. On the NPU, MTE2 copies the next tile while the cube multiplies; on a CPU one
// thread does both, so the copy waits for memory unless its source is already cached.
#pragma once

#include <cstdint>

#include "tessera/kernel/global_tensor.h"

namespace tessera::kernel {
namespace detail {
void QueueGmPrefetch(const void* base, uint32_t rows, uint32_t row_bytes, uint64_t pitch_bytes);
}  // namespace detail

// Asks the calling thread's next Mmad to pull `rows` rows of `cols` elements of `src` (`pitch`
// elements apart) into the CPU's caches, spread between its register blocks, so that a DataCopy of
// that region after the Mmad reads cached lines. Only a hint: results never change, nothing is
// dereferenced (prefetches do not fault), and hints beyond 4 regions, or not consumed by the next
// Mmad of this thread, are dropped.
template <class T>
void PrefetchGm(const GlobalTensor<T>& src, uint32_t rows, uint32_t cols, uint64_t pitch) {
  detail::QueueGmPrefetch(src.GetPhyAddr(), rows, static_cast<uint32_t>(cols * sizeof(T)),
                          pitch * sizeof(T));
}

}  // namespace tessera::kernel

// Vendor path of the kernel debugging API. AscendC::printf, PRINTF and DumpTensor are in
// kernel_operator.h; this header adds the raw-address dumps `asc_dump_gm/ubuf/abuf/bbuf/cbuf/
// l1buf<T>(addr, desc, dumpSize)`, which print `dumpSize` elements from `addr` as DumpTensor does
// (buffered per block, tagged with `desc` and the memory's name). The address-space qualifiers of
// those buffers (__cbuf__, __ca__, __cb__, __cc__) expand to nothing, as __gm__ does.
#pragma once

#include <cstdint>
#include <cstdio>

#include "kernel_operator.h"

#ifndef __cbuf__
#define __cbuf__
#endif
#ifndef __ca__
#define __ca__
#endif
#ifndef __cb__
#define __cb__
#endif
#ifndef __cc__
#define __cc__
#endif

namespace tessera::compat::detail {
template <class T>
void AscDumpAddress(const T* input, uint32_t desc, uint32_t dump_size, const char* memory,
                    const char* function) {
  if (input == nullptr) {
    std::fprintf(stderr, "[ERROR] %s: NULL address (desc %u)\n", function, desc);
    return;
  }
  ::tessera::kernel::detail::DumpTensorData(::tessera::kernel::detail::DumpTypeOf<T>(), input,
                                            dump_size, dump_size, desc, memory);
}
}  // namespace tessera::compat::detail

// Each prints the first `dump_size` elements at `input`; the caller guarantees that many.
template <class T>
inline void asc_dump_gm(__gm__ T* input, uint32_t desc, uint32_t dump_size) {
  ::tessera::compat::detail::AscDumpAddress(input, desc, dump_size, "GM", "asc_dump_gm");
}
template <class T>
inline void asc_dump_ubuf(__ubuf__ T* input, uint32_t desc, uint32_t dump_size) {
  ::tessera::compat::detail::AscDumpAddress(input, desc, dump_size, "UB", "asc_dump_ubuf");
}
template <class T>
inline void asc_dump_abuf(__ca__ T* input, uint32_t desc, uint32_t dump_size) {
  ::tessera::compat::detail::AscDumpAddress(input, desc, dump_size, "L0A", "asc_dump_abuf");
}
template <class T>
inline void asc_dump_bbuf(__cb__ T* input, uint32_t desc, uint32_t dump_size) {
  ::tessera::compat::detail::AscDumpAddress(input, desc, dump_size, "L0B", "asc_dump_bbuf");
}
template <class T>
inline void asc_dump_cbuf(__cc__ T* input, uint32_t desc, uint32_t dump_size) {
  ::tessera::compat::detail::AscDumpAddress(input, desc, dump_size, "L0C", "asc_dump_cbuf");
}
template <class T>
inline void asc_dump_l1buf(__cbuf__ T* input, uint32_t desc, uint32_t dump_size) {
  ::tessera::compat::detail::AscDumpAddress(input, desc, dump_size, "L1", "asc_dump_l1buf");
}

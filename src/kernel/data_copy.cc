#include "tessera/kernel/data_copy.h"

#include <cstdio>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tessera::kernel::detail {

void CopyToGlobal(void* dst, const void* src, size_t bytes, bool streaming) {
#if defined(__x86_64__) || defined(__i386__)
  if (streaming) {
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
    // Plain copy up to the first 16-byte aligned destination byte, streaming stores for the body,
    // plain copy for the tail: never a byte past `bytes`.
    const size_t head = (16 - reinterpret_cast<uintptr_t>(d) % 16) % 16;
    const size_t lead = head < bytes ? head : bytes;
    std::memcpy(d, s, lead);
    size_t i = lead;
    for (; i + 64 <= bytes; i += 64) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
      const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), a);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 16), b);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 32), c);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 48), e);
    }
    std::memcpy(d + i, s + i, bytes - i);
    // Streaming stores are weakly ordered: fence so the data is visible before the block ends or
    // signals another core.
    _mm_sfence();
    return;
  }
#else
  (void)streaming;
#endif
  std::memcpy(dst, src, bytes);
}

void FailAlignment(const char* api, const char* what, uint64_t value) {
  char buf[64];
  if (std::string(what).find("address") != std::string::npos) {
    std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(value));
  } else {
    std::snprintf(buf, sizeof(buf), "%llu", static_cast<unsigned long long>(value));
  }
  KernelFail(api, std::string(what) + " " + buf + " is not 32-byte aligned" +
                      (std::string(what) == "length in bytes"
                           ? "; use DataCopyPad for lengths that are not a multiple of 32 bytes"
                           : ""));
}

}  // namespace tessera::kernel::detail

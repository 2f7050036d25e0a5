// securec.h: the bounds-checked memcpy_s / memset_s of the vendor's C library (libc_sec), which
// CANN's host headers pull in and host samples call. Same contract: EOK (0) on success; on a bad
// argument an error code, and where the vendor's library resets the destination, so does this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#ifndef EOK
#define EOK 0
#endif

typedef int errno_t;

namespace tessera::compat::securec {
inline constexpr size_t kMaxLen = size_t{0x7fffffff};  // the library's SECUREC_MEM_MAX_LEN
inline constexpr errno_t kEinval = 22;
inline constexpr errno_t kErange = 34;
inline constexpr errno_t kEinvalAndReset = 22 | 128;
inline constexpr errno_t kErangeAndReset = 34 | 128;
inline constexpr errno_t kEoverlapAndReset = 54 | 128;
}  // namespace tessera::compat::securec

// Copies count bytes; count > destMax, a null src or overlapping ranges zero dest and fail.
inline errno_t memcpy_s(void* dest, size_t destMax, const void* src, size_t count) {
  namespace s = tessera::compat::securec;
  if (dest == nullptr || destMax == 0 || destMax > s::kMaxLen) return s::kErange;
  if (src == nullptr) {
    std::memset(dest, 0, destMax);
    return s::kEinvalAndReset;
  }
  if (count > destMax) {
    std::memset(dest, 0, destMax);
    return s::kErangeAndReset;
  }
  const auto d = reinterpret_cast<uintptr_t>(dest), p = reinterpret_cast<uintptr_t>(src);
  if (count > 0 && d < p + count && p < d + count) {
    std::memset(dest, 0, destMax);
    return s::kEoverlapAndReset;
  }
  if (count > 0) std::memcpy(dest, src, count);
  return EOK;
}

// Sets count bytes to c; count > destMax fills destMax bytes and fails.
inline errno_t memset_s(void* dest, size_t destMax, int c, size_t count) {
  namespace s = tessera::compat::securec;
  if (dest == nullptr || destMax == 0 || destMax > s::kMaxLen) return s::kErange;
  if (count > destMax) {
    std::memset(dest, c, destMax);
    return s::kErangeAndReset;
  }
  std::memset(dest, c, count);
  return EOK;
}

// Device memory: host memory handed out, pooled and (in checked mode) guarded by the device
// runtime.
//
// Every pointer returned by Malloc is at least 32-byte aligned (64 in fast mode). In checked mode
// each allocation has a header with a magic number, canary bytes around it and a PROT_NONE guard
// page right after its (32-byte rounded) end, so an overrun faults at once and is reported naming
// the allocation and the kernel block; freed memory is quarantined so a use after free faults too.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tessera/core/status.h"
#include "tessera/device/stream.h"

namespace tessera::device {

enum class MemcpyKind : uint8_t {
  kHostToHost = 0,
  kHostToDevice = 1,
  kDeviceToHost = 2,
  kDeviceToDevice = 3,
  kDefault = 4,  // infer from the pointers
};

// Allocates `bytes` (> 0) of device memory. OutOfMemory names the size when it cannot be had.
Result<void*> Malloc(size_t bytes);
// Frees a pointer returned by Malloc. Waits for the device to be idle first (as cudaFree does), so
// memory in use by queued kernels is never reused. Errors: not a device allocation, double free,
// and in checked mode a corrupted header or canary (naming the allocation).
Status Free(void* ptr);

// Copies `count` bytes; fails when count > dst_max (CANN's aclrtMemcpy contract). Synchronous with
// respect to the caller only: it does not wait for streams. In checked mode the device side of the
// copy must lie inside a live allocation.
Status Memcpy(void* dst, size_t dst_max, const void* src, size_t count, MemcpyKind kind);
Status MemcpyAsync(void* dst, size_t dst_max, const void* src, size_t count, MemcpyKind kind,
                   const Stream& stream);
// Sets `count` bytes to `value` (low 8 bits).
Status Memset(void* dst, size_t dst_max, int value, size_t count);
Status MemsetAsync(void* dst, size_t dst_max, int value, size_t count, const Stream& stream);

// True when ptr lies inside a live device allocation.
bool IsDeviceAddress(const void* ptr);
// Bytes from ptr to the end of the live allocation containing it; 0 when ptr is not device memory.
size_t DeviceBytesFrom(const void* ptr);

struct MemoryStats {
  size_t bytes_in_use = 0;  // requested bytes of live allocations
  size_t bytes_cached = 0;  // freed bytes kept in the pool for reuse
  size_t peak_bytes_in_use = 0;
  uint64_t live_allocations = 0;
  uint64_t pool_hits = 0;  // Mallocs served from the pool
};
MemoryStats GetMemoryStats();
// Returns the pool's cached blocks to the OS.
void TrimMemoryPool();

}  // namespace tessera::device

#include "tessera/runtime/workspace_pool.h"

#include <algorithm>

#include "tessera/device/memory.h"

namespace tessera::runtime {

WorkspacePool::~WorkspacePool() {
  (void)Release();
}

Result<void*> WorkspacePool::Get(uint64_t bytes) {
  if (bytes == 0) return static_cast<void*>(nullptr);
  if (bytes <= capacity_) return buffer_;
  // Grow geometrically so a sequence of slowly growing requests reallocates O(log n) times.
  const uint64_t want = std::max<uint64_t>(bytes, capacity_ + capacity_ / 2);
  TESSERA_RETURN_IF_ERROR(Release());
  auto fresh = device::Malloc(want);
  if (!fresh.ok()) {
    return Status(fresh.status().code(), "WorkspacePool: cannot grow to " + std::to_string(want) +
                                             " bytes: " + std::string(fresh.status().message()));
  }
  buffer_ = *fresh;
  capacity_ = want;
  ++grows_;
  return buffer_;
}

Status WorkspacePool::Release() {
  if (buffer_ == nullptr) return OkStatus();
  void* old = buffer_;
  buffer_ = nullptr;
  capacity_ = 0;
  return device::Free(old);  // waits for queued kernels that may still use it
}

}  // namespace tessera::runtime

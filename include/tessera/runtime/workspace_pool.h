// WorkspacePool: one workspace allocation reused across two-stage calls, grown when a call needs
// more - what the two-stage design leaves to the caller.
//
//   WorkspacePool pool;
//   uint64_t ws = 0;  tsrAddGetWorkspaceSize(..., &ws, &exec);
//   TESSERA_ASSIGN_OR_RETURN(void* w, pool.Get(ws));   // same buffer while it is large enough
//   tsrAdd(w, ws, exec, stream);
//
// Growing frees the old buffer, and device::Free waits for queued work first, so a kernel still
// using the old workspace is never overwritten. Not thread-safe: use one pool per stream or thread.
#pragma once

#include <cstdint>

#include "tessera/core/status.h"

namespace tessera::runtime {

class WorkspacePool {
 public:
  WorkspacePool() = default;
  ~WorkspacePool();
  WorkspacePool(const WorkspacePool&) = delete;
  WorkspacePool& operator=(const WorkspacePool&) = delete;

  // A device buffer of at least `bytes` (null for 0). Grows to max(bytes, 1.5 x current).
  Result<void*> Get(uint64_t bytes);
  uint64_t capacity() const { return capacity_; }
  uint64_t grows() const { return grows_; }
  // Frees the buffer (waits for the device).
  Status Release();

 private:
  void* buffer_ = nullptr;
  uint64_t capacity_ = 0;
  uint64_t grows_ = 0;
};

}  // namespace tessera::runtime

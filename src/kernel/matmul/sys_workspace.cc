// The system workspace of a launch (GetSysWorkSpacePtr): one device buffer per running launch, big
// enough for the Matmul server of every MIX group, held by the blocks that asked for it. When the
// last of them has left its REGIST_MATMUL_OBJ scope the buffer goes back to a pool for the next
// launch: device::Free waits for the device to go idle, which a kernel cannot do, so the pool
// keeps at most the peak of concurrently running launches' workspaces (the vendor's system
// workspace is a standing allocation too).
#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tessera/device/block.h"
#include "tessera/device/memory.h"
#include "tessera/kernel/check.h"
#include "tessera/kernel/matmul/matmul.h"

namespace tessera::kernel {
namespace {

struct Buffer {
  void* ptr = nullptr;
  uint64_t size = 0;
};

struct SysWorkspace {
  Buffer buffer;
  std::unordered_set<uint32_t> holders;  // fiber indices of the blocks holding it
};

struct Registry {
  std::mutex mu;
  std::unordered_map<const void*, SysWorkspace> by_launch;
  std::vector<Buffer> pool;  // released buffers, reused by later launches
};

// A buffer of at least `bytes` from the pool (the smallest that fits) or newly allocated.
Buffer Acquire(Registry& r, uint64_t bytes) {
  size_t best = r.pool.size();
  for (size_t i = 0; i < r.pool.size(); ++i) {
    if (r.pool[i].size >= bytes && (best == r.pool.size() || r.pool[i].size < r.pool[best].size))
      best = i;
  }
  if (best < r.pool.size()) {
    const Buffer b = r.pool[best];
    r.pool.erase(r.pool.begin() + static_cast<std::ptrdiff_t>(best));
    return b;
  }
  Result<void*> p = device::Malloc(bytes);
  if (!p.ok()) {
    KernelFail("GetSysWorkSpacePtr",
               "cannot allocate the " + std::to_string(bytes) +
                   "-byte system workspace: " + std::string(p.status().message()));
  }
  return Buffer{*p, bytes};
}

Registry& TheRegistry() {
  static Registry* r = new Registry();  // outlives every launch (never destroyed)
  return *r;
}

}  // namespace

uint8_t* GetSysWorkSpacePtr() {
  const device::BlockContext* ctx = device::CurrentBlock();
  if (ctx == nullptr) KernelFail("GetSysWorkSpacePtr", "call it inside a kernel");
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  SysWorkspace& ws = r.by_launch[ctx->launch];
  const uint64_t need = MatmulWorkspaceBytes(ctx->block_num);
  // A buffer too small was left by an earlier launch whose job had the same address (a block that
  // asked for it and never registered a Matmul); that launch is over.
  if (ws.buffer.ptr != nullptr && ws.buffer.size < need) {
    r.pool.push_back(ws.buffer);
    ws.buffer = Buffer{};
    ws.holders.clear();
  }
  // Not zeroed: each group's AIC resets its mailboxes in REGIST_MATMUL_OBJ.
  if (ws.buffer.ptr == nullptr) ws.buffer = Acquire(r, need);
  ws.holders.insert(ctx->fiber_index);
  return static_cast<uint8_t*>(ws.buffer.ptr);
}

namespace detail {

bool IsSysWorkspace(const void* p, uint64_t* size) {
  const device::BlockContext* ctx = device::CurrentBlock();
  if (ctx == nullptr || p == nullptr) return false;
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.by_launch.find(ctx->launch);
  if (it == r.by_launch.end() || it->second.buffer.ptr != p) return false;
  *size = it->second.buffer.size;
  return true;
}

void ReleaseSysWorkspace() {
  const device::BlockContext* ctx = device::CurrentBlock();
  if (ctx == nullptr) return;
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.by_launch.find(ctx->launch);
  if (it == r.by_launch.end()) return;
  it->second.holders.erase(ctx->fiber_index);
  if (it->second.holders.empty()) {
    r.pool.push_back(it->second.buffer);
    r.by_launch.erase(it);
  }
}

}  // namespace detail
}  // namespace tessera::kernel

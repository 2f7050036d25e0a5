// The system workspace of a launch (GetSysWorkSpacePtr): one host buffer per running launch, big
// enough for the Matmul server of every MIX group, held by the blocks that asked for it and freed
// when the last of them has left its REGIST_MATMUL_OBJ scope.
#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "tessera/device/block.h"
#include "tessera/kernel/check.h"
#include "tessera/kernel/matmul/matmul.h"

namespace tessera::kernel {
namespace {

struct SysWorkspace {
  std::unique_ptr<std::byte[]> bytes;
  uint64_t size = 0;
  std::unordered_set<uint32_t> holders;  // fiber indices of the blocks holding it
};

struct Registry {
  std::mutex mu;
  std::unordered_map<const void*, SysWorkspace> by_launch;
};

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
  // A buffer of another size was left by an earlier launch whose job had the same address (a
  // block that asked for it and never registered a Matmul); that launch is over.
  if (!ws.bytes || ws.size != need) {
    ws.holders.clear();
    ws.size = need;
    // Not zeroed: each group's AIC resets its mailboxes in REGIST_MATMUL_OBJ.
    ws.bytes.reset(new std::byte[ws.size]);
  }
  ws.holders.insert(ctx->fiber_index);
  return reinterpret_cast<uint8_t*>(ws.bytes.get());
}

namespace detail {

bool IsSysWorkspace(const void* p, uint64_t* size) {
  const device::BlockContext* ctx = device::CurrentBlock();
  if (ctx == nullptr || p == nullptr) return false;
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.by_launch.find(ctx->launch);
  if (it == r.by_launch.end() || it->second.bytes.get() != p) return false;
  *size = it->second.size;
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
  if (it->second.holders.empty()) r.by_launch.erase(it);
}

}  // namespace detail
}  // namespace tessera::kernel

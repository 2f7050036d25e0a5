#include "arena_cache.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <unordered_map>
#include <vector>

namespace tessera::device::detail {
namespace {

constexpr size_t kArenaAlign = 4096;

size_t Round(size_t bytes) {
  return (bytes + kArenaAlign - 1) / kArenaAlign * kArenaAlign;
}

struct ThreadArenaCache {
  std::unordered_map<size_t, std::vector<std::byte*>> free_by_size;
  // The list of the size asked for last (map nodes do not move): launches of one profile ask for
  // one size, so most leases skip the hash lookup.
  size_t last_size = 0;
  std::vector<std::byte*>* last_list = nullptr;
  std::vector<std::byte*>& ListOf(size_t bytes) {
    if (bytes != last_size || last_list == nullptr) {
      last_list = &free_by_size[bytes];
      last_size = bytes;
    }
    return *last_list;
  }
  ~ThreadArenaCache() {
    for (auto& [size, list] : free_by_size) {
      for (std::byte* p : list)
        std::free(p);
    }
  }
};

thread_local ThreadArenaCache tls_cache;

}  // namespace

ArenaLease::ArenaLease(BlockContext& ctx, const ArchSpec& arch, bool checked) {
  const bool cube = ctx.core_type == CoreType::kAic;
  const size_t ub = cube ? 0 : Round(arch.ub_bytes);
  const size_t l1 = cube ? Round(arch.l1_bytes) : 0;
  const size_t l0a = cube ? Round(arch.l0a_bytes) : 0;
  const size_t l0b = cube ? Round(arch.l0b_bytes) : 0;
  const size_t l0c = cube ? Round(arch.l0c_bytes) : 0;
  const size_t bt = cube ? Round(arch.bt_bytes) : 0;
  const size_t fb = cube ? Round(arch.fb_bytes) : 0;
  bytes_ = ub + l1 + l0a + l0b + l0c + bt + fb;
  if (bytes_ == 0) return;
  auto& list = tls_cache.ListOf(bytes_);
  if (!list.empty()) {
    base_ = list.back();
    list.pop_back();
  } else {
    base_ = static_cast<std::byte*>(std::aligned_alloc(kArenaAlign, bytes_));
    if (base_ == nullptr) throw std::bad_alloc();
  }
  if (checked) std::memset(base_, 0xCD, bytes_);
  std::byte* p = base_;
  if (cube) {
    ctx.l1 = p, ctx.l1_bytes = arch.l1_bytes, p += l1;
    ctx.l0a = p, ctx.l0a_bytes = arch.l0a_bytes, p += l0a;
    ctx.l0b = p, ctx.l0b_bytes = arch.l0b_bytes, p += l0b;
    ctx.l0c = p, ctx.l0c_bytes = arch.l0c_bytes, p += l0c;
    ctx.bt = bt ? p : nullptr, ctx.bt_bytes = arch.bt_bytes, p += bt;
    ctx.fb = fb ? p : nullptr, ctx.fb_bytes = arch.fb_bytes;
  } else {
    ctx.ub = p, ctx.ub_bytes = arch.ub_bytes;
  }
}

ArenaLease::~ArenaLease() {
  if (base_ == nullptr) return;
  // Bounded per thread: many suspended blocks once must not pin their arenas forever.
  constexpr size_t kMaxCachedPerSize = 64;  // as many as idle fibers: enough for 48-block launches
  auto& list = tls_cache.ListOf(bytes_);
  if (list.size() < kMaxCachedPerSize) {
    list.push_back(base_);
  } else {
    std::free(base_);
  }
}

}  // namespace tessera::device::detail

// The parameter cache: a bounded, thread-safe LRU from a call's key to its prepared plan, so that a
// repeated call skips package lookup, binary matching and the tiling function.
//
// The key holds everything that affects the result and nothing else: op type, every tensor's
// dtype, format, shape, strides and view offset, the attribute bytes, the core counts, SoC,
// device profile and the deterministic flag - never a device address. Two threads asking for the
// same missing key build it once: the second waits for the first (oneDNN's primitive cache does the
// same).
#pragma once

#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <future>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "tessera/core/status.h"
#include "tessera/core/tensor_desc.h"
#include "tessera/runtime/op_def.h"

namespace tessera::runtime {

// TESSERA_CACHE_LIMIT (default 10000); 0 disables caching.
size_t CacheLimitFromEnv();

// Builds a cache key as bytes. Each field is length- or tag-delimited so different calls never
// serialise to the same bytes.
class CacheKeyBuilder {
 public:
  explicit CacheKeyBuilder(const std::string& op_type);
  // Starts a new key, keeping the buffer: a thread-local builder makes keys without allocating.
  CacheKeyBuilder& Reset(const std::string& op_type);
  CacheKeyBuilder& Tensor(const TensorDesc* desc, int64_t view_offset = 0);  // null: absent
  CacheKeyBuilder& Attr(const std::string& name, const AttrValue& value);
  // A run-time attribute (OpAttrDef::RunTimeValue): its name and kind, never its value.
  CacheKeyBuilder& RunTimeAttr(const std::string& name, AttrKind kind);
  // Everything of the platform a tiling function can see: core counts, SoC and the profile (whose
  // name fixes the on-chip buffer sizes).
  CacheKeyBuilder& Platform(uint32_t aiv_cores, uint32_t aic_cores, const std::string& soc,
                            const std::string& profile);
  CacheKeyBuilder& Deterministic(bool on);
  // The package a pinned call runs from (OpCall::package_dir).
  CacheKeyBuilder& Package(const std::string& dir);
  const std::string& key() const { return key_; }

 private:
  void Raw(const void* p, size_t n) { key_.append(static_cast<const char*>(p), n); }
  void Int(int64_t v) { Raw(&v, sizeof(v)); }
  void Str(const std::string& s) {
    Int(static_cast<int64_t>(s.size()));
    key_ += s;
  }
  std::string key_;
};

struct CacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t evictions = 0;
  size_t size = 0;
  size_t capacity = 0;
};

template <class V>
class LruCache {
 public:
  using Value = std::shared_ptr<const V>;
  using Builder = std::function<Result<V>()>;

  explicit LruCache(size_t capacity) : capacity_(capacity) {}

  // The value for `key`, building it with `build` on a miss (once, even under concurrency). A
  // failed build is returned and not cached. `*hit` tells whether build was skipped.
  Result<Value> GetOrBuild(const std::string& key, const Builder& build, bool* hit = nullptr) {
    std::shared_future<Result<Value>> pending;
    std::optional<std::promise<Result<Value>>> promise;  // only on a miss: hits allocate nothing
    std::string owned;                                   // the key, copied on a miss
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (auto it = index_.find(key); it != index_.end()) {
        order_.splice(order_.begin(), order_, it->second);
        ++stats_.hits;
        if (hit) *hit = true;
        return it->second->second;
      }
      if (auto it = building_.find(key); it != building_.end()) {
        pending = it->second;
        ++stats_.hits;
      } else {
        ++stats_.misses;
        // `key` may live in a per-thread buffer that a nested call (a tiling function calling the
        // C API) rebuilds during build(): the miss path keeps its own copy.
        owned = key;
        if (capacity_ > 0) {
          promise.emplace();
          building_.emplace(owned, promise->get_future().share());
        }
      }
    }
    if (pending.valid()) {
      if (hit) *hit = true;
      return pending.get();
    }
    if (hit) *hit = false;
    Result<V> built = Internal("cache builder did not run");
    try {
      built = build();
    } catch (const std::exception& e) {
      built = Internal(std::string("building the cache entry threw: ") + e.what());
    }
    Result<Value> result = built.ok() ? Result<Value>(std::make_shared<const V>(std::move(*built)))
                                      : Result<Value>(built.status());
    if (capacity_ == 0) return result;
    {
      std::lock_guard<std::mutex> lock(mu_);
      building_.erase(owned);
      if (result.ok()) {
        order_.emplace_front(owned, *result);
        index_[owned] = order_.begin();
        while (order_.size() > capacity_) {
          index_.erase(order_.back().first);
          order_.pop_back();
          ++stats_.evictions;
        }
      }
    }
    promise->set_value(result);
    return result;
  }

  CacheStats stats() const {
    std::lock_guard<std::mutex> lock(mu_);
    CacheStats s = stats_;
    s.size = order_.size();
    s.capacity = capacity_;
    return s;
  }

  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    order_.clear();
    index_.clear();
  }

 private:
  mutable std::mutex mu_;
  size_t capacity_;
  std::list<std::pair<std::string, Value>> order_;  // most recent first
  std::unordered_map<std::string, typename std::list<std::pair<std::string, Value>>::iterator>
      index_;
  std::unordered_map<std::string, std::shared_future<Result<Value>>> building_;
  CacheStats stats_;
};

}  // namespace tessera::runtime

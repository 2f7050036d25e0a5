#include "tessera/device/memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "block_state.h"
#include "fault_handler.h"
#include "memory_registry.h"
#include "stream_impl.h"
#include "tessera/device/device.h"
#include "worker_pool.h"

namespace tessera::device {
namespace detail {
namespace {

constexpr uint64_t kMagic = 0x54535241'4C4C4F43ull;  // "TSRALLOC"
constexpr unsigned char kCanary = 0xA5;
constexpr unsigned char kPoison = 0xCD;
constexpr size_t kFastAlign = 64;
constexpr size_t kCheckedAlign = 32;
constexpr size_t kMmapThreshold = size_t{1} << 20;
constexpr size_t kQuarantineLimit = size_t{256} << 20;
constexpr size_t kQuarantineEntries = 2048;  // well below the fault table's 8192 slots
constexpr size_t kParallelCopyThreshold = size_t{4} << 20;

// Sits immediately before the data of a checked allocation (data is 32-byte aligned, so the header
// is 8-byte aligned).
struct AllocHeader {
  uint64_t magic;
  uint64_t size;
  uint64_t id;
};

struct Allocation {
  size_t size = 0;      // requested bytes
  size_t capacity = 0;  // usable bytes (fast: size class; checked: size rounded to 32)
  uint64_t id = 0;
  bool checked = false;
  bool mmapped = false;
  std::byte* region = nullptr;  // checked or mmapped: the whole mapping
  size_t region_bytes = 0;
  int guard_slot = -1;
};

struct Quarantined {
  std::byte* region;
  size_t region_bytes;
  int guard_slot;
  uintptr_t data;
  uint64_t id;
};

size_t PageSize() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

size_t RoundUp(size_t value, size_t to) {
  return (value + to - 1) / to * to;
}

// Size classes: 1/8 steps between powers of two, so at most 12.5% of a block is wasted.
size_t SizeClass(size_t bytes) {
  if (bytes <= kFastAlign) return kFastAlign;
  const size_t p = std::bit_floor(bytes);
  const size_t step = std::max(kFastAlign, p / 8);
  size_t cls = RoundUp(bytes, step);
  if (cls >= kMmapThreshold) cls = RoundUp(cls, PageSize());
  return cls;
}

std::string Hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%p", p);
  return buf;
}

class MemoryManager {
 public:
  static MemoryManager& Get() {
    static MemoryManager* manager = new MemoryManager();  // immortal, like the worker pool
    return *manager;
  }

  Result<void*> Allocate(size_t bytes, bool checked) {
    if (bytes == 0) return InvalidArgument("Malloc: size is 0; expected at least 1 byte");
    if (bytes > (size_t{1} << 46)) {
      return OutOfMemory("Malloc of " + std::to_string(bytes) +
                         " bytes exceeds the addressable device memory");
    }
    Result<void*> result = checked ? AllocateChecked(bytes) : AllocateFast(bytes);
    if (!result.ok()) {
      TrimCache();
      result = checked ? AllocateChecked(bytes) : AllocateFast(bytes);
    }
    return result;
  }

  Status Release(void* ptr) {
    if (ptr == nullptr) return InvalidArgument("Free: pointer is null");
    std::unique_lock<std::mutex> lock(mu_);
    auto it = live_.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == live_.end()) return DescribeForeign(ptr, "Free");
    Allocation a = it->second;
    live_.erase(it);
    in_use_ -= a.size;
    if (!a.checked) {
      cache_[a.capacity].push_back(ptr);
      cached_ += a.capacity;
      return OkStatus();
    }
    Status integrity = CheckIntegrityLocked(reinterpret_cast<uintptr_t>(ptr), a);
    mprotect(a.region, a.region_bytes, PROT_NONE);
    MarkGuardFreed(a.guard_slot);
    quarantine_.push_back(
        {a.region, a.region_bytes, a.guard_slot, reinterpret_cast<uintptr_t>(ptr), a.id});
    quarantine_bytes_ += a.region_bytes;
    // Bounded by bytes and by count: the fault handler's table has a fixed number of slots.
    while ((quarantine_bytes_ > kQuarantineLimit || quarantine_.size() > kQuarantineEntries) &&
           !quarantine_.empty()) {
      Quarantined& q = quarantine_.front();
      UnregisterGuard(q.guard_slot);
      munmap(q.region, q.region_bytes);
      quarantine_bytes_ -= q.region_bytes;
      quarantine_.pop_front();
    }
    if (!integrity.ok())
      return Status(integrity.code(), "Free: " + std::string(integrity.message()));
    return OkStatus();
  }

  // The allocation containing p, if any (copied out).
  bool Find(const void* p, uintptr_t* base, Allocation* out) {
    std::lock_guard<std::mutex> lock(mu_);
    return FindLocked(reinterpret_cast<uintptr_t>(p), base, out);
  }

  Status CheckIntegrity(const void* p) {
    std::lock_guard<std::mutex> lock(mu_);
    uintptr_t base = 0;
    Allocation a;
    if (!FindLocked(reinterpret_cast<uintptr_t>(p), &base, &a) || !a.checked) return OkStatus();
    return CheckIntegrityLocked(base, a);
  }

  MemoryStats Stats() {
    std::lock_guard<std::mutex> lock(mu_);
    MemoryStats s;
    s.bytes_in_use = in_use_;
    s.bytes_cached = cached_;
    s.peak_bytes_in_use = peak_;
    s.live_allocations = live_.size();
    s.pool_hits = hits_;
    return s;
  }

  void TrimCache() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [capacity, list] : cache_) {
      for (void* p : list)
        FreeFastBlock(p, capacity);
    }
    cache_.clear();
    cached_ = 0;
  }

 private:
  bool FindLocked(uintptr_t p, uintptr_t* base, Allocation* out) {
    auto it = live_.upper_bound(p);
    if (it == live_.begin()) return false;
    --it;
    if (p >= it->first + std::max<size_t>(it->second.size, 1)) return false;
    *base = it->first;
    *out = it->second;
    return true;
  }

  Status DescribeForeign(void* ptr, const char* api) {
    const auto p = reinterpret_cast<uintptr_t>(ptr);
    uintptr_t base = 0;
    Allocation a;
    if (FindLocked(p, &base, &a)) {
      return InvalidArgument(std::string(api) + ": pointer " + Hex(ptr) + " is " +
                             std::to_string(p - base) + " bytes inside allocation #" +
                             std::to_string(a.id) + ", not its start");
    }
    for (const Quarantined& q : quarantine_) {
      if (q.data == p) {
        return InvalidArgument(std::string(api) + ": allocation #" + std::to_string(q.id) + " at " +
                               Hex(ptr) + " was already freed (double free)");
      }
    }
    return InvalidArgument(std::string(api) + ": pointer " + Hex(ptr) +
                           " is not a live device allocation (never allocated by Malloc, or "
                           "already freed)");
  }

  static void FreeFastBlock(void* p, size_t capacity) {
    if (capacity >= kMmapThreshold) {
      munmap(p, capacity);
    } else {
      std::free(p);
    }
  }

  Result<void*> AllocateFast(size_t bytes) {
    const size_t capacity = SizeClass(bytes);
    std::lock_guard<std::mutex> lock(mu_);
    void* p = nullptr;
    auto cached = cache_.find(capacity);
    if (cached != cache_.end() && !cached->second.empty()) {
      p = cached->second.back();
      cached->second.pop_back();
      cached_ -= capacity;
      ++hits_;
    } else if (capacity >= kMmapThreshold) {
      void* m = mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m == MAP_FAILED) {
        return OutOfMemory("Malloc of " + std::to_string(bytes) +
                           " bytes failed: " + std::strerror(errno));
      }
      madvise(m, capacity, MADV_HUGEPAGE);
      p = m;
    } else {
      p = std::aligned_alloc(kFastAlign, capacity);
      if (p == nullptr) return OutOfMemory("Malloc of " + std::to_string(bytes) + " bytes failed");
    }
    Allocation a;
    a.size = bytes;
    a.capacity = capacity;
    a.id = next_id_++;
    a.mmapped = capacity >= kMmapThreshold;
    Track(p, a);
    return p;
  }

  Result<void*> AllocateChecked(size_t bytes) {
    InstallFaultHandler();
    const size_t page = PageSize();
    const size_t data_bytes = RoundUp(bytes, kCheckedAlign);
    const size_t region_bytes = RoundUp(sizeof(AllocHeader) + data_bytes, page) + page;
    void* m =
        mmap(nullptr, region_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
      return OutOfMemory("Malloc of " + std::to_string(bytes) +
                         " bytes (checked) failed: " + std::strerror(errno));
    }
    auto* region = static_cast<std::byte*>(m);
    std::byte* guard = region + region_bytes - page;
    mprotect(guard, page, PROT_NONE);
    std::byte* data = guard - data_bytes;
    auto* header = reinterpret_cast<AllocHeader*>(data - sizeof(AllocHeader));
    std::memset(region, kCanary,
                static_cast<size_t>(reinterpret_cast<std::byte*>(header) - region));
    std::memset(data, kPoison, bytes);
    std::memset(data + bytes, kCanary, data_bytes - bytes);

    std::lock_guard<std::mutex> lock(mu_);
    Allocation a;
    a.size = bytes;
    a.capacity = data_bytes;
    a.id = next_id_++;
    a.checked = true;
    a.region = region;
    a.region_bytes = region_bytes;
    *header = AllocHeader{kMagic, bytes, a.id};
    a.guard_slot = RegisterGuard(
        GuardRecord{reinterpret_cast<uintptr_t>(data), bytes, reinterpret_cast<uintptr_t>(region),
                    reinterpret_cast<uintptr_t>(region + region_bytes), a.id});
    Track(data, a);
    return static_cast<void*>(data);
  }

  void Track(void* p, const Allocation& a) {
    live_[reinterpret_cast<uintptr_t>(p)] = a;
    in_use_ += a.size;
    peak_ = std::max(peak_, in_use_);
  }

  Status CheckIntegrityLocked(uintptr_t base, const Allocation& a) {
    const auto* data = reinterpret_cast<const unsigned char*>(base);
    const auto* header = reinterpret_cast<const AllocHeader*>(data - sizeof(AllocHeader));
    const std::string name = "allocation #" + std::to_string(a.id) + " (" + std::to_string(a.size) +
                             " bytes at " + Hex(data) + ")";
    if (header->magic != kMagic || header->size != a.size || header->id != a.id) {
      return KernelError("the header before " + name +
                         " was overwritten (a write before its start)");
    }
    for (size_t i = a.size; i < a.capacity; ++i) {
      if (data[i] != kCanary) {
        return KernelError("bytes past the end of " + name + " were overwritten (first at offset " +
                           std::to_string(i) + ")");
      }
    }
    const auto* front = reinterpret_cast<const unsigned char*>(a.region);
    for (const unsigned char* q = front; q < reinterpret_cast<const unsigned char*>(header); ++q) {
      if (*q != kCanary) {
        return KernelError("bytes before the start of " + name + " were overwritten (at offset -" +
                           std::to_string(data - q) + ")");
      }
    }
    return OkStatus();
  }

  std::mutex mu_;
  std::map<uintptr_t, Allocation> live_;
  std::unordered_map<size_t, std::vector<void*>> cache_;
  std::deque<Quarantined> quarantine_;
  size_t quarantine_bytes_ = 0;
  size_t cached_ = 0;
  size_t in_use_ = 0;
  size_t peak_ = 0;
  uint64_t hits_ = 0;
  uint64_t next_id_ = 1;
};

// Copies or fills in chunks spread over the worker pool (or inline when small).
class MemJob final : public Job, public StreamOp {
 public:
  MemJob(void* dst, const void* src, int value, size_t bytes, std::shared_ptr<StreamImpl> stream)
      : Job(ChunkCount(bytes), false),
        dst_(static_cast<std::byte*>(dst)),
        src_(static_cast<const std::byte*>(src)),
        value_(value),
        bytes_(bytes),
        chunk_(RoundUp((bytes + total() - 1) / total(), 4096)),
        stream_(std::move(stream)) {}

  static uint32_t ChunkCount(size_t bytes) {
    if (bytes < kParallelCopyThreshold) return 1;
    return WorkerPool::Instance().size();
  }

  void RunBlock(uint32_t index) override {
    const size_t begin = std::min(bytes_, size_t{index} * chunk_);
    const size_t end = std::min(bytes_, begin + chunk_);
    if (begin == end) return;
    if (src_) {
      std::memcpy(dst_ + begin, src_ + begin, end - begin);
    } else {
      std::memset(dst_ + begin, value_, end - begin);
    }
  }

  void OnComplete() override {
    if (!stream_) {
      // The waiting caller may drop its reference as soon as it sees done_; ours keeps the job
      // alive until the notification is out.
      std::shared_ptr<MemJob> self = std::move(self_);
      done_.store(1, std::memory_order_seq_cst);
      NotifyCounter(done_, waiters_);
      return;
    }
    std::shared_ptr<StreamImpl> stream = stream_;
    stream->OpDone(OkStatus());
  }

  bool Start(StreamImpl*, bool, bool skip, Status*) override {
    if (skip) return true;
    if (total() == 1) {
      RunBlock(0);
      return true;
    }
    WorkerPool::Instance().Submit(this);
    return false;
  }

  // Synchronous use (no stream): runs and waits.
  static void RunAndWait(void* dst, const void* src, int value, size_t bytes) {
    auto job = std::make_shared<MemJob>(dst, src, value, bytes, nullptr);
    if (job->total() == 1 || CurrentBlockContext() != nullptr || WorkerPool::OnWorkerThread()) {
      for (uint32_t i = 0; i < job->total(); ++i)
        job->RunBlock(i);
      return;
    }
    job->self_ = job;
    WorkerPool::Instance().Submit(job.get());
    WaitForCounter(job->done_, 1, job->waiters_);
  }

 private:
  std::byte* dst_;
  const std::byte* src_;
  int value_;
  size_t bytes_;
  size_t chunk_;
  std::shared_ptr<StreamImpl> stream_;
  std::shared_ptr<MemJob> self_;  // set while a synchronous job is in the pool
  std::atomic<uint64_t> done_{0};
  std::atomic<uint32_t> waiters_{0};
};

bool Overlaps(const void* a, const void* b, size_t n) {
  const auto x = reinterpret_cast<uintptr_t>(a);
  const auto y = reinterpret_cast<uintptr_t>(b);
  return x < y + n && y < x + n;
}

// In checked mode: [p, p+count) must lie inside one live allocation.
Status CheckDeviceRange(const char* api, const char* role, const void* p, size_t count) {
  uintptr_t base = 0;
  Allocation a;
  if (!MemoryManager::Get().Find(p, &base, &a)) {
    return InvalidArgument(std::string(api) + ": " + role + " " + Hex(p) +
                           " is not inside a live device allocation");
  }
  const size_t offset = reinterpret_cast<uintptr_t>(p) - base;
  if (count > a.size - offset) {
    return InvalidArgument(std::string(api) + ": " + role + " range of " + std::to_string(count) +
                           " bytes at offset " + std::to_string(offset) + " exceeds allocation #" +
                           std::to_string(a.id) + " of " + std::to_string(a.size) + " bytes");
  }
  return OkStatus();
}

Status ValidateCopy(const char* api, void* dst, size_t dst_max, const void* src, size_t count,
                    MemcpyKind kind) {
  const int k = static_cast<int>(kind);
  if (k < 0 || k > 4)
    return InvalidArgument(std::string(api) + ": kind " + std::to_string(k) + " is invalid");
  if (count > dst_max) {
    return InvalidArgument(std::string(api) + ": count " + std::to_string(count) +
                           " exceeds dst_max " + std::to_string(dst_max));
  }
  if (count == 0) return OkStatus();
  if (dst == nullptr || src == nullptr) {
    return InvalidArgument(std::string(api) + ": " + (dst ? "src" : "dst") + " is null");
  }
  if (Overlaps(dst, src, count)) {
    return InvalidArgument(std::string(api) + ": source and destination ranges overlap");
  }
  if (!CheckedMode()) return OkStatus();
  const bool dst_dev = kind == MemcpyKind::kHostToDevice || kind == MemcpyKind::kDeviceToDevice ||
                       (kind == MemcpyKind::kDefault && IsDeviceAddress(dst));
  const bool src_dev = kind == MemcpyKind::kDeviceToHost || kind == MemcpyKind::kDeviceToDevice ||
                       (kind == MemcpyKind::kDefault && IsDeviceAddress(src));
  if (dst_dev) TESSERA_RETURN_IF_ERROR(CheckDeviceRange(api, "destination", dst, count));
  if (src_dev) TESSERA_RETURN_IF_ERROR(CheckDeviceRange(api, "source", src, count));
  return OkStatus();
}

Status ValidateSet(const char* api, void* dst, size_t dst_max, size_t count) {
  if (count > dst_max) {
    return InvalidArgument(std::string(api) + ": count " + std::to_string(count) +
                           " exceeds dst_max " + std::to_string(dst_max));
  }
  if (count == 0) return OkStatus();
  if (dst == nullptr) return InvalidArgument(std::string(api) + ": dst is null");
  if (CheckedMode() && IsDeviceAddress(dst)) {
    TESSERA_RETURN_IF_ERROR(CheckDeviceRange(api, "destination", dst, count));
  }
  return OkStatus();
}

}  // namespace

Status CheckAllocationIntegrity(const void* ptr) {
  return MemoryManager::Get().CheckIntegrity(ptr);
}

}  // namespace detail

Result<void*> Malloc(size_t bytes) {
  return detail::MemoryManager::Get().Allocate(bytes, CheckedMode());
}

Status Free(void* ptr) {
  if (detail::CurrentBlockContext() != nullptr) {
    return FailedPrecondition("Free called from inside a kernel");
  }
  if (ptr != nullptr) {
    Status sync = DeviceSynchronize();  // queued kernels may still use the memory
    (void)sync;  // stream errors belong to the streams; Free itself still proceeds
  }
  return detail::MemoryManager::Get().Release(ptr);
}

Status Memcpy(void* dst, size_t dst_max, const void* src, size_t count, MemcpyKind kind) {
  TESSERA_RETURN_IF_ERROR(detail::ValidateCopy("Memcpy", dst, dst_max, src, count, kind));
  if (count == 0) return OkStatus();
  detail::MemJob::RunAndWait(dst, src, 0, count);
  return OkStatus();
}

Status MemcpyAsync(void* dst, size_t dst_max, const void* src, size_t count, MemcpyKind kind,
                   const Stream& stream) {
  if (stream.impl() == nullptr)
    return InvalidArgument("MemcpyAsync: the stream handle is empty (moved from)");
  TESSERA_RETURN_IF_ERROR(detail::ValidateCopy("MemcpyAsync", dst, dst_max, src, count, kind));
  if (count == 0) return OkStatus();
  stream.impl()->Enqueue(
      std::make_unique<detail::MemJob>(dst, src, 0, count, stream.shared_impl()));
  return OkStatus();
}

Status Memset(void* dst, size_t dst_max, int value, size_t count) {
  TESSERA_RETURN_IF_ERROR(detail::ValidateSet("Memset", dst, dst_max, count));
  if (count == 0) return OkStatus();
  detail::MemJob::RunAndWait(dst, nullptr, value, count);
  return OkStatus();
}

Status MemsetAsync(void* dst, size_t dst_max, int value, size_t count, const Stream& stream) {
  if (stream.impl() == nullptr)
    return InvalidArgument("MemsetAsync: the stream handle is empty (moved from)");
  TESSERA_RETURN_IF_ERROR(detail::ValidateSet("MemsetAsync", dst, dst_max, count));
  if (count == 0) return OkStatus();
  stream.impl()->Enqueue(
      std::make_unique<detail::MemJob>(dst, nullptr, value, count, stream.shared_impl()));
  return OkStatus();
}

bool IsDeviceAddress(const void* ptr) {
  uintptr_t base = 0;
  detail::Allocation a;
  return ptr != nullptr && detail::MemoryManager::Get().Find(ptr, &base, &a);
}

size_t DeviceBytesFrom(const void* ptr) {
  uintptr_t base = 0;
  detail::Allocation a;
  if (ptr == nullptr || !detail::MemoryManager::Get().Find(ptr, &base, &a)) return 0;
  return a.size - (reinterpret_cast<uintptr_t>(ptr) - base);
}

MemoryStats GetMemoryStats() {
  return detail::MemoryManager::Get().Stats();
}
void TrimMemoryPool() {
  detail::MemoryManager::Get().TrimCache();
}

}  // namespace tessera::device

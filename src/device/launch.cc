#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <typeinfo>
#include <unordered_map>
#include <vector>

#include "arena_cache.h"
#include "block_state.h"
#include "launch_job.h"
#include "memory_registry.h"
#include "runtime_state.h"
#include "symbol_name.h"
#include "tessera/device/detail/block_pool.h"
#include "tessera/device/device.h"
#include "tessera/device/memory.h"

namespace tessera::device {
namespace detail {
namespace {

std::string Demangle(const char* name) {
  int status = 0;
  char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string result = (status == 0 && out) ? out : name;
  std::free(out);
  return result;
}

// The kernel's name: the configured one, else its symbol (without the parameter list), else its
// address.
std::string KernelName(const LaunchRequest& req) {
  if (req.config.name && req.config.name[0]) return req.config.name;
  if (const std::string symbol = FunctionSymbol(req.kernel_address); !symbol.empty()) {
    std::string name = Demangle(symbol.c_str());
    // Drop the parameter list: the parentheses closing the name (scopes such as
    // "(anonymous namespace)" have their own).
    int depth = 0;
    for (size_t i = name.size(); i-- > 0;) {
      depth += name[i] == ')' ? 1 : name[i] == '(' ? -1 : 0;
      if (depth == 0) return name[i] == '(' ? name.substr(0, i) : name;
    }
    return name;
  }
  char buf[48];
  std::snprintf(buf, sizeof(buf), "kernel@%p", req.kernel_address);
  return buf;
}

bool InlineLaunchEnabled() {
  static const bool enabled = [] {
    const char* env = std::getenv("TESSERA_INLINE_LAUNCH");
    return env == nullptr || std::strcmp(env, "0") != 0;
  }();
  return enabled;
}

constexpr uint32_t kFlagCount = kMaxCrossCoreFlags;

std::string BlockLabel(const BlockContext& ctx) {
  return "kernel '" + std::string(ctx.kernel_name) + "' block " + std::to_string(ctx.block_idx) +
         " (" + CoreTypeName(ctx.core_type) + ")";
}

}  // namespace

// Cross-core flag state of a launch, created on the first flag use.
struct LaunchJob::FlagTable {
  FlagTable(uint32_t cores, uint32_t groups)
      : counts(size_t{cores} * kFlagCount),
        claimed(size_t{cores} * kFlagCount),
        all_aic(kFlagCount),
        all_aiv(kFlagCount),
        group_vector(size_t{groups} * kFlagCount),
        vector_to_cube(size_t{groups} * kFlagCount) {}
  // Per core (fiber index) and flag id: counts received, and waits begun (a wait claims the count
  // it will consume before it blocks), so counts - claimed is what the NPU's counter would hold.
  std::vector<std::atomic<uint64_t>> counts;
  std::vector<std::atomic<uint64_t>> claimed;
  // Arrivals of the multi-setter modes: mode 0 per core type, mode 1 and the AIV side of mode 2
  // per group.
  std::vector<std::atomic<uint64_t>> all_aic;
  std::vector<std::atomic<uint64_t>> all_aiv;
  std::vector<std::atomic<uint64_t>> group_vector;
  std::vector<std::atomic<uint64_t>> vector_to_cube;
};

LaunchJob::LaunchJob(LaunchRequest&& request, std::string name, const ArchSpec& arch, bool checked,
                     std::shared_ptr<StreamImpl> stream)
    : Job(request.config.type == KernelType::kMix
              ? request.config.block_dim * (1 + arch.task_ration)
              : request.config.block_dim,
          /*uses_fibers=*/true,
          /*take_unit=*/request.config.type == KernelType::kMix ? 1 + arch.task_ration : 1),
      request_(std::move(request)),
      name_(std::move(name)),
      arch_(arch),
      checked_(checked),
      stream_(std::move(stream)),
      cores_per_group_(request_.config.type == KernelType::kMix ? 1 + arch.task_ration : 1),
      traced_(TraceEnabled()),
      watched_(KernelTimeoutSeconds() > 0),
      heap_waits_(total() > kInlineWaits ? new WaitRecord[total()] : nullptr),
      waits_(heap_waits_ ? heap_waits_.get() : inline_waits_),
      access_(checked ? std::make_unique<AccessLog>(total()) : nullptr),
      phases_(checked && traced_ ? std::make_unique<PhaseLog[]>(total()) : nullptr),
      schedule_(ScheduleFromEnvironment(request_.config.block_dim, cores_per_group_, name_)),
      turn_given_(schedule_ ? new std::atomic<bool>[total()]() : nullptr) {}

// Launch jobs come back to a pool (per thread first): a launch allocates no job.
void* LaunchJob::operator new(size_t size) {
  return BlockPool<LaunchJob>::Take(size);
}

void LaunchJob::operator delete(void* p, size_t size) {
  BlockPool<LaunchJob>::Give(p, size);
}

LaunchJob::~LaunchJob() {
  request_.destroy(request_.payload);
  delete flags_.load();
  delete prints_.load();
}

bool LaunchJob::Start(StreamImpl*, bool on_caller_thread, bool skip, Status* status) {
  if (skip) return true;  // the stream's sticky error already reports why
  if (traced_ || watched_) start_ns_ = SteadyNowNs();
  if (watched_) WatchLaunch(this, start_ns_);
  if (on_caller_thread && RunsInline() && !InFiber() && !WorkerPool::OnWorkerThread()) {
    // A small launch on an idle stream runs here, its blocks as fibers of this thread: handing it
    // to the workers and waiting costs more than the blocks' work.
    inline_ = true;
    FiberScheduler& scheduler = FiberScheduler::ForThisThread();
    for (uint32_t slot = 0; slot < total(); ++slot)
      scheduler.Start(this, slot);
    while (finished() < total()) {
      if (!scheduler.PollSuspended()) OnStall();
    }
    *status = Complete();
    return true;
  }
  WorkerPool::Instance().Submit(this);
  return false;  // `this` may already be gone
}

bool LaunchJob::RunsInline() const {
  // Blocks that move at most this many bytes together finish in about the time a hand-off to the
  // workers and back takes (~1-2 us).
  constexpr uint64_t kInlineBytes = 32 * 1024;
  constexpr uint32_t kInlineBlocks = 64;
  const LaunchConfig& cfg = request_.config;
  if (!cfg.allow_inline || !InlineLaunchEnabled()) return false;
  return total() == 1 ||
         (total() <= kInlineBlocks && cfg.bytes_moved > 0 && cfg.bytes_moved <= kInlineBytes);
}

void LaunchJob::FillContext(BlockContext& ctx, uint32_t fiber_index) const {
  const LaunchConfig& cfg = request_.config;
  ctx.block_num = cfg.block_dim;
  ctx.kernel_type = cfg.type;
  ctx.fiber_index = fiber_index;
  ctx.kernel_name = name_.c_str();
  ctx.checked = checked_;
  ctx.launch = const_cast<LaunchJob*>(this);
  CoreType core = cfg.type == KernelType::kAic ? CoreType::kAic : CoreType::kAiv;
  ctx.block_idx = fiber_index;
  ctx.group = fiber_index;
  if (cfg.type == KernelType::kMix) {
    const uint32_t group = fiber_index / cores_per_group_;
    const uint32_t member = fiber_index % cores_per_group_;
    ctx.group = group;
    if (member == 0) {
      core = CoreType::kAic;
      ctx.block_idx = group;
    } else {
      ctx.sub_block_idx = member - 1;
      ctx.sub_block_num = arch_.task_ration;
      ctx.task_ration = arch_.task_ration;
      ctx.block_idx = group * arch_.task_ration + ctx.sub_block_idx;
    }
  }
  ctx.core_type = core;
}

uint32_t LaunchJob::ResidentCoreLimit() const {
  return request_.config.type == KernelType::kAiv ? arch_.aiv_cores : arch_.aic_cores;
}

void LaunchJob::ReleaseTurn(uint32_t fiber_index) {
  if (schedule_ && !turn_given_[fiber_index].exchange(true, std::memory_order_acq_rel))
    turn_.fetch_add(1, std::memory_order_acq_rel);
}

void LaunchJob::RunBlock(uint32_t slot) {
  started_.fetch_add(1, std::memory_order_acq_rel);
  uint32_t fiber_index = slot;
  if (schedule_) {
    // The slot-th block of the order starts when the ones before it finished or wait.
    if (!schedule_->order.empty()) {
      fiber_index = schedule_->order[slot];
      SuspendCurrentFiber(WaitCondition{&turn_, slot, &aborted_});
    }
    if (!schedule_->runs.empty() && !schedule_->runs[fiber_index]) {
      ReleaseTurn(fiber_index);
      return;
    }
  }
  if (aborted_.load(std::memory_order_acquire)) {  // a failed launch runs no further blocks
    ReleaseTurn(fiber_index);
    return;
  }
  WaitRecord& rec = waits_[fiber_index];
  rec.phase.store(kRunning, std::memory_order_relaxed);
  if (traced_) rec.begin_ns = SteadyNowNs();
  BlockContext ctx;
  FillContext(ctx, fiber_index);
  std::optional<ArenaLease> arenas;
  SetCurrentBlockContext(&ctx);
  bool completed = false;
  try {
    arenas.emplace(ctx, arch_, checked_);
    request_.invoke(request_.payload);
    completed = true;
  } catch (const BlockAbort&) {
  } catch (const BlockFailure& failure) {
    Fail(ctx, failure.status);
  } catch (const std::exception& e) {
    Fail(ctx, KernelError("threw " + Demangle(typeid(e).name()) + ": " + e.what()));
  } catch (...) {
    Fail(ctx, KernelError("threw an exception that is not a std::exception"));
  }
  if (BlockExitHook hook = BlockExitHookSlot().load(std::memory_order_acquire))
    hook(ctx, completed);
  SetCurrentBlockContext(nullptr);
  if (traced_) rec.end_ns = SteadyNowNs();
  rec.phase.store(kFinished, std::memory_order_release);
  ReleaseTurn(fiber_index);
  progress_.fetch_add(1, std::memory_order_acq_rel);
}

void LaunchJob::AbandonBlock(uint32_t slot, const std::string& why) {
  started_.fetch_add(1, std::memory_order_acq_rel);
  const uint32_t fiber_index =
      schedule_ && !schedule_->order.empty() ? schedule_->order[slot] : slot;
  ReleaseTurn(fiber_index);
  BlockContext ctx;
  FillContext(ctx, fiber_index);
  Fail(ctx, OutOfMemory("could not start the block: " + why));
}

void LaunchJob::Fail(const BlockContext& ctx, const Status& cause) {
  {
    std::lock_guard<std::mutex> lock(error_mu_);
    if (error_.ok()) {
      const StatusCode code =
          cause.code() == StatusCode::kOk ? StatusCode::kKernelError : cause.code();
      error_ = Status(code, BlockLabel(ctx) + ": " + std::string(cause.message()));
    }
  }
  aborted_.store(true, std::memory_order_release);
  progress_.fetch_add(1, std::memory_order_acq_rel);
}

std::string LaunchJob::AccessFindings() const {
  const auto describe = [this](uint32_t fiber) {
    BlockContext probe;
    FillContext(probe, fiber);
    return "block " + std::to_string(probe.block_idx) + " (" + CoreTypeName(probe.core_type) + ")";
  };
  // An address as a byte range of the pointer argument whose allocation holds it.
  const auto where = [this](uintptr_t b, uintptr_t e) {
    for (const PointerArg& arg : request_.pointers) {
      const auto p = reinterpret_cast<uintptr_t>(arg.ptr);
      if (arg.ptr != nullptr && b >= p && b < p + DeviceBytesFrom(arg.ptr)) {
        return "bytes [" + std::to_string(b - p) + ", " + std::to_string(e - p) + ") of argument " +
               std::to_string(arg.index);
      }
    }
    for (size_t i = 0; i < request_.must_write.size(); ++i) {
      const auto p = reinterpret_cast<uintptr_t>(request_.must_write[i].ptr);
      if (b >= p && b < p + request_.must_write[i].bytes) {
        return "bytes [" + std::to_string(b - p) + ", " + std::to_string(e - p) +
               ") of output range " + std::to_string(i);
      }
    }
    char buf[80];
    std::snprintf(buf, sizeof(buf), "bytes [%p, %p)", reinterpret_cast<void*>(b),
                  reinterpret_cast<void*>(e));
    return std::string(buf);
  };
  std::string race = access_->FindRace(describe, where);
  if (!race.empty()) return "race between blocks: " + race;
  // Skipped blocks (TESSERA_BLOCKS) leave their outputs unwritten on purpose.
  if (schedule_ && !schedule_->runs.empty()) return "";
  for (size_t i = 0; i < request_.must_write.size(); ++i) {
    const ByteRange& r = request_.must_write[i];
    const auto b = reinterpret_cast<uintptr_t>(r.ptr);
    std::string gap = access_->FirstUnwritten(b, b + r.bytes, where);
    if (!gap.empty()) return "output left unwritten: no block wrote " + gap;
  }
  return "";
}

Status LaunchJob::CheckedModeCompletion() {
  std::lock_guard<std::mutex> lock(error_mu_);
  if (!error_.ok() || !checked_) return error_;
  for (const PointerArg& arg : request_.pointers) {
    if (arg.ptr == nullptr) continue;
    Status st = CheckAllocationIntegrity(arg.ptr);
    if (!st.ok()) {
      error_ = KernelError("kernel '" + name_ + "' argument " + std::to_string(arg.index) + ": " +
                           std::string(st.message()));
      return error_;
    }
  }
  const std::string finding = AccessFindings();
  if (!finding.empty()) error_ = KernelError("kernel '" + name_ + "': " + finding);
  return error_;
}

Status LaunchJob::Complete() {
  if (watched_) UnwatchLaunch(this);
  Status status = CheckedModeCompletion();
  if (const LaunchPrints* prints = prints_.load(std::memory_order_acquire)) prints->Flush(*this);
  if (traced_) RecordTrace(!status.ok());
  return status;
}

void LaunchJob::RecordTrace(bool failed) const {
  std::vector<TracedBlock> blocks;
  blocks.reserve(total());
  for (uint32_t i = 0; i < total(); ++i) {
    const WaitRecord& rec = waits_[i];
    if (rec.phase.load(std::memory_order_acquire) != kFinished) continue;  // never ran
    BlockContext probe;
    FillContext(probe, i);
    blocks.push_back(
        TracedBlock{probe.block_idx, probe.core_type, rec.begin_ns, rec.end_ns, phase_log(i)});
  }
  RecordLaunch(TracedLaunch{&name_, stream_->id(), request_.config.block_dim, request_.config.type,
                            request_.config.bytes_moved, failed, start_ns_, SteadyNowNs(),
                            blocks.data(), static_cast<uint32_t>(blocks.size())});
}

LaunchPrints& LaunchJob::Prints() {
  LaunchPrints* prints = prints_.load(std::memory_order_acquire);
  if (prints) return *prints;
  auto* fresh = new LaunchPrints(total());
  if (prints_.compare_exchange_strong(prints, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;
  return *prints;
}

std::string LaunchJob::BlockTag(uint32_t fiber_index) const {
  BlockContext probe;
  FillContext(probe, fiber_index);
  return "block " + std::to_string(probe.block_idx) + " " + CoreTypeName(probe.core_type);
}

void LaunchJob::OnTimeout(double timeout_seconds, double elapsed_seconds) {
  // Every block is done and the launch is completing. A launch that is failing already is still
  // reported: a block of it may be the one that never returns (its first error stays the error).
  if (finished() == total()) return;
  char head[160];
  std::snprintf(head, sizeof(head),
                "%s, blockDim %u) still running after %.3g s (TESSERA_KERNEL_TIMEOUT=%g)",
                KernelTypeName(request_.config.type), request_.config.block_dim, elapsed_seconds,
                timeout_seconds);
  std::string report;  // one line per unfinished block, the first 16 of them
  std::string brief;   // the same, shorter, for the stream error
  uint32_t running = 0, waiting = 0, not_started = 0, finished_blocks = 0, listed = 0;
  for (uint32_t i = 0; i < total(); ++i) {
    const WaitRecord& rec = waits_[i];
    const uint8_t phase = rec.phase.load(std::memory_order_acquire);
    if (phase == kFinished) {
      ++finished_blocks;
      continue;
    }
    std::string state;
    if (phase == kNotStarted) {
      ++not_started;
      state = "not started";
    } else if (rec.active.load(std::memory_order_acquire)) {
      ++waiting;
      const char* what = rec.what.load();
      const std::atomic<uint64_t>* counter = rec.counter.load(std::memory_order_relaxed);
      state = std::string("waiting in ") + what;
      if (std::strcmp(what, "SyncAll") != 0) state += " flag " + std::to_string(rec.flag.load());
      state += " (count " + std::to_string(counter->load(std::memory_order_acquire)) + ", needs " +
               std::to_string(rec.target.load(std::memory_order_relaxed)) + ")";
    } else {
      ++running;
      state = "running (not waiting; cannot be interrupted)";
    }
    if (listed++ < 16) {
      const std::string tag = BlockTag(i);
      report += "  " + tag + ": " + state + "\n";
      brief += (brief.empty() ? "" : "; ") + tag + " " + state;
    }
  }
  if (listed > 16) {
    report += "  ... " + std::to_string(listed - 16) + " more\n";
    brief += "; ...";
  }
  std::fprintf(stderr,
               "tessera watchdog: kernel '%s' (%s:\n%s  %u running, %u waiting, %u not started, "
               "%u finished\n  failing the launch: waiting blocks are released and blocks not "
               "started are skipped; running blocks cannot be cancelled, the launch ends when they "
               "return\n",
               name_.c_str(), head, report.c_str(), running, waiting, not_started, finished_blocks);
  {
    std::lock_guard<std::mutex> lock(error_mu_);
    if (error_.ok()) {
      error_ = KernelError("kernel '" + name_ + "' (" + head + ": " + brief);
    }
  }
  aborted_.store(true, std::memory_order_release);
  progress_.fetch_add(1, std::memory_order_acq_rel);
}

void LaunchJob::OnComplete() {
  if (inline_) return;  // Start() reports the result itself
  Status status = Complete();
  std::shared_ptr<StreamImpl> stream = stream_;  // OpDone destroys this job
  stream->OpDone(status);
}

void LaunchJob::Yield(BlockContext& ctx) {
  // A block polling GM is waiting: the next block of a fixed schedule may start meanwhile.
  ReleaseTurn(ctx.fiber_index);
  YieldCurrentFiber();
  if (aborted_.load(std::memory_order_acquire)) throw BlockAbort{};
}

void LaunchJob::Wait(BlockContext& ctx, const std::atomic<uint64_t>& counter, uint64_t target,
                     const char* what, uint32_t flag) {
  WaitCondition cond{&counter, target, &aborted_};
  if (!cond.Ready()) {
    ReleaseTurn(ctx.fiber_index);
    WaitRecord& rec = waits_[ctx.fiber_index];
    rec.counter.store(&counter, std::memory_order_relaxed);
    rec.target.store(target, std::memory_order_relaxed);
    rec.what.store(what, std::memory_order_relaxed);
    rec.flag.store(flag, std::memory_order_relaxed);
    rec.active.store(true, std::memory_order_release);
    suspended_.fetch_add(1, std::memory_order_seq_cst);
    SuspendCurrentFiber(cond);
    // Progress and the suspended count change before the record goes inactive, so a deadlock check
    // running in between never sees an inactive record counted as suspended with no progress.
    progress_.fetch_add(1, std::memory_order_seq_cst);
    suspended_.fetch_sub(1, std::memory_order_seq_cst);
    rec.active.store(false, std::memory_order_release);
  }
  if (aborted_.load(std::memory_order_acquire)) throw BlockAbort{};
}

void LaunchJob::RequireResident(const char* api) const {
  const uint32_t limit = ResidentCoreLimit();
  if (request_.config.block_dim > limit) {
    throw BlockFailure{KernelError(
        std::string(api) + " needs all " + std::to_string(request_.config.block_dim) +
        " blocks resident at once, but profile '" + arch_.name + "' has " + std::to_string(limit) +
        " logical " + (request_.config.type == KernelType::kAiv ? "AIV" : "AI") +
        " cores; launch with blockDim <= " + std::to_string(limit))};
  }
}

void LaunchJob::SyncAll(BlockContext& ctx) {
  RequireResident("SyncAll");
  const uint64_t round = ++ctx.barriers_passed;
  if (access_) access_->BarrierArrive(ctx.fiber_index, round);
  barrier_arrived_.fetch_add(1, std::memory_order_acq_rel);
  progress_.fetch_add(1, std::memory_order_acq_rel);
  Wait(ctx, barrier_arrived_, round * total(), "SyncAll", 0);
  if (access_) access_->BarrierLeave(ctx.fiber_index, round);
}

LaunchJob::FlagTable& LaunchJob::Flags() {
  FlagTable* table = flags_.load(std::memory_order_acquire);
  if (table) return *table;
  const uint32_t groups = request_.config.type == KernelType::kMix ? request_.config.block_dim : 0;
  auto* fresh = new FlagTable(total(), groups);
  if (flags_.compare_exchange_strong(table, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;
  return *table;
}

namespace {

void CheckFlagArgs(const BlockContext& ctx, const char* api, CrossCoreMode mode, uint32_t flag_id) {
  const int m = static_cast<int>(mode);
  if (flag_id >= kFlagCount) {
    throw BlockFailure{KernelError(std::string(api) + ": flag id " + std::to_string(flag_id) +
                                   " is out of range; expected 0.." +
                                   std::to_string(kFlagCount - 1))};
  }
  if (m < 0 || m > 2) {
    throw BlockFailure{
        KernelError(std::string(api) + ": mode " + std::to_string(m) +
                    " is not one of 0 (all cores), 1 (group vector), 2 (cube-vector)")};
  }
  if (mode != CrossCoreMode::kAllCores && ctx.kernel_type != KernelType::kMix) {
    throw BlockFailure{KernelError(std::string(api) + "(mode " + std::to_string(m) +
                                   ") needs a MIX launch; this kernel was launched as " +
                                   KernelTypeName(ctx.kernel_type))};
  }
  if (mode == CrossCoreMode::kGroupVector && ctx.core_type != CoreType::kAiv) {
    throw BlockFailure{
        KernelError(std::string(api) + "(mode 1) is for vector cores; called on AIC")};
  }
}

}  // namespace

uint32_t LaunchJob::CoresOfType(CoreType type) const {
  const uint32_t dim = request_.config.block_dim;
  switch (request_.config.type) {
    case KernelType::kMix:
      return type == CoreType::kAic ? dim : dim * arch_.task_ration;
    case KernelType::kAic:
      return type == CoreType::kAic ? dim : 0;
    default:
      return type == CoreType::kAiv ? dim : 0;
  }
}

void LaunchJob::Deliver(CrossCoreMode mode, uint32_t fiber, uint32_t flag_id,
                        uint64_t accumulator) {
  FlagTable& t = Flags();
  const size_t slot = size_t{fiber} * kFlagCount + flag_id;
  if (!checked_) {
    t.counts[slot].fetch_add(1, std::memory_order_seq_cst);
    return;
  }
  uint64_t now = 0;
  access_->Deliver(accumulator, slot, [&] {
    return now = t.counts[slot].fetch_add(1, std::memory_order_seq_cst) + 1;
  });
  const uint64_t claimed = t.claimed[slot].load(std::memory_order_seq_cst);
  if (now > claimed && now - claimed > kMaxCrossCoreFlagCount) {
    BlockContext target;
    FillContext(target, fiber);
    throw BlockFailure{KernelError(
        "CrossCoreSetFlag(mode " + std::to_string(static_cast<int>(mode)) + "): flag " +
        std::to_string(flag_id) + " of block " + std::to_string(target.block_idx) + " (" +
        CoreTypeName(target.core_type) + ") would count " + std::to_string(now - claimed) +
        " pending sets; a cross-core flag counts at most " +
        std::to_string(kMaxCrossCoreFlagCount) +
        " (the NPU aborts the kernel): let the waiter catch up, e.g. wait on a reverse flag "
        "every 15 sets")};
  }
}

void LaunchJob::SetFlag(BlockContext& ctx, CrossCoreMode mode, uint32_t flag_id) {
  CheckFlagArgs(ctx, "CrossCoreSetFlag", mode, flag_id);
  FlagTable& t = Flags();
  const uint32_t cpg = cores_per_group_;
  const bool mix = request_.config.type == KernelType::kMix;
  // Checked mode: the setters whose clocks a delivered count carries - every setter of the
  // multi-setter modes (per core type, or per group), the one setter otherwise.
  const bool aic = ctx.core_type == CoreType::kAic;
  const uint64_t group_flag = uint64_t{ctx.group} * kFlagCount + flag_id;
  const uint64_t accumulator =
      mode == CrossCoreMode::kAllCores ? (uint64_t{aic} << 32) + flag_id
      : mode == CrossCoreMode::kGroupVector || !aic
          ? (uint64_t{static_cast<uint8_t>(mode)} << 60) + group_flag
          : (uint64_t{3} << 60) + uint64_t{ctx.fiber_index} * kFlagCount + flag_id;
  if (access_) access_->JoinSetter(ctx.fiber_index, accumulator);
  switch (mode) {
    case CrossCoreMode::kAllCores: {
      // A barrier over every core of the setter's type: they must all be resident.
      RequireResident("CrossCoreSetFlag(mode 0)");
      const bool cube = ctx.core_type == CoreType::kAic;
      const uint32_t n = CoresOfType(ctx.core_type);
      const uint64_t arrived =
          (cube ? t.all_aic : t.all_aiv)[flag_id].fetch_add(1, std::memory_order_acq_rel) + 1;
      if (arrived % n != 0) break;
      for (uint32_t f = 0; f < total(); ++f) {
        const bool f_cube = mix ? f % cpg == 0 : request_.config.type == KernelType::kAic;
        if (f_cube == cube) Deliver(mode, f, flag_id, accumulator);
      }
      break;
    }
    case CrossCoreMode::kGroupVector: {
      const size_t slot = size_t{ctx.group} * kFlagCount + flag_id;
      const uint64_t arrived = t.group_vector[slot].fetch_add(1, std::memory_order_acq_rel) + 1;
      if (arrived % arch_.task_ration != 0) break;
      for (uint32_t s = 0; s < arch_.task_ration; ++s)
        Deliver(mode, ctx.group * cpg + 1 + s, flag_id, accumulator);
      break;
    }
    case CrossCoreMode::kGroupCubeVector: {
      if (ctx.core_type == CoreType::kAic) {
        for (uint32_t s = 0; s < arch_.task_ration; ++s)
          Deliver(mode, ctx.group * cpg + 1 + s, flag_id, accumulator);
        break;
      }
      const size_t slot = size_t{ctx.group} * kFlagCount + flag_id;
      const uint64_t arrived = t.vector_to_cube[slot].fetch_add(1, std::memory_order_acq_rel) + 1;
      if (arrived % arch_.task_ration == 0) Deliver(mode, ctx.group * cpg, flag_id, accumulator);
      break;
    }
    default:
      break;
  }
  progress_.fetch_add(1, std::memory_order_acq_rel);
}

void LaunchJob::WaitFlag(BlockContext& ctx, CrossCoreMode mode, uint32_t flag_id) {
  CheckFlagArgs(ctx, "CrossCoreWaitFlag", mode, flag_id);
  FlagTable& t = Flags();
  const size_t slot = size_t{ctx.fiber_index} * kFlagCount + flag_id;
  const uint64_t round = ++ctx.flag_waits[flag_id];
  t.claimed[slot].store(round, std::memory_order_seq_cst);
  static const char* const kWhat[] = {"CrossCoreWaitFlag(mode 0)", "CrossCoreWaitFlag(mode 1)",
                                      "CrossCoreWaitFlag(mode 2)"};
  Wait(ctx, t.counts[slot], round, kWhat[static_cast<int>(mode)], flag_id);
  if (access_) access_->Consume(ctx.fiber_index, slot, round);
}

void LaunchJob::OnStall() {
  // All blocks started, every unfinished block suspended, none of their conditions true, and no
  // progress while we looked: nothing can ever wake them.
  if (aborted_.load(std::memory_order_acquire)) return;
  if (started_.load(std::memory_order_acquire) < total()) return;
  const uint64_t before = progress_.load(std::memory_order_seq_cst);
  if (suspended_.load(std::memory_order_seq_cst) + finished() != total()) return;
  std::string detail;
  uint32_t listed = 0;
  for (uint32_t i = 0; i < total(); ++i) {
    const WaitRecord& rec = waits_[i];
    if (!rec.active.load(std::memory_order_acquire)) continue;
    const std::atomic<uint64_t>* counter = rec.counter.load(std::memory_order_relaxed);
    const uint64_t target = rec.target.load(std::memory_order_relaxed);
    const uint64_t value = counter->load(std::memory_order_acquire);
    if (value >= target) return;
    if (listed++ < 8) {
      BlockContext probe;
      FillContext(probe, i);
      detail += (detail.empty() ? "" : "; ") + std::string("block ") +
                std::to_string(probe.block_idx) + " (" + CoreTypeName(probe.core_type) + ") in " +
                rec.what.load() +
                (std::strcmp(rec.what.load(), "SyncAll") == 0
                     ? ""
                     : " flag " + std::to_string(rec.flag.load())) +
                " (count " + std::to_string(value) + ", needs " + std::to_string(target) + ")";
    }
  }
  if (progress_.load(std::memory_order_seq_cst) != before) return;
  if (suspended_.load(std::memory_order_seq_cst) + finished() != total()) return;
  {
    std::lock_guard<std::mutex> lock(error_mu_);
    if (error_.ok()) {
      error_ = KernelError("kernel '" + name_ +
                           "' deadlocked: every unfinished block waits and no block can wake it: " +
                           detail + (listed > 8 ? "; ..." : ""));
    }
  }
  aborted_.store(true, std::memory_order_release);
}

Status EnqueueLaunch(LaunchRequest&& req, const Stream& stream) {
  struct PayloadGuard {
    LaunchRequest* r;
    ~PayloadGuard() {
      if (r) r->destroy(r->payload);
    }
  } guard{&req};
  const std::string name = KernelName(req);
  const auto fail = [&](const std::string& why) {
    return InvalidArgument("Launch of kernel '" + name + "': " + why);
  };
  const uint32_t dim = req.config.block_dim;
  if (dim == 0 || dim > kMaxBlockDim) {
    return fail("blockDim is " + std::to_string(dim) + "; expected 1.." +
                std::to_string(kMaxBlockDim));
  }
  const int type = static_cast<int>(req.config.type);
  if (type < 0 || type > 2)
    return fail("kernel type " + std::to_string(type) + " is not AIV, AIC or MIX");
  if (stream.impl() == nullptr) return fail("stream is null");
  const bool checked = CheckedMode();
  if (checked) {
    for (const PointerArg& arg : req.pointers) {
      if (arg.ptr != nullptr && !IsDeviceAddress(arg.ptr)) {
        char addr[32];
        std::snprintf(addr, sizeof(addr), "%p", arg.ptr);
        return fail("argument " + std::to_string(arg.index) + " (pointer " + addr +
                    ") is not a live device allocation; in checked mode every pointer argument "
                    "must point into memory from tessera::device::Malloc");
      }
    }
  }
  Status sticky = stream.GetError();
  if (!sticky.ok()) {
    return Status(sticky.code(),
                  "Launch of kernel '" + name +
                      "' refused: the stream has a sticky error (call ResetError): " +
                      std::string(sticky.message()));
  }
  if (checked && req.config.must_write != nullptr) {
    req.must_write.assign(req.config.must_write,
                          req.config.must_write + req.config.must_write_count);
  }
  req.config.must_write = nullptr;  // the caller's array need not outlive the call
  guard.r = nullptr;
  auto job = std::make_unique<LaunchJob>(std::move(req), name, ActiveArch(), checked,
                                         stream.shared_impl());
  stream.impl()->Enqueue(std::move(job));
  return OkStatus();
}

bool CheckedModeForLaunch() {
  return CheckedMode();
}

}  // namespace detail
}  // namespace tessera::device

// A kernel launch in flight: its blocks, their cross-core state, and its failure.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "access_log.h"
#include "debug_internal.h"
#include "fiber_scheduler.h"
#include "schedule.h"
#include "stream_impl.h"
#include "tessera/device/arch_spec.h"
#include "tessera/device/launch.h"
#include "worker_pool.h"

namespace tessera::device::detail {

class LaunchJob final : public Job, public StreamOp {
 public:
  LaunchJob(LaunchRequest&& request, std::string name, const ArchSpec& arch, bool checked,
            std::shared_ptr<StreamImpl> stream);
  ~LaunchJob() override;
  // Launch jobs come from a pool: a launch allocates no job.
  static void* operator new(size_t size);
  static void operator delete(void* p, size_t size);

  bool Start(StreamImpl* stream, bool on_caller_thread, bool skip, Status* status) override;
  void RunBlock(uint32_t slot) override;  // slot: position in the schedule's order
  void OnComplete() override;
  void OnStall() override;
  void AbandonBlock(uint32_t slot, const std::string& why) override;

  // Kernel-side primitives (called by the running block `ctx`).
  void SyncAll(BlockContext& ctx);
  // Lets the thread's other fibers run once (YieldBlock); throws BlockAbort if the launch failed.
  void Yield(BlockContext& ctx);
  void SetFlag(BlockContext& ctx, CrossCoreMode mode, uint32_t flag_id);
  void WaitFlag(BlockContext& ctx, CrossCoreMode mode, uint32_t flag_id);
  // Records the first failure, aborts the launch.
  void Fail(const BlockContext& ctx, const Status& cause);

  const std::string& name() const { return name_; }
  // Checked mode: the blocks' GM accesses; null in fast mode.
  AccessLog* access_log() const { return access_.get(); }
  // Checked mode with a trace: block `fiber`'s pipe phases; null otherwise.
  PhaseLog* phase_log(uint32_t fiber) const { return phases_ ? &phases_[fiber] : nullptr; }

  // Debugging aids (debug.h): the block's print buffer (created at the first print), the label of
  // a core ("block 3 AIV"), and the watchdog's report, which fails the launch.
  LaunchPrints& Prints();
  std::string BlockTag(uint32_t fiber_index) const;
  void OnTimeout(double timeout_seconds, double elapsed_seconds);

 private:
  struct WaitRecord {
    std::atomic<const std::atomic<uint64_t>*> counter{nullptr};
    std::atomic<uint64_t> target{0};
    std::atomic<const char*> what{nullptr};
    std::atomic<uint32_t> flag{0};
    std::atomic<bool> active{false};
    // Block progress for the watchdog, and its run time for the trace (written by the block).
    std::atomic<uint8_t> phase{kNotStarted};
    int64_t begin_ns = 0;
    int64_t end_ns = 0;
  };
  static constexpr uint8_t kNotStarted = 0, kRunning = 1, kFinished = 2;
  struct FlagTable;

  void Wait(BlockContext& ctx, const std::atomic<uint64_t>& counter, uint64_t target,
            const char* what, uint32_t flag);
  FlagTable& Flags();
  // Cores of `type` in this launch.
  uint32_t CoresOfType(CoreType type) const;
  // Gives core `fiber` one count of flag `flag_id`; in checked mode fails the setter when the
  // counter would exceed 15.
  // `accumulator` keys the setters' clocks the count carries (checked mode).
  void Deliver(CrossCoreMode mode, uint32_t fiber, uint32_t flag_id, uint64_t accumulator);
  // Whether the launch runs on the calling thread when its stream is idle: one block, or a few
  // blocks that move little memory (LaunchConfig::bytes_moved).
  bool RunsInline() const;
  void FillContext(BlockContext& ctx, uint32_t fiber_index) const;
  uint32_t ResidentCoreLimit() const;
  // Fails the block (throws) when the launch is wider than the cores that can be resident at once.
  void RequireResident(const char* api) const;
  Status CheckedModeCompletion();
  // Ends the launch: stops the watchdog, settles the status, prints what the blocks printed and
  // records the trace.
  Status Complete();
  void RecordTrace(bool failed) const;
  // With a schedule: lets the next block in the order start (once per block).
  void ReleaseTurn(uint32_t fiber_index);
  // Checked mode, after every block ended: races between blocks and must-write ranges left
  // unwritten, as a finding message ("" when none).
  std::string AccessFindings() const;

  LaunchRequest request_;
  std::string name_;
  const ArchSpec& arch_;
  const bool checked_;
  std::shared_ptr<StreamImpl> stream_;
  bool inline_ = false;
  uint32_t cores_per_group_ = 1;  // 1 + task_ration for MIX, else 1
  const bool traced_;
  const bool watched_;
  int64_t start_ns_ = 0;

  std::atomic<bool> aborted_{false};
  std::atomic<uint64_t> progress_{0};
  std::atomic<uint32_t> started_{0};
  std::atomic<uint32_t> suspended_{0};
  std::atomic<uint64_t> barrier_arrived_{0};
  // Per block; a launch of up to kInlineWaits blocks uses the inline records (no allocation).
  static constexpr uint32_t kInlineWaits = 4;
  WaitRecord inline_waits_[kInlineWaits];
  std::unique_ptr<WaitRecord[]> heap_waits_;
  WaitRecord* waits_ = nullptr;
  std::atomic<FlagTable*> flags_{nullptr};
  std::atomic<LaunchPrints*> prints_{nullptr};
  std::unique_ptr<AccessLog> access_;
  std::unique_ptr<PhaseLog[]> phases_;
  // TESSERA_SCHEDULE / TESSERA_BLOCKS; null by default.
  std::unique_ptr<BlockSchedule> schedule_;
  std::atomic<uint64_t> turn_{0};                    // blocks of the order that let the next go
  std::unique_ptr<std::atomic<bool>[]> turn_given_;  // per fiber

  std::mutex error_mu_;
  Status error_;
};

}  // namespace tessera::device::detail

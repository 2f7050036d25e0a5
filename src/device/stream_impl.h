// Stream and event internals: an in-order queue of operations per stream, started one at a time.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "tessera/core/status.h"

namespace tessera::device::detail {

class StreamImpl;

class StreamOp {
 public:
  virtual ~StreamOp() = default;
  // Begins the op. Returns true when it finished synchronously (its status in *status); otherwise
  // it must later call StreamImpl::OpDone exactly once, and must not touch itself after handing
  // work to another thread. `skip`: the stream has a sticky error; work ops finish at once unrun.
  virtual bool Start(StreamImpl* stream, bool on_caller_thread, bool skip, Status* status) = 0;

 private:
  friend class StreamImpl;
  StreamOp* next_ = nullptr;  // the stream's queue is a list through its ops: enqueueing allocates
                              // nothing
};

class StreamImpl : public std::enable_shared_from_this<StreamImpl> {
 public:
  explicit StreamImpl(bool is_default) : is_default_(is_default), id_(NextStreamId(is_default)) {}
  ~StreamImpl() {
    while (head_ != nullptr)
      delete std::exchange(head_, head_->next_);
  }

  // Appends `op`; when the stream is idle the op starts on the calling thread.
  void Enqueue(std::unique_ptr<StreamOp> op);
  // Completion of an asynchronous op. The caller must hold a reference to the stream.
  void OpDone(const Status& status);

  Status Synchronize();
  Status Query();
  Status GetError();
  void ResetError();
  bool is_default() const { return is_default_; }
  // 0 for the default stream, then 1, 2, ... in creation order (names trace lanes).
  uint32_t id() const { return id_; }

 private:
  void Drain(StreamOp* op, bool on_caller_thread);
  StreamOp* CompleteHead(const Status& status);
  bool Sticky();

  static uint32_t NextStreamId(bool is_default);
  const bool is_default_;
  const uint32_t id_;
  std::mutex mu_;
  StreamOp* head_ = nullptr;  // owned, oldest first
  StreamOp* tail_ = nullptr;
  bool running_ = false;
  Status sticky_;
  // sticky_ is not OK (written under mu_): the error checks of every launch, drain step and
  // synchronize read this instead of taking the lock.
  std::atomic<bool> failed_{false};
  std::atomic<uint64_t> submitted_{0};
  std::atomic<uint64_t> completed_{0};
  std::atomic<uint32_t> sync_waiters_{0};
};

class EventImpl {
 public:
  // Reserves the generation a new Record will complete.
  uint64_t NextRecord();
  uint64_t LatestRecord();
  // Marks generation `gen` complete now and releases the streams waiting for it.
  void Complete(uint64_t gen);
  // Returns true when `target` is already complete; otherwise registers `stream` to be resumed.
  bool ReadyOrWait(uint64_t target, std::shared_ptr<StreamImpl> stream);

  Status Synchronize();
  Status Query();
  // Timestamp of the latest completion, or an error when not recorded / not complete.
  Result<int64_t> TimestampNs();

 private:
  struct Waiter {
    uint64_t target;
    std::shared_ptr<StreamImpl> stream;
  };
  std::mutex mu_;
  uint64_t recorded_ = 0;
  std::atomic<uint64_t> completed_{0};
  int64_t timestamp_ns_ = 0;
  std::vector<Waiter> waiters_;
  std::atomic<uint32_t> sync_waiters_{0};
};

// Blocks until `counter` >= target: spins briefly, then yields, then sleeps on the atomic.
void WaitForCounter(std::atomic<uint64_t>& counter, uint64_t target,
                    std::atomic<uint32_t>& waiters);
// Wakes WaitForCounter callers after `counter` changed.
void NotifyCounter(std::atomic<uint64_t>& counter, std::atomic<uint32_t>& waiters);

Status SynchronizeAllStreams();
int64_t SteadyNowNs();

}  // namespace tessera::device::detail

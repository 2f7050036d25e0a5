#include <sched.h>

#include <algorithm>
#include <chrono>

#include "block_state.h"
#include "debug_internal.h"
#include "runtime_state.h"
#include "stream_impl.h"
#include "tessera/device/stream.h"
#include "worker_pool.h"

namespace tessera::device {
namespace detail {
namespace {

struct StreamRegistry {
  std::mutex mu;
  std::vector<std::weak_ptr<StreamImpl>> streams;
};

StreamRegistry& Registry() {
  static StreamRegistry* registry = new StreamRegistry();
  return *registry;
}

const std::shared_ptr<StreamImpl>& DefaultStreamImpl() {
  static auto* impl = new std::shared_ptr<StreamImpl>(std::make_shared<StreamImpl>(true));
  return *impl;
}

Status InsideKernelError(const char* what) {
  return FailedPrecondition(std::string(what) +
                            " called from inside a kernel; a block cannot wait for the device");
}

class RecordOp final : public StreamOp {
 public:
  RecordOp(std::shared_ptr<EventImpl> event, uint64_t gen) : event_(std::move(event)), gen_(gen) {}
  bool Start(StreamImpl*, bool, bool, Status*) override {
    event_->Complete(gen_);
    return true;
  }

 private:
  std::shared_ptr<EventImpl> event_;
  uint64_t gen_;
};

class WaitOp final : public StreamOp {
 public:
  WaitOp(std::shared_ptr<EventImpl> event, uint64_t target)
      : event_(std::move(event)), target_(target) {}
  bool Start(StreamImpl* stream, bool, bool, Status*) override {
    return event_->ReadyOrWait(target_, stream->shared_from_this());
  }

 private:
  std::shared_ptr<EventImpl> event_;
  uint64_t target_;
};

}  // namespace

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void WaitForCounter(std::atomic<uint64_t>& counter, uint64_t target,
                    std::atomic<uint32_t>& waiters) {
  // Done already (an inline launch): no clock read. Otherwise spin ~20 us (a spinning worker
  // answers in well under a microsecond), then yield for ~2 ms, then sleep on the futex.
  if (counter.load(std::memory_order_acquire) >= target) return;
  const int64_t start = SteadyNowNs();
  for (uint32_t i = 0;; ++i) {
    if (counter.load(std::memory_order_acquire) >= target) return;
    CpuRelax();
    if ((i & 63) != 63) continue;
    const int64_t elapsed = SteadyNowNs() - start;
    if (elapsed > 2'000'000) break;
    if (elapsed > 20'000) sched_yield();
  }
  waiters.fetch_add(1, std::memory_order_seq_cst);
  for (;;) {
    const uint64_t seen = counter.load(std::memory_order_seq_cst);
    if (seen >= target) break;
    counter.wait(seen, std::memory_order_acquire);
  }
  waiters.fetch_sub(1, std::memory_order_seq_cst);
}

void NotifyCounter(std::atomic<uint64_t>& counter, std::atomic<uint32_t>& waiters) {
  if (waiters.load(std::memory_order_seq_cst) > 0) counter.notify_all();
}

void StreamImpl::Enqueue(std::unique_ptr<StreamOp> op) {
  StreamOp* start = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    InFlightOps().fetch_add(1);
    submitted_.fetch_add(1, std::memory_order_release);
    StreamOp* added = op.release();
    if (tail_ != nullptr) {
      tail_->next_ = added;
    } else {
      head_ = added;
    }
    tail_ = added;
    if (!running_) {
      running_ = true;
      start = head_;
    }
  }
  if (start) Drain(start, /*on_caller_thread=*/true);
}

bool StreamImpl::Sticky() {
  return failed_.load(std::memory_order_acquire);
}

void StreamImpl::Drain(StreamOp* op, bool on_caller_thread) {
  while (op != nullptr) {
    Status status;
    if (!op->Start(this, on_caller_thread, Sticky(), &status)) return;
    op = CompleteHead(status);
  }
}

StreamOp* StreamImpl::CompleteHead(const Status& status) {
  std::unique_ptr<StreamOp> done;  // destroyed outside the lock
  StreamOp* next = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!status.ok() && sticky_.ok()) {
      sticky_ = status;
      failed_.store(true, std::memory_order_release);
    }
    done.reset(head_);
    head_ = head_->next_;
    if (head_ == nullptr) {
      tail_ = nullptr;
      running_ = false;
    } else {
      next = head_;
    }
    completed_.fetch_add(1, std::memory_order_seq_cst);
    InFlightOps().fetch_sub(1);
  }
  NotifyCounter(completed_, sync_waiters_);
  return next;
}

void StreamImpl::OpDone(const Status& status) {
  Drain(CompleteHead(status), false);
}

uint32_t StreamImpl::NextStreamId(bool is_default) {
  static std::atomic<uint32_t> next{1};
  return is_default ? 0 : next.fetch_add(1, std::memory_order_relaxed);
}

Status StreamImpl::Synchronize() {
  if (CurrentBlockContext() != nullptr) return InsideKernelError("Stream::Synchronize");
  WaitForCounter(completed_, submitted_.load(std::memory_order_acquire), sync_waiters_);
  TraceOnSynchronize();
  return GetError();
}

Status StreamImpl::Query() {
  if (completed_.load(std::memory_order_acquire) < submitted_.load(std::memory_order_acquire)) {
    return NotReady("stream has pending work");
  }
  return GetError();
}

Status StreamImpl::GetError() {
  if (!failed_.load(std::memory_order_acquire)) return OkStatus();
  std::lock_guard<std::mutex> lock(mu_);
  return sticky_;
}

void StreamImpl::ResetError() {
  std::lock_guard<std::mutex> lock(mu_);
  sticky_ = Status();
  failed_.store(false, std::memory_order_release);
}

uint64_t EventImpl::NextRecord() {
  std::lock_guard<std::mutex> lock(mu_);
  return ++recorded_;
}

uint64_t EventImpl::LatestRecord() {
  std::lock_guard<std::mutex> lock(mu_);
  return recorded_;
}

void EventImpl::Complete(uint64_t gen) {
  std::vector<Waiter> ready;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (gen > completed_.load(std::memory_order_relaxed)) {
      timestamp_ns_ = SteadyNowNs();
      completed_.store(gen, std::memory_order_seq_cst);
    }
    const uint64_t done = completed_.load(std::memory_order_relaxed);
    auto keep = std::partition(waiters_.begin(), waiters_.end(),
                               [done](const Waiter& w) { return w.target > done; });
    for (auto it = keep; it != waiters_.end(); ++it)
      ready.push_back(std::move(*it));
    waiters_.erase(keep, waiters_.end());
  }
  NotifyCounter(completed_, sync_waiters_);
  for (Waiter& w : ready)
    w.stream->OpDone(OkStatus());
}

bool EventImpl::ReadyOrWait(uint64_t target, std::shared_ptr<StreamImpl> stream) {
  std::lock_guard<std::mutex> lock(mu_);
  if (completed_.load(std::memory_order_relaxed) >= target) return true;
  waiters_.push_back(Waiter{target, std::move(stream)});
  return false;
}

Status EventImpl::Synchronize() {
  if (CurrentBlockContext() != nullptr) return InsideKernelError("Event::Synchronize");
  WaitForCounter(completed_, LatestRecord(), sync_waiters_);
  return OkStatus();
}

Status EventImpl::Query() {
  if (completed_.load(std::memory_order_acquire) < LatestRecord()) {
    return NotReady("event has not completed");
  }
  return OkStatus();
}

Result<int64_t> EventImpl::TimestampNs() {
  std::lock_guard<std::mutex> lock(mu_);
  if (recorded_ == 0) return FailedPrecondition("event was never recorded");
  if (completed_.load(std::memory_order_relaxed) < recorded_) {
    return NotReady("event has not completed");
  }
  return timestamp_ns_;
}

Status SynchronizeAllStreams() {
  if (CurrentBlockContext() != nullptr) return InsideKernelError("DeviceSynchronize");
  std::vector<std::shared_ptr<StreamImpl>> streams{DefaultStreamImpl()};
  {
    auto& registry = Registry();
    std::lock_guard<std::mutex> lock(registry.mu);
    auto& list = registry.streams;
    list.erase(std::remove_if(list.begin(), list.end(), [](auto& w) { return w.expired(); }),
               list.end());
    for (auto& weak : list) {
      if (auto s = weak.lock()) streams.push_back(std::move(s));
    }
  }
  Status first;
  for (auto& s : streams) {
    Status st = s->Synchronize();
    if (first.ok()) first = st;
  }
  return first;
}

}  // namespace detail

namespace {
// A moved-from Stream or Event has no implementation; using it is an error, not a crash.
Status MovedFrom(const char* api) {
  return InvalidArgument(std::string(api) + ": the stream or event handle is empty (moved from)");
}
}  // namespace

Stream::Stream() : impl_(detail::DefaultStreamImpl()) {}

Result<Stream> Stream::Create() {
  auto impl = std::make_shared<detail::StreamImpl>(false);
  auto& registry = detail::Registry();
  std::lock_guard<std::mutex> lock(registry.mu);
  registry.streams.push_back(impl);
  return Stream(std::move(impl));
}

Status Stream::Synchronize() const {
  if (!impl_) return MovedFrom("Stream::Synchronize");
  return impl_->Synchronize();
}
Status Stream::Query() const {
  if (!impl_) return MovedFrom("Stream::Query");
  return impl_->Query();
}
Status Stream::GetError() const {
  if (!impl_) return MovedFrom("Stream::GetError");
  return impl_->GetError();
}
void Stream::ResetError() const {
  if (impl_) impl_->ResetError();
}
bool Stream::IsDefault() const {
  return impl_ && impl_->is_default();
}

Result<Event> Event::Create() {
  return Event(std::make_shared<detail::EventImpl>());
}

Status Event::Record(const Stream& stream) const {
  if (!impl_) return MovedFrom("Event::Record");
  if (!stream.impl()) return MovedFrom("Event::Record (stream)");
  const uint64_t gen = impl_->NextRecord();
  stream.impl()->Enqueue(std::make_unique<detail::RecordOp>(impl_, gen));
  return OkStatus();
}

Status Event::Synchronize() const {
  if (!impl_) return MovedFrom("Event::Synchronize");
  return impl_->Synchronize();
}
Status Event::Query() const {
  if (!impl_) return MovedFrom("Event::Query");
  return impl_->Query();
}

Result<float> Event::ElapsedMs(const Event& start, const Event& end) {
  if (!start.impl_ || !end.impl_) return MovedFrom("Event::ElapsedMs");
  TESSERA_ASSIGN_OR_RETURN(int64_t t0, start.impl_->TimestampNs());
  TESSERA_ASSIGN_OR_RETURN(int64_t t1, end.impl_->TimestampNs());
  return static_cast<float>(static_cast<double>(t1 - t0) * 1e-6);
}

Status StreamWaitEvent(const Stream& stream, const Event& event) {
  if (!stream.impl() || !event.impl_) return MovedFrom("StreamWaitEvent");
  const uint64_t target = event.impl_->LatestRecord();
  if (target == 0) return OkStatus();
  stream.impl()->Enqueue(std::make_unique<detail::WaitOp>(event.impl_, target));
  return OkStatus();
}

}  // namespace tessera::device

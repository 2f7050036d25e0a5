// Streams and events: in-order asynchronous queues of device work, and markers to order and time
// them.
//
// Work on one stream runs in enqueue order; work on different streams may overlap. A failed kernel
// makes its stream's error sticky: later work on that stream is skipped (events still complete, so
// other streams never hang) and Synchronize/Query/GetError return the error until ResetError().
#pragma once

#include <memory>

#include "tessera/core/status.h"

namespace tessera::device {

namespace detail {
class StreamImpl;
class EventImpl;
}  // namespace detail

class Stream {
 public:
  // The default stream (process-wide, created on first use).
  Stream();
  static Result<Stream> Create();

  // Blocks until all work enqueued so far is done; returns the sticky error if any.
  // FailedPrecondition when called from inside a kernel.
  Status Synchronize() const;
  // OK when idle, NotReady while work is pending, else the sticky error.
  Status Query() const;
  Status GetError() const;
  void ResetError() const;
  bool IsDefault() const;

  detail::StreamImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<detail::StreamImpl>& shared_impl() const { return impl_; }

  friend bool operator==(const Stream& a, const Stream& b) { return a.impl_ == b.impl_; }

 private:
  explicit Stream(std::shared_ptr<detail::StreamImpl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<detail::StreamImpl> impl_;
};

class Event {
 public:
  static Result<Event> Create();

  // Enqueues a marker; the event completes (and takes its timestamp) when the stream reaches it.
  Status Record(const Stream& stream) const;
  // Blocks until the most recent Record has completed (OK at once if never recorded).
  Status Synchronize() const;
  // OK when complete (or never recorded), NotReady otherwise.
  Status Query() const;
  // Milliseconds between two completed events. FailedPrecondition when either was never recorded,
  // NotReady when either has not completed.
  static Result<float> ElapsedMs(const Event& start, const Event& end);

  detail::EventImpl* impl() const { return impl_.get(); }

 private:
  explicit Event(std::shared_ptr<detail::EventImpl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<detail::EventImpl> impl_;
  friend Status StreamWaitEvent(const Stream&, const Event&);
};

// Work enqueued on `stream` after this call waits until the event's most recent Record (at the time
// of this call) completes. A never-recorded event imposes no wait.
Status StreamWaitEvent(const Stream& stream, const Event& event);

}  // namespace tessera::device

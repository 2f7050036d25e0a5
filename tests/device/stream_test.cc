#include "tessera/device/stream.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tessera/device/launch.h"
#include "test_util.h"

namespace tessera::device {
namespace {

using testing::Contains;

void AppendIndex(std::vector<int>* out, int value) {
  out->push_back(value);
}

TEST(StreamTest, WorkRunsInEnqueueOrder) {
  auto stream = Stream::Create();
  ASSERT_TRUE(stream.ok());
  std::vector<int> order;
  for (int i = 0; i < 200; ++i) {
    // Alternate one-block (may run inline) and multi-block launches; the order must hold anyway.
    ASSERT_TRUE(Launch(AppendIndex, 1, *stream, &order, i).ok());
  }
  ASSERT_TRUE(stream->Synchronize().ok());
  ASSERT_EQ(order.size(), 200u);
  for (int i = 0; i < 200; ++i)
    EXPECT_EQ(order[i], i);
  EXPECT_TRUE(stream->Query().ok());
}

void SlowWrite(std::atomic<int>* target, int value, int sleep_ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
  target->store(value);
}

void ReadInto(std::atomic<int>* source, int* seen) {
  *seen = source->load();
}

TEST(StreamTest, EventOrdersWorkAcrossStreams) {
  auto a = Stream::Create();
  auto b = Stream::Create();
  auto done = Event::Create();
  ASSERT_TRUE(a.ok() && b.ok() && done.ok());
  for (int round = 0; round < 5; ++round) {
    std::atomic<int> value{0};
    int seen = -1;
    ASSERT_TRUE(Launch(LaunchConfig{3, KernelType::kAiv, "slow_write"}, SlowWrite, *a, &value,
                       round + 10, 20)
                    .ok());
    ASSERT_TRUE(done->Record(*a).ok());
    ASSERT_TRUE(StreamWaitEvent(*b, *done).ok());
    ASSERT_TRUE(Launch(ReadInto, 1, *b, &value, &seen).ok());
    ASSERT_TRUE(b->Synchronize().ok());
    EXPECT_EQ(seen, round + 10);
    ASSERT_TRUE(a->Synchronize().ok());
  }
}

TEST(StreamTest, EventTimingAndQueries) {
  auto s = Stream::Create();
  auto start = Event::Create();
  auto end = Event::Create();
  auto never = Event::Create();
  ASSERT_TRUE(s.ok() && start.ok() && end.ok() && never.ok());
  EXPECT_EQ(Event::ElapsedMs(*never, *end).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(never->Synchronize().ok());  // never recorded: nothing to wait for
  EXPECT_TRUE(StreamWaitEvent(*s, *never).ok());
  std::atomic<int> sink{0};
  ASSERT_TRUE(start->Record(*s).ok());
  ASSERT_TRUE(Launch(LaunchConfig{2, KernelType::kAiv, "slow"}, SlowWrite, *s, &sink, 1, 30).ok());
  ASSERT_TRUE(end->Record(*s).ok());
  EXPECT_EQ(end->Query().code(), StatusCode::kNotReady);
  EXPECT_EQ(s->Query().code(), StatusCode::kNotReady);
  ASSERT_TRUE(end->Synchronize().ok());
  EXPECT_TRUE(end->Query().ok());
  auto ms = Event::ElapsedMs(*start, *end);
  ASSERT_TRUE(ms.ok());
  EXPECT_GE(*ms, 25.0f);
  EXPECT_LT(*ms, 5000.0f);
}

void FailingKernel(int bad_block) {
  if (GetBlockIdx() == static_cast<uint32_t>(bad_block)) {
    FailBlock(StatusCode::kOutOfRange, "index 99 outside [0, 10)");
  }
}

void ThrowingKernel() {
  if (GetBlockIdx() == 1) throw std::runtime_error("boom");
}

void Increment(std::atomic<int>* counter) {
  counter->fetch_add(1);
}

TEST(StreamTest, KernelFailureIsStickyOnItsStreamOnly) {
  auto bad = Stream::Create();
  auto good = Stream::Create();
  ASSERT_TRUE(bad.ok() && good.ok());
  std::atomic<int> counter{0};
  ASSERT_TRUE(
      Launch(LaunchConfig{4, KernelType::kAiv, "failing_kernel"}, FailingKernel, *bad, 2).ok());
  Status err = bad->Synchronize();
  EXPECT_EQ(err.code(), StatusCode::kOutOfRange);
  EXPECT_TRUE(Contains(err, "kernel 'failing_kernel' block 2 (AIV): index 99 outside [0, 10)"))
      << err.ToString();
  EXPECT_EQ(bad->Synchronize(), err);  // sticky
  EXPECT_EQ(bad->Query(), err);
  Status refused = Launch(Increment, 1, *bad, &counter);
  EXPECT_TRUE(Contains(refused, "sticky error")) << refused.ToString();
  ASSERT_TRUE(Launch(Increment, 3, *good, &counter).ok());
  EXPECT_TRUE(good->Synchronize().ok());
  EXPECT_EQ(counter.load(), 3);
  bad->ResetError();
  EXPECT_TRUE(bad->GetError().ok());
  ASSERT_TRUE(Launch(Increment, 2, *bad, &counter).ok());
  EXPECT_TRUE(bad->Synchronize().ok());
  EXPECT_EQ(counter.load(), 5);
}

TEST(StreamTest, WorkQueuedBehindAFailureIsSkippedButEventsComplete) {
  auto s = Stream::Create();
  auto other = Stream::Create();
  auto ev = Event::Create();
  ASSERT_TRUE(s.ok() && other.ok() && ev.ok());
  std::atomic<int> counter{0};
  std::atomic<int> gate{0};
  ASSERT_TRUE(Launch(LaunchConfig{2, KernelType::kAiv, "slow"}, SlowWrite, *s, &gate, 1, 20).ok());
  ASSERT_TRUE(Launch(LaunchConfig{3, KernelType::kAiv, "throwing"}, ThrowingKernel, *s).ok());
  ASSERT_TRUE(Launch(Increment, 4, *s, &counter).ok());  // queued before the failure happens
  ASSERT_TRUE(ev->Record(*s).ok());
  ASSERT_TRUE(StreamWaitEvent(*other, *ev).ok());
  ASSERT_TRUE(other->Synchronize().ok());  // does not hang
  Status err = s->Synchronize();
  EXPECT_EQ(err.code(), StatusCode::kKernelError);
  EXPECT_TRUE(Contains(err, "block 1 (AIV): threw std::runtime_error: boom")) << err.ToString();
  EXPECT_EQ(counter.load(), 0);
  s->ResetError();
}

TEST(StreamTest, DefaultStreamAndDeviceSynchronize) {
  Stream def;
  EXPECT_TRUE(def.IsDefault());
  EXPECT_EQ(def, Stream());
  std::atomic<int> counter{0};
  ASSERT_TRUE(Launch(Increment, 5, def, &counter).ok());
  auto s = Stream::Create();
  ASSERT_TRUE(Launch(Increment, 6, *s, &counter).ok());
  EXPECT_TRUE(DeviceSynchronize().ok());
  EXPECT_EQ(counter.load(), 11);
}

TEST(StreamTest, ManyHostThreadsManyStreams) {
  std::atomic<int> counter{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&counter] {
      auto s = Stream::Create();
      ASSERT_TRUE(s.ok());
      for (int i = 0; i < 50; ++i)
        ASSERT_TRUE(Launch(Increment, 1 + i % 5, *s, &counter).ok());
      ASSERT_TRUE(s->Synchronize().ok());
    });
  }
  for (auto& t : threads)
    t.join();
  int want = 0;
  for (int i = 0; i < 50; ++i)
    want += 1 + i % 5;
  EXPECT_EQ(counter.load(), 4 * want);
}

void SyncFromKernel(Status* out) {
  *out = Stream().Synchronize();
}

TEST(StreamTest, SynchronizeInsideAKernelIsRefused) {
  Status inner;
  auto s = Stream::Create();
  ASSERT_TRUE(Launch(SyncFromKernel, 1, *s, &inner).ok());
  ASSERT_TRUE(s->Synchronize().ok());
  EXPECT_EQ(inner.code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace tessera::device

namespace tessera::device {
namespace {

TEST(StreamTest, MovedFromHandlesGiveErrorsNotCrashes) {
  auto s = Stream::Create();
  auto e = Event::Create();
  ASSERT_TRUE(s.ok() && e.ok());
  Stream moved_stream = std::move(*s);
  Event moved_event = std::move(*e);
  const Stream& empty_stream = *s;  // NOLINT(bugprone-use-after-move): the point of the test
  const Event& empty_event = *e;    // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(Contains(empty_stream.Synchronize(), "moved from"));
  EXPECT_TRUE(Contains(empty_stream.Query(), "moved from"));
  EXPECT_TRUE(Contains(empty_event.Record(moved_stream), "moved from"));
  EXPECT_TRUE(Contains(moved_event.Record(empty_stream), "moved from"));
  EXPECT_TRUE(Contains(StreamWaitEvent(empty_stream, moved_event), "moved from"));
  EXPECT_TRUE(Contains(empty_event.Synchronize(), "moved from"));
  EXPECT_FALSE(Event::ElapsedMs(empty_event, moved_event).ok());
  char buf[64];
  EXPECT_TRUE(Contains(MemsetAsync(buf, 64, 0, 64, empty_stream), "moved from"));
  EXPECT_TRUE(Contains(MemcpyAsync(buf, 64, buf + 32, 16, MemcpyKind::kHostToHost, empty_stream),
                       "moved from"));
  EXPECT_TRUE(moved_stream.Synchronize().ok());
}

}  // namespace
}  // namespace tessera::device

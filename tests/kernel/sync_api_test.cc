// Inter-block synchronisation through GM in the vendor's dialect (IBSet / IBWait, the determine-
// compute block order, GroupBarrier, GM flags behind DataCacheCleanAndInvalid and the by-pass
// accessors), the atomic modes of UB -> GM copies (SetAtomicAdd / Max / Min / Type,
// DisableDmaAtomic) and the scalar GM atomics. Launches use more blocks than the machine has
// threads, so any wait that held its thread would deadlock. Built as C++17 and C++20.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"

namespace {

namespace dev = tessera::device;

template <class T>
class Buffer {
 public:
  explicit Buffer(const std::vector<T>& host) : size_(host.size()) {
    auto p = dev::Malloc(std::max<size_t>(1, size_) * sizeof(T));
    EXPECT_TRUE(p.ok());
    ptr_ = static_cast<T*>(*p);
    EXPECT_TRUE(dev::Memcpy(ptr_, size_ * sizeof(T), host.data(), size_ * sizeof(T),
                            dev::MemcpyKind::kHostToDevice)
                    .ok());
  }
  ~Buffer() { EXPECT_TRUE(dev::Free(ptr_).ok()); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  T* get() const { return ptr_; }
  std::vector<T> Host() const {
    std::vector<T> out(size_);
    EXPECT_TRUE(dev::Memcpy(out.data(), size_ * sizeof(T), ptr_, size_ * sizeof(T),
                            dev::MemcpyKind::kDeviceToHost)
                    .ok());
    return out;
  }

 private:
  T* ptr_ = nullptr;
  size_t size_ = 0;
};

template <class... Params, class... Args>
tessera::Status RunBlocks(uint32_t blocks, void (*kernel)(Params...), Args... args) {
  auto stream = dev::Stream::Create();
  if (!stream.ok()) return stream.status();
  tessera::Status st = dev::Launch(dev::LaunchConfig{blocks, dev::KernelType::kAiv, "sync_test"},
                                   kernel, *stream, args...);
  if (!st.ok()) return st;
  return stream->Synchronize();
}

bool Has(const tessera::Status& s, const std::string& text) {
  return std::string(s.message()).find(text) != std::string::npos;
}

class CheckedScope {
 public:
  explicit CheckedScope(bool on) : previous_(dev::CheckedMode()) { dev::SetCheckedMode(on); }
  ~CheckedScope() { dev::SetCheckedMode(previous_); }

 private:
  bool previous_;
};

// A prefix sum carried block to block: block b waits for b-1's flag, reads its partial sum from
// GM, adds its own value and raises its own flag. Launched with the blocks in any order.
void PrefixChain(int64_t* values, int64_t* sums, int32_t* sync, uint32_t words) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 32);
  AscendC::LocalTensor<int32_t> ub = buf.Get<int32_t>();
  AscendC::GlobalTensor<int32_t> gm;
  gm.SetGlobalBuffer(sync, words);
  const int32_t b = static_cast<int32_t>(AscendC::GetBlockIdx());
  AscendC::GlobalTensor<int64_t> sumsGm;
  sumsGm.SetGlobalBuffer(sums, AscendC::GetBlockNum());
  int64_t prev = 0;
  if (b > 0) {
    AscendC::IBWait(gm, ub, b - 1, 0);
    prev = sumsGm.GetValue(b - 1);
  }
  sumsGm.SetValue(b, prev + values[b]);
  AscendC::IBSet(gm, ub, b, 0);
}

TEST(SyncApi, IbSetWaitCarriesAPrefixSumAcrossManyBlocks) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int64_t> dist(-1000000, 1000000);
  for (uint32_t blocks : {1u, 7u, 31u}) {
    std::vector<int64_t> values(blocks);
    for (auto& v : values)
      v = dist(rng);
    Buffer<int64_t> in(values), out(std::vector<int64_t>(blocks, 0));
    const uint32_t words = blocks * 8;
    Buffer<int32_t> sync(std::vector<int32_t>(words, 0));
    ASSERT_TRUE(RunBlocks(blocks, PrefixChain, in.get(), out.get(), sync.get(), words).ok());
    const std::vector<int64_t> got = out.Host();
    int64_t ref = 0;
    for (uint32_t b = 0; b < blocks; ++b) {
      ref += values[b];
      EXPECT_EQ(got[b], ref) << "blocks " << blocks << " block " << b;
    }
    // The last block's flag stays raised; every consumed flag is free again.
    const std::vector<int32_t> flags = sync.Host();
    for (uint32_t b = 0; b < blocks; ++b)
      EXPECT_EQ(flags[b * 8], b + 1 == blocks ? 1 : 0);
  }
}

// Two blocks hand a counter back and forth `rounds` times on two events (reusing each slot).
// One step of the order-revealing counter, wrapping (unsigned) instead of overflowing.
int64_t Step(int64_t c, uint64_t mul, uint64_t add) {
  return static_cast<int64_t>(static_cast<uint64_t>(c) * mul + add);
}

void PingPong(int32_t* sync, int64_t* counter, int64_t* trace, int32_t rounds) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 32);
  AscendC::LocalTensor<int32_t> ub = buf.Get<int32_t>();
  AscendC::GlobalTensor<int32_t> gm;
  gm.SetGlobalBuffer(sync, 2 * 8 * 2);
  const int32_t b = static_cast<int32_t>(AscendC::GetBlockIdx());
  for (int32_t r = 0; r < rounds; ++r) {
    if (b == 0) {
      if (r > 0) AscendC::IBWait(gm, ub, 1, 1);
      *counter = Step(*counter, 3, 1);
      trace[2 * r] = *counter;
      AscendC::IBSet(gm, ub, 0, 0);
    } else {
      AscendC::IBWait(gm, ub, 0, 0);
      *counter = Step(*counter, 5, 2);
      trace[2 * r + 1] = *counter;
      if (r + 1 < rounds) AscendC::IBSet(gm, ub, 1, 1);
    }
  }
}

TEST(SyncApi, IbSetWaitPingPongReusesItsFlags) {
  const int32_t rounds = 37;
  Buffer<int32_t> sync(std::vector<int32_t>(32, 0));
  Buffer<int64_t> counter(std::vector<int64_t>{7}), trace(std::vector<int64_t>(2 * rounds, 0));
  ASSERT_TRUE(RunBlocks(2, PingPong, sync.get(), counter.get(), trace.get(), rounds).ok());
  const std::vector<int64_t> got = trace.Host();
  int64_t c = 7;
  for (int32_t r = 0; r < rounds; ++r) {
    c = Step(c, 3, 1);
    EXPECT_EQ(got[2 * r], c);
    c = Step(c, 5, 2);
    EXPECT_EQ(got[2 * r + 1], c);
  }
}

void IbOutOfRange(int32_t* sync) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 32);
  AscendC::LocalTensor<int32_t> ub = buf.Get<int32_t>();
  AscendC::GlobalTensor<int32_t> gm;
  gm.SetGlobalBuffer(sync, 16);
  AscendC::IBSet(gm, ub, 5, 0);
}

void IbWorkspaceTooSmall(int32_t* sync) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 32);
  AscendC::LocalTensor<int32_t> ub = buf.Get<int32_t>();
  AscendC::GlobalTensor<int32_t> gm;
  gm.SetGlobalBuffer(sync, 16);
  AscendC::IBWait(gm, ub, 0, 3);
}

TEST(SyncApi, IbSetWaitRejectBadArguments) {
  Buffer<int32_t> sync(std::vector<int32_t>(16, 0));
  tessera::Status st = RunBlocks(2, IbOutOfRange, sync.get());
  EXPECT_TRUE(Has(st, "IBSet") && Has(st, "blockIdx 5 is out of range")) << st.ToString();
  st = RunBlocks(2, IbWorkspaceTooSmall, sync.get());
  EXPECT_TRUE(Has(st, "IBWait") && Has(st, "gmWorkspace holds 16")) << st.ToString();
}

// Every block folds its value into one GM word in blockIdx order, `rounds` times: the fold is not
// commutative, so any other order gives another result.
void OrderedFold(uint32_t* acc, const uint32_t* values, int32_t* work, int32_t rounds) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  const uint32_t n = AscendC::GetBlockNum();
  pipe.InitBuffer(buf, (n * 8 + 8) * sizeof(int32_t));
  AscendC::LocalTensor<int32_t> ub = buf.Get<int32_t>();
  AscendC::GlobalTensor<int32_t> gm;
  gm.SetGlobalBuffer(work, n * 8);
  AscendC::InitDetermineComputeWorkspace(gm, ub);
  const uint32_t b = AscendC::GetBlockIdx();
  for (int32_t r = 0; r < rounds; ++r) {
    AscendC::WaitPreBlock(gm, ub);
    *acc = *acc * 2654435761u + values[r * n + b];
    AscendC::NotifyNextBlock(gm, ub);
  }
}

TEST(SyncApi, DetermineComputeRunsBlocksInOrderEveryRound) {
  std::mt19937 rng(5);
  for (uint32_t blocks : {1u, 6u, 19u}) {
    const int32_t rounds = 4;
    std::vector<uint32_t> values(blocks * rounds);
    for (auto& v : values)
      v = rng();
    Buffer<uint32_t> acc(std::vector<uint32_t>{1}), in(values);
    Buffer<int32_t> work(std::vector<int32_t>(blocks * 8, 0));
    ASSERT_TRUE(RunBlocks(blocks, OrderedFold, acc.get(), static_cast<const uint32_t*>(in.get()),
                          work.get(), rounds)
                    .ok());
    uint32_t ref = 1;
    for (uint32_t v : values)
      ref = ref * 2654435761u + v;
    EXPECT_EQ(acc.Host()[0], ref) << blocks << " blocks";
  }
}

// Arrivers add their value to this round's GM total atomically and arrive; waiters then read
// the total, which must hold every arrival of the round. Two rounds reuse the barrier.
void Barrier(uint8_t* workspace, int32_t* totals, const int32_t* values, int32_t* seen,
             uint32_t arrivers, uint32_t waiters) {
  AscendC::GroupBarrier<AscendC::PipeMode::MTE3_MODE> bar(workspace, arrivers, waiters);
  const uint32_t b = AscendC::GetBlockIdx();
  for (uint32_t round = 0; round < 2; ++round) {
    if (b < arrivers) {
      AscendC::AtomicAdd(totals + round, values[round * arrivers + b]);
      bar.Arrive(b);
    } else {
      bar.Wait(b - arrivers);
      seen[round * waiters + (b - arrivers)] = AscendC::ReadGmByPassDCache(totals + round);
    }
  }
}

TEST(SyncApi, GroupBarrierReleasesWaitersAfterEveryArrival) {
  std::mt19937 rng(9);
  std::uniform_int_distribution<int32_t> dist(-5000, 5000);
  for (auto [arrivers, waiters] : {std::pair{1u, 1u}, std::pair{5u, 3u}, std::pair{3u, 13u}}) {
    std::vector<int32_t> values(2 * arrivers);
    for (auto& v : values)
      v = dist(rng);
    Buffer<uint8_t> ws(std::vector<uint8_t>(64 * std::max(arrivers, waiters), 0));
    Buffer<int32_t> totals(std::vector<int32_t>{0, 0}), in(values),
        seen(std::vector<int32_t>(2 * waiters, 0));
    ASSERT_TRUE(RunBlocks(arrivers + waiters, Barrier, ws.get(), totals.get(),
                          static_cast<const int32_t*>(in.get()), seen.get(), arrivers, waiters)
                    .ok());
    int64_t sums[2] = {0, 0};
    for (uint32_t i = 0; i < 2 * arrivers; ++i)
      sums[i / arrivers] += values[i];
    const std::vector<int32_t> got = seen.Host();
    for (uint32_t round = 0; round < 2; ++round) {
      for (uint32_t w = 0; w < waiters; ++w) {
        EXPECT_EQ(got[round * waiters + w], sums[round])
            << arrivers << "/" << waiters << " round " << round << " waiter " << w;
      }
    }
  }
}

// InitOutput under no atomic mode overwrites; under SetAtomicAdd it adds.
void InitOutputs(float* out, uint32_t n, float value) {
  AscendC::GlobalTensor<float> gm;
  gm.SetGlobalBuffer(out, 2 * n);
  AscendC::InitOutput<float>(gm, n, value);
  AscendC::SetAtomicAdd<float>();
  AscendC::InitOutput<float>(gm[n], n, value);
  AscendC::DisableDmaAtomic();
}

TEST(SyncApi, InitOutputFillsOrAccumulates) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (uint32_t n : {1u, 7u, 1031u, 4097u}) {
    std::vector<float> init(2 * n);
    for (auto& v : init)
      v = dist(rng);
    const float value = dist(rng);
    Buffer<float> out(init);
    ASSERT_TRUE(RunBlocks(1, InitOutputs, out.get(), n, value).ok());
    const std::vector<float> got = out.Host();
    for (uint32_t i = 0; i < n; ++i) {
      EXPECT_EQ(got[i], value);
      EXPECT_EQ(got[n + i], static_cast<float>(static_cast<double>(init[n + i]) + value));
    }
  }
}

void InitOutputTooLong(float* out) {
  AscendC::GlobalTensor<float> gm;
  gm.SetGlobalBuffer(out, 8);
  AscendC::InitOutput<float>(gm, 9, 1.0f);
}

TEST(SyncApi, InitOutputRejectsSizesPastTheTensor) {
  Buffer<float> out(std::vector<float>(8, 0.0f));
  const tessera::Status st = RunBlocks(1, InitOutputTooLong, out.get());
  EXPECT_TRUE(Has(st, "InitOutput") && Has(st, "size 9 exceeds")) << st.ToString();
}

void BadBarrier(uint8_t* workspace) {
  AscendC::GroupBarrier<AscendC::PipeMode::MTE3_MODE> bar(workspace, 0, 1);
  bar.Wait(0);
}

TEST(SyncApi, GroupBarrierRejectsEmptyGroups) {
  Buffer<uint8_t> ws(std::vector<uint8_t>(64, 0));
  const tessera::Status st = RunBlocks(2, BadBarrier, ws.get());
  EXPECT_TRUE(Has(st, "GroupBarrier") && Has(st, "arriveSize 0")) << st.ToString();
}

// Block 0 publishes `count` values then a ready flag with the by-pass stores; the others poll the
// flag (DataCacheCleanAndInvalid + GetValue, or ReadGmByPassDCache) and copy the values.
void Publish(int32_t* flag, int32_t* data, int32_t* copies, int32_t count, int32_t via_dcci) {
  const uint32_t b = AscendC::GetBlockIdx();
  AscendC::GlobalTensor<int32_t> flagGm;
  flagGm.SetGlobalBuffer(flag, 8);
  if (b == 0) {
    for (int32_t i = 0; i < count; ++i) {
      AscendC::WriteGmByPassDCache(data + i, static_cast<int32_t>(i * 7 - 3 + data[count + i]));
    }
    AscendC::DataSyncBarrier<AscendC::MemDsbT::DDR>();
    AscendC::WriteGmByPassDCache(flag, int32_t{1});
    return;
  }
  if (via_dcci != 0) {
    do {
      AscendC::DataCacheCleanAndInvalid<int32_t, AscendC::CacheLine::SINGLE_CACHE_LINE,
                                        AscendC::DcciDst::CACHELINE_OUT>(flagGm);
    } while (flagGm.GetValue(0) != 1);
  } else {
    while (AscendC::ReadGmByPassDCache(flag) != 1) {
    }
  }
  for (int32_t i = 0; i < count; ++i) {
    copies[(b - 1) * count + i] = AscendC::ReadGmByPassDCache(data + i);
  }
}

TEST(SyncApi, GmFlagPollingMakesProgress) {
  std::mt19937 rng(3);
  for (int32_t via_dcci : {0, 1}) {
    const int32_t count = 31;
    const uint32_t blocks = 9;
    std::vector<int32_t> data(2 * count);
    for (auto& v : data)
      v = static_cast<int32_t>(rng() % 100000);
    Buffer<int32_t> flag(std::vector<int32_t>(8, 0)), d(data),
        copies(std::vector<int32_t>((blocks - 1) * count, 0));
    // Block 0 is launched last in the order here only by chance; every order must finish.
    ASSERT_TRUE(
        RunBlocks(blocks, Publish, flag.get(), d.get(), copies.get(), count, via_dcci).ok());
    const std::vector<int32_t> got = copies.Host();
    for (uint32_t b = 1; b < blocks; ++b) {
      for (int32_t i = 0; i < count; ++i) {
        EXPECT_EQ(got[(b - 1) * count + i], i * 7 - 3 + data[count + i]);
      }
    }
  }
}

// Every block copies its row into one GM row under SetAtomic<op><T>; a final plain DataCopy after
// DisableDmaAtomic must overwrite (block 0 only, on the second row).
template <class T, int kOp>
void AtomicRows(T* rows, T* out, uint32_t n) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, n * sizeof(T));
  AscendC::LocalTensor<T> ub = buf.Get<T>();
  AscendC::GlobalTensor<T> src, dst;
  const uint32_t b = AscendC::GetBlockIdx();
  src.SetGlobalBuffer(rows + b * n, n);
  dst.SetGlobalBuffer(out, 2 * n);
  AscendC::DataCopy(ub, src, n);
  AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
  AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
  if (kOp == 0) {
    AscendC::SetAtomicAdd<T>();
  } else if (kOp == 1) {
    AscendC::SetAtomicMax<T>();
  } else {
    AscendC::SetAtomicMin<float>();
    AscendC::SetAtomicType<T>();  // the mode stays min, the element type becomes T
  }
  AscendC::DataCopy(dst, ub, n);
  AscendC::DisableDmaAtomic();
  if (b == 0) AscendC::DataCopy(dst[n], ub, n);
}

template <class T>
double AsDouble(T v) {
  return static_cast<double>(static_cast<float>(v));
}

template <class T, int kOp>
void CheckAtomicRows(uint32_t blocks, uint32_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int32_t> dist(-100, 100);
  std::vector<T> rows(blocks * n), init(2 * n);
  for (auto& v : rows)
    v = static_cast<T>(static_cast<float>(dist(rng)));
  for (auto& v : init)
    v = static_cast<T>(static_cast<float>(dist(rng)));
  Buffer<T> in(rows), out(init);
  ASSERT_TRUE(RunBlocks(blocks, AtomicRows<T, kOp>, in.get(), out.get(), n).ok());
  const std::vector<T> got = out.Host();
  for (uint32_t i = 0; i < n; ++i) {
    double ref = AsDouble(init[i]);
    for (uint32_t b = 0; b < blocks; ++b) {
      const double v = AsDouble(rows[b * n + i]);
      ref = kOp == 0 ? ref + v : kOp == 1 ? std::max(ref, v) : std::min(ref, v);
    }
    EXPECT_EQ(AsDouble(got[i]), ref) << "op " << kOp << " element " << i;
    EXPECT_EQ(AsDouble(got[n + i]), AsDouble(rows[i]));
  }
}

TEST(SyncApi, AtomicModesOfCopiesToGm) {
  std::mt19937 rng(21);
  CheckAtomicRows<float, 0>(7, 64, rng);
  CheckAtomicRows<float, 1>(7, 64, rng);
  CheckAtomicRows<float, 2>(7, 64, rng);
  CheckAtomicRows<int32_t, 1>(31, 8, rng);
  CheckAtomicRows<int32_t, 2>(31, 8, rng);
  CheckAtomicRows<int16_t, 1>(5, 16, rng);
  CheckAtomicRows<half, 1>(9, 48, rng);  // small integers: exact in half
  CheckAtomicRows<half, 2>(9, 48, rng);
  CheckAtomicRows<half, 0>(3, 16, rng);
}

void ScalarAtomics(uint32_t* counter, int32_t* extreme, uint32_t* cas, const int32_t* values,
                   uint32_t* old_seen) {
  const uint32_t b = AscendC::GetBlockIdx();
  old_seen[b] = AscendC::AtomicAdd(counter, b + 1);
  AscendC::AtomicMax(extreme, values[b]);
  AscendC::AtomicMin(extreme + 1, values[b]);
  AscendC::AtomicCas(cas, uint32_t{0}, b + 100);  // only the first block's exchange succeeds
  AscendC::AtomicExch(cas + 1, b);
}

TEST(SyncApi, ScalarGmAtomics) {
  std::mt19937 rng(4);
  const uint32_t blocks = 31;
  std::vector<int32_t> values(blocks);
  for (auto& v : values)
    v = static_cast<int32_t>(rng() % 2000001) - 1000000;
  Buffer<uint32_t> counter(std::vector<uint32_t>{5}), cas(std::vector<uint32_t>{0, 999}),
      old_seen(std::vector<uint32_t>(blocks, 0));
  Buffer<int32_t> extreme(std::vector<int32_t>{values[0], values[0]}), in(values);
  ASSERT_TRUE(RunBlocks(blocks, ScalarAtomics, counter.get(), extreme.get(), cas.get(),
                        static_cast<const int32_t*>(in.get()), old_seen.get())
                  .ok());
  EXPECT_EQ(counter.Host()[0], 5u + blocks * (blocks + 1) / 2);
  // The values returned are distinct prefixes of the sum: each add saw a different old value.
  std::vector<uint32_t> olds = old_seen.Host();
  std::sort(olds.begin(), olds.end());
  EXPECT_EQ(std::adjacent_find(olds.begin(), olds.end()), olds.end());
  EXPECT_EQ(olds.front(), 5u);
  EXPECT_EQ(extreme.Host()[0], *std::max_element(values.begin(), values.end()));
  EXPECT_EQ(extreme.Host()[1], *std::min_element(values.begin(), values.end()));
  const std::vector<uint32_t> c = cas.Host();
  EXPECT_GE(c[0], 100u);
  EXPECT_LT(c[0], 100u + blocks);
  EXPECT_LT(c[1], blocks);
}

void MisalignedAtomic(uint8_t* p) {
  AscendC::AtomicAdd(reinterpret_cast<uint32_t*>(p + 2), uint32_t{1});
}

TEST(SyncApi, ScalarAtomicRejectsMisalignedAddress) {
  Buffer<uint8_t> bytes(std::vector<uint8_t>(64, 0));
  const tessera::Status st = RunBlocks(1, MisalignedAtomic, bytes.get());
  EXPECT_TRUE(Has(st, "AtomicAdd") && Has(st, "not aligned")) << st.ToString();
}

TEST(SyncApi, CheckedModeSeesTheHandshakeAsOrdering) {
  CheckedScope checked(true);
  const uint32_t blocks = 5;
  std::vector<int64_t> values(blocks);
  for (uint32_t b = 0; b < blocks; ++b)
    values[b] = static_cast<int64_t>(b * b) - 3;
  Buffer<int64_t> in(values), out(std::vector<int64_t>(blocks, 0));
  Buffer<int32_t> sync(std::vector<int32_t>(blocks * 8, 0));
  const tessera::Status st =
      RunBlocks(blocks, PrefixChain, in.get(), out.get(), sync.get(), blocks * 8);
  EXPECT_TRUE(st.ok()) << st.ToString();
}

}  // namespace

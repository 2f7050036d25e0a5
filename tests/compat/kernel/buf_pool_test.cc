// TBufPool, TPipe::InitBufPool / Reset and user-defined pools (EXTERN_IMPL_BUFPOOL) in the vendor's
// dialect, in fast and checked mode, against scalar references on random data. Built as C++17
// and C++20.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../device_test_util.h"
#include "kernel_operator.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"

namespace {

// How GapPool places a queue's buffers: as the vendor's guide does, or wrongly.
enum Placement : int32_t {
  kPlaceAll = 0,
  kOverrun = 1,    // the buffers past the pool's end
  kUnplaced = 2,   // only buffer 0 placed
  kMisalign = 3,   // 16 bytes past a 32-byte boundary
  kOverlap = 4,    // every buffer at the same address
  kUnrounded = 5,  // the length passed as given (the queue rounds it up to 32)
};

// A user-defined pool as the vendor's guide writes one: buffers placed one after another from
// the pool's current address; `gap` bytes are skipped before each; `placement` may misplace them.
class GapPool {
 public:
  GapPool() { Init(); }

  template <class T>
  bool InitBuffer(T& que, uint8_t num, uint32_t len) {
    const uint32_t given = len;
    len = (len + 31) / 32 * 32;
    auto handle = this->GetBufHandle(this->GetCurBufSize());
    uint32_t addr = this->GetCurAddr() + gap;
    const uint32_t pass = placement == kUnrounded ? given : len;
    que.InitStartBufHandle(handle, num, pass);
    for (uint32_t i = 0; i < (placement == kUnplaced ? 1u : num); ++i) {
      const uint32_t at = placement == kOverlap ? addr : addr + i * len;
      que.InitBufHandle(this, i, handle,
                        at + (placement == kOverrun    ? 64
                              : placement == kMisalign ? 16
                                                       : 0),
                        pass);
    }
    this->SetCurAddr(addr + num * len);
    this->SetCurBufSize(this->GetCurBufSize() + num);
    return true;
  }
  template <AscendC::TPosition bufPos>
  bool InitBuffer(AscendC::TBuf<bufPos>& buf, uint32_t len) {
    len = (len + 31) / 32 * 32;
    auto handle = this->GetBufHandle(this->GetCurBufSize());
    const uint32_t addr = this->GetCurAddr() + gap;
    buf.InitStartBufHandle(handle, 1, len);
    buf.InitBufHandle(this, 0, handle, addr, len);
    this->SetCurAddr(addr + len);
    this->SetCurBufSize(this->GetCurBufSize() + 1);
    return true;
  }
  uint32_t gap = 0;
  int32_t placement = kPlaceAll;
  EXTERN_IMPL_BUFPOOL(GapPool, AscendC::TPosition::VECCALC, 4);
};

enum Scenario : int32_t { kReuse = 0, kSubdivide = 1, kCustom = 2 };

// z = x + y in a first stage, then w = x * y in a second stage whose queues reuse the first
// stage's memory (kReuse: two pools over the same bytes; kSubdivide: sub-pools of one pool), or
// z = x + y with a queue and a TBuf placed by a user-defined pool (kCustom, w = x - y then).
// out[0] gets 1 when the second stage's first buffer starts where the first stage's did and its
// three buffers follow one another tile bytes apart (distinct, in carving order).
__global__ __vector__ void buf_pool_custom(__gm__ float* x, __gm__ float* y, __gm__ float* z,
                                           __gm__ float* w, __gm__ int32_t* out, uint32_t n,
                                           int32_t scenario) {
  AscendC::TPipe pipe;
  AscendC::TBufPool<AscendC::TPosition::VECCALC> outer, first, second;
  AscendC::TQue<AscendC::TPosition::VECIN, 1> inX, inY, inX2, inY2;
  AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQ, outQ2;
  AscendC::TBuf<AscendC::TPosition::VECCALC> tmp;
  AscendC::GlobalTensor<float> xg, yg, zg, wg;
  xg.SetGlobalBuffer(x, n);
  yg.SetGlobalBuffer(y, n);
  zg.SetGlobalBuffer(z, n);
  wg.SetGlobalBuffer(w, n);
  const uint32_t bytes = n * sizeof(float);
  const uint32_t tile = (bytes + 31) / 32 * 32;
  if (scenario == kCustom) {
    GapPool pool;
    pool.gap = 32;
    pipe.InitBufPool(pool, 3 * tile + 3 * 32);
    pool.InitBuffer(inX, 1, bytes);
    pool.InitBuffer(tmp, bytes);
    pool.InitBuffer(outQ, 1, bytes);
    AscendC::LocalTensor<float> a = inX.AllocTensor<float>();
    AscendC::LocalTensor<float> b = tmp.Get<float>();
    AscendC::DataCopy(a, xg, n);
    AscendC::DataCopy(b, yg, n);
    inX.EnQue(a);
    a = inX.DeQue<float>();
    AscendC::LocalTensor<float> c = outQ.AllocTensor<float>();
    AscendC::Sub(c, a, b, n);
    outQ.EnQue(c);
    c = outQ.DeQue<float>();
    AscendC::DataCopy(wg, c, n);
    out[0] = static_cast<int32_t>(reinterpret_cast<uintptr_t>(b.GetPhyAddr()) -
                                  reinterpret_cast<uintptr_t>(a.GetPhyAddr()));
    inX.FreeTensor(a);
    outQ.FreeTensor(c);
    pool.Reset();
    return;
  }
  if (scenario == kReuse) {
    pipe.InitBufPool(first, 3 * tile);
    pipe.InitBufPool(second, 3 * tile, first);
  } else {
    pipe.InitBufPool(outer, 6 * tile);
    outer.InitBufPool(first, 3 * tile);
    outer.InitBufPool(second, 3 * tile, first);
  }
  first.InitBuffer(inX, 1, bytes);
  first.InitBuffer(inY, 1, bytes);
  first.InitBuffer(outQ, 1, bytes);
  {
    AscendC::LocalTensor<float> a = inX.AllocTensor<float>();
    AscendC::LocalTensor<float> b = inY.AllocTensor<float>();
    AscendC::DataCopy(a, xg, n);
    AscendC::DataCopy(b, yg, n);
    inX.EnQue(a);
    inY.EnQue(b);
    a = inX.DeQue<float>();
    b = inY.DeQue<float>();
    AscendC::LocalTensor<float> c = outQ.AllocTensor<float>();
    AscendC::Add(c, a, b, n);
    outQ.EnQue(c);
    c = outQ.DeQue<float>();
    AscendC::DataCopy(zg, c, n);
    out[1] = static_cast<int32_t>(reinterpret_cast<uintptr_t>(a.GetPhyAddr()) & 0x7fffffff);
    inX.FreeTensor(a);
    inY.FreeTensor(b);
    outQ.FreeTensor(c);
  }
  first.Reset();
  second.InitBuffer(inX2, 1, bytes);
  second.InitBuffer(inY2, 1, bytes);
  second.InitBuffer(outQ2, 1, bytes);
  AscendC::LocalTensor<float> a = inX2.AllocTensor<float>();
  AscendC::LocalTensor<float> b = inY2.AllocTensor<float>();
  AscendC::DataCopy(a, xg, n);
  AscendC::DataCopy(b, yg, n);
  inX2.EnQue(a);
  inY2.EnQue(b);
  a = inX2.DeQue<float>();
  b = inY2.DeQue<float>();
  AscendC::LocalTensor<float> c = outQ2.AllocTensor<float>();
  AscendC::Mul(c, a, b, n);
  outQ2.EnQue(c);
  c = outQ2.DeQue<float>();
  AscendC::DataCopy(wg, c, n);
  const uintptr_t pa = reinterpret_cast<uintptr_t>(a.GetPhyAddr());
  const uintptr_t pb = reinterpret_cast<uintptr_t>(b.GetPhyAddr());
  const uintptr_t pc = reinterpret_cast<uintptr_t>(c.GetPhyAddr());
  out[0] =
      out[1] == static_cast<int32_t>(pa & 0x7fffffff) && pb == pa + tile && pc == pb + tile ? 1 : 0;
  inX2.FreeTensor(a);
  inY2.FreeTensor(b);
  outQ2.FreeTensor(c);
  second.Reset();
}

using compat_test::Dev;
class BufPool : public compat_test::FastAndCheckedTest {};

TEST_P(BufPool, StagesReuseThePoolsMemory) {
  for (int32_t scenario : {kReuse, kSubdivide, kCustom}) {
    for (uint32_t n : {8u, 56u, 248u, 4104u}) {  // DataCopy moves whole 32-byte blocks
      std::mt19937 rng(n * 3 + static_cast<uint32_t>(scenario));
      std::uniform_real_distribution<float> dist(-100.f, 100.f);
      std::vector<float> x(n), y(n), z(n, 0.f), w(n, 0.f);
      for (uint32_t i = 0; i < n; ++i) {
        x[i] = dist(rng);
        y[i] = dist(rng);
      }
      Dev dx(n * 4), dy(n * 4), dz(n * 4), dw(n * 4), dout(8);
      dx.Put(x.data());
      dy.Put(y.data());
      dz.Put(z.data());
      dw.Put(w.data());
      tessera::device::Stream stream;
      ASSERT_TRUE(tessera::device::Launch(buf_pool_custom, 1, stream, static_cast<float*>(dx.ptr),
                                          static_cast<float*>(dy.ptr), static_cast<float*>(dz.ptr),
                                          static_cast<float*>(dw.ptr),
                                          static_cast<int32_t*>(dout.ptr), n, scenario)
                      .ok());
      const tessera::Status status = stream.Synchronize();
      ASSERT_TRUE(status.ok()) << status.ToString();
      int32_t out[2] = {};
      dz.Get(z.data());
      dw.Get(w.data());
      dout.Get(out);
      const uint32_t tile = (n * 4 + 31) / 32 * 32;
      if (scenario == kCustom) {
        // The TBuf follows the queue's buffer after the pool's 32-byte gap.
        EXPECT_EQ(out[0], static_cast<int32_t>(tile + 32)) << n;
      } else {
        EXPECT_EQ(out[0], 1) << "scenario " << scenario << ", n " << n;
      }
      for (uint32_t i = 0; i < n; ++i) {
        const double sum = static_cast<double>(x[i]) + y[i];
        const double prod = static_cast<double>(x[i]) * y[i];
        const double diff = static_cast<double>(x[i]) - y[i];
        if (scenario != kCustom) {
          ASSERT_NEAR(z[i], sum, 1e-5 * std::abs(sum) + 1e-6) << i;
          ASSERT_NEAR(w[i], prod, 1e-5 * std::abs(prod) + 1e-6) << i;
        } else {
          ASSERT_NEAR(w[i], diff, 1e-5 * std::abs(diff) + 1e-6) << i;
        }
      }
    }
  }
}

// Misuse: 0 carves past a pool's bytes, 1 asks more buffers than bufIDSize, 2 shares a smaller
// pool with a larger one, 3 places a custom pool's buffer past its end, 4 carves from a pool
// without memory, 5 carves a pool after its Reset, 6 carves an L1 queue from a UB pool, 7 an L1
// sub-pool from a UB pool, 8 allocates from a queue whose second buffer a custom pool never
// placed, 9 places a buffer off the 32-byte grid, 10 places two buffers of a queue at one
// address, 11 asks a pool of 0 bytes, 12 shares a pool after its Reset. Checked mode only: 13
// reads a TBufPool queue that reuses an earlier stage's written bytes, 14 the same through a
// custom pool.
// kValid (valid): re-carves after TPipe::Reset (the same bytes come back: out[0]), attaches a
// reset pool again (its first buffer is the pipe's first byte again: out[1]) and places a custom
// pool's buffers with a length that is not a multiple of 32 (rounded as the vendor does).
constexpr int32_t kMisuseCases = 15;
constexpr int32_t kFirstCheckedOnly = 13;
constexpr int32_t kValid = -1;
__global__ __vector__ void pool_misuse_custom(__gm__ int32_t* out, int32_t misuse) {
  AscendC::TPipe pipe;
  AscendC::TBufPool<AscendC::TPosition::VECCALC, 2> pool, shared;
  AscendC::TBufPool<AscendC::TPosition::A1, 2> l1pool;
  AscendC::TQue<AscendC::TPosition::VECIN, 1> q0, q1, q2, q4;
  AscendC::TQue<AscendC::TPosition::VECIN, 2> q3;
  AscendC::TQue<AscendC::TPosition::A1, 1> qa1;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  AscendC::GlobalTensor<int32_t> gout;
  gout.SetGlobalBuffer(out, 16);
  if (misuse == 4) {
    pool.InitBuffer(q0, 1, 64);
    return;
  }
  if (misuse == 11) {
    pipe.InitBufPool(pool, 0);
    return;
  }
  if (misuse == 3 || (misuse >= 8 && misuse <= 10)) {
    GapPool custom;
    custom.placement = misuse == 3   ? kOverrun
                       : misuse == 8 ? kUnplaced
                       : misuse == 9 ? kMisalign
                                     : kOverlap;
    pipe.InitBufPool(custom, 128);
    custom.InitBuffer(q3, 2, 64);
    AscendC::LocalTensor<int32_t> t = q3.AllocTensor<int32_t>();
    q3.FreeTensor(t);
    return;
  }
  if (misuse == 14) {
    GapPool first_stage, second_stage;
    pipe.InitBufPool(first_stage, 128);
    pipe.InitBufPool(second_stage, 128, first_stage);
    first_stage.InitBuffer(q0, 1, 64);
    AscendC::LocalTensor<int32_t> t = q0.AllocTensor<int32_t>();
    AscendC::Duplicate(t, 7, 16);
    q0.FreeTensor(t);
    first_stage.Reset();
    second_stage.InitBuffer(q1, 1, 64);
    AscendC::LocalTensor<int32_t> u = q1.AllocTensor<int32_t>();
    AscendC::DataCopy(gout, u, 16);
    q1.FreeTensor(u);
    return;
  }
  pipe.InitBufPool(pool, 256);
  if (misuse == 12) {
    pool.Reset();
    pipe.InitBufPool(shared, 64, pool);
    return;
  }
  if (misuse == 13) {
    pipe.InitBufPool(shared, 256, pool);
    pool.InitBuffer(q0, 1, 64);
    AscendC::LocalTensor<int32_t> t = q0.AllocTensor<int32_t>();
    AscendC::Duplicate(t, 7, 16);
    q0.FreeTensor(t);
    pool.Reset();
    shared.InitBuffer(q1, 1, 64);
    AscendC::LocalTensor<int32_t> u = q1.AllocTensor<int32_t>();
    AscendC::DataCopy(gout, u, 16);
    q1.FreeTensor(u);
    return;
  }
  if (misuse == 5) {
    pool.InitBuffer(q0, 1, 64);
    pool.Reset();
    pool.InitBuffer(q1, 1, 64);
    return;
  }
  if (misuse == 6) {
    pool.InitBuffer(qa1, 1, 64);
    return;
  }
  if (misuse == 7) {
    pool.InitBufPool(l1pool, 64);
    return;
  }
  if (misuse == 2) {
    pipe.InitBufPool(shared, 512, pool);
    return;
  }
  pool.InitBuffer(q0, 1, 64);
  if (misuse == 0) {
    pool.InitBuffer(q1, 1, 256);
    return;
  }
  pool.InitBuffer(q1, 1, 64);
  if (misuse == 1) {
    pool.InitBuffer(buf, 32);
    return;
  }
  AscendC::LocalTensor<int32_t> before = q0.AllocTensor<int32_t>();
  pipe.Reset();
  pipe.InitBuffer(q2, 1, 64);
  AscendC::LocalTensor<int32_t> after = q2.AllocTensor<int32_t>();
  out[0] = before.GetPhyAddr() == after.GetPhyAddr() ? 1 : 0;
  const uintptr_t first = reinterpret_cast<uintptr_t>(before.GetPhyAddr());
  q0.FreeTensor(before);
  q2.FreeTensor(after);
  pool.Reset();
  pipe.Reset();
  pipe.InitBufPool(pool, 256);
  pool.InitBuffer(q4, 1, 64);
  AscendC::LocalTensor<int32_t> again = q4.AllocTensor<int32_t>();
  out[1] = reinterpret_cast<uintptr_t>(again.GetPhyAddr()) == first ? 1 : 0;
  q4.FreeTensor(again);
  GapPool custom;
  custom.placement = kUnrounded;
  pipe.InitBufPool(custom, 256);
  custom.InitBuffer(q3, 2, 40);
  AscendC::LocalTensor<int32_t> a = q3.AllocTensor<int32_t>();
  AscendC::LocalTensor<int32_t> b = q3.AllocTensor<int32_t>();
  out[2] = static_cast<int32_t>(reinterpret_cast<uintptr_t>(b.GetPhyAddr()) -
                                reinterpret_cast<uintptr_t>(a.GetPhyAddr()));
  out[3] = static_cast<int32_t>(a.GetSize());
  q3.FreeTensor(a);
  q3.FreeTensor(b);
}

TEST_P(BufPool, MisuseFailsTheBlockWithAMessage) {
  const char* expected[] = {"more than its 256",
                            "holds 2 buffers",
                            "exceed the shared pool's 256",
                            "outside the pool",
                            "has no memory",
                            "TBufPool::InitBuffer: the pool was Reset",
                            "position A1 (L1) is not in the memory of the pool's position VECCALC",
                            "position A1 (L1) is not in the memory of the pool's position VECCALC",
                            "buffer 1 of 2 was never placed with InitBufHandle",
                            "is not 32-byte aligned",
                            "buffer 1 at address 0 overlaps buffer 0 at address 0 (64 bytes each)",
                            "TPipe::InitBufPool: pool length 0",
                            "TPipe::InitBufPool: the pool was Reset",
                            "never written",
                            "never written"};
  static_assert(sizeof(expected) / sizeof(expected[0]) == kMisuseCases);
  Dev dout(64);
  tessera::device::Stream stream;
  for (int32_t misuse = 0; misuse < kMisuseCases; ++misuse) {
    if (misuse >= kFirstCheckedOnly && !GetParam()) continue;
    const tessera::Status launched = tessera::device::Launch(
        pool_misuse_custom, 1, stream, static_cast<int32_t*>(dout.ptr), misuse);
    ASSERT_TRUE(launched.ok()) << launched.ToString();
    const tessera::Status status = stream.Synchronize();
    EXPECT_FALSE(status.ok()) << "case " << misuse << " passed";
    if (status.ok()) continue;
    EXPECT_NE(status.ToString().find(expected[misuse]), std::string::npos)
        << misuse << ": " << status.ToString();
    stream.ResetError();
  }
  int32_t got[16] = {};
  dout.Put(got);
  ASSERT_TRUE(tessera::device::Launch(pool_misuse_custom, 1, stream,
                                      static_cast<int32_t*>(dout.ptr), kValid)
                  .ok());
  const tessera::Status status = stream.Synchronize();
  ASSERT_TRUE(status.ok()) << status.ToString();
  dout.Get(got);
  EXPECT_EQ(got[0], 1);
  EXPECT_EQ(got[1], 1);
  EXPECT_EQ(got[2], 64);  // 40 bytes rounded up to 32: buffers 64 bytes apart, 16 int32 each
  EXPECT_EQ(got[3], 16);
}

INSTANTIATE_TEST_SUITE_P(FastAndChecked, BufPool, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("Checked") : std::string("Fast");
                         });

}  // namespace

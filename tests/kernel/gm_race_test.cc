// Checked mode across blocks: GM races within a launch (overlapping writes, reads of another
// block's output in the same phase), outputs no block wrote, and what orders accesses so that they
// are not races (SyncAll, cross-core flags). Also the kernel's name without LaunchConfig::name and
// the wording of a use after FreeTensor.
#include <gtest/gtest.h>

#include <vector>

#include "kernel_test_util.h"
#include "tessera/kernel/kernel.h"

namespace tessera::kernel {
namespace {

using testing::Contains;
using testing::DeviceBuffer;
using testing::RunKernel;

constexpr uint32_t kShare = 64;  // floats per block

// Block i copies kShare floats of x to y, both starting at element i * stride; block `skip` (when
// below blockDim) copies nothing.
void CopyShares(float* x, float* y, uint32_t stride, uint32_t skip) {
  if (GetBlockIdx() == skip) return;
  GlobalTensor<float> gx, gy;
  gx.SetGlobalBuffer(x + GetBlockIdx() * stride, kShare);
  gy.SetGlobalBuffer(y + GetBlockIdx() * stride, kShare);
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, kShare * sizeof(float));
  LocalTensor<float> t = buf.Get<float>();
  DataCopy(t, gx, kShare);
  DataCopy(gy, t, kShare);
}

void CopySharesTwice(float* x, float* y) {
  CopyShares(x, y, kShare, UINT32_MAX);
  CopyShares(x, y, kShare, UINT32_MAX);
}

// Each block copies its share, and block 0 also sets the first element of block 1's share.
void OneIntoNeighbour(float* x, float* y) {
  CopyShares(x, y, kShare, UINT32_MAX);
  if (GetBlockIdx() == 0) {
    GlobalTensor<float> all;
    all.SetGlobalBuffer(y, kShare * GetBlockNum());
    all.SetValue(kShare, 1.0f);
  }
}

// Phase 1: y[share i] = x[share i]. Phase 2 (after SyncAll when `sync`): z[share i] = y[share of
// block i + 1], i.e. a read of another block's output.
void ReadNeighbour(float* x, float* y, float* z, bool sync) {
  CopyShares(x, y, kShare, UINT32_MAX);
  if (sync) SyncAll();
  const uint32_t next = (GetBlockIdx() + 1) % GetBlockNum();
  GlobalTensor<float> gy, gz;
  gy.SetGlobalBuffer(y + next * kShare, kShare);
  gz.SetGlobalBuffer(z + GetBlockIdx() * kShare, kShare);
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, kShare * sizeof(float));
  LocalTensor<float> t = buf.Get<float>();
  DataCopy(t, gy, kShare);
  DataCopy(gz, t, kShare);
}

std::vector<float> Iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(i);
  return v;
}

TEST(GmRaceTest, OverlappingWritesOfTwoBlocks) {
  testing::CheckedScope scope(true);
  DeviceBuffer<float> x(Iota(kShare * 2)), y(kShare * 2);
  // Block starts 32 floats apart: block 0 writes bytes [0, 256), block 1 [128, 384).
  Status st = RunKernel("overlap", 2, CopyShares, x.get(), y.get(), 32u, UINT32_MAX);
  EXPECT_TRUE(Contains(st,
                       "kernel 'overlap': race between blocks: block 0 (AIV) and block 1 "
                       "(AIV) both write the same global memory"))
      << st.ToString();
  EXPECT_TRUE(Contains(st, "block 0 (AIV) writes bytes [0, 256) of argument 1 (DataCopy)"))
      << st.ToString();
  EXPECT_TRUE(Contains(st, "block 1 (AIV) writes bytes [128, 384) of argument 1 (DataCopy)"))
      << st.ToString();
  EXPECT_TRUE(Contains(st, "they overlap in bytes [128, 256) of argument 1")) << st.ToString();
}

TEST(GmRaceTest, OneElementIntoTheNeighboursShare) {
  testing::CheckedScope scope(true);
  DeviceBuffer<float> x(Iota(kShare * 4)), y(kShare * 4);
  Status st = RunKernel("spill", 4, OneIntoNeighbour, x.get(), y.get());
  EXPECT_TRUE(Contains(st, "race between blocks")) << st.ToString();
  EXPECT_TRUE(Contains(st, "block 0 (AIV)")) << st.ToString();
  EXPECT_TRUE(Contains(st, "block 1 (AIV)")) << st.ToString();
  EXPECT_TRUE(Contains(st, "GlobalTensor::SetValue")) << st.ToString();
  EXPECT_TRUE(Contains(st, "they overlap in bytes [256, 260) of argument 1")) << st.ToString();
}

TEST(GmRaceTest, ReadOfAnotherBlocksOutputWithoutSyncAll) {
  testing::CheckedScope scope(true);
  DeviceBuffer<float> x(Iota(kShare * 2)), y(kShare * 2), z(kShare * 2);
  Status st = RunKernel("no_sync", 2, ReadNeighbour, x.get(), y.get(), z.get(), false);
  EXPECT_TRUE(Contains(st, "race between blocks")) << st.ToString();
  // Either pairing shows: block i reads the share block i + 1 writes.
  const bool b1_reads_b0 = Contains(st,
                                    "block 1 (AIV) reads bytes [0, 256) of argument 1 "
                                    "(DataCopy) that block 0 (AIV) writes");
  const bool b0_reads_b1 = Contains(st,
                                    "block 0 (AIV) reads bytes [256, 512) of argument 1 "
                                    "(DataCopy) that block 1 (AIV) writes");
  EXPECT_TRUE(b1_reads_b0 || b0_reads_b1) << st.ToString();
  EXPECT_TRUE(Contains(st, "no SyncAll or cross-core flag orders the write and the read"))
      << st.ToString();
}

TEST(GmRaceTest, SyncAllSeparatesPhases) {
  testing::CheckedScope scope(true);
  DeviceBuffer<float> x(Iota(kShare * 2)), y(kShare * 2), z(kShare * 2);
  Status st = RunKernel("phases", 2, ReadNeighbour, x.get(), y.get(), z.get(), true);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const std::vector<float> out = z.ToHost();
  for (uint32_t i = 0; i < kShare * 2; ++i)
    ASSERT_EQ(out[i], static_cast<float>((i + kShare) % (kShare * 2))) << i;
}

TEST(GmRaceTest, DisjointSharesAndRepeatedWritesOfOneBlockAreClean) {
  testing::CheckedScope scope(true);
  DeviceBuffer<float> x(Iota(kShare * 8)), y(kShare * 8);
  EXPECT_TRUE(RunKernel("disjoint", 8, CopyShares, x.get(), y.get(), kShare, UINT32_MAX).ok());
  // A block writing the same bytes twice is no race.
  EXPECT_TRUE(RunKernel("twice", 8, CopySharesTwice, x.get(), y.get()).ok());
}

// MIX: each group's AIC writes a 64-float tile of the workspace and (when `flag`) sets flag 3 for
// its AIVs; each AIV waits (when `flag`) and copies its half of the tile to out.
void TileHandOff(float* ws, float* out, bool flag) {
  constexpr uint32_t kTile = 64;
  const uint32_t group = device::CurrentBlock()->group;
  GlobalTensor<float> tile;
  tile.SetGlobalBuffer(ws + group * kTile, kTile);
  if (device::GetCoreType() == device::CoreType::kAic) {
    for (uint32_t i = 0; i < kTile; ++i)
      tile.SetValue(i, static_cast<float>(group * kTile + i));
    if (flag) device::CrossCoreSetFlag(device::CrossCoreMode::kGroupCubeVector, 3);
    return;
  }
  if (flag) device::CrossCoreWaitFlag(device::CrossCoreMode::kGroupCubeVector, 3);
  const uint32_t half = kTile / 2, first = GetSubBlockIdx() * half;
  GlobalTensor<float> dst;
  dst.SetGlobalBuffer(out + group * kTile + first, half);
  for (uint32_t i = 0; i < half; ++i)
    dst.SetValue(i, tile.GetValue(first + i));
}

Status RunMix(const char* name, uint32_t groups, bool flag, float* ws, float* out) {
  auto stream = device::Stream::Create();
  if (!stream.ok()) return stream.status();
  Status st = device::Launch(device::LaunchConfig{groups, device::KernelType::kMix, name},
                             TileHandOff, *stream, ws, out, flag);
  if (!st.ok()) return st;
  return stream->Synchronize();
}

TEST(GmRaceTest, CrossCoreFlagOrdersTheWorkspaceHandOff) {
  testing::CheckedScope scope(true);
  DeviceBuffer<float> ws(64 * 3), out(64 * 3);
  ASSERT_TRUE(RunMix("handoff", 3, true, ws.get(), out.get()).ok());
  EXPECT_EQ(out.ToHost(), Iota(64 * 3));
  Status st = RunMix("no_flag", 3, false, ws.get(), out.get());
  EXPECT_TRUE(Contains(st, "race between blocks")) << st.ToString();
  EXPECT_TRUE(Contains(st, "(AIV) reads bytes [")) << st.ToString();
  EXPECT_TRUE(Contains(st, "(GlobalTensor::GetValue) that block ")) << st.ToString();
  EXPECT_TRUE(Contains(st, "(AIC) writes (bytes [")) << st.ToString();
}

// Every block adds 1 to each of y's kShare floats (SetAtomicAdd); block `plain`, when below
// blockDim, overwrites instead.
void AddOnes(float* y, uint32_t plain) {
  GlobalTensor<float> gy;
  gy.SetGlobalBuffer(y, kShare);
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, kShare * sizeof(float));
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, 1.0f, kShare);
  if (GetBlockIdx() != plain) SetAtomicAdd<float>();
  DataCopy(gy, t, kShare);
  SetAtomicNone();
}

TEST(GmRaceTest, AtomicAddsOfManyBlocksAreNoRace) {
  for (bool checked : {false, true}) {
    testing::CheckedScope scope(checked);
    DeviceBuffer<float> y(kShare, 0.5f);
    ASSERT_TRUE(RunKernel("atomic_add", 6, AddOnes, y.get(), UINT32_MAX).ok());
    EXPECT_EQ(y.ToHost(), std::vector<float>(kShare, 6.5f));
  }
  testing::CheckedScope scope(true);
  DeviceBuffer<float> y(kShare);
  Status st = RunKernel("atomic_and_plain", 3, AddOnes, y.get(), 1u);
  EXPECT_TRUE(Contains(st, "race between blocks")) << st.ToString();
  EXPECT_TRUE(Contains(st, "atomically adds to bytes [0, 256) of argument 0")) << st.ToString();
  EXPECT_TRUE(Contains(st, "block 1 (AIV) writes bytes [0, 256) of argument 0")) << st.ToString();
}

Status RunWithOutputs(const char* name, uint32_t blocks, float* x, float* y, uint64_t bytes,
                      uint32_t skip) {
  auto stream = device::Stream::Create();
  if (!stream.ok()) return stream.status();
  const device::ByteRange outputs[] = {{y, bytes}};
  device::LaunchConfig config{blocks, device::KernelType::kAiv, name};
  config.must_write = outputs;
  config.must_write_count = 1;
  Status st = device::Launch(config, CopyShares, *stream, x, y, kShare, skip);
  if (!st.ok()) return st;
  return stream->Synchronize();
}

TEST(GmRaceTest, OutputRangeNoBlockWrote) {
  testing::CheckedScope scope(true);
  DeviceBuffer<float> x(Iota(kShare * 4)), y(kShare * 4);
  EXPECT_TRUE(RunWithOutputs("all_written", 4, x.get(), y.get(), kShare * 4 * 4, UINT32_MAX).ok());
  Status st = RunWithOutputs("gap", 4, x.get(), y.get(), kShare * 4 * 4, 2);
  EXPECT_TRUE(Contains(st,
                       "kernel 'gap': output left unwritten: no block wrote bytes [512, 768) "
                       "of argument 1 (256 of 1024 bytes of the range are unwritten)"))
      << st.ToString();
  // Fast mode does not check.
  testing::CheckedScope fast(false);
  EXPECT_TRUE(RunWithOutputs("gap_fast", 4, x.get(), y.get(), kShare * 4 * 4, 2).ok());
}

TEST(GmRaceTest, KernelNamedFromItsSymbolWithoutLaunchConfigName) {
  testing::CheckedScope scope(true);
  DeviceBuffer<float> x(Iota(kShare * 2)), y(kShare * 2);
  auto stream = device::Stream::Create();
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE(device::Launch(CopyShares, 2, *stream, x.get(), y.get(), 32u, UINT32_MAX).ok());
  Status st = stream->Synchronize();
  EXPECT_TRUE(Contains(st, "kernel 'tessera::kernel::(anonymous namespace)::CopyShares'"))
      << st.ToString();
}

void AddAfterFree() {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 256 * sizeof(float));
  LocalTensor<float> t = q.AllocTensor<float>();
  Duplicate(t, 1.0f, 256);
  q.FreeTensor(t);
  Add(t, t, t, 256);
}

TEST(GmRaceTest, UseAfterFreeTensorSaysSo) {
  testing::CheckedScope scope(true);
  Status st = RunKernel("after_free", 1, AddAfterFree);
  EXPECT_TRUE(Contains(st,
                       "Add: dst: use after FreeTensor: the tensor's buffer (VECIN) was "
                       "already freed with FreeTensor"))
      << st.ToString();
  EXPECT_FALSE(Contains(st, "exceeds")) << st.ToString();
}

}  // namespace
}  // namespace tessera::kernel

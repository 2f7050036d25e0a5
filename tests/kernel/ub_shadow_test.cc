// Checked mode: reads of UB never written, reported where they would reach GM (DataCopy out),
// after flowing through elementwise instructions; garbage computed in padding lanes that is never
// copied out is no finding.
#include <gtest/gtest.h>

#include <vector>

#include "kernel_test_util.h"
#include "tessera/kernel/kernel.h"

namespace tessera::kernel {
namespace {

using testing::Contains;
using testing::DeviceBuffer;
using testing::RunKernel;

// Copies `in_count` floats in, scales 64 of them, copies `out_count` out (DataCopyPad).
void ScaleTile(float* x, float* y, uint32_t in_count, uint32_t out_count) {
  GlobalTensor<float> gx, gy;
  gx.SetGlobalBuffer(x, 64);
  gy.SetGlobalBuffer(y, 64);
  TPipe pipe;
  TQue<TPosition::VECIN, 1> in;
  TQue<TPosition::VECOUT, 1> out;
  pipe.InitBuffer(in, 1, 64 * sizeof(float));
  pipe.InitBuffer(out, 1, 64 * sizeof(float));
  LocalTensor<float> a = in.AllocTensor<float>();
  DataCopyPad(a, gx, DataCopyExtParams{1, in_count * 4, 0, 0, 0}, DataCopyPadExtParams<float>{});
  LocalTensor<float> b = out.AllocTensor<float>();
  Muls(b, a, 2.0f, 64);
  DataCopyPad(gy, b, DataCopyExtParams{1, out_count * 4, 0, 0, 0});
  in.FreeTensor(a);
  out.FreeTensor(b);
}

// Copies a VECOUT tensor no instruction wrote.
void CopyFreshTensor(float* y) {
  GlobalTensor<float> gy;
  gy.SetGlobalBuffer(y, 64);
  TPipe pipe;
  TQue<TPosition::VECOUT, 1> out;
  pipe.InitBuffer(out, 1, 64 * sizeof(float));
  LocalTensor<float> b = out.AllocTensor<float>();
  DataCopy(gy, b, 64);
  out.FreeTensor(b);
}

// z = a + b (b + a with `swap`) over 64 floats, a loaded from `a_count` floats of x (the rest
// never written) and b from all 64 of y; copies the 64 sums out.
void AddTiles(float* x, float* y, float* z, uint32_t a_count, bool swap) {
  GlobalTensor<float> gx, gy, gz;
  gx.SetGlobalBuffer(x, 64);
  gy.SetGlobalBuffer(y, 64);
  gz.SetGlobalBuffer(z, 64);
  TPipe pipe;
  TQue<TPosition::VECIN, 1> qa, qb;
  TQue<TPosition::VECOUT, 1> qc;
  pipe.InitBuffer(qa, 1, 64 * sizeof(float));
  pipe.InitBuffer(qb, 1, 64 * sizeof(float));
  pipe.InitBuffer(qc, 1, 64 * sizeof(float));
  LocalTensor<float> a = qa.AllocTensor<float>();
  LocalTensor<float> b = qb.AllocTensor<float>();
  LocalTensor<float> c = qc.AllocTensor<float>();
  DataCopyPad(a, gx, DataCopyExtParams{1, a_count * 4, 0, 0, 0}, DataCopyPadExtParams<float>{});
  DataCopy(b, gy, 64);
  if (swap) {
    Add(c, b, a, 64);
  } else {
    Add(c, a, b, 64);
  }
  DataCopy(gz, c, 64);
  qa.FreeTensor(a);
  qb.FreeTensor(b);
  qc.FreeTensor(c);
}

TEST(UbShadowTest, EitherUnwrittenSourceOfABinaryInstructionIsReported) {
  testing::CheckedScope scope(true);
  DeviceBuffer<float> x(64, 1.0f), y(64, 2.0f), z(64);
  for (bool swap : {false, true}) {
    Status st = RunKernel("add_half", 1, AddTiles, x.get(), y.get(), z.get(), 40u, swap);
    EXPECT_TRUE(Contains(st, "elements 40..63 of the tensor were never written")) << st.ToString();
    st = RunKernel("add_full", 1, AddTiles, x.get(), y.get(), z.get(), 64u, swap);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
}

// One in-place instruction on `a` (its first `a_count` of 64 elements loaded from x, the rest
// never written; b fully loaded from y), then `a` copied out. kind: 0 Add(a, a, b), 1 Muls(a, a),
// 2 Exp(a, a), 3 Axpy(a, b) (a += 2 b), 4 And(a, a, b) on the bits, 5 Not(a, a).
void InPlaceTile(float* x, float* y, float* z, uint32_t a_count, int kind) {
  GlobalTensor<float> gx, gy, gz;
  gx.SetGlobalBuffer(x, 64);
  gy.SetGlobalBuffer(y, 64);
  gz.SetGlobalBuffer(z, 64);
  TPipe pipe;
  TQue<TPosition::VECIN, 1> qa, qb;
  pipe.InitBuffer(qa, 1, 64 * sizeof(float));
  pipe.InitBuffer(qb, 1, 64 * sizeof(float));
  LocalTensor<float> a = qa.AllocTensor<float>();
  LocalTensor<float> b = qb.AllocTensor<float>();
  DataCopyPad(a, gx, DataCopyExtParams{1, a_count * 4, 0, 0, 0}, DataCopyPadExtParams<float>{});
  DataCopy(b, gy, 64);
  LocalTensor<int32_t> ai = a.ReinterpretCast<int32_t>();
  LocalTensor<int32_t> bi = b.ReinterpretCast<int32_t>();
  switch (kind) {
    case 0:
      Add(a, a, b, 64);
      break;
    case 1:
      Muls(a, a, 2.0f, 64);
      break;
    case 2:
      Exp(a, a, 64);
      break;
    case 3:
      Axpy(a, b, 2.0f, 64);
      break;
    case 4:
      And(ai, ai, bi, 64);
      break;
    default:
      Not(ai, ai, 64);
      break;
  }
  DataCopy(gz, a, 64);
  qa.FreeTensor(a);
  qb.FreeTensor(b);
}

// The destination's written state comes from its sources: an in-place source must be read before
// the destination is marked, or unwritten lanes would pass through as written.
TEST(UbShadowTest, UnwrittenLanesThroughAnInPlaceInstructionAreReported) {
  testing::CheckedScope scope(true);
  DeviceBuffer<float> x(64, 0.5f), y(64, 0.25f), z(64);
  for (int kind = 0; kind <= 5; ++kind) {
    Status st = RunKernel("in_place_half", 1, InPlaceTile, x.get(), y.get(), z.get(), 24u, kind);
    EXPECT_TRUE(Contains(st, "elements 24..63 of the tensor were never written"))
        << "kind " << kind << ": " << st.ToString();
    st = RunKernel("in_place_full", 1, InPlaceTile, x.get(), y.get(), z.get(), 64u, kind);
    EXPECT_TRUE(st.ok()) << "kind " << kind << ": " << st.ToString();
  }
}

// 8 floats loaded into a 64-float tile, then Adds(t[8], t, 0, 56) (destination overlapping its
// source from above: the forward walk carries the written lanes along), then the tile copied out.
void ForwardOverlapTile(float* x, float* z) {
  GlobalTensor<float> gx, gz;
  gx.SetGlobalBuffer(x, 64);
  gz.SetGlobalBuffer(z, 64);
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 64 * sizeof(float));
  LocalTensor<float> t = q.AllocTensor<float>();
  DataCopy(t, gx, 8);
  Adds(t[8], t, 0.0f, 56);
  DataCopy(gz, t, 64);
  q.FreeTensor(t);
}

TEST(UbShadowTest, ForwardOverlappingInstructionCarriesTheWrittenState) {
  testing::CheckedScope scope(true);
  DeviceBuffer<float> x(64, 0.5f), z(64);
  const Status st = RunKernel("forward_overlap", 1, ForwardOverlapTile, x.get(), z.get());
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(UbShadowTest, UninitialisedUbReachingGmIsReported) {
  testing::CheckedScope scope(true);
  DeviceBuffer<float> x(64, 1.0f), y(64);
  Status st = RunKernel("half_loaded", 1, ScaleTile, x.get(), y.get(), 32u, 64u);
  EXPECT_TRUE(Contains(st,
                       "kernel 'half_loaded' block 0 (AIV): DataCopyPad: source (VECOUT): "
                       "elements 32..63 of the tensor were never written"))
      << st.ToString();
  st = RunKernel("fresh", 1, CopyFreshTensor, y.get());
  EXPECT_TRUE(Contains(st,
                       "DataCopy: source (VECOUT): elements 0..63 of the tensor were never "
                       "written since TPipe::InitBuffer"))
      << st.ToString();
}

TEST(UbShadowTest, GarbageLanesNotCopiedOutAreNoFinding) {
  testing::CheckedScope scope(true);
  DeviceBuffer<float> x(64, 1.0f), y(64);
  // 10 floats in, 64 lanes computed, 10 out.
  ASSERT_TRUE(RunKernel("tail", 1, ScaleTile, x.get(), y.get(), 10u, 10u).ok());
  EXPECT_EQ(y.ToHost()[9], 2.0f);
  ASSERT_TRUE(RunKernel("whole", 1, ScaleTile, x.get(), y.get(), 64u, 64u).ok());
  // Fast mode does not look.
  testing::CheckedScope fast(false);
  EXPECT_TRUE(RunKernel("fresh_fast", 1, CopyFreshTensor, y.get()).ok());
}

}  // namespace
}  // namespace tessera::kernel

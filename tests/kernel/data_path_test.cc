// The GM <-> UB data path of large copies: tile loops that continue a source stream (prefetched
// copy-in) and copies into outputs of 8 MiB or more (streaming copy-out), in the count, strided
// and pad forms, in fast and checked mode. Results must be bit-identical to a plain copy, on
// unaligned GM starts and lengths on either side of the thresholds (4096-byte copies, 8 MiB
// outputs); checked mode must still report bad copies on these paths.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernel_test_util.h"
#include "tessera/kernel/kernel.h"

namespace tessera::kernel {
namespace {

using testing::CheckedScope;
using testing::Contains;
using testing::DeviceBuffer;
using testing::RunKernel;

constexpr int64_t kStreamOut = int64_t{2} << 20;  // floats in an 8 MiB output

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1000, 1000);
  std::vector<float> v(n);
  for (auto& e : v)
    e = dist(rng);
  return v;
}

// Bitwise equality (a copy must not change a single bit, NaN payloads included).
void ExpectSameBits(const std::vector<float>& got, const std::vector<float>& want,
                    const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t wrong = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0 && wrong++ == 0) first = i;
  }
  EXPECT_EQ(wrong, 0u) << what << ": first wrong element " << first;
}

// Each block moves its contiguous share of x (n elements) to y through a depth-2 pipeline of
// `tile`-element UB tiles: DataCopy for whole 32-byte tiles, DataCopyPad for the rest. Shares
// start on 8-element boundaries of x and y, which themselves may start anywhere.
void TileLoop(float* x, float* y, int64_t n, uint32_t tile) {
  const int64_t per = ((n + GetBlockNum() - 1) / GetBlockNum() + 7) / 8 * 8;
  const int64_t begin = std::min<int64_t>(n, per * GetBlockIdx());
  const int64_t len = std::min<int64_t>(n, begin + per) - begin;
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer(x + begin, static_cast<uint64_t>(len));
  yg.SetGlobalBuffer(y + begin, static_cast<uint64_t>(len));
  TPipe pipe;
  TQue<TPosition::VECIN, 2> in;
  TQue<TPosition::VECOUT, 2> out;
  const uint32_t bytes = (tile * 4 + 31) / 32 * 32;
  pipe.InitBuffer(in, 2, bytes);
  pipe.InitBuffer(out, 2, bytes);
  for (int64_t off = 0; off < len; off += tile) {
    const auto count = static_cast<uint32_t>(std::min<int64_t>(tile, len - off));
    const auto at = static_cast<uint64_t>(off);
    const DataCopyExtParams pad{1, count * 4, 0, 0, 0};
    LocalTensor<float> a = in.AllocTensor<float>();
    if (count % 8 == 0) {
      DataCopy(a, xg[at], count);
    } else {
      DataCopyPad(a, xg[at], pad, DataCopyPadExtParams<float>{});
    }
    in.EnQue(a);
    LocalTensor<float> b = in.DeQue<float>();
    LocalTensor<float> c = out.AllocTensor<float>();
    DataCopy(c, b, (count + 7) / 8 * 8);
    in.FreeTensor(b);
    out.EnQue(c);
    LocalTensor<float> d = out.DeQue<float>();
    if (count % 8 == 0) {
      DataCopy(yg[at], d, count);
    } else {
      DataCopyPad(yg[at], d, pad);
    }
    out.FreeTensor(d);
  }
}

class DataPathTest : public ::testing::TestWithParam<bool> {};

TEST_P(DataPathTest, TileLoopsCopyEveryBit) {
  CheckedScope checked(GetParam());
  struct Case {
    int64_t n;
    uint32_t tile;
    uint32_t blocks;
  };
  // Tiles of 1023 / 1024 / 1025 floats straddle the 4096-byte stream threshold; outputs of 8 MiB
  // -/+ one float straddle the streaming-store threshold (one block, so its whole output counts).
  const Case cases[] = {{1, 1024, 1},          {7, 1024, 1},
                        {31, 1024, 2},         {4097, 1024, 2},
                        {40000, 1023, 2},      {40000, 1025, 2},
                        {100003, 8192, 2},     {kStreamOut - 1, 8192, 1},
                        {kStreamOut, 8192, 1}, {kStreamOut + 1, 1025, 1}};
  uint32_t seed = 1;
  for (const Case& c : cases) {
    for (int shift : {0, 1, 3}) {  // GM starts 0, 4 and 12 bytes past an aligned address
      const std::vector<float> hx = Random(static_cast<size_t>(c.n + shift), seed++);
      DeviceBuffer<float> x(hx);
      DeviceBuffer<float> y(static_cast<size_t>(c.n + shift), -7.0f);
      ASSERT_TRUE(
          RunKernel("tile_loop", c.blocks, TileLoop, x.get() + shift, y.get() + shift, c.n, c.tile)
              .ok())
          << "n " << c.n;
      std::vector<float> want(static_cast<size_t>(shift), -7.0f);
      want.insert(want.end(), hx.begin() + shift, hx.end());
      ExpectSameBits(y.ToHost(), want, "tile loop");
    }
  }
}

// Rows of `cols` floats, x rows `px` apart, y rows `py` apart (all multiples of 8), through UB
// `rows_per_tile` rows at a time with the strided DataCopyParams form.
void StridedRows(float* x, float* y, uint32_t rows, uint32_t cols, uint32_t px, uint32_t py,
                 uint32_t rows_per_tile) {
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer(x, uint64_t{rows} * px);
  yg.SetGlobalBuffer(y, uint64_t{rows} * py);
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, rows_per_tile * cols * 4);
  LocalTensor<float> t = buf.Get<float>();
  for (uint32_t r = 0; r < rows; r += rows_per_tile) {
    const auto n = static_cast<uint16_t>(std::min(rows_per_tile, rows - r));
    const auto len = static_cast<uint16_t>(cols / 8);
    DataCopy(t, xg[uint64_t{r} * px],
             DataCopyParams{n, len, static_cast<uint16_t>((px - cols) / 8), 0});
    DataCopy(yg[uint64_t{r} * py], t,
             DataCopyParams{n, len, 0, static_cast<uint16_t>((py - cols) / 8)});
  }
}

// The same with DataCopyPad: any byte length, GM gaps in bytes.
void PadRows(float* x, float* y, uint32_t rows, uint32_t cols, uint32_t px, uint32_t py,
             uint32_t rows_per_tile) {
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer(x, uint64_t{rows} * px);
  yg.SetGlobalBuffer(y, uint64_t{rows} * py);
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  const uint32_t ub_row = (cols + 7) / 8 * 8;
  pipe.InitBuffer(buf, rows_per_tile * ub_row * 4);
  LocalTensor<float> t = buf.Get<float>();
  for (uint32_t r = 0; r < rows; r += rows_per_tile) {
    const auto n = static_cast<uint16_t>(std::min(rows_per_tile, rows - r));
    DataCopyPad(t, xg[uint64_t{r} * px], DataCopyExtParams{n, cols * 4, (px - cols) * 4, 0, 0},
                DataCopyPadExtParams<float>{});
    DataCopyPad(yg[uint64_t{r} * py], t, DataCopyExtParams{n, cols * 4, 0, (py - cols) * 4, 0});
  }
}

TEST_P(DataPathTest, StridedAndPadRowsCopyEveryBit) {
  CheckedScope checked(GetParam());
  struct Case {
    uint32_t rows, cols, px, py;
    bool pad;
  };
  // Rows of 1016 / 1024 / 1032 floats (strided: whole blocks) and 1023 / 1025 (pad) straddle the
  // 4096-byte threshold; y of 2048 rows x 1032 floats is past 8 MiB, 1000 rows below it.
  const Case cases[] = {{7, 1016, 1024, 1024, false},    {2048, 1024, 1032, 1032, false},
                        {2048, 1032, 1040, 1032, false}, {1000, 1024, 1024, 1040, false},
                        {31, 1023, 1025, 1024, true},    {2048, 1025, 1031, 1026, true},
                        {2048, 1, 3, 1025, true}};
  uint32_t seed = 100;
  for (const Case& c : cases) {
    const size_t nx = size_t{c.rows} * c.px + 1, ny = size_t{c.rows} * c.py + 1;
    const std::vector<float> hx = Random(nx, seed++);
    DeviceBuffer<float> x(hx);
    DeviceBuffer<float> y(ny, -3.0f);
    // One float past an aligned start on both sides.
    const Status st = c.pad ? RunKernel("pad_rows", 1, PadRows, x.get() + 1, y.get() + 1, c.rows,
                                        c.cols, c.px, c.py, 8u)
                            : RunKernel("strided_rows", 1, StridedRows, x.get() + 1, y.get() + 1,
                                        c.rows, c.cols, c.px, c.py, 8u);
    ASSERT_TRUE(st.ok()) << st.ToString();
    std::vector<float> want(ny, -3.0f);
    for (size_t r = 0; r < c.rows; ++r)
      std::memcpy(&want[1 + r * c.py], &hx[1 + r * c.px], c.cols * sizeof(float));
    ExpectSameBits(y.ToHost(), want, c.pad ? "pad rows" : "strided rows");
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, DataPathTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("Checked") : std::string("Fast");
                         });

// Block b atomically adds its own x into all of y (an 8 MiB output, so the copies would stream
// if they were plain), in tiles of 8192 floats.
void AtomicTiles(float* x, float* y, int64_t n) {
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer(x + n * GetBlockIdx(), static_cast<uint64_t>(n));
  yg.SetGlobalBuffer(y, static_cast<uint64_t>(n));
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 8192 * 4);
  LocalTensor<float> t = buf.Get<float>();
  SetAtomicAdd<float>();
  for (int64_t off = 0; off < n; off += 8192) {
    const auto count = static_cast<uint32_t>(std::min<int64_t>(8192, n - off));
    DataCopy(t, xg[static_cast<uint64_t>(off)], count);
    DataCopy(yg[static_cast<uint64_t>(off)], t, count);
  }
  SetAtomicNone();
}

// The streaming choice looks at the buffer SetGlobalBuffer was given, which views keep.
TEST(DataPathViewTest, ViewsKeepTheBufferSize) {
  std::vector<float> host(100);
  GlobalTensor<float> g;
  g.SetGlobalBuffer(host.data(), 100);
  const GlobalTensor<float> view = g[40];
  EXPECT_EQ(view.GetSize(), 60u);
  EXPECT_EQ(view.GetBufferSize(), 100u);
  EXPECT_EQ(view[59].GetSize(), 1u);
  EXPECT_EQ(view[59].GetBufferSize(), 100u);
  g.SetGlobalBuffer(host.data() + 7, 31);
  EXPECT_EQ(g[3].GetBufferSize(), 31u);
}

TEST(DataPathAtomicTest, LargeAtomicAddsStayAtomic) {
  // Small integers: the sums are exact in any order.
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> dist(-50, 50);
  std::vector<float> hx(static_cast<size_t>(kStreamOut) * 2), hy(static_cast<size_t>(kStreamOut));
  for (auto& v : hx)
    v = static_cast<float>(dist(rng));
  for (auto& v : hy)
    v = static_cast<float>(dist(rng));
  DeviceBuffer<float> x(hx), y(hy);
  for (bool checked : {false, true}) {
    CheckedScope scope(checked);
    ASSERT_TRUE(RunKernel("atomic_tiles", 2, AtomicTiles, x.get(), y.get(), kStreamOut).ok());
    for (size_t i = 0; i < hy.size(); ++i)
      hy[i] += hx[i] + hx[hy.size() + i];
  }
  ExpectSameBits(y.ToHost(), hy, "atomic adds");
}

// Block b copies `count` floats of x from element b * stride to y at the same element, in copies
// of 32 KiB; `extent` is each block's declared tensor size (8 MiB or more: the streaming path).
void LargeShares(float* x, float* y, uint32_t count, uint32_t stride, uint32_t extent) {
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer(x + uint64_t{GetBlockIdx()} * stride, extent);
  yg.SetGlobalBuffer(y + uint64_t{GetBlockIdx()} * stride, extent);
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 8192 * 4);
  for (uint32_t off = 0; off + 8192 <= count; off += 8192) {
    LocalTensor<float> t = q.AllocTensor<float>();
    DataCopy(t, xg[off], 8192);
    DataCopy(yg[off], t, 8192);
    q.FreeTensor(t);
  }
}

TEST(DataPathCheckedTest, FindsOutOfBoundsCopiesAndRacesOnTheStreamPaths) {
  CheckedScope scope(true);
  const std::vector<float> hx = Random(static_cast<size_t>(kStreamOut), 11);
  DeviceBuffer<float> x(hx), y(static_cast<size_t>(kStreamOut));
  DeviceBuffer<float> x2(static_cast<size_t>(kStreamOut) * 2, 1.0f),
      y2(static_cast<size_t>(kStreamOut) * 2);
  // The fourth 8192-float copy of a stream reaches past a 30000-float extent.
  Status st = RunKernel("oob", 1, LargeShares, x.get(), y.get(), 32768u, 0u, 30000u);
  EXPECT_TRUE(Contains(st, "exceed")) << st.ToString();
  // Two blocks' shares overlap by 4096 floats: both write those bytes of the 8 MiB output.
  st = RunKernel("race", 2, LargeShares, x2.get(), y2.get(), 65536u, 61440u,
                 static_cast<uint32_t>(kStreamOut));
  EXPECT_TRUE(Contains(st, "race between blocks")) << st.ToString();
  // Disjoint shares are fine, and copy every bit.
  st = RunKernel("disjoint", 2, LargeShares, x.get(), y.get(), 65536u, 65536u, 65536u);
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::vector<float> want(hx.begin(), hx.begin() + 2 * 65536);
  std::vector<float> got = y.ToHost();
  got.resize(want.size());
  ExpectSameBits(got, want, "disjoint shares");
}

// Copies out a 32 KiB tile of UB that was never written (into an 8 MiB output).
void UnwrittenOut(float* y) {
  GlobalTensor<float> yg;
  yg.SetGlobalBuffer(y, static_cast<uint64_t>(kStreamOut));
  TPipe pipe;
  TQue<TPosition::VECOUT, 1> q;
  pipe.InitBuffer(q, 1, 8192 * 4);
  LocalTensor<float> t = q.AllocTensor<float>();
  DataCopy(yg, t, 8192);
  q.FreeTensor(t);
}

TEST(DataPathCheckedTest, FindsUnwrittenUbOnTheStreamingPath) {
  CheckedScope scope(true);
  DeviceBuffer<float> y(static_cast<size_t>(kStreamOut));
  const Status st = RunKernel("unwritten", 1, UnwrittenOut, y.get());
  EXPECT_TRUE(Contains(st, "never written")) << st.ToString();
}

}  // namespace
}  // namespace tessera::kernel

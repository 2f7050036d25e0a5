// The gemm kernels through DeviceGemm on random data: BasicMatmul (cube launch) for every input
// type and A/B layout, batched with broadcasting, and MatmulEpilogue (MIX launch) with each
// epilogue; against double references with CATLASS's tolerance (|out - ref| <= rtol * max(1,
// |ref|), rtol 1/256 for K < 2048 else 1/128, plus the output rounding of half/bfloat16; int32
// exact). Also the device adapter's errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/device/device.h"
#include "tessera/device/memory.h"
#include "tessera/device/stream.h"
#include "tessera/gemm/gemm.h"

namespace tessera::gemm {
namespace {

using layout::ColumnMajor;
using layout::RowMajor;

template <class T, class LA, class LB, class TC>
using Mmad =
    block::BlockMmad<typename DefaultTiles<T>::Policy, typename DefaultTiles<T>::L1,
                     typename DefaultTiles<T>::L0, GemmType<T, LA>, GemmType<T, LB>, GemmType<TC>>;
template <class T, class LA, class LB, class TC>
using Basic = kernel::BasicMatmul<Mmad<T, LA, LB, TC>, block::GemmIdentityBlockSwizzle<3, 0>>;
// Two L0 stages (L0 K halved to fit) and a single L1 stage: the other ping-pong paths.
template <class T>
using PingpongL0 = GemmShape<128, 256, DefaultTiles<T>::L0::K / 2>;
template <class T, class LA, class LB, class TC, uint32_t L1Stages>
using BasicPingpong = kernel::BasicMatmul<
    block::BlockMmad<MmadPingpong<L1Stages, 2>, typename DefaultTiles<T>::L1, PingpongL0<T>,
                     GemmType<T, LA>, GemmType<T, LB>, GemmType<TC>>,
    block::GemmIdentityBlockSwizzle<1, 1>>;
// LargeTiles: 256 x 512 blocks, which only the native profile's buffers hold.
template <class T, class LA, class LB, class TC>
using LargeMmad =
    block::BlockMmad<typename LargeTiles<T>::Policy, typename LargeTiles<T>::L1,
                     typename LargeTiles<T>::L0, GemmType<T, LA>, GemmType<T, LB>, GemmType<TC>>;
template <class T, class LA, class LB, class TC>
using LargeBasic =
    kernel::BasicMatmul<LargeMmad<T, LA, LB, TC>, block::GemmIdentityBlockSwizzle<3, 0>>;
template <class T, class LA, class LB, class TD>
using LargeMix = kernel::MatmulEpilogue<LargeMmad<T, LA, LB, AccumulatorOf<T>>,
                                        epilogue::BlockEpilogue<AccumulatorOf<T>, TD>,
                                        block::GemmIdentityBlockSwizzle<3, 1>>;
template <class T, class LA, class LB, class TD>
using Mix = kernel::MatmulEpilogue<Mmad<T, LA, LB, AccumulatorOf<T>>,
                                   epilogue::BlockEpilogue<AccumulatorOf<T>, TD>,
                                   block::GemmIdentityBlockSwizzle<3, 1>>;

template <class T>
struct DevBuf {
  T* p = nullptr;
  size_t n = 0;
  explicit DevBuf(size_t count) : n(count) {
    auto r = tessera::device::Malloc(std::max<size_t>(1, n) * sizeof(T));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (r.ok()) p = static_cast<T*>(*r);
  }
  ~DevBuf() {
    if (p) (void)tessera::device::Free(p);
  }
  void Put(const std::vector<T>& v) {
    ASSERT_TRUE(tessera::device::Memcpy(p, n * sizeof(T), v.data(), v.size() * sizeof(T),
                                        tessera::device::MemcpyKind::kHostToDevice)
                    .ok());
  }
  std::vector<T> Get() const {
    std::vector<T> v(n);
    EXPECT_TRUE(tessera::device::Memcpy(v.data(), n * sizeof(T), p, n * sizeof(T),
                                        tessera::device::MemcpyKind::kDeviceToHost)
                    .ok());
    return v;
  }
};

template <class T>
std::vector<T> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, int32_t>) {
    std::uniform_int_distribution<int> d(-128, 127);
    for (auto& x : v)
      x = static_cast<T>(d(rng));
  } else {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (auto& x : v)
      x = T(d(rng));
  }
  return v;
}

double Val(float v) {
  return v;
}
double Val(half v) {
  return static_cast<float>(v);
}
double Val(bfloat16 v) {
  return static_cast<float>(v);
}
double Val(int8_t v) {
  return v;
}
double Val(int32_t v) {
  return v;
}

template <class TOut>
double OutputRounding() {
  if constexpr (std::is_same_v<TOut, half>) return 0x1p-8;
  if constexpr (std::is_same_v<TOut, bfloat16>) return 0x1p-7;
  return 0;
}

// CATLASS's rule; int32 exact.
template <class TOut>
void ExpectMatches(const std::vector<TOut>& got, const std::vector<double>& ref, uint32_t k,
                   const std::string& what) {
  ASSERT_EQ(got.size(), ref.size());
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = Val(got[i]);
    bool ok;
    if constexpr (std::is_same_v<TOut, int32_t>) {
      ok = g == ref[i];
    } else {
      const double rtol = (k < 2048 ? 1.0 / 256 : 1.0 / 128) + OutputRounding<TOut>();
      ok = std::fabs(g - ref[i]) <= rtol * std::max(1.0, std::fabs(ref[i]));
    }
    if (!ok && bad++ == 0) {
      ADD_FAILURE() << what << ": element " << i << " (row " << i << ") got " << g << ", expected "
                    << ref[i];
    }
  }
  EXPECT_EQ(bad, 0u) << what;
}

// ref[b][i][j] = sum_k A(i, k) B(k, j) for the stored layouts.
template <class T>
std::vector<double> Reference(const std::vector<T>& a, bool col_a, const std::vector<T>& b,
                              bool col_b, uint32_t m, uint32_t n, uint32_t k) {
  std::vector<double> ref(size_t{m} * n, 0.0);
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t kk = 0; kk < k; ++kk) {
      const double av = Val(a[col_a ? size_t{kk} * m + i : size_t{i} * k + kk]);
      if (av == 0) continue;
      for (uint32_t j = 0; j < n; ++j)
        ref[size_t{i} * n + j] += av * Val(b[col_b ? size_t{j} * k + kk : size_t{kk} * n + j]);
    }
  }
  return ref;
}

template <class T, class LA, class LB, class TC, class Kernel = Basic<T, LA, LB, TC>>
void RunBasic(uint32_t m, uint32_t n, uint32_t k, uint32_t seed, uint32_t block_num = 0,
              std::vector<TC>* out = nullptr) {
  using Op = device::DeviceGemm<Kernel>;
  const std::vector<T> a = Random<T>(size_t{m} * k, seed), b = Random<T>(size_t{k} * n, seed + 1);
  DevBuf<T> da(a.size()), db(b.size());
  DevBuf<TC> dc(size_t{m} * n);
  da.Put(a);
  db.Put(b);
  typename Op::Arguments args;
  args.problem = {m, n, k};
  args.a = da.p;
  args.b = db.p;
  args.d = dc.p;
  args.block_num = block_num;
  Op op;
  ASSERT_TRUE(op.can_implement(args).ok()) << op.can_implement(args).ToString();
  ASSERT_EQ(*Op::get_workspace_size(args), 0u);
  ASSERT_TRUE(op.initialize(args, nullptr).ok());
  const tessera::device::Stream stream;
  ASSERT_TRUE(op.run(stream).ok());
  ASSERT_TRUE(stream.Synchronize().ok()) << stream.Synchronize().ToString();
  const std::vector<TC> c = dc.Get();
  ExpectMatches(c, Reference(a, LA::kColumnMajor, b, LB::kColumnMajor, m, n, k), k,
                "M " + std::to_string(m) + " N " + std::to_string(n) + " K " + std::to_string(k) +
                    (LA::kColumnMajor ? " A^T" : "") + (LB::kColumnMajor ? " B^T" : ""));
  if (out != nullptr) *out = c;
}

template <class T, class TC>
void RunAllLayouts(uint32_t m, uint32_t n, uint32_t k, uint32_t seed) {
  RunBasic<T, RowMajor, RowMajor, TC>(m, n, k, seed);
  RunBasic<T, RowMajor, ColumnMajor, TC>(m, n, k, seed + 10);
  RunBasic<T, ColumnMajor, RowMajor, TC>(m, n, k, seed + 20);
  RunBasic<T, ColumnMajor, ColumnMajor, TC>(m, n, k, seed + 30);
}

// Shapes covering tails of every tile (16, C0, the L0 and L1 K steps, 128 x 256 blocks, m == 1).
const uint32_t kShapes[][3] = {{1, 1, 1},     {1, 17, 255},  {15, 16, 17},   {17, 15, 16},
                               {16, 1, 1000}, {255, 17, 15}, {129, 257, 33}, {33, 300, 600}};

TEST(GemmBasicMatmul, Float) {
  for (const auto& s : kShapes)
    RunAllLayouts<float, float>(s[0], s[1], s[2], 1);
}
TEST(GemmBasicMatmul, Half) {
  for (const auto& s : kShapes)
    RunAllLayouts<half, half>(s[0], s[1], s[2], 2);
}
TEST(GemmBasicMatmul, Bfloat16) {
  for (const auto& s : kShapes)
    RunAllLayouts<bfloat16, bfloat16>(s[0], s[1], s[2], 3);
}
TEST(GemmBasicMatmul, HalfToFloat) {
  RunAllLayouts<half, float>(255, 17, 1000, 4);
}
TEST(GemmBasicMatmul, Int8ExactInt32) {
  for (const auto& s : kShapes)
    RunAllLayouts<int8_t, int32_t>(s[0], s[1], s[2], 5);
}

TEST(GemmBasicMatmul, PingpongStages) {
  RunBasic<float, RowMajor, RowMajor, float, BasicPingpong<float, RowMajor, RowMajor, float, 1>>(
      255, 300, 1000, 40);
  RunBasic<float, ColumnMajor, ColumnMajor, float,
           BasicPingpong<float, ColumnMajor, ColumnMajor, float, 2>>(129, 17, 257, 41);
  RunBasic<half, ColumnMajor, RowMajor, half, BasicPingpong<half, ColumnMajor, RowMajor, half, 2>>(
      17, 255, 600, 42);
  RunBasic<int8_t, RowMajor, RowMajor, int32_t,
           BasicPingpong<int8_t, RowMajor, RowMajor, int32_t, 1>>(33, 47, 1100, 43);
}

// K within the L1 stages (float: 2 x 128, half: 2 x 256, int8: 2 x 512): BlockMmad keeps the
// tiles it copied and skips the copy of an A band or B panel the previous block left in its slot.
// Consecutive blocks share B along M (swizzle <3, 0>) or A along N (swizzle <1, 1>); tails change
// the extent of the shared tile.
template <class T, class LA, class LB, class TC>
using BasicAlongN = kernel::BasicMatmul<Mmad<T, LA, LB, TC>, block::GemmIdentityBlockSwizzle<1, 1>>;
template <class T, class TC>
void RunReuseShapes(uint32_t seed) {
  const uint32_t kk = DefaultTiles<T>::L1::K;
  const uint32_t shapes[][3] = {{4097, 7, 31}, {31, 4097, 7},      {260, 300, 2 * kk - 1},
                                {7, 1, 4097},  {257, 513, kk + 1}, {1, 1000, 1}};
  for (const auto& s : shapes) {
    RunBasic<T, RowMajor, RowMajor, TC>(s[0], s[1], s[2], seed);
    RunBasic<T, ColumnMajor, ColumnMajor, TC>(s[0], s[1], s[2], seed + 1);
    RunBasic<T, RowMajor, ColumnMajor, TC, BasicAlongN<T, RowMajor, ColumnMajor, TC>>(
        s[0], s[1], s[2], seed + 2);
    RunBasic<T, ColumnMajor, RowMajor, TC, BasicAlongN<T, ColumnMajor, RowMajor, TC>>(
        s[0], s[1], s[2], seed + 3);
  }
}
TEST(GemmBasicMatmul, L1TileReuseWholeKResident) {
  RunReuseShapes<float, float>(60);
  RunReuseShapes<half, half>(70);
  RunReuseShapes<int8_t, int32_t>(80);
}

// K longer than the L1 stages: consecutive blocks walk K in opposite directions and a block
// sharing the previous one's A band or B panel skips the copies of the K tiles left in the slots.
// Full and partial last K tiles, blocks sharing B (swizzle <3, 0>) or A (<1, 1>), and one L1
// stage (the slot holds only the last tile); one or two AICs, so each runs many blocks.
TEST(GemmBasicMatmul, L1TileReuseWalkingKBothWays) {
  constexpr uint32_t kk = DefaultTiles<float>::L1::K;
  const uint32_t shapes[][3] = {
      {600, 40, 3 * kk + 5}, {45, 1100, 4 * kk}, {257, 513, 2 * kk + 1}, {1, 700, 5 * kk - 3}};
  uint32_t seed = 100;
  for (const auto& s : shapes) {
    // The same data on one AIC and on two: each block's K order follows its index, so the bits
    // agree whatever the core count.
    std::vector<float> c[2][4];
    for (uint32_t aics : {1u, 2u}) {
      auto* out = c[aics - 1];
      RunBasic<float, RowMajor, RowMajor, float>(s[0], s[1], s[2], seed, aics, &out[0]);
      RunBasic<float, ColumnMajor, ColumnMajor, float>(s[0], s[1], s[2], seed + 1, aics, &out[1]);
      RunBasic<float, RowMajor, ColumnMajor, float,
               BasicAlongN<float, RowMajor, ColumnMajor, float>>(s[0], s[1], s[2], seed + 2, aics,
                                                                 &out[2]);
      RunBasic<float, RowMajor, RowMajor, float,
               BasicPingpong<float, RowMajor, RowMajor, float, 1>>(s[0], s[1], s[2], seed + 3, aics,
                                                                   &out[3]);
    }
    for (int v = 0; v < 4; ++v) {
      ASSERT_EQ(c[0][v].size(), c[1][v].size());
      EXPECT_EQ(std::memcmp(c[0][v].data(), c[1][v].data(), c[0][v].size() * sizeof(float)), 0)
          << "variant " << v << ": one and two AICs differ, M " << s[0] << " N " << s[1] << " K "
          << s[2];
    }
    seed += 4;
  }
  RunBasic<half, ColumnMajor, RowMajor, half>(300, 260, 3 * DefaultTiles<half>::L1::K + 17, seed,
                                              1);
  RunBasic<int8_t, RowMajor, RowMajor, int32_t>(260, 300, 2 * DefaultTiles<int8_t>::L1::K + 1,
                                                seed + 1, 1);
}

// A second launch on the same buffers with new contents of B: the L1 tiles of the first launch are
// never taken for the second's (the tags live in one block's BlockMmad).
TEST(GemmBasicMatmul, L1TileReuseNeverCrossesLaunches) {
  const uint32_t m = 300, n = 40, k = 31;
  using Op = device::DeviceGemm<Basic<float, RowMajor, RowMajor, float>>;
  const std::vector<float> a = Random<float>(m * k, 90);
  DevBuf<float> da(a.size()), db(size_t{k} * n), dc(size_t{m} * n);
  da.Put(a);
  Op::Arguments args;
  args.problem = {m, n, k};
  args.a = da.p;
  args.b = db.p;
  args.d = dc.p;
  for (uint32_t round = 0; round < 2; ++round) {
    const std::vector<float> b = Random<float>(size_t{k} * n, 91 + round);
    db.Put(b);
    Op op;
    ASSERT_TRUE(op.initialize(args, nullptr).ok());
    ASSERT_TRUE(op.run().ok());
    ASSERT_TRUE(tessera::device::Stream().Synchronize().ok());
    ExpectMatches(dc.Get(), Reference(a, false, b, false, m, n, k), k,
                  "round " + std::to_string(round));
  }
}

TEST(GemmBasicMatmul, BatchedWithBroadcast) {
  // A [2, 1, M, K] x B [3, K, N] -> C [2, 3, M, N]: A broadcasts over the second batch dim, B over
  // the first.
  const uint32_t m = 17, n = 33, k = 40;
  using Op = device::DeviceGemm<Basic<float, RowMajor, RowMajor, float>>;
  const std::vector<float> a = Random<float>(2 * m * k, 7), b = Random<float>(3 * k * n, 8);
  DevBuf<float> da(a.size()), db(b.size()), dc(6 * m * n);
  da.Put(a);
  db.Put(b);
  Op::Arguments args;
  args.problem = {m, n, k};
  args.batch.rank = 2;
  args.batch.dims[0] = 2;
  args.batch.dims[1] = 3;
  args.batch.stride_a[0] = m * k;
  args.batch.stride_b[1] = k * n;
  args.a = da.p;
  args.b = db.p;
  args.d = dc.p;
  Op op;
  ASSERT_TRUE(op.initialize(args, nullptr).ok());
  ASSERT_TRUE(op.run().ok());
  ASSERT_TRUE(tessera::device::Stream().Synchronize().ok());
  const std::vector<float> c = dc.Get();
  for (uint32_t i = 0; i < 2; ++i) {
    for (uint32_t j = 0; j < 3; ++j) {
      const std::vector<float> ab(a.begin() + i * m * k, a.begin() + (i + 1) * m * k);
      const std::vector<float> bb(b.begin() + j * k * n, b.begin() + (j + 1) * k * n);
      const std::vector<float> got(c.begin() + (i * 3 + j) * m * n,
                                   c.begin() + (i * 3 + j + 1) * m * n);
      ExpectMatches(got, Reference(ab, false, bb, false, m, n, k), k,
                    "batch " + std::to_string(i) + "," + std::to_string(j));
    }
  }
}

double Act(epilogue::Activation act, double x, double slope) {
  switch (act) {
    case epilogue::Activation::kRelu:
      return x > 0 ? x : 0;
    case epilogue::Activation::kGelu:
      return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    case epilogue::Activation::kSilu:
      return x / (1 + std::exp(-x));
    case epilogue::Activation::kLeakyRelu:
      return x > 0 ? x : slope * x;
    default:
      return x;
  }
}

// D = act(alpha * A B + bias + beta * X) through the MIX kernel.
template <class T, class LA, class LB, class TD, class Kernel = Mix<T, LA, LB, TD>>
void RunMix(uint32_t m, uint32_t n, uint32_t k, epilogue::Activation act, bool bias,
            epilogue::Broadcast x_mode, float alpha, float beta, uint32_t seed) {
  using Op = device::DeviceGemm<Kernel>;
  const std::vector<T> a = Random<T>(size_t{m} * k, seed), b = Random<T>(size_t{k} * n, seed + 1);
  const std::vector<TD> bv = Random<TD>(n, seed + 2);
  size_t xn = x_mode == epilogue::Broadcast::kFull     ? size_t{m} * n
              : x_mode == epilogue::Broadcast::kRow    ? n
              : x_mode == epilogue::Broadcast::kColumn ? m
                                                       : 1;
  const std::vector<TD> xv = Random<TD>(xn, seed + 3);
  DevBuf<T> da(a.size()), db(b.size());
  DevBuf<TD> dd(size_t{m} * n), dbias(n), dx(xn);
  da.Put(a);
  db.Put(b);
  dbias.Put(bv);
  dx.Put(xv);
  typename Op::Arguments args;
  args.problem = {m, n, k};
  args.a = da.p;
  args.b = db.p;
  args.d = dd.p;
  args.epilogue.act = act;
  args.epilogue.negative_slope = 0.2f;
  args.epilogue.alpha = alpha;
  args.epilogue.beta = beta;
  args.epilogue.bias = bias ? dbias.p : nullptr;
  args.epilogue.x_mode = x_mode;
  args.epilogue.x = x_mode == epilogue::Broadcast::kNone ? nullptr : dx.p;
  args.epilogue.ldx = n;
  Op op;
  ASSERT_TRUE(op.can_implement(args).ok()) << op.can_implement(args).ToString();
  const uint64_t ws_bytes = *Op::get_workspace_size(args);
  ASSERT_GT(ws_bytes, 0u);
  DevBuf<uint8_t> ws(ws_bytes);
  ASSERT_TRUE(op.initialize(args, ws.p).ok());
  const tessera::device::Stream stream;
  ASSERT_TRUE(op.run(stream).ok());
  ASSERT_TRUE(stream.Synchronize().ok()) << stream.Synchronize().ToString();
  std::vector<double> ref = Reference(a, LA::kColumnMajor, b, LB::kColumnMajor, m, n, k);
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      double v = alpha * ref[size_t{i} * n + j];
      if (bias) v += Val(bv[j]);
      switch (x_mode) {
        case epilogue::Broadcast::kFull:
          v += beta * Val(xv[size_t{i} * n + j]);
          break;
        case epilogue::Broadcast::kRow:
          v += beta * Val(xv[j]);
          break;
        case epilogue::Broadcast::kColumn:
          v += beta * Val(xv[i]);
          break;
        case epilogue::Broadcast::kScalar:
          v += beta * Val(xv[0]);
          break;
        default:
          break;
      }
      ref[size_t{i} * n + j] = Act(act, v, 0.2);
    }
  }
  ExpectMatches(dd.Get(), ref, k,
                "MIX M " + std::to_string(m) + " N " + std::to_string(n) + " K " +
                    std::to_string(k) + " act " + std::to_string(static_cast<int>(act)));
}

TEST(GemmMatmulEpilogue, ActivationsAndBias) {
  using epilogue::Activation;
  using epilogue::Broadcast;
  for (Activation act : {Activation::kNone, Activation::kRelu, Activation::kGelu, Activation::kSilu,
                         Activation::kLeakyRelu}) {
    RunMix<float, RowMajor, RowMajor, float>(255, 300, 17, act, true, Broadcast::kNone, 1, 1, 11);
    RunMix<half, RowMajor, ColumnMajor, half>(17, 15, 64, act, true, Broadcast::kNone, 1, 1, 12);
    RunMix<bfloat16, ColumnMajor, RowMajor, bfloat16>(129, 16, 100, act, false, Broadcast::kNone, 1,
                                                      1, 13);
  }
  RunMix<int8_t, RowMajor, RowMajor, int32_t>(33, 47, 300, Activation::kRelu, true,
                                              Broadcast::kNone, 1, 1, 14);
  // Many blocks per group: the workspace ring wraps, so slots are reused only once both AIVs
  // freed them.
  RunMix<half, RowMajor, RowMajor, half>(1000, 1000, 17, Activation::kRelu, true, Broadcast::kNone,
                                         1, 1, 15);
}

TEST(GemmMatmulEpilogue, ResidualBroadcasts) {
  using epilogue::Activation;
  using epilogue::Broadcast;
  for (Broadcast x : {Broadcast::kFull, Broadcast::kRow, Broadcast::kColumn, Broadcast::kScalar}) {
    RunMix<float, RowMajor, RowMajor, float>(130, 270, 33, Activation::kNone, false, x, 0.5f, -2.0f,
                                             21);
    RunMix<half, ColumnMajor, ColumnMajor, half>(31, 17, 16, Activation::kNone, true, x, 2.0f,
                                                 0.25f, 22);
    RunMix<int8_t, RowMajor, ColumnMajor, int32_t>(17, 33, 70, Activation::kNone, false, x, 3.0f,
                                                   -1.0f, 23);
  }
}

TEST(GemmDeviceAdapter, RejectsBadArguments) {
  using Op = device::DeviceGemm<Basic<float, RowMajor, RowMajor, float>>;
  DevBuf<float> buf(64);
  Op::Arguments args;
  args.problem = {4, 4, 0};
  args.a = args.b = buf.p;
  args.d = buf.p;
  Status s = Op::can_implement(args);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("M, N and K must be >= 1"), std::string::npos)
      << s.ToString();
  args.problem = {4, 4, 4};
  args.b = nullptr;
  s = Op::can_implement(args);
  EXPECT_NE(std::string(s.message()).find("B is null"), std::string::npos) << s.ToString();
  args.b = buf.p;
  args.lda = 3;
  s = Op::can_implement(args);
  EXPECT_NE(std::string(s.message()).find("lda 3 is below the row length 4"), std::string::npos)
      << s.ToString();
  args.lda = 0;
  args.batch.rank = 1;
  args.batch.dims[0] = 0;
  s = Op::can_implement(args);
  EXPECT_NE(std::string(s.message()).find("batch dimension 0 is 0"), std::string::npos)
      << s.ToString();
  Op op;
  s = op.run();
  EXPECT_NE(std::string(s.message()).find("before initialize"), std::string::npos) << s.ToString();

  using MixOp = device::DeviceGemm<Mix<int8_t, RowMajor, RowMajor, int32_t>>;
  MixOp::Arguments margs;
  margs.problem = {4, 4, 4};
  margs.a = reinterpret_cast<const int8_t*>(buf.p);
  margs.b = reinterpret_cast<const int8_t*>(buf.p);
  margs.d = reinterpret_cast<int32_t*>(buf.p);
  margs.epilogue.act = epilogue::Activation::kGelu;
  s = MixOp::can_implement(margs);
  EXPECT_NE(std::string(s.message()).find("none and relu only"), std::string::npos) << s.ToString();
  margs.epilogue.act = epilogue::Activation::kNone;
  MixOp mop;
  s = mop.initialize(margs, nullptr);
  EXPECT_NE(std::string(s.message()).find("bytes of workspace; got null"), std::string::npos)
      << s.ToString();
}

}  // namespace
}  // namespace tessera::gemm

namespace tessera::gemm {
namespace {

// The 256 x 512 blocks of LargeTiles on the native profile: tails of the block, of the L0 and L1 K
// steps and m == 1, every layout, a MIX epilogue and checked mode; ascend910b cannot hold them and
// says which buffer is short.
TEST(GemmLargeTiles, NativeProfile) {
  ASSERT_TRUE(tessera::device::SetProfile("native").ok());
  const uint32_t shapes[][3] = {{1, 600, 300}, {255, 513, 129}, {257, 17, 1000}, {600, 1100, 257}};
  for (const auto& s : shapes) {
    RunBasic<float, RowMajor, RowMajor, float, LargeBasic<float, RowMajor, RowMajor, float>>(
        s[0], s[1], s[2], 90);
    RunBasic<float, ColumnMajor, ColumnMajor, float,
             LargeBasic<float, ColumnMajor, ColumnMajor, float>>(s[0], s[1], s[2], 91);
    RunBasic<bfloat16, RowMajor, ColumnMajor, bfloat16,
             LargeBasic<bfloat16, RowMajor, ColumnMajor, bfloat16>>(s[0], s[1], s[2], 92);
    RunBasic<half, ColumnMajor, RowMajor, half, LargeBasic<half, ColumnMajor, RowMajor, half>>(
        s[0], s[1], s[2], 93);
  }
  RunMix<bfloat16, RowMajor, RowMajor, bfloat16, LargeMix<bfloat16, RowMajor, RowMajor, bfloat16>>(
      300, 700, 300, epilogue::Activation::kRelu, true, epilogue::Broadcast::kNone, 1, 0, 94);
  const bool was = tessera::device::CheckedMode();
  tessera::device::SetCheckedMode(true);
  RunBasic<float, RowMajor, ColumnMajor, float, LargeBasic<float, RowMajor, ColumnMajor, float>>(
      300, 520, 140, 95);
  RunMix<float, ColumnMajor, RowMajor, float, LargeMix<float, ColumnMajor, RowMajor, float>>(
      260, 530, 200, epilogue::Activation::kSilu, true, epilogue::Broadcast::kRow, 1, 1, 96);
  tessera::device::SetCheckedMode(was);

  ASSERT_TRUE(tessera::device::SetProfile("ascend910b").ok());
  const Status s =
      LargeMmad<float, RowMajor, RowMajor, float>::can_implement(tessera::device::CurrentArch());
  ASSERT_TRUE(tessera::device::SetProfile("native").ok());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("L1 needs 786432 bytes; profile ascend910b has 524288"),
            std::string::npos)
      << s.ToString();
}

// Checked mode accepts the ping-pong event protocol (set in the constructor, waited in the
// destructor), the flag hand-off of the MIX kernel and every buffer extent; on both profiles.
TEST(GemmCheckedMode, BasicAndMixKernelsRunClean) {
  const bool was = tessera::device::CheckedMode();
  tessera::device::SetCheckedMode(true);
  for (const char* profile : {"native", "ascend910b"}) {
    ASSERT_TRUE(tessera::device::SetProfile(profile).ok());
    RunBasic<half, ColumnMajor, RowMajor, half>(33, 47, 300, 31);
    RunBasic<float, ColumnMajor, RowMajor, float>(129, 31, 45, 32);
    RunBasic<int8_t, ColumnMajor, RowMajor, int32_t>(47, 33, 70, 33);
    // One AIC through many blocks with more K tiles than L1 stages (K walked both ways).
    RunBasic<float, RowMajor, RowMajor, float>(300, 40, 3 * DefaultTiles<float>::L1::K + 5, 35, 1);
    RunMix<bfloat16, RowMajor, ColumnMajor, bfloat16>(300, 47, 40, epilogue::Activation::kSilu,
                                                      true, epilogue::Broadcast::kRow, 1, 1, 34);
  }
  ASSERT_TRUE(tessera::device::SetProfile("native").ok());
  tessera::device::SetCheckedMode(was);
}

}  // namespace
}  // namespace tessera::gemm

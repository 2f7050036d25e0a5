// Batched matmuls as the vendor's samples write them: host layouts through SetALayout /
// SetBLayout / SetCLayout / SetBatchNum or SetBatchInfoForNormal, kernels calling IterateBatch
// (BSNGD with a transposed B, NORMAL with a broadcast A and per-batch or shared bias) and
// IterateNBatch + GetBatchTensorC (NORMAL and BSNGD C). Random data, odd sizes, double references.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"
#include "lib/matmul_intf.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tessera/device/stream.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace {

namespace mt = matmul_tiling;

constexpr MatmulConfig kBiasShared = GetMMConfig<MatmulConfigMode::CONFIG_NORM>(
    MatmulBatchParams{true, BatchMode::BATCH_LESS_THAN_L1, false});

__aicore__ inline void CopyTiling(TCubeTiling* tiling, __gm__ uint8_t* tilingGM) {
  uint32_t* ptr = reinterpret_cast<uint32_t*>(tiling);
  auto tiling32 = reinterpret_cast<__gm__ uint32_t*>(tilingGM);
  for (uint32_t i = 0; i < sizeof(TCubeTiling) / sizeof(uint32_t); i++, ptr++)
    *ptr = *(tiling32 + i);
}

template <LayoutMode L, bool TB>
using BatchMm =
    AscendC::Matmul<AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half, false, L>,
                    AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half, TB, L>,
                    AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float, false, L>,
                    AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>>;

// BSNGD: one IterateBatch per B index over the N*G heads, B transposed (S x D = N x K).
__global__ __cube__ void bsngd_batch(__gm__ uint8_t* a, __gm__ uint8_t* b, __gm__ uint8_t* c,
                                     __gm__ uint8_t* tilingGm) {
  TCubeTiling t;
  CopyTiling(&t, tilingGm);
  AscendC::TPipe pipe;
  BatchMm<LayoutMode::BSNGD, true> mm;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
  AscendC::GlobalTensor<half> aG, bG;
  AscendC::GlobalTensor<float> cG;
  aG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a));
  bG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b));
  cG.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(c));
  const int heads = t.ALayoutInfoN * t.ALayoutInfoG;
  for (int bi = 0; bi < t.ALayoutInfoB; ++bi) {
    mm.SetTensorA(aG[bi * t.ALayoutInfoS * heads * t.ALayoutInfoD]);
    mm.SetTensorB(bG[bi * t.BLayoutInfoS * heads * t.BLayoutInfoD], true);
    mm.IterateBatch(cG[bi * t.CLayoutInfoS1 * heads * t.CLayoutInfoS2], heads, heads, false);
  }
  mm.End();
}

// NORMAL: batchA A matrices broadcast over batchB B matrices, bias per product.
__global__ __cube__ void normal_batch(__gm__ uint8_t* a, __gm__ uint8_t* b, __gm__ uint8_t* bias,
                                      __gm__ uint8_t* c, __gm__ uint8_t* tilingGm, uint32_t batchA,
                                      uint32_t batchB) {
  TCubeTiling t;
  CopyTiling(&t, tilingGm);
  AscendC::TPipe pipe;
  BatchMm<LayoutMode::NORMAL, false> mm;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
  AscendC::GlobalTensor<half> aG, bG;
  AscendC::GlobalTensor<float> cG, biasG;
  aG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a));
  bG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b));
  cG.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(c));
  biasG.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(bias));
  mm.SetTensorA(aG);
  mm.SetTensorB(bG);
  mm.SetBias(biasG);
  mm.IterateBatch(cG, batchA, batchB, false);
  mm.End();
}

// IterateNBatch: `rounds` rounds of `batch` products into the workspace, one shared bias row;
// GetBatchTensorC then hands out each round's C, copied to `c`.
__global__ __cube__ void n_batch(__gm__ uint8_t* a, __gm__ uint8_t* b, __gm__ uint8_t* bias,
                                 __gm__ uint8_t* work, __gm__ uint8_t* c, __gm__ uint8_t* tilingGm,
                                 uint32_t rounds, uint32_t batch) {
  TCubeTiling t;
  CopyTiling(&t, tilingGm);
  AscendC::TPipe pipe;
  AscendC::Matmul<
      AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half, false, LayoutMode::NORMAL>,
      AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half, false, LayoutMode::NORMAL>,
      AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float, false, LayoutMode::NORMAL>,
      AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>, kBiasShared>
      mm;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
  AscendC::GlobalTensor<half> aG, bG;
  AscendC::GlobalTensor<float> wG, biasG;
  aG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a));
  bG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b));
  wG.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(work));
  biasG.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(bias));
  mm.SetTensorA(aG);
  mm.SetTensorB(bG);
  mm.SetBias(biasG);
  mm.SetWorkspace(wG);
  mm.template IterateNBatch<false, true>(rounds, batch, batch, false);
  mm.WaitIterateBatch();
  float* out = reinterpret_cast<__gm__ float*>(c);
  const uint32_t roundElems = batch * t.singleCoreM * t.singleCoreN;
  for (uint32_t r = 0; r < rounds; ++r) {
    AscendC::GlobalTensor<float> got = mm.template GetBatchTensorC<false>(batch, batch);
    for (uint32_t i = 0; i < roundElems; ++i)
      out[r * roundElems + i] = got.GetValue(i);
  }
  mm.End();
}

// BSNGD IterateNBatch: `rounds` rounds of `batch` heads (B = N = 1, G = rounds * batch) into the
// workspace; each round's C from GetBatchTensorC, read at its BSNGD positions, is copied to `c`.
__global__ __cube__ void bsngd_n_batch(__gm__ uint8_t* a, __gm__ uint8_t* b, __gm__ uint8_t* work,
                                       __gm__ uint8_t* c, __gm__ uint8_t* tilingGm, uint32_t rounds,
                                       uint32_t batch) {
  TCubeTiling t;
  CopyTiling(&t, tilingGm);
  AscendC::TPipe pipe;
  BatchMm<LayoutMode::BSNGD, false> mm;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
  AscendC::GlobalTensor<half> aG, bG;
  AscendC::GlobalTensor<float> wG;
  aG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a));
  bG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b));
  wG.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(work));
  mm.SetTensorA(aG);
  mm.SetTensorB(bG);
  mm.SetWorkspace(wG);
  mm.IterateNBatch(rounds, batch, batch, false);
  float* out = reinterpret_cast<__gm__ float*>(c);
  const uint32_t heads = t.CLayoutInfoG, s2 = t.CLayoutInfoS2;
  for (uint32_t r = 0; r < rounds; ++r) {
    AscendC::GlobalTensor<float> got = mm.GetBatchTensorC(batch, batch);
    for (uint32_t m = 0; m < static_cast<uint32_t>(t.CLayoutInfoS1); ++m)
      for (uint32_t h = 0; h < batch; ++h)
        for (uint32_t n = 0; n < s2; ++n)
          out[(m * heads + r * batch + h) * s2 + n] = got.GetValue((m * heads + h) * s2 + n);
  }
  mm.End();
}

std::vector<uint8_t> BatchTiling(int32_t m, int32_t n, int32_t k, bool transB, bool bias,
                                 const std::function<void(mt::MultiCoreMatmulTiling&)>& layouts,
                                 int32_t orgN = 0) {
  mt::MultiCoreMatmulTiling api(*platform_ascendc::PlatformAscendCManager::GetInstance());
  api.SetDim(1);
  EXPECT_EQ(api.SetAType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16), 0);
  EXPECT_EQ(api.SetBType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16, transB),
            0);
  EXPECT_EQ(api.SetCType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT), 0);
  EXPECT_EQ(api.SetBiasType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT), 0);
  api.SetShape(m, n, k);
  api.SetOrgShape(m, orgN > 0 ? orgN : n, k);
  api.EnableBias(bias);
  api.SetBufferSpace(-1, -1, -1);
  layouts(api);
  optiling::TCubeTiling tiling;
  EXPECT_EQ(api.GetTiling(tiling), 0) << api.GetErrorInfo();
  std::vector<uint8_t> buf(tiling.GetDataSize());
  tiling.SaveToBuffer(buf.data(), buf.size());
  return buf;
}

std::vector<half> RandomHalf(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<half> v(n);
  for (auto& x : v)
    x = half(u(rng));
  return v;
}

template <class T>
void* ToDevice(const std::vector<T>& v) {
  auto p = tessera::device::Malloc(std::max<size_t>(v.size() * sizeof(T), 32));
  EXPECT_TRUE(p.ok());
  if (!v.empty()) std::memcpy(*p, v.data(), v.size() * sizeof(T));
  return *p;
}

float* NewC(size_t count) {
  auto p = tessera::device::Malloc(count * sizeof(float));
  EXPECT_TRUE(p.ok());
  std::memset(*p, 0x7f, count * sizeof(float));
  return static_cast<float*>(*p);
}

double F(half h) {
  return static_cast<double>(static_cast<float>(h));
}

void ExpectNear(const float* got, const std::vector<double>& ref, int32_t k) {
  const double tol = k < 2048 ? 1.0 / 256 : 1.0 / 128;
  for (size_t i = 0; i < ref.size(); ++i)
    ASSERT_NEAR(got[i], ref[i], tol * std::max(1.0, std::fabs(ref[i]))) << "element " << i;
}

template <class Kernel, class... Args>
void LaunchCube(Kernel kernel, Args... args) {
  auto stream = tessera::device::Stream::Create();
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE(tessera::device::Launch(
                  tessera::device::LaunchConfig{1, tessera::device::KernelType::kAic, "bmm", true},
                  kernel, *stream, args...)
                  .ok());
  ASSERT_TRUE(stream->Synchronize().ok()) << stream->GetError().message();
}

TEST(CompatMatmulBatch, BsngdWithTransposedB) {
  const int32_t B = 2, N = 1, G = 3, M = 17, NN = 23, K = 40;
  std::mt19937 rng(11);
  const std::vector<half> a = RandomHalf(size_t{B} * M * N * G * K, rng);
  const std::vector<half> b = RandomHalf(size_t{B} * NN * N * G * K, rng);
  const std::vector<uint8_t> tiling = BatchTiling(M, NN, K, true, false, [&](auto& api) {
    EXPECT_EQ(api.SetALayout(B, M, N, G, K), 0);
    EXPECT_EQ(api.SetBLayout(B, NN, N, G, K), 0);
    EXPECT_EQ(api.SetCLayout(B, M, N, G, NN), 0);
    EXPECT_EQ(api.SetBatchNum(N * G), 0);
  });
  const auto* t = reinterpret_cast<const TCubeTiling*>(tiling.data());
  EXPECT_EQ(t->ALayoutInfoG, G);
  EXPECT_EQ(t->CLayoutInfoS2, NN);
  EXPECT_EQ(t->BatchNum, N * G);
  // C[b, m, h, n] = sum_k A[b, m, h, k] * B[b, n, h, k]
  const int32_t H = N * G;
  std::vector<double> ref(size_t{B} * M * H * NN);
  for (int bi = 0; bi < B; ++bi)
    for (int m = 0; m < M; ++m)
      for (int h = 0; h < H; ++h)
        for (int n = 0; n < NN; ++n) {
          double s = 0;
          for (int kk = 0; kk < K; ++kk)
            s += F(a[((size_t(bi) * M + m) * H + h) * K + kk]) *
                 F(b[((size_t(bi) * NN + n) * H + h) * K + kk]);
          ref[((size_t(bi) * M + m) * H + h) * NN + n] = s;
        }
  void* da = ToDevice(a);
  void* db = ToDevice(b);
  void* dt = ToDevice(tiling);
  float* c = NewC(ref.size());
  LaunchCube(bsngd_batch, static_cast<uint8_t*>(da), static_cast<uint8_t*>(db),
             reinterpret_cast<uint8_t*>(c), static_cast<uint8_t*>(dt));
  ExpectNear(c, ref, K);
  for (void* x : {da, db, dt, static_cast<void*>(c)})
    (void)tessera::device::Free(x);
}

void CheckNormalWithBias(int32_t orgN) {
  const int32_t M = 9, NN = 31, K = 20, batchA = 1, batchB = 3;
  std::mt19937 rng(12);
  const std::vector<half> a = RandomHalf(size_t{batchA} * M * K, rng);
  const std::vector<half> b = RandomHalf(size_t{batchB} * K * NN, rng);
  std::vector<float> bias(size_t{batchB} * NN);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& x : bias)
    x = u(rng);
  const std::vector<uint8_t> tiling = BatchTiling(
      M, NN, K, false, true,
      [&](auto& api) { EXPECT_EQ(api.SetBatchInfoForNormal(batchA, batchB, M, NN, K), 0); }, orgN);
  EXPECT_EQ(reinterpret_cast<const TCubeTiling*>(tiling.data())->singleCoreN, NN);
  // The vendor packs the per-product bias rows singleCoreN apart (not orgN).
  std::vector<double> ref(size_t{batchB} * M * NN);
  for (int c = 0; c < batchB; ++c)
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < NN; ++n) {
        double s = bias[size_t(c) * NN + n];
        for (int kk = 0; kk < K; ++kk)
          s += F(a[size_t(m) * K + kk]) * F(b[(size_t(c) * K + kk) * NN + n]);
        ref[(size_t(c) * M + m) * NN + n] = s;
      }
  void* da = ToDevice(a);
  void* db = ToDevice(b);
  void* dbias = ToDevice(bias);
  void* dt = ToDevice(tiling);
  float* c = NewC(ref.size());
  LaunchCube(normal_batch, static_cast<uint8_t*>(da), static_cast<uint8_t*>(db),
             static_cast<uint8_t*>(dbias), reinterpret_cast<uint8_t*>(c), static_cast<uint8_t*>(dt),
             uint32_t{batchA}, uint32_t{batchB});
  ExpectNear(c, ref, K);
  for (void* x : {da, db, dbias, dt, static_cast<void*>(c)})
    (void)tessera::device::Free(x);
}

TEST(CompatMatmulBatch, NormalBroadcastsTheSmallerBatchAndAddsBiasPerProduct) {
  CheckNormalWithBias(0);
}

TEST(CompatMatmulBatch, PerProductBiasRowsAreSingleCoreNApartWhenOrgNIsWider) {
  CheckNormalWithBias(45);
}

TEST(CompatMatmulBatch, IterateNBatchRoundsWithSharedBias) {
  const int32_t M = 7, NN = 33, K = 31, batch = 2, rounds = 3;
  const int32_t total = batch * rounds;
  std::mt19937 rng(13);
  const std::vector<half> a = RandomHalf(size_t{total} * M * K, rng);
  const std::vector<half> b = RandomHalf(size_t{total} * K * NN, rng);
  std::vector<float> bias(NN);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& x : bias)
    x = u(rng);
  const std::vector<uint8_t> tiling = BatchTiling(M, NN, K, false, true, [&](auto& api) {
    EXPECT_EQ(api.SetBatchInfoForNormal(total, total, M, NN, K), 0);
    EXPECT_EQ(api.SetBatchNum(batch), 0);
  });
  EXPECT_EQ(reinterpret_cast<const TCubeTiling*>(tiling.data())->BatchNum, batch);
  std::vector<double> ref(size_t{total} * M * NN);
  for (int c = 0; c < total; ++c)
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < NN; ++n) {
        double s = bias[n];
        for (int kk = 0; kk < K; ++kk)
          s += F(a[(size_t(c) * M + m) * K + kk]) * F(b[(size_t(c) * K + kk) * NN + n]);
        ref[(size_t(c) * M + m) * NN + n] = s;
      }
  void* da = ToDevice(a);
  void* db = ToDevice(b);
  void* dbias = ToDevice(bias);
  void* dt = ToDevice(tiling);
  float* work = NewC(ref.size());
  float* c = NewC(ref.size());
  LaunchCube(n_batch, static_cast<uint8_t*>(da), static_cast<uint8_t*>(db),
             static_cast<uint8_t*>(dbias), reinterpret_cast<uint8_t*>(work),
             reinterpret_cast<uint8_t*>(c), static_cast<uint8_t*>(dt), uint32_t{rounds},
             uint32_t{batch});
  ExpectNear(work, ref, K);
  ExpectNear(c, ref, K);
  for (void* x : {da, db, dbias, dt, static_cast<void*>(work), static_cast<void*>(c)})
    (void)tessera::device::Free(x);
}

// A BSNGD C spreads a round's heads over the rows of the whole layout: GetBatchTensorC's tensor
// must reach the round's last element (checked mode refuses a read past a tensor's extent).
TEST(CompatMatmulBatch, IterateNBatchRoundsInBsngdLayout) {
  const int32_t G = 4, M = 5, NN = 19, K = 23, batch = 2, rounds = 2;
  std::mt19937 rng(14);
  const std::vector<half> a = RandomHalf(size_t{M} * G * K, rng);
  const std::vector<half> b = RandomHalf(size_t{K} * G * NN, rng);
  const std::vector<uint8_t> tiling = BatchTiling(M, NN, K, false, false, [&](auto& api) {
    EXPECT_EQ(api.SetALayout(1, M, 1, G, K), 0);
    EXPECT_EQ(api.SetBLayout(1, K, 1, G, NN), 0);
    EXPECT_EQ(api.SetCLayout(1, M, 1, G, NN), 0);
    EXPECT_EQ(api.SetBatchNum(batch), 0);
  });
  // C[m, h, n] = sum_k A[m, h, k] * B[k, h, n]
  std::vector<double> ref(size_t{M} * G * NN);
  for (int m = 0; m < M; ++m)
    for (int h = 0; h < G; ++h)
      for (int n = 0; n < NN; ++n) {
        double s = 0;
        for (int kk = 0; kk < K; ++kk)
          s += F(a[(size_t(m) * G + h) * K + kk]) * F(b[(size_t(kk) * G + h) * NN + n]);
        ref[(size_t(m) * G + h) * NN + n] = s;
      }
  const bool previous = tessera::device::CheckedMode();
  for (bool checked : {false, true}) {
    tessera::device::SetCheckedMode(checked);
    void* da = ToDevice(a);
    void* db = ToDevice(b);
    void* dt = ToDevice(tiling);
    float* work = NewC(ref.size());
    float* c = NewC(ref.size());
    LaunchCube(bsngd_n_batch, static_cast<uint8_t*>(da), static_cast<uint8_t*>(db),
               reinterpret_cast<uint8_t*>(work), reinterpret_cast<uint8_t*>(c),
               static_cast<uint8_t*>(dt), uint32_t{rounds}, uint32_t{batch});
    ExpectNear(work, ref, K);
    ExpectNear(c, ref, K);
    for (void* x : {da, db, dt, static_cast<void*>(work), static_cast<void*>(c)})
      (void)tessera::device::Free(x);
  }
  tessera::device::SetCheckedMode(previous);
}

TEST(CompatMatmulBatch, BadBatchCountsAndLayoutsAreRefused) {
  mt::MultiCoreMatmulTiling api(*platform_ascendc::PlatformAscendCManager::GetInstance());
  EXPECT_EQ(api.SetALayout(1, 0, 1, 1, 1), -1);
  EXPECT_EQ(api.SetBatchNum(0), -1);
  EXPECT_EQ(api.SetBatchInfoForNormal(2, 3, 4, 4, 4), -1);
  // A kernel asking for batch counts that do not divide one another fails with the reason.
  const int32_t M = 4, NN = 16, K = 16;
  const std::vector<uint8_t> tiling = BatchTiling(M, NN, K, false, true, [&](auto& api2) {
    EXPECT_EQ(api2.SetBatchInfoForNormal(2, 2, M, NN, K), 0);
  });
  std::vector<half> a(size_t{3} * M * K, half(1.0f)), b(size_t{3} * K * NN, half(1.0f));
  std::vector<float> bias(size_t{3} * NN, 0.0f);
  void* da = ToDevice(a);
  void* db = ToDevice(b);
  void* dbias = ToDevice(bias);
  void* dt = ToDevice(tiling);
  float* c = NewC(size_t{3} * M * NN);
  auto stream = tessera::device::Stream::Create();
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE(tessera::device::Launch(
                  tessera::device::LaunchConfig{1, tessera::device::KernelType::kAic, "bad", true},
                  normal_batch, *stream, static_cast<uint8_t*>(da), static_cast<uint8_t*>(db),
                  static_cast<uint8_t*>(dbias), reinterpret_cast<uint8_t*>(c),
                  static_cast<uint8_t*>(dt), uint32_t{2}, uint32_t{3})
                  .ok());
  const auto st = stream->Synchronize();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("divide one another"), std::string::npos)
      << st.message();
  // Counts that divide one another but exceed the tiling's BatchNum (2) fail with the reason too.
  auto stream2 = tessera::device::Stream::Create();
  ASSERT_TRUE(stream2.ok());
  ASSERT_TRUE(tessera::device::Launch(
                  tessera::device::LaunchConfig{1, tessera::device::KernelType::kAic, "bad", true},
                  normal_batch, *stream2, static_cast<uint8_t*>(da), static_cast<uint8_t*>(db),
                  static_cast<uint8_t*>(dbias), reinterpret_cast<uint8_t*>(c),
                  static_cast<uint8_t*>(dt), uint32_t{1}, uint32_t{3})
                  .ok());
  const auto st2 = stream2->Synchronize();
  ASSERT_FALSE(st2.ok());
  EXPECT_NE(
      std::string(st2.message()).find("max(batchA, batchB) = 3 exceeds the tiling's BatchNum 2"),
      std::string::npos)
      << st2.message();
  for (void* x : {da, db, dbias, dt, static_cast<void*>(c)})
    (void)tessera::device::Free(x);
}

}  // namespace

// The vendor's high-level Matmul API as its samples write it: host tiling through
// matmul_tiling:: with the platform query, optiling::TCubeTiling serialised with SaveToBuffer, and
// kernels copying TCubeTiling from GM, registering with GetSysWorkSpacePtr() and computing with
// IterateAll / Iterate + GetTensorC (sync and async). Random data, odd sizes, double references.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"
#include "lib/matmul_intf.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tessera/device/stream.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace {

// The accumulator type the vendor's matmul kernels name with GetMmDstType (dav-2201).
static_assert(std::is_same_v<AscendC::GetMmDstType<half>::Type, float>);
static_assert(std::is_same_v<AscendC::GetMmDstType<bfloat16_t>::Type, float>);
static_assert(std::is_same_v<AscendC::GetMmDstType<float>::Type, float>);
static_assert(std::is_same_v<AscendC::GetMmDstType<int8_t>::Type, int32_t>);
static_assert(AscendC::Impl::QUEUE_DEPTH == 1);

// The vendor's matmul utilities Ceil / CeilAlign against long double arithmetic.
TEST(CompatMatmul, CeilAndCeilAlign) {
  std::mt19937_64 rng(41);
  for (int i = 0; i < 1000; ++i) {
    const int64_t a = static_cast<int64_t>(rng() % 100000),
                  b = static_cast<int64_t>(rng() % 97 + 1);
    const auto want = static_cast<int64_t>(std::ceil(static_cast<long double>(a) / b));
    EXPECT_EQ(AscendC::Ceil(a, b), want) << a << " / " << b;
    EXPECT_EQ(AscendC::CeilAlign(static_cast<uint32_t>(a), static_cast<uint32_t>(b)),
              static_cast<uint32_t>(want * b));
  }
}

// Configurations are constexpr values with the vendor's defaults.
static_assert(CFG_NORM.doNorm && !CFG_NORM.doMultiDataLoad && CFG_NORM.enUnitFlag, "CFG_NORM");
static_assert(!CFG_MDL.doNorm && CFG_MDL.doMultiDataLoad && !CFG_MDL.enUnitFlag, "CFG_MDL");
static_assert(GetMDLConfig(false, false, 2).doMTE2Preload == 2, "GetMDLConfig parameters");
constexpr MatmulShapeParams kShape = {128, 256, 64, 64, 128, 32};
constexpr MatmulConfig kCustom = GetMMConfig<MatmulConfigMode::CONFIG_MDL>(kShape);
static_assert(kCustom.doMultiDataLoad && kCustom.singleCoreN == 256 && kCustom.basicK == 32,
              "GetMMConfig applies its parameter groups to the template's configuration");
static_assert(sizeof(TCubeTiling) == 200 && sizeof(AscendC::tiling::TCubeTiling) == 200,
              "TCubeTiling is the vendor's 50 int32 fields");

namespace mt = matmul_tiling;

__aicore__ inline void CopyTiling(TCubeTiling* tiling, __gm__ uint8_t* tilingGM) {
  uint32_t* ptr = reinterpret_cast<uint32_t*>(tiling);
  auto tiling32 = reinterpret_cast<__gm__ uint32_t*>(tilingGM);
  for (uint32_t i = 0; i < sizeof(TCubeTiling) / sizeof(uint32_t); i++, ptr++)
    *ptr = *(tiling32 + i);
}

// 0: IterateAll, 1: Iterate + GetTensorC, 2: IterateAll<false> + WaitIterateAll,
// 3: REGIST with a null tiling, Init later.
template <int MODE, const auto& CFG, CubeFormat AF = CubeFormat::ND, CubeFormat CF = CubeFormat::ND>
__global__ __cube__ void cube_matmul(__gm__ uint8_t* a, __gm__ uint8_t* b, __gm__ uint8_t* bias,
                                     __gm__ uint8_t* c, __gm__ uint8_t* tilingGm) {
  TCubeTiling tiling;
  CopyTiling(&tiling, tilingGm);
  AscendC::TPipe pipe;
  AscendC::Matmul<AscendC::MatmulType<AscendC::TPosition::GM, AF, half>,
                  AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>,
                  AscendC::MatmulType<AscendC::TPosition::GM, CF, float>,
                  AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>, CFG>
      mm;
  // ND_ALIGN: C rows are N rounded up to 8 floats.
  const int32_t pitchC = CF == CubeFormat::ND_ALIGN ? (tiling.N + 7) / 8 * 8 : tiling.N;
  if constexpr (MODE == 3) {
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, (TCubeTiling*)nullptr);
    mm.Init(&tiling);
  } else {
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
  }
  if (GetSysWorkSpacePtr() == nullptr) return;
  const int32_t mBlocks = (tiling.M + tiling.singleCoreM - 1) / tiling.singleCoreM;
  const int32_t mi = AscendC::GetBlockIdx() % mBlocks, ni = AscendC::GetBlockIdx() / mBlocks;
  AscendC::GlobalTensor<half> aG, bG;
  AscendC::GlobalTensor<float> cG, biasG;
  aG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a) + mi * tiling.singleCoreM * tiling.Ka);
  bG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b) + ni * tiling.singleCoreN);
  cG.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(c) + mi * tiling.singleCoreM * pitchC +
                     ni * tiling.singleCoreN);
  biasG.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(bias) + ni * tiling.singleCoreN);
  const int tailM = std::min(tiling.M - mi * tiling.singleCoreM, tiling.singleCoreM);
  const int tailN = std::min(tiling.N - ni * tiling.singleCoreN, tiling.singleCoreN);
  if (tailM < tiling.singleCoreM || tailN < tiling.singleCoreN) mm.SetTail(tailM, tailN);
  mm.SetTensorA(aG);
  mm.SetTensorB(bG);
  if (tiling.isBias) mm.SetBias(biasG);
  if constexpr (MODE == 1) {
    while (mm.Iterate())
      mm.GetTensorC(cG);
  } else if constexpr (MODE == 2) {
    mm.template IterateAll<false>(cG, 0, false, true);
    mm.WaitIterateAll();
  } else {
    mm.IterateAll(cG);
  }
  mm.End();
}

// MIX (1 AIC : 2 AIV): each AIV is a client; C arrives in UB block by block through the
// asynchronous Iterate<false> / GetTensorC<false>, then goes to GM.
__global__ __mix__(1, 2) void mix_matmul(__gm__ uint8_t* a, __gm__ uint8_t* b, __gm__ uint8_t* c,
                                         __kfc_workspace__ __gm__ uint8_t* workspace,
                                         __gm__ uint8_t* tilingGm) {
  (void)workspace;
  TCubeTiling tiling;
  CopyTiling(&tiling, tilingGm);
  AscendC::TPipe pipe;
  AscendC::Matmul<AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>,
                  AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>,
                  AscendC::MatmulType<AscendC::TPosition::VECIN, CubeFormat::ND, float>>
      mm;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
  if (AscendC::GetBlockIdx() >= static_cast<uint32_t>(tiling.usedCoreNum)) return;
  const int32_t mBlocks = (tiling.M + tiling.singleCoreM - 1) / tiling.singleCoreM;
  const int32_t mi = AscendC::GetBlockIdx() % mBlocks, ni = AscendC::GetBlockIdx() / mBlocks;
  AscendC::GlobalTensor<half> aG, bG;
  aG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a) + mi * tiling.singleCoreM * tiling.Ka);
  bG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b) + ni * tiling.singleCoreN);
  float* cCore = reinterpret_cast<__gm__ float*>(c) + mi * tiling.singleCoreM * tiling.N +
                 ni * tiling.singleCoreN;
  const int tailM = std::min(tiling.M - mi * tiling.singleCoreM, tiling.singleCoreM);
  const int tailN = std::min(tiling.N - ni * tiling.singleCoreN, tiling.singleCoreN);
  mm.SetTail(tailM, tailN);
  mm.SetTensorA(aG);
  mm.SetTensorB(bG);
  AscendC::TQue<AscendC::TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, tiling.baseM * tiling.baseN * sizeof(float));
  mm.template Iterate<false>();
  const int mIter = (tailM + tiling.baseM - 1) / tiling.baseM;
  const int nIter = (tailN + tiling.baseN - 1) / tiling.baseN;
  for (int i = 0; i < mIter * nIter; ++i) {
    auto ub = q.AllocTensor<float>();
    mm.template GetTensorC<false>(ub);
    q.EnQue(ub);
    auto got = q.DeQue<float>();
    const int bi = tiling.iterateOrder == 0 ? i % mIter : i / nIter;
    const int bj = tiling.iterateOrder == 0 ? i / mIter : i % nIter;
    const int rows = std::min(tiling.baseM, tailM - bi * tiling.baseM);
    const int cols = std::min(tiling.baseN, tailN - bj * tiling.baseN);
    AscendC::PipeBarrier<PIPE_ALL>();
    for (int r = 0; r < rows; ++r)
      for (int col = 0; col < cols; ++col)
        cCore[(bi * tiling.baseM + r) * tiling.N + bj * tiling.baseN + col] =
            got.GetValue(r * tiling.baseN + col);
    q.FreeTensor(got);
  }
  mm.End();
}

// A constant tiling: the shape fixed at compile time, registered with a null tiling; the
// original shape comes from SetOrgShape, the core's tail from SetTail.
constexpr MatmulShapeParams kConstShape = {48, 64, 40, 16, 32, 16};
constexpr MatmulConfig kConstCfg = GetMMConfig<MatmulConfigMode::CONFIG_MDL>(kConstShape);
constexpr MatmulApiStaticTiling kConstTiling =
    AscendC::GetMatmulApiTiling<AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>,
                                AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>,
                                AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>,
                                AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>>(
        kConstCfg);
static_assert(kConstTiling.singleCoreM == 48 && kConstTiling.baseN == 32 &&
                  kConstTiling.stepKa == 1 && kConstTiling.usedCoreNum == -1,
              "GetMatmulApiTiling fixes the configuration's shapes");

__global__ __cube__ void const_tiling_matmul(__gm__ uint8_t* a, __gm__ uint8_t* b,
                                             __gm__ uint8_t* c, int32_t m, int32_t n, int32_t k) {
  AscendC::TPipe pipe;
  AscendC::Matmul<AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>,
                  AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>,
                  AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>,
                  AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>, kConstTiling>
      mm;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, (TCubeTiling*)nullptr);
  const int32_t mBlocks = (m + 47) / 48;
  const int32_t mi = AscendC::GetBlockIdx() % mBlocks, ni = AscendC::GetBlockIdx() / mBlocks;
  AscendC::GlobalTensor<half> aG, bG;
  AscendC::GlobalTensor<float> cG;
  aG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a) + mi * 48 * k);
  bG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b) + ni * 64);
  cG.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(c) + mi * 48 * n + ni * 64);
  mm.SetOrgShape(m, n, k);
  mm.SetTail(std::min(48, m - mi * 48), std::min(64, n - ni * 64), k);
  mm.SetTensorA(aG);
  mm.SetTensorB(bG);
  mm.IterateAll(cG);
  mm.End();
}

// A WaitIterateAll with no IterateAll<false> before it fails the kernel with the reason.
__global__ __cube__ void wait_without_iterate(__gm__ uint8_t* tilingGm) {
  TCubeTiling tiling;
  CopyTiling(&tiling, tilingGm);
  AscendC::TPipe pipe;
  AscendC::Matmul<AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>,
                  AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>,
                  AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>>
      mm;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
  mm.WaitIterateAll();
}

struct Problem {
  int32_t m, n, k;
  bool bias;
};

// The vendor samples' host code: the platform, the multi-core tiling, SaveToBuffer.
std::vector<uint8_t> VendorTiling(const Problem& p, mt::TPosition cPos, uint32_t dim,
                                  mt::CubeFormat aFormat = mt::CubeFormat::ND,
                                  mt::CubeFormat cFormat = mt::CubeFormat::ND) {
  auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance();
  EXPECT_NE(platform, nullptr);
  matmul_tiling::MultiCoreMatmulTiling api(*platform);
  api.SetDim(static_cast<int32_t>(dim));
  EXPECT_EQ(api.SetAType(mt::TPosition::GM, aFormat, mt::DataType::DT_FLOAT16, false), 0);
  EXPECT_EQ(api.SetBType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16, false),
            0);
  EXPECT_EQ(api.SetCType(cPos, cFormat, mt::DataType::DT_FLOAT), 0);
  EXPECT_EQ(api.SetBiasType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT), 0);
  api.SetOrgShape(p.m, p.n, p.k);
  api.SetShape(p.m, p.n, p.k);
  api.EnableBias(p.bias);
  api.SetBufferSpace(-1, -1, -1);
  optiling::TCubeTiling tilingData;
  EXPECT_EQ(api.GetTiling(tilingData), 0) << api.GetErrorInfo();
  std::vector<uint8_t> buf(tilingData.GetDataSize());
  tilingData.SaveToBuffer(buf.data(), buf.size());
  return buf;
}

struct Data {
  std::vector<half> a, b;
  std::vector<float> bias;
  std::vector<double> ref;
};

Data MakeData(const Problem& p, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Data d;
  std::vector<float> af(static_cast<size_t>(p.m) * p.k), bf(static_cast<size_t>(p.k) * p.n);
  for (auto& x : af)
    x = u(rng);
  for (auto& x : bf)
    x = u(rng);
  for (float x : af)
    d.a.push_back(half(x));
  for (float x : bf)
    d.b.push_back(half(x));
  d.bias.resize(p.n);
  for (auto& x : d.bias)
    x = u(rng);
  d.ref.assign(static_cast<size_t>(p.m) * p.n, 0.0);
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      double s = p.bias ? d.bias[j] : 0.0;
      for (int kk = 0; kk < p.k; ++kk)
        s += static_cast<double>(static_cast<float>(d.a[i * p.k + kk])) *
             static_cast<float>(d.b[kk * p.n + j]);
      d.ref[i * p.n + j] = s;
    }
  return d;
}

template <class T>
void* ToDevice(const std::vector<T>& v) {
  auto p = tessera::device::Malloc(std::max<size_t>(v.size() * sizeof(T), 32));
  EXPECT_TRUE(p.ok());
  if (!v.empty()) std::memcpy(*p, v.data(), v.size() * sizeof(T));
  return *p;
}

void ExpectClose(const float* c, const Data& d, const Problem& p) {
  const double tol = p.k < 2048 ? 1.0 / 256 : 1.0 / 128;
  for (size_t i = 0; i < d.ref.size(); ++i) {
    ASSERT_NEAR(c[i], d.ref[i], tol * std::max(1.0, std::fabs(d.ref[i])))
        << "element " << i << " of " << p.m << " x " << p.n << " x " << p.k;
  }
}

template <int MODE, const auto& CFG, CubeFormat AF = CubeFormat::ND, CubeFormat CF = CubeFormat::ND>
void RunCube(const Problem& p, uint32_t seed) {
  auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance();
  const auto hostFormat = [](CubeFormat f) { return static_cast<mt::CubeFormat>(f); };
  const std::vector<uint8_t> tilingBuf =
      VendorTiling(p, mt::TPosition::GM, platform->GetCoreNumAic(), hostFormat(AF), hostFormat(CF));
  const int32_t pitchC = CF == CubeFormat::ND_ALIGN ? (p.n + 7) / 8 * 8 : p.n;
  const auto* t = reinterpret_cast<const TCubeTiling*>(tilingBuf.data());
  ASSERT_GE(t->usedCoreNum, 1);
  const Data d = MakeData(p, seed);
  void* da = ToDevice(d.a);
  void* db = ToDevice(d.b);
  void* dbias = ToDevice(d.bias);
  void* dt = ToDevice(tilingBuf);
  const size_t cCount = static_cast<size_t>(p.m) * pitchC;
  auto dc = tessera::device::Malloc(cCount * sizeof(float));
  ASSERT_TRUE(dc.ok());
  std::memset(*dc, 0x7f, cCount * sizeof(float));  // pads must be written, not left
  auto stream = tessera::device::Stream::Create();
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE(tessera::device::Launch(
                  tessera::device::LaunchConfig{static_cast<uint32_t>(t->usedCoreNum),
                                                tessera::device::KernelType::kAic, "cube", true},
                  cube_matmul<MODE, CFG, AF, CF>, *stream, static_cast<uint8_t*>(da),
                  static_cast<uint8_t*>(db), static_cast<uint8_t*>(dbias),
                  static_cast<uint8_t*>(*dc), static_cast<uint8_t*>(dt))
                  .ok());
  ASSERT_TRUE(stream->Synchronize().ok()) << stream->GetError().message();
  const float* c = static_cast<const float*>(*dc);
  std::vector<float> dense(d.ref.size());
  for (int i = 0; i < p.m; ++i) {
    for (int j = 0; j < pitchC; ++j) {
      const float v = c[static_cast<size_t>(i) * pitchC + j];
      if (j < p.n) {
        dense[static_cast<size_t>(i) * p.n + j] = v;
      } else {
        ASSERT_EQ(v, 0.0f) << "ND_ALIGN pad " << i << ", " << j;
      }
    }
  }
  ExpectClose(dense.data(), d, p);
  for (void* x : {da, db, dbias, dt, *dc})
    (void)tessera::device::Free(x);
}

TEST(CompatMatmul, PlatformReportsThe910bProfile) {
  auto* p = platform_ascendc::PlatformAscendCManager::GetInstance("Ascend910B1");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p, platform_ascendc::PlatformAscendCManager::GetInstance());
  EXPECT_EQ(platform_ascendc::PlatformAscendCManager::GetInstance("Ascend310P3"), nullptr);
  EXPECT_EQ(p->GetCoreNumAic(), 24u);
  EXPECT_EQ(p->GetCoreNumAiv(), 48u);
  EXPECT_EQ(p->GetSocVersion(), platform_ascendc::SocVersion::ASCEND910B);
  EXPECT_EQ(p->GetLibApiWorkSpaceSize(), 16u * 1024 * 1024);
  uint64_t l1 = 0, l0c = 0, ub = 0;
  p->GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1);
  p->GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0c);
  p->GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
  EXPECT_EQ(l1, 512u * 1024 - 256);
  EXPECT_EQ(l0c, 128u * 1024);
  EXPECT_EQ(ub, 192u * 1024 - 256);
  EXPECT_EQ(p->CalcTschBlockDim(7, 24, 48), 4u);
}

TEST(CompatMatmul, HostTilingMatchesKernelStructAndRefusesWhatItCannotRun) {
  const Problem p{31, 97, 33, true};
  const std::vector<uint8_t> buf = VendorTiling(p, mt::TPosition::GM, 24);
  TCubeTiling kernelStruct;
  auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance();
  matmul_tiling::MultiCoreMatmulTiling api(*platform);
  api.SetDim(24);
  api.SetAType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16);
  api.SetBType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16);
  api.SetCType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
  api.SetBiasType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
  api.SetShape(p.m, p.n, p.k);
  api.SetOrgShape(p.m, p.n, p.k);
  api.EnableBias(true);
  ASSERT_EQ(api.GetTiling(kernelStruct), 0);
  EXPECT_EQ(std::memcmp(&kernelStruct, buf.data(), sizeof(TCubeTiling)), 0);
  EXPECT_EQ(kernelStruct.M, 31);
  EXPECT_EQ(kernelStruct.isBias, 1);
  int32_t dim = 0, mDim = 0, nDim = 0, sm = 0, sn = 0, sk = 0;
  ASSERT_EQ(api.GetCoreNum(dim, mDim, nDim), 0);
  ASSERT_EQ(api.GetSingleShape(sm, sn, sk), 0);
  EXPECT_EQ(dim, kernelStruct.usedCoreNum);
  EXPECT_EQ(mDim * nDim, dim);
  EXPECT_EQ(sk, 33);
  EXPECT_EQ(api.GetBaseM(), kernelStruct.baseM);

  optiling::TCubeTiling host;
  host.set_baseK(48);
  EXPECT_EQ(host.get_baseK(), 48);
  uint8_t small[100];
  std::memset(small, 0x5a, sizeof(small));
  host.SaveToBuffer(small, sizeof(small));  // too small: nothing written
  EXPECT_EQ(small[0], 0x5a);

  matmul_tiling::MatmulApiTiling single(*platform);
  EXPECT_EQ(single.SetAType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT8_E4M3FN),
            -1);
  EXPECT_EQ(
      single.SetAType(mt::TPosition::GM, mt::CubeFormat::COLUMN_MAJOR, mt::DataType::DT_FLOAT16),
      -1);
  EXPECT_EQ(single.GetTiling(host), -1);  // no types set
  EXPECT_NE(single.GetErrorInfo().find("SetAType"), std::string::npos) << single.GetErrorInfo();
}

// Large products are split over the cores as the vendor's tiling splits them, so kernels written
// for its split (the introduction sample assumes M halves) read the right blocks.
TEST(CompatMatmul, MultiCoreSplitFollowsTheVendor) {
  const auto split = [](const Problem& p, uint32_t dim) {
    const std::vector<uint8_t> buf = VendorTiling(p, mt::TPosition::GM, dim);
    TCubeTiling t;
    std::memcpy(&t, buf.data(), sizeof(t));
    return std::make_pair((t.M + t.singleCoreM - 1) / t.singleCoreM,
                          (t.N + t.singleCoreN - 1) / t.singleCoreN);
  };
  EXPECT_EQ(split({512, 512, 128, false}, 2), std::make_pair(2, 1));
  EXPECT_EQ(split({128, 7679, 128, true}, 24), std::make_pair(1, 24));
  EXPECT_EQ(split({4097, 255, 64, true}, 24).first * split({4097, 255, 64, true}, 24).second, 24);

  // ScheduleType::N_BUFFER_33: at most 3 base blocks of M and of K per core.
  auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance();
  const auto nbuffer = [&](int32_t m, int32_t n, int32_t k, TCubeTiling* out) {
    mt::MultiCoreMatmulTiling api(*platform);
    api.SetDim(24);
    api.SetAType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16);
    api.SetBType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16);
    api.SetCType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
    api.SetShape(m, n, k);
    api.SetOrgShape(m, n, k);
    api.SetMatmulConfigParams(1, false, mt::ScheduleType::N_BUFFER_33, mt::MatrixTraverse::NOSET,
                              false);
    return api.GetTiling(*out);
  };
  TCubeTiling t;
  ASSERT_EQ(nbuffer(256, 512, 192, &t), 0);
  EXPECT_EQ(t.singleCoreM, 256);
  EXPECT_EQ(t.singleCoreN, 256);
  EXPECT_EQ(t.usedCoreNum, 2);
  EXPECT_EQ(nbuffer(256, 512, 193, &t), -1);  // K needs 4 base blocks
}

TEST(CompatMatmul, CubeIterateAllOddSizes) {
  RunCube<0, CFG_NORM>({31, 97, 33, true}, 1);
  RunCube<0, CFG_MDL>({1, 15, 17, false}, 2);
  RunCube<0, kCustom>({255, 129, 70, true}, 3);
}

// A VECTOR A (GEMV, M = 1) and an ND_ALIGN C (rows padded to 32 bytes, pads zero).
TEST(CompatMatmul, VectorAAndNdAlignC) {
  RunCube<0, CFG_NORM, CubeFormat::VECTOR>({1, 97, 255, true}, 8);
  RunCube<0, CFG_NORM, CubeFormat::ND, CubeFormat::ND_ALIGN>({70, 7679, 40, true}, 9);
  RunCube<1, CFG_NORM, CubeFormat::ND, CubeFormat::ND_ALIGN>({33, 31, 17, false}, 10);
}

TEST(CompatMatmul, ConstantTilingWithNullTiling) {
  const Problem p{100, 150, 40, false};  // K = the fixed singleCoreK; tails in M and N
  const Data d = MakeData(p, 11);
  void* da = ToDevice(d.a);
  void* db = ToDevice(d.b);
  auto dc = tessera::device::Malloc(d.ref.size() * sizeof(float));
  ASSERT_TRUE(dc.ok());
  auto stream = tessera::device::Stream::Create();
  ASSERT_TRUE(stream.ok());
  const uint32_t blocks = ((p.m + 47) / 48) * ((p.n + 63) / 64);
  ASSERT_TRUE(
      tessera::device::Launch(
          tessera::device::LaunchConfig{blocks, tessera::device::KernelType::kAic, "const", true},
          const_tiling_matmul, *stream, static_cast<uint8_t*>(da), static_cast<uint8_t*>(db),
          static_cast<uint8_t*>(*dc), p.m, p.n, p.k)
          .ok());
  ASSERT_TRUE(stream->Synchronize().ok()) << stream->GetError().message();
  ExpectClose(static_cast<const float*>(*dc), d, p);
  for (void* x : {da, db, *dc})
    (void)tessera::device::Free(x);
}

// SetShape(-1, -1, k) takes M and N from SetOrgShape, as the vendor's does.
TEST(CompatMatmul, SetShapeMinusOneTakesTheOriginalShape) {
  auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance();
  mt::MultiCoreMatmulTiling api(*platform);
  api.SetDim(1);
  api.SetAType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16);
  api.SetBType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16);
  api.SetCType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
  EXPECT_EQ(api.SetShape(-1, -1, 33), 0);
  TCubeTiling t;
  EXPECT_EQ(api.GetTiling(t), -1);  // no original shape yet
  api.SetOrgShape(77, 31, 33);
  ASSERT_EQ(api.GetTiling(t), 0) << api.GetErrorInfo();
  EXPECT_EQ(t.singleCoreM, 77);
  EXPECT_EQ(t.singleCoreN, 31);
  EXPECT_EQ(api.SetShape(0, -1, 33), -1);
}

TEST(CompatMatmul, CubeIterateGetTensorC) {
  RunCube<1, CFG_NORM>({70, 300, 45, true}, 4);
}

TEST(CompatMatmul, CubeAsyncIterateAllAndLateInit) {
  RunCube<2, CFG_NORM>({47, 61, 129, true}, 5);
  RunCube<3, CFG_NORM>({16, 33, 7, false}, 6);
}

TEST(CompatMatmul, MixAsyncGetTensorCThroughUb) {
  const Problem p{65, 47, 40, false};
  const std::vector<uint8_t> tilingBuf = VendorTiling(p, mt::TPosition::VECIN, 4);
  const auto* t = reinterpret_cast<const TCubeTiling*>(tilingBuf.data());
  const uint32_t groups = static_cast<uint32_t>((t->usedCoreNum + 1) / 2);
  const Data d = MakeData(p, 7);
  void* da = ToDevice(d.a);
  void* db = ToDevice(d.b);
  void* dt = ToDevice(tilingBuf);
  auto dc = tessera::device::Malloc(d.ref.size() * sizeof(float));
  ASSERT_TRUE(dc.ok());
  auto stream = tessera::device::Stream::Create();
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE(
      tessera::device::Launch(
          tessera::device::LaunchConfig{groups, tessera::device::KernelType::kMix, "mix", true},
          mix_matmul, *stream, static_cast<uint8_t*>(da), static_cast<uint8_t*>(db),
          static_cast<uint8_t*>(*dc), static_cast<uint8_t*>(nullptr), static_cast<uint8_t*>(dt))
          .ok());
  ASSERT_TRUE(stream->Synchronize().ok()) << stream->GetError().message();
  ExpectClose(static_cast<const float*>(*dc), d, p);
  for (void* x : {da, db, dt, *dc})
    (void)tessera::device::Free(x);
}

TEST(CompatMatmul, WaitIterateAllWithoutIterateAllFails) {
  const std::vector<uint8_t> tilingBuf = VendorTiling({16, 16, 16, false}, mt::TPosition::GM, 1);
  void* dt = ToDevice(tilingBuf);
  auto stream = tessera::device::Stream::Create();
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE(tessera::device::Launch(
                  tessera::device::LaunchConfig{1, tessera::device::KernelType::kAic, "wait", true},
                  wait_without_iterate, *stream, static_cast<uint8_t*>(dt))
                  .ok());
  const auto st = stream->Synchronize();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("WaitIterateAll"), std::string::npos) << st.message();
  (void)tessera::device::Free(dt);
}

}  // namespace

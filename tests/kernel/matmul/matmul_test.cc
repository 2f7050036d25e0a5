// The high-level Matmul API: pure-cube (AIC kernel) and MIX client/server modes, against a double
// reference on random data, awkward sizes, transposes, bias, tails and both profiles.
#include "tessera/kernel/matmul/matmul.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/device/arch_spec.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tessera/tiling/matmul_tiling.h"

namespace tessera::kernel {
namespace {

using tiling::TCubeTiling;
namespace mt = tiling::matmul_tiling;

struct Flags {
  int32_t aTrans = 0, bTrans = 0, bias = 0, mode = 0;  // mode 0: IterateAll, 1: Iterate+GetTensorC
};

template <class T>
mt::DataType DtOf() {
  if constexpr (std::is_same_v<T, half>) return mt::DataType::DT_FLOAT16;
  if constexpr (std::is_same_v<T, bfloat16>) return mt::DataType::DT_BFLOAT16;
  if constexpr (std::is_same_v<T, float>) return mt::DataType::DT_FLOAT;
  if constexpr (std::is_same_v<T, int8_t>) return mt::DataType::DT_INT8;
  return mt::DataType::DT_INT32;
}

// The per-core part every kernel shares: this core's block of C, with its tail.
template <class MM, class AT, class CT, class BiasT>
void SetUpCore(MM& mm, const TCubeTiling& t, uint32_t core, uint8_t* a, uint8_t* b, uint8_t* bias,
               const Flags& f, GlobalTensor<CT>& cGm, uint8_t* c) {
  const int64_t mBlocks = (t.M + t.singleCoreM - 1) / t.singleCoreM;
  const int64_t mi = core % mBlocks, ni = core / mBlocks;
  const int64_t m0 = mi * t.singleCoreM, n0 = ni * t.singleCoreN;
  GlobalTensor<AT> aGm, bGm;
  aGm.SetGlobalBuffer(reinterpret_cast<AT*>(a) + (f.aTrans ? m0 : m0 * t.Ka));
  bGm.SetGlobalBuffer(reinterpret_cast<AT*>(b) + (f.bTrans ? n0 * t.Kb : n0));
  cGm.SetGlobalBuffer(reinterpret_cast<CT*>(c) + m0 * t.N + n0);
  mm.SetTensorA(aGm, f.aTrans != 0);
  mm.SetTensorB(bGm, f.bTrans != 0);
  if (f.bias) {
    GlobalTensor<BiasT> biasGm;
    biasGm.SetGlobalBuffer(reinterpret_cast<BiasT*>(bias) + n0);
    mm.SetBias(biasGm);
  } else {
    mm.DisableBias();
  }
  mm.SetTail(static_cast<int>(std::min<int64_t>(t.singleCoreM, t.M - m0)),
             static_cast<int>(std::min<int64_t>(t.singleCoreN, t.N - n0)));
}

template <class MM, class CT>
void Compute(MM& mm, const GlobalTensor<CT>& cGm, const Flags& f) {
  if (f.mode == 0) {
    mm.IterateAll(cGm);
  } else {
    while (mm.Iterate())
      mm.GetTensorC(cGm);
  }
  mm.End();
}

// Pure cube: one AIC per core block.
template <class AT, class CT, class BiasT>
void CubeKernel(uint8_t* a, uint8_t* b, uint8_t* bias, uint8_t* c, uint8_t* tiling, Flags f) {
  const TCubeTiling t = tiling::GetTilingData<TCubeTiling>(tiling);
  using MM = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, AT, true>,
                    MatmulType<TPosition::GM, CubeFormat::ND, AT, true>,
                    MatmulType<TPosition::GM, CubeFormat::ND, CT>,
                    MatmulType<TPosition::GM, CubeFormat::ND, BiasT>>;
  MM mm;
  TPipe pipe;
  REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
  if (GetBlockIdx() >= static_cast<uint32_t>(t.usedCoreNum)) return;
  GlobalTensor<CT> cGm;
  SetUpCore<MM, AT, CT, BiasT>(mm, t, GetBlockIdx(), a, b, bias, f, cGm, c);
  Compute(mm, cGm, f);
}

// MIX: every AIV is a core (client); the AICs serve. mode 2: C through UB (VECIN), copied out.
template <class AT, class CT, class BiasT>
void MixKernel(uint8_t* a, uint8_t* b, uint8_t* bias, uint8_t* c, uint8_t* workspace,
               uint8_t* tiling, Flags f) {
  const TCubeTiling t = tiling::GetTilingData<TCubeTiling>(tiling);
  using MM = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, AT, true>,
                    MatmulType<TPosition::GM, CubeFormat::ND, AT, true>,
                    MatmulType<TPosition::VECIN, CubeFormat::ND, CT>,
                    MatmulType<TPosition::GM, CubeFormat::ND, BiasT>>;
  MM mm;
  TPipe pipe;
  REGIST_MATMUL_OBJ(&pipe, workspace, mm, &t);
  if (GetBlockIdx() >= static_cast<uint32_t>(t.usedCoreNum)) return;
  GlobalTensor<CT> cGm;
  SetUpCore<MM, AT, CT, BiasT>(mm, t, GetBlockIdx(), a, b, bias, f, cGm, c);
  if (f.mode == 3) {
    // Sub-block 1 runs a long stretch of its own code first (no waits), while sub-block 0 makes
    // many requests: the server must hold its replies rather than overflow sub-block 1's counter.
    if (GetSubBlockIdx() == 1) {
      volatile double x = 0;
      for (int i = 0; i < 500000; ++i)
        x = x + i;
    }
    Compute(mm, cGm, Flags{f.aTrans, f.bTrans, f.bias, 1});
    return;
  }
  if (f.mode != 2) {
    Compute(mm, cGm, f);
    return;
  }
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, static_cast<uint32_t>(t.baseM * t.baseN * sizeof(CT)));
  const int64_t mBlocks = (t.M + t.singleCoreM - 1) / t.singleCoreM;
  const int64_t m0 = (GetBlockIdx() % mBlocks) * t.singleCoreM;
  const int64_t n0 = (GetBlockIdx() / mBlocks) * t.singleCoreN;
  const int64_t sM = std::min<int64_t>(t.singleCoreM, t.M - m0);
  const int64_t sN = std::min<int64_t>(t.singleCoreN, t.N - n0);
  const int64_t bm = (sM + t.baseM - 1) / t.baseM;
  int64_t it = 0;
  while (mm.Iterate()) {
    LocalTensor<CT> ub = q.AllocTensor<CT>();
    mm.GetTensorC(ub, 0, true);
    const int64_t bi = t.iterateOrder == 0 ? it % bm : it / ((sN + t.baseN - 1) / t.baseN);
    const int64_t bj = t.iterateOrder == 0 ? it / bm : it % ((sN + t.baseN - 1) / t.baseN);
    const int64_t rr = std::min<int64_t>(t.baseM, sM - bi * t.baseM);
    const int64_t cc = std::min<int64_t>(t.baseN, sN - bj * t.baseN);
    for (int64_t r = 0; r < rr; ++r)
      for (int64_t j = 0; j < cc; ++j)
        cGm.SetValue(static_cast<uint64_t>((bi * t.baseM + r) * t.N + bj * t.baseN + j),
                     ub.GetValue(static_cast<uint32_t>(r * t.baseN + j)));
    q.FreeTensor(ub);
    ++it;
  }
  mm.End();
}

template <class T>
std::vector<T> Random(size_t n, std::mt19937& rng) {
  std::vector<T> v(n);
  if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, int32_t>) {
    std::uniform_int_distribution<int> d(-100, 100);
    for (auto& x : v)
      x = static_cast<T>(d(rng));
  } else {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (auto& x : v)
      x = T(d(rng));
  }
  return v;
}

template <class T>
double D(T v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return static_cast<double>(static_cast<float>(v));
  } else {
    return static_cast<double>(v);
  }
}

struct Problem {
  int32_t m, n, k;
  Flags f;
  bool mix = false;
  int32_t fixBaseM = -1, fixBaseN = -1;
  int32_t dim = 0;               // cores for the tiling (0: up to 4 groups)
  int32_t order = 0;             // iterateOrder
  int32_t padKa = 0, padKb = 0;  // A/B wider than K (SetOrgShape with Ka, Kb > K)
};

template <class AT, class CT, class BiasT>
void RunCase(const Problem& p, uint64_t seed) {
  SCOPED_TRACE("m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) +
               " k=" + std::to_string(p.k) + " aT=" + std::to_string(p.f.aTrans) +
               " bT=" + std::to_string(p.f.bTrans) + " bias=" + std::to_string(p.f.bias) +
               " mode=" + std::to_string(p.f.mode) + (p.mix ? " MIX" : " AIC"));
  const device::ArchSpec& arch = device::CurrentArch();
  const uint32_t groups = std::max<uint32_t>(1, std::min<uint32_t>(arch.aic_cores, 4));
  mt::MultiCoreMatmulTiling tiler(MatmulPlatformOf(arch));
  tiler.SetDim(p.dim > 0 ? p.dim : static_cast<int32_t>(p.mix ? groups * 2 : groups));
  tiler.SetAType(mt::TPosition::GM, mt::CubeFormat::ND, DtOf<AT>(), p.f.aTrans != 0);
  tiler.SetBType(mt::TPosition::GM, mt::CubeFormat::ND, DtOf<AT>(), p.f.bTrans != 0);
  tiler.SetCType(p.f.mode == 2 ? mt::TPosition::VECIN : mt::TPosition::GM, mt::CubeFormat::ND,
                 DtOf<CT>());
  tiler.SetBiasType(mt::TPosition::GM, mt::CubeFormat::ND, DtOf<BiasT>());
  tiler.SetShape(p.m, p.n, p.k);
  const int32_t Ka = p.k + p.padKa, Kb = p.k + p.padKb;
  tiler.SetOrgShape(p.m, p.n, Ka, Kb);
  ASSERT_EQ(tiler.SetTraverse(p.order), 0);
  tiler.EnableBias(p.f.bias != 0);
  if (p.fixBaseM > 0) {
    ASSERT_EQ(tiler.SetFixSplit(p.fixBaseM, p.fixBaseN), 0);
  }
  TCubeTiling t;
  ASSERT_EQ(tiler.GetTiling(t), 0) << tiler.GetErrorInfo();

  std::mt19937 rng(static_cast<uint32_t>(seed));
  const auto a = Random<AT>(static_cast<size_t>(p.m) * Ka, rng);
  const auto b = Random<AT>(static_cast<size_t>(Kb) * p.n, rng);
  const auto bias = Random<BiasT>(static_cast<size_t>(p.n), rng);
  std::vector<CT> c(static_cast<size_t>(p.m) * p.n, CT(0));
  const auto A = [&](int64_t i, int64_t kk) {
    return D(p.f.aTrans ? a[kk * p.m + i] : a[i * Ka + kk]);
  };
  const auto B = [&](int64_t kk, int64_t j) {
    return D(p.f.bTrans ? b[j * Kb + kk] : b[kk * p.n + j]);
  };

  auto dev = [](const void* host, size_t bytes) {
    void* d = device::Malloc(std::max<size_t>(bytes, 1)).value();
    if (bytes) {
      EXPECT_TRUE(device::Memcpy(d, bytes, host, bytes, device::MemcpyKind::kHostToDevice).ok());
    }
    return static_cast<uint8_t*>(d);
  };
  uint8_t* da = dev(a.data(), a.size() * sizeof(AT));
  uint8_t* db = dev(b.data(), b.size() * sizeof(AT));
  uint8_t* dbias = dev(bias.data(), bias.size() * sizeof(BiasT));
  uint8_t* dc = dev(c.data(), c.size() * sizeof(CT));
  const std::vector<uint8_t> tb = tiling::SerializeTiling(t);
  uint8_t* dt = dev(tb.data(), tb.size());
  Result<device::Stream> stream = device::Stream::Create();
  ASSERT_TRUE(stream.ok());
  if (p.mix) {
    const uint32_t dim = static_cast<uint32_t>((t.usedCoreNum + 1) / 2);
    uint8_t* ws = static_cast<uint8_t*>(device::Malloc(MatmulWorkspaceBytes(dim)).value());
    ASSERT_TRUE(
        device::Launch(device::LaunchConfig{dim, device::KernelType::kMix, "matmul_mix", true},
                       &MixKernel<AT, CT, BiasT>, *stream, da, db, dbias, dc, ws, dt, p.f)
            .ok());
    ASSERT_TRUE(stream->Synchronize().ok()) << stream->GetError().message();
    ASSERT_TRUE(device::Free(ws).ok());
  } else {
    ASSERT_TRUE(device::Launch(device::LaunchConfig{static_cast<uint32_t>(t.usedCoreNum),
                                                    device::KernelType::kAic, "matmul_cube", true},
                               &CubeKernel<AT, CT, BiasT>, *stream, da, db, dbias, dc, dt, p.f)
                    .ok());
    const Status st = stream->Synchronize();
    ASSERT_TRUE(st.ok()) << st.message();
  }
  ASSERT_TRUE(device::Memcpy(c.data(), c.size() * sizeof(CT), dc, c.size() * sizeof(CT),
                             device::MemcpyKind::kDeviceToHost)
                  .ok());
  for (uint8_t* ptr : {da, db, dbias, dc, dt})
    ASSERT_TRUE(device::Free(ptr).ok());

  double rtol = p.k < 2048 ? 1.0 / 256 : 1.0 / 128;
  if (std::is_same_v<CT, half>) rtol += 1.0 / 256;
  if (std::is_same_v<CT, bfloat16>) rtol += 1.0 / 128;
  int64_t bad = 0;
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      double ref = p.f.bias ? D(bias[j]) : 0.0;
      for (int64_t kk = 0; kk < p.k; ++kk)
        ref += A(i, kk) * B(kk, j);
      const double out = D(c[i * p.n + j]);
      const bool ok = std::is_same_v<CT, int32_t>
                          ? out == ref
                          : std::fabs(out - ref) <= rtol * std::max(1.0, std::fabs(ref));
      if (!ok && bad++ < 5) {
        ADD_FAILURE() << "C(" << i << ", " << j << ") = " << out << ", expected " << ref;
      }
    }
  }
  EXPECT_EQ(bad, 0);
}

class MatmulApi : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { ASSERT_TRUE(device::SetProfile(GetParam()).ok()); }
  void TearDown() override { (void)device::SetProfile("native"); }
};

TEST_P(MatmulApi, CubeOnlyHalfToFloat) {
  const int32_t sizes[][3] = {{1, 1, 1}, {17, 15, 31}, {16, 16, 16}, {255, 130, 70}};
  uint64_t seed = 1;
  for (const auto& s : sizes)
    for (int tr = 0; tr < 4; ++tr)
      RunCase<half, float, float>({s[0], s[1], s[2], {tr & 1, tr >> 1, tr & 1, tr & 1}}, seed++);
}

TEST_P(MatmulApi, CubeOnlyEveryDtype) {
  uint64_t seed = 100;
  for (int tr = 0; tr < 4; ++tr) {
    const Flags f{tr & 1, tr >> 1, (tr + 1) & 1, tr >> 1};
    RunCase<bfloat16, bfloat16, float>({33, 47, 129, f}, seed++);
    RunCase<half, half, half>({40, 17, 65, f}, seed++);
    RunCase<float, float, float>({31, 45, 77, f}, seed++);
    RunCase<int8_t, int32_t, int32_t>({35, 70, 100, f}, seed++);
    RunCase<bfloat16, float, bfloat16>({18, 300, 31, {f.aTrans, f.bTrans, 1, f.mode}}, seed++);
  }
}

TEST_P(MatmulApi, CubeOnlySmallBaseBlocksManyIterations) {
  // Fixed 16 x 16 base blocks: many Iterate steps and K chunks, tails in M, N and K.
  RunCase<half, float, float>({100, 70, 300, {0, 0, 1, 1}, false, 16, 16}, 7);
  RunCase<float, float, float>({50, 33, 1000, {1, 1, 0, 1}, false, 16, 32}, 8);
}

TEST_P(MatmulApi, IterateOrderAndOriginalShapes) {
  // N-first walk, and A/B wider than K (their rows carry Ka/Kb elements, only K are used).
  RunCase<half, float, float>({70, 90, 40, {0, 0, 1, 1}, false, 16, 32, 0, 1}, 50);
  RunCase<float, float, float>({33, 65, 20, {0, 1, 0, 1}, true, 16, 16, 0, 1, 5, 9}, 51);
  RunCase<int8_t, int32_t, int32_t>({40, 50, 70, {1, 0, 1, 0}, false, -1, -1, 0, 0, 3, 30}, 52);
  RunCase<bfloat16, float, float>({31, 47, 33, {0, 0, 0, 2}, true, 16, 16, 0, 1, 15, 1}, 53);
}

TEST_P(MatmulApi, MixClientsThroughTheServer) {
  uint64_t seed = 200;
  for (int mode = 0; mode < 3; ++mode) {
    RunCase<half, float, float>({255, 100, 64, {0, 0, 1, mode}, true}, seed++);
    RunCase<bfloat16, float, float>({64, 255, 33, {1, 1, mode & 1, mode}, true}, seed++);
  }
  RunCase<float, float, float>({17, 1000, 15, {0, 1, 1, 2}, true, 16, 32}, seed++);
  RunCase<int8_t, int32_t, int32_t>({129, 31, 64, {1, 0, 1, 1}, true}, seed++);
  RunCase<half, float, float>({1, 17, 4097, {0, 0, 0, 1}, true}, seed++);
}

TEST_P(MatmulApi, MixManyGroupsBeyondWorkerThreadsAndIdleClients) {
  // 47 AIV clients in 24 groups (one AIV idle) and 61 in 31 groups: more groups than the
  // ascend910b profile has cube cores and far more fibers than worker threads; each client does
  // many Iterate/GetTensorC round trips.
  RunCase<half, float, float>({752, 16 * 47, 40, {0, 0, 1, 1}, true, 16, 16, 47}, 300);
  RunCase<bfloat16, bfloat16, float>({61 * 20, 33, 17, {1, 0, 1, 2}, true, 16, 32, 61}, 301);
  // Busy siblings: each group's second client computes on its own before its first request.
  RunCase<half, float, float>({64, 16 * 40, 16, {0, 0, 0, 3}, true, 16, 16, 4}, 303);
  // One client with all the work (usedCoreNum 1): its sibling waits at the end, draining.
  RunCase<float, float, float>({300, 300, 20, {0, 1, 0, 1}, true, 16, 16, 1}, 302);
}

// Two Matmul objects of different types registered together; every AIV runs both.
void TwoObjectsKernel(uint8_t* a1, uint8_t* b1, uint8_t* c1, uint8_t* a2, uint8_t* b2, uint8_t* c2,
                      uint8_t* workspace, uint8_t* tilings) {
  const TCubeTiling t1 = tiling::GetTilingData<TCubeTiling>(tilings);
  const TCubeTiling t2 = tiling::GetTilingData<TCubeTiling>(tilings + sizeof(TCubeTiling));
  using MM1 = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>,
                     MatmulType<TPosition::GM, CubeFormat::ND, half>,
                     MatmulType<TPosition::GM, CubeFormat::ND, float>>;
  using MM2 = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, float>,
                     MatmulType<TPosition::GM, CubeFormat::ND, float>,
                     MatmulType<TPosition::GM, CubeFormat::ND, float>>;
  MM1 mm1;
  MM2 mm2;
  TPipe pipe;
  REGIST_MATMUL_OBJ(&pipe, workspace, mm1, &t1, mm2, &t2);
  const Flags f{0, 0, 0, 1};
  if (GetBlockIdx() < static_cast<uint32_t>(t2.usedCoreNum)) {
    GlobalTensor<float> cGm;
    SetUpCore<MM2, float, float, float>(mm2, t2, GetBlockIdx(), a2, b2, nullptr, f, cGm, c2);
    Compute(mm2, cGm, f);
  }
  if (GetBlockIdx() < static_cast<uint32_t>(t1.usedCoreNum)) {
    GlobalTensor<float> cGm;
    SetUpCore<MM1, half, float, float>(mm1, t1, GetBlockIdx(), a1, b1, nullptr, {}, cGm, c1);
    Compute(mm1, cGm, Flags{});
  }
}

TEST_P(MatmulApi, MixTwoObjects) {
  const auto make = [](mt::DataType dt, int32_t m, int32_t n, int32_t k, int32_t dim) {
    mt::MultiCoreMatmulTiling tiler;
    tiler.SetDim(dim);
    tiler.SetAType(mt::TPosition::GM, mt::CubeFormat::ND, dt);
    tiler.SetBType(mt::TPosition::GM, mt::CubeFormat::ND, dt);
    tiler.SetCType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
    tiler.SetShape(m, n, k);
    tiler.SetFixSplit(16, 16);
    TCubeTiling t;
    EXPECT_EQ(tiler.GetTiling(t), 0) << tiler.GetErrorInfo();
    return t;
  };
  const TCubeTiling t1 = make(mt::DataType::DT_FLOAT16, 70, 50, 30, 6);
  const TCubeTiling t2 = make(mt::DataType::DT_FLOAT, 33, 90, 17, 3);
  std::mt19937 rng(77);
  const auto a1 = Random<half>(70 * 30, rng), b1 = Random<half>(30 * 50, rng);
  const auto a2 = Random<float>(33 * 17, rng), b2 = Random<float>(17 * 90, rng);
  std::vector<float> c1(70 * 50, 0.0f), c2(33 * 90, 0.0f);
  std::vector<uint8_t> tb(2 * sizeof(TCubeTiling));
  std::memcpy(tb.data(), &t1, sizeof(t1));
  std::memcpy(tb.data() + sizeof(t1), &t2, sizeof(t2));
  const auto dev = [](const void* host, size_t bytes) {
    void* d = device::Malloc(bytes).value();
    EXPECT_TRUE(device::Memcpy(d, bytes, host, bytes, device::MemcpyKind::kHostToDevice).ok());
    return static_cast<uint8_t*>(d);
  };
  uint8_t* da1 = dev(a1.data(), a1.size() * 2);
  uint8_t* db1 = dev(b1.data(), b1.size() * 2);
  uint8_t* da2 = dev(a2.data(), a2.size() * 4);
  uint8_t* db2 = dev(b2.data(), b2.size() * 4);
  uint8_t* dc1 = dev(c1.data(), c1.size() * 4);
  uint8_t* dc2 = dev(c2.data(), c2.size() * 4);
  uint8_t* dt = dev(tb.data(), tb.size());
  const uint32_t groups = 3;
  uint8_t* ws = static_cast<uint8_t*>(device::Malloc(MatmulWorkspaceBytes(groups)).value());
  Result<device::Stream> stream = device::Stream::Create();
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE(device::Launch(device::LaunchConfig{groups, device::KernelType::kMix, "two", true},
                             &TwoObjectsKernel, *stream, da1, db1, dc1, da2, db2, dc2, ws, dt)
                  .ok());
  const Status st = stream->Synchronize();
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_TRUE(device::Memcpy(c1.data(), c1.size() * 4, dc1, c1.size() * 4,
                             device::MemcpyKind::kDeviceToHost)
                  .ok());
  ASSERT_TRUE(device::Memcpy(c2.data(), c2.size() * 4, dc2, c2.size() * 4,
                             device::MemcpyKind::kDeviceToHost)
                  .ok());
  for (uint8_t* p : {da1, db1, da2, db2, dc1, dc2, dt, ws})
    ASSERT_TRUE(device::Free(p).ok());
  const auto check = [](const auto& a, const auto& b, const std::vector<float>& c, int m, int n,
                        int k) {
    int bad = 0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double ref = 0;
        for (int kk = 0; kk < k; ++kk)
          ref += D(a[i * k + kk]) * D(b[kk * n + j]);
        bad += std::fabs(c[i * n + j] - ref) > std::max(1.0, std::fabs(ref)) / 256;
      }
    return bad;
  };
  EXPECT_EQ(check(a1, b1, c1, 70, 50, 30), 0);
  EXPECT_EQ(check(a2, b2, c2, 33, 90, 17), 0);
}

// Sequential write: every base block lands at the start of its own baseM x baseN slot.
void SequentialKernel(uint8_t* a, uint8_t* b, uint8_t* scratch, uint8_t* tiling) {
  const TCubeTiling t = tiling::GetTilingData<TCubeTiling>(tiling);
  Matmul<MatmulType<TPosition::GM, CubeFormat::ND, bfloat16>,
         MatmulType<TPosition::GM, CubeFormat::ND, bfloat16>,
         MatmulType<TPosition::GM, CubeFormat::ND, float>>
      mm;
  TPipe pipe;
  REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
  GlobalTensor<bfloat16> aGm, bGm;
  GlobalTensor<float> sGm;
  aGm.SetGlobalBuffer(reinterpret_cast<bfloat16*>(a));
  bGm.SetGlobalBuffer(reinterpret_cast<bfloat16*>(b));
  sGm.SetGlobalBuffer(reinterpret_cast<float*>(scratch));
  mm.SetTensorA(aGm);
  mm.SetTensorB(bGm, true);
  mm.DisableBias();
  uint64_t slot = 0;
  while (mm.Iterate())
    mm.GetTensorC(sGm[slot++ * t.baseM * t.baseN], 0, true);
  mm.End();
}

TEST_P(MatmulApi, SequentialWriteToGm) {
  const int32_t m = 45, n = 70, k = 50;
  mt::MatmulApiTiling tiler;
  tiler.SetAType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_BFLOAT16);
  tiler.SetBType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_BFLOAT16, true);
  tiler.SetCType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
  tiler.SetShape(m, n, k);
  tiler.SetFixSplit(16, 32);
  TCubeTiling t;
  ASSERT_EQ(tiler.GetTiling(t), 0) << tiler.GetErrorInfo();
  const int32_t mb = (m + 15) / 16, nb = (n + 31) / 32;
  std::mt19937 rng(5);
  const auto a = Random<bfloat16>(m * k, rng), b = Random<bfloat16>(n * k, rng);
  std::vector<float> scratch(static_cast<size_t>(mb * nb * 16 * 32), -7.0f);
  const auto dev = [](const void* host, size_t bytes) {
    void* d = device::Malloc(bytes).value();
    EXPECT_TRUE(device::Memcpy(d, bytes, host, bytes, device::MemcpyKind::kHostToDevice).ok());
    return static_cast<uint8_t*>(d);
  };
  uint8_t* da = dev(a.data(), a.size() * 2);
  uint8_t* db = dev(b.data(), b.size() * 2);
  uint8_t* ds = dev(scratch.data(), scratch.size() * 4);
  uint8_t* dt = dev(&t, sizeof(t));
  Result<device::Stream> stream = device::Stream::Create();
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE(device::Launch(device::LaunchConfig{1, device::KernelType::kAic, "seq", true},
                             &SequentialKernel, *stream, da, db, ds, dt)
                  .ok());
  ASSERT_TRUE(stream->Synchronize().ok());
  ASSERT_TRUE(device::Memcpy(scratch.data(), scratch.size() * 4, ds, scratch.size() * 4,
                             device::MemcpyKind::kDeviceToHost)
                  .ok());
  for (void* p : {da, db, ds, dt})
    ASSERT_TRUE(device::Free(p).ok());
  int bad = 0;
  for (int32_t it = 0; it < mb * nb; ++it) {
    const int32_t bi = it % mb, bj = it / mb;  // iterateOrder 0: M fastest
    for (int32_t r = 0; r < 16; ++r) {
      for (int32_t c = 0; c < 32; ++c) {
        const int32_t i = bi * 16 + r, j = bj * 32 + c;
        const float got = scratch[static_cast<size_t>(it * 16 * 32 + r * 32 + c)];
        if (i >= m || j >= n) {
          bad += got != -7.0f;  // outside the block's valid part: untouched
          continue;
        }
        double ref = 0;
        for (int32_t kk = 0; kk < k; ++kk)
          ref += D(a[i * k + kk]) * D(b[j * k + kk]);
        bad += std::fabs(got - ref) > std::max(1.0, std::fabs(ref)) / 256;
      }
    }
  }
  EXPECT_EQ(bad, 0);
}

// --- errors: a bad tiling or misuse fails the launch with a message naming the problem ---

template <class Kernel, class... Args>
std::string LaunchError(device::KernelType type, uint32_t dim, Kernel kernel, Args... args) {
  Result<device::Stream> stream = device::Stream::Create();
  EXPECT_TRUE(stream.ok());
  Status st = device::Launch(device::LaunchConfig{dim, type, "matmul_error", true}, kernel, *stream,
                             args...);
  if (st.ok()) st = stream->Synchronize();
  return std::string(st.message());
}

void BadTilingKernel(uint8_t* tiling) {
  const TCubeTiling t = tiling::GetTilingData<TCubeTiling>(tiling);
  Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>,
         MatmulType<TPosition::GM, CubeFormat::ND, half>,
         MatmulType<TPosition::GM, CubeFormat::ND, float>>
      mm;
  TPipe pipe;
  REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
}

void NoTensorKernel(uint8_t* tiling, uint8_t* c) {
  const TCubeTiling t = tiling::GetTilingData<TCubeTiling>(tiling);
  Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>,
         MatmulType<TPosition::GM, CubeFormat::ND, half>,
         MatmulType<TPosition::GM, CubeFormat::ND, float>>
      mm;
  TPipe pipe;
  REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
  GlobalTensor<float> cGm;
  cGm.SetGlobalBuffer(reinterpret_cast<float*>(c));
  mm.IterateAll(cGm);
}

void UbOnCubeKernel(uint8_t* tiling, uint8_t* a) {
  const TCubeTiling t = tiling::GetTilingData<TCubeTiling>(tiling);
  Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>,
         MatmulType<TPosition::GM, CubeFormat::ND, half>,
         MatmulType<TPosition::VECIN, CubeFormat::ND, float>>
      mm;
  TPipe pipe;
  REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
  GlobalTensor<half> aGm;
  aGm.SetGlobalBuffer(reinterpret_cast<half*>(a));
  mm.SetTensorA(aGm);
  mm.SetTensorB(aGm);
  mm.DisableBias();
  LocalTensor<float> ub;
  while (mm.Iterate())
    mm.GetTensorC(ub);
}

void MixNoWorkspaceKernel(uint8_t* tiling) {
  const TCubeTiling t = tiling::GetTilingData<TCubeTiling>(tiling);
  Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>,
         MatmulType<TPosition::GM, CubeFormat::ND, half>,
         MatmulType<TPosition::GM, CubeFormat::ND, float>>
      mm;
  TPipe pipe;
  REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
}

void MixSkipsRegistrationKernel(uint8_t* tiling, uint8_t* workspace) {
  if (IsAiv() && GetSubBlockIdx() == 1) return;  // wrong: every core must reach REGIST
  const TCubeTiling t = tiling::GetTilingData<TCubeTiling>(tiling);
  Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>,
         MatmulType<TPosition::GM, CubeFormat::ND, half>,
         MatmulType<TPosition::GM, CubeFormat::ND, float>>
      mm;
  TPipe pipe;
  REGIST_MATMUL_OBJ(&pipe, workspace, mm, &t);
}

TEST_P(MatmulApi, ErrorsAreClear) {
  mt::MatmulApiTiling tiler;
  tiler.SetAType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16);
  tiler.SetBType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16);
  tiler.SetCType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
  tiler.SetShape(64, 64, 64);
  TCubeTiling good;
  ASSERT_EQ(tiler.GetTiling(good), 0);
  const auto dev_tiling = [](const TCubeTiling& t) {
    void* d = device::Malloc(sizeof(t)).value();
    EXPECT_TRUE(
        device::Memcpy(d, sizeof(t), &t, sizeof(t), device::MemcpyKind::kHostToDevice).ok());
    return static_cast<uint8_t*>(d);
  };
  TCubeTiling bad = good;
  bad.baseM = 24;
  uint8_t* dbad = dev_tiling(bad);
  std::string msg = LaunchError(device::KernelType::kAic, 1, &BadTilingKernel, dbad);
  EXPECT_NE(msg.find("Matmul::Init"), std::string::npos) << msg;
  EXPECT_NE(msg.find("baseM 24 and baseN 64 must be positive multiples of 16"), std::string::npos)
      << msg;
  bad = good;
  bad.baseK = 4096;
  ASSERT_TRUE(
      device::Memcpy(dbad, sizeof(bad), &bad, sizeof(bad), device::MemcpyKind::kHostToDevice).ok());
  msg = LaunchError(device::KernelType::kAic, 1, &BadTilingKernel, dbad);
  EXPECT_NE(msg.find("exceeds L0A"), std::string::npos) << msg;

  uint8_t* dgood = dev_tiling(good);
  void* buf = device::Malloc(64 * 64 * 4).value();
  msg =
      LaunchError(device::KernelType::kAic, 1, &NoTensorKernel, dgood, static_cast<uint8_t*>(buf));
  EXPECT_NE(msg.find("call SetTensorA and SetTensorB first"), std::string::npos) << msg;
  msg =
      LaunchError(device::KernelType::kAic, 1, &UbOnCubeKernel, dgood, static_cast<uint8_t*>(buf));
  EXPECT_NE(msg.find("the AIC has no UB"), std::string::npos) << msg;
  msg = LaunchError(device::KernelType::kMix, 1, &MixNoWorkspaceKernel, dgood);
  EXPECT_NE(msg.find("the workspace is null"), std::string::npos) << msg;
  void* ws = device::Malloc(MatmulWorkspaceBytes(1)).value();
  msg = LaunchError(device::KernelType::kMix, 1, &MixSkipsRegistrationKernel, dgood,
                    static_cast<uint8_t*>(ws));
  EXPECT_NE(msg.find("deadlocked"), std::string::npos) << msg;
  ASSERT_TRUE(device::Free(ws).ok());
  for (void* p : {static_cast<void*>(dbad), static_cast<void*>(dgood), buf})
    ASSERT_TRUE(device::Free(p).ok());
}

INSTANTIATE_TEST_SUITE_P(Profiles, MatmulApi, ::testing::Values("native", "ascend910b"));

}  // namespace
}  // namespace tessera::kernel

// The whole cube data path against a double matmul: GM (ND) -> L1 (Nz) -> L0A (Zz) / L0B (Zn) ->
// Mmad (K in chunks: init, accumulate, bias) -> Fixpipe (Nz -> ND or Nz, relu, quant casts) -> GM,
// for every dtype, transposed inputs, GEMV (m == 1), awkward sizes, unit flags, both profiles and
// fast and checked mode. Plus Fixpipe's conversions alone on exact values (round-to-nearest-even
// ties, quant words with offsets and saturation).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "cube_test_util.h"

namespace tessera::kernel {
namespace {

using device::KernelType;
using testing::Ceil;
using testing::DeviceBuffer;
using testing::RunCube;

struct MatmulCase {
  uint32_t m = 1, n = 1, k = 1;
  bool trans_a = false;  // A given as k x m
  bool trans_b = false;  // B given as n x k
  int bias = 0;          // 0 none; 1 float bias; 2 half bias widened on the way to the bias table
  // The first Mmad starts C from the bias table's start without a bias tensor (cmatrixInitVal
  // false, cmatrixSource true), as the vendor's mmad sample does.
  bool bias_from_table = false;
  bool relu = false;
  bool unit_flag = false;
  QuantMode_t quant = NoQuant;
  uint64_t deq = 0;
};

// K chunk per Mmad: a multiple of C0 (and of 16 for fp32 slabs) whose L0A/L0B tiles fit 64 KB.
template <class T>
constexpr uint32_t kBaseK = sizeof(T) == 4 ? 32 : 64;

template <class T, class Acc, class Out>
void MatmulKernel(T* a, T* b, uint8_t* bias, Out* c, MatmulCase cs) {
  constexpr uint32_t c0 = 32 / sizeof(T);
  constexpr uint32_t frac = 512 / sizeof(T);
  const uint32_t m = cs.m, n = cs.n, k = cs.k;
  const uint32_t m1 = Ceil(m, 16), mp = m1 * 16, n1 = Ceil(n, 16), np = n1 * 16;
  const uint32_t k16 = Ceil(k, 16), k32 = Ceil(k, 32);
  GlobalTensor<T> ga, gb;
  ga.SetGlobalBuffer(a, uint64_t{m} * k);
  gb.SetGlobalBuffer(b, uint64_t{k} * n);
  GlobalTensor<Out> gc;
  gc.SetGlobalBuffer(c, uint64_t{m} * n);

  LocalMemAllocator<Hardware::L1> l1;
  LocalMemAllocator<Hardware::L0A> l0a;
  LocalMemAllocator<Hardware::L0B> l0b;
  LocalMemAllocator<Hardware::L0C> l0c;
  constexpr uint32_t base_k = kBaseK<T>;
  const uint32_t a1_count = m == 1       ? (Ceil(k * sizeof(T), 512) + 1) * frac
                            : cs.trans_a ? k16 * 16 * Ceil(m, c0) * c0
                                         : mp * Ceil(k, c0) * c0;
  LocalTensor<T> a1 = l1.Alloc<TPosition::A1, T>(a1_count);
  LocalTensor<T> b1 = l1.Alloc<TPosition::B1, T>(k32 * 32 * Ceil(n, 32) * 32);
  LocalTensor<T> a2 = l0a.Alloc<TPosition::A2, T>(mp * base_k);
  // int8 B: the last 32-column square of an odd N1 spills one fractal past the row.
  LocalTensor<T> b2 = l0b.Alloc<TPosition::B2, T>(np * base_k + (sizeof(T) == 1 ? frac : 0));
  LocalTensor<Acc> c1 = l0c.Alloc<TPosition::CO1, Acc>(mp * np);

  // GM -> L1.
  if (m == 1) {
    DataCopy(a1, ga, Nd2NzParams{1, 1, k, 0, k, 1, 1, 0});  // C0 blocks 1 row apart: plain ND
  } else if (cs.trans_a) {
    DataCopy(a1, ga, Nd2NzParams{1, k, m, 0, m, k16 * 16, 1, 0});
  } else {
    DataCopy(a1, ga, Nd2NzParams{1, m, k, 0, k, mp, 1, 0});
  }
  const bool b_slabs = !cs.trans_b && sizeof(T) == 4;  // fp32 B: 16-row Nz slabs for the squares
  if (cs.trans_b) {
    DataCopy(b1, gb, Nd2NzParams{1, n, k, 0, k, np, 1, 0});
  } else if (b_slabs) {
    if (k / 16 > 0) DataCopy(b1, gb, Nd2NzParams{k / 16, 16, n, 16 * n, n, 16, 1, 16 * np});
    if (k % 16 != 0) {
      DataCopy(b1[(k / 16) * 16 * np], gb[(k / 16) * 16 * n],
               Nd2NzParams{1, k % 16, n, 0, n, 16, 1, 0});
    }
  } else {
    DataCopy(b1, gb, Nd2NzParams{1, k, n, 0, n, sizeof(T) == 1 ? k32 * 32 : k16 * 16, 1, 0});
  }
  LocalTensor<Acc> bt;
  if (cs.bias != 0) {
    LocalMemAllocator<Hardware::BIAS> bias_table;
    bt = bias_table.Alloc<TPosition::C2, Acc>(Ceil(n, 16) * 16);
    const uint32_t blocks64 = Ceil(n * 4, 64);
    if (cs.bias == 2) {
      GlobalTensor<half> gbias;
      gbias.SetGlobalBuffer(reinterpret_cast<half*>(bias), Ceil(n, 32) * 32);
      LocalTensor<half> c1b = l1.Alloc<TPosition::C1, half>(Ceil(n, 32) * 32);
      DataCopy(c1b, gbias, Ceil(n, 32) * 32);
      SetFlag<HardEvent::MTE2_MTE1>(2);
      WaitFlag<HardEvent::MTE2_MTE1>(2);
      DataCopy(bt, c1b, DataCopyParams{1, static_cast<uint16_t>(blocks64), 0, 0});
    } else {
      GlobalTensor<Acc> gbias;
      gbias.SetGlobalBuffer(reinterpret_cast<Acc*>(bias), Ceil(n, 16) * 16);
      LocalTensor<Acc> c1b = l1.Alloc<TPosition::C1, Acc>(Ceil(n, 16) * 16);
      DataCopy(c1b, gbias, Ceil(n, 16) * 16);
      SetFlag<HardEvent::MTE2_MTE1>(2);
      WaitFlag<HardEvent::MTE2_MTE1>(2);
      DataCopy(bt, c1b, DataCopyParams{1, static_cast<uint16_t>(blocks64), 0, 0});
    }
  }
  SetFlag<HardEvent::MTE2_MTE1>(0);
  WaitFlag<HardEvent::MTE2_MTE1>(0);

  for (uint32_t k0 = 0; k0 < k; k0 += base_k) {
    const uint32_t kc = std::min(base_k, k - k0);
    const uint32_t kb0 = k0 / c0, k1c = Ceil(kc, c0);
    // L1 -> L0A (Zz; ND for GEMV).
    if (m == 1) {
      LoadData(a2, a1[k0], LoadData2DParams{0, Ceil(kc * sizeof(T), 512), 1, 0, 0, false, 0});
    } else if (cs.trans_a) {
      for (uint32_t i = 0; i < m1; ++i) {
        LoadData(a2[i * k1c * frac], a1, LoadData2DParams{i * k16 + kb0, k1c, 1, 0, 0, true, 0});
      }
    } else {
      for (uint32_t i = 0; i < m1; ++i) {
        LoadData(a2[i * k1c * frac], a1, LoadData2DParams{i + kb0 * m1, k1c, m1, 0, 0, false, 0});
      }
    }
    // L1 -> L0B (Zn).
    for (uint32_t j = 0; j < k1c; ++j) {
      const uint32_t kb = kb0 + j;
      LocalTensor<T> dst = b2[j * n1 * frac];
      if (cs.trans_b) {
        LoadData(dst, b1, LoadData2DParams{kb * n1, n1, 1, 0, 0, false, 0});
      } else if (sizeof(T) == 2) {
        LoadData(dst, b1, LoadData2DParams{kb, n1, k16, 0, 0, true, 0});
      } else if (sizeof(T) == 4) {
        if (kb % 2 == 0) {  // one 16-row slab gives two 8-row Zn fractal rows
          LoadDataWithTranspose(dst, b1[(kb / 2) * 16 * np],
                                LoadData2dTransposeParams{0, n1, 1, 0, n1 - 1});
        }
      } else {
        LoadDataWithTranspose(dst, b1, LoadData2dTransposeParams{kb, Ceil(n1, 2), k32, 1, 0});
      }
    }
    SetFlag<HardEvent::MTE1_M>(0);
    WaitFlag<HardEvent::MTE1_M>(0);
    const bool last = k0 + base_k >= k;
    const uint8_t uf = cs.unit_flag ? (last ? 3 : 2) : 0;
    if (k0 == 0 && cs.bias != 0 && cs.bias_from_table) {
      MmadParams p{m, n, kc, uf, false, false};
      p.cmatrixInitVal = false;
      p.cmatrixSource = true;
      Mmad(c1, a2, b2, p);
    } else if (k0 == 0 && cs.bias != 0) {
      Mmad(c1, a2, b2, bt, MmadParams{m, n, kc, uf, true, false});
    } else {
      Mmad(c1, a2, b2, MmadParams{m, n, kc, uf, false, k0 == 0});
    }
    SetFlag<HardEvent::M_MTE1>(0);
    WaitFlag<HardEvent::M_MTE1>(0);
  }
  SetFlag<HardEvent::M_FIX>(0);
  WaitFlag<HardEvent::M_FIX>(0);
  Fixpipe<Out, Acc, CFG_ROW_MAJOR>(
      gc, c1,
      FixpipeParamsV220{n, m, mp, n, cs.relu, cs.quant, cs.deq, 1, 0, 0, cs.unit_flag ? 3 : 0});
  PipeBarrier<PIPE_ALL>();
}

float QuantScale(uint64_t word) {
  return std::bit_cast<float>(static_cast<uint32_t>(word) & 0xFFFFE000u);
}

// Expected output of one element from the exact (double) accumulation.
template <class Out>
double Expect(double acc, const MatmulCase& cs) {
  if constexpr (std::is_same_v<Out, half>) {
    if (cs.quant == DEQF16) {
      float v = static_cast<float>(acc) * QuantScale(cs.deq);
      if (cs.relu) v = std::max(v, 0.0f);
      return static_cast<float>(half(v));
    }
  }
  return cs.relu ? std::max(acc, 0.0) : acc;
}

template <class T, class Acc, class Out>
void RunMatmul(const MatmulCase& cs) {
  const uint32_t m = cs.m, n = cs.n, k = cs.k;
  std::vector<T> a = testing::Random<T>(size_t{m} * k, m * 7 + k);
  std::vector<T> b = testing::Random<T>(size_t{k} * n, n * 13 + k);
  std::vector<float> biasf = testing::Random<float>(Ceil(n, 32) * 32, n + 5);
  std::vector<uint8_t> bias_bytes(Ceil(n, 32) * 32 * 4);
  std::vector<double> biasd(n, 0.0);
  if (cs.bias == 2) {
    for (size_t j = 0; j < biasf.size(); ++j) {
      const half h(biasf[j]);
      std::memcpy(&bias_bytes[j * 2], &h, 2);
      if (j < n) biasd[j] = static_cast<float>(h);
    }
  } else {
    for (size_t j = 0; j < biasf.size(); ++j) {
      const Acc v =
          static_cast<Acc>(std::is_integral_v<Acc> ? std::round(biasf[j] * 1000) : biasf[j]);
      std::memcpy(&bias_bytes[j * 4], &v, 4);
      if (j < n && cs.bias == 1) biasd[j] = static_cast<double>(v);
    }
  }
  DeviceBuffer<T> da(a), db(b);
  DeviceBuffer<uint8_t> dbias(bias_bytes);
  DeviceBuffer<Out> dc(size_t{m} * n);
  Status st = RunCube("cube_matmul", KernelType::kAic, 1, MatmulKernel<T, Acc, Out>, da.get(),
                      db.get(), dbias.get(), dc.get(), cs);
  const std::string what = "m " + std::to_string(m) + " n " + std::to_string(n) + " k " +
                           std::to_string(k) + " transA " + std::to_string(cs.trans_a) +
                           " transB " + std::to_string(cs.trans_b) + " bias " +
                           std::to_string(cs.bias) + " on " + device::CurrentArch().name;
  ASSERT_TRUE(st.ok()) << what << ": " << st.ToString();
  const std::vector<Out> c = dc.ToHost();
  const double out_rounding = std::is_same_v<Out, half>       ? 1.0 / 256
                              : std::is_same_v<Out, bfloat16> ? 1.0 / 128
                                                              : 0.0;
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      double acc = biasd[j];
      for (uint32_t kk = 0; kk < k; ++kk) {
        const T av = cs.trans_a ? a[size_t{kk} * m + i] : a[size_t{i} * k + kk];
        const T bv = cs.trans_b ? b[size_t{j} * k + kk] : b[size_t{kk} * n + j];
        acc += testing::ToDouble(av) * testing::ToDouble(bv);
      }
      const double want = Expect<Out>(acc, cs);
      const double got = testing::ToDouble(c[size_t{i} * n + j]);
      if constexpr (std::is_integral_v<Out> || std::is_integral_v<Acc>) {
        ASSERT_EQ(got, want) << what << " at (" << i << ", " << j << ")";
      } else {
        ASSERT_LE(std::fabs(got - want), testing::Tolerance(want, k, out_rounding))
            << what << " at (" << i << ", " << j << "): " << got << " vs " << want;
      }
    }
  }
}

struct Shape {
  uint32_t m, n, k;
};
// Tiles that fit L0C whole (K runs in 64-chunks): GEMV, tails of 1/15/16/17/255.
constexpr Shape kShapes[] = {{1, 255, 255}, {255, 17, 255}, {17, 255, 255}, {15, 16, 17},
                             {16, 1, 15},   {255, 16, 1},   {17, 17, 64},   {1, 1, 1}};

void AllDtypes(bool quick) {
  for (const Shape& s : kShapes) {
    for (int t = 0; t < 4; ++t) {
      MatmulCase cs;
      cs.m = s.m, cs.n = s.n, cs.k = s.k;
      cs.trans_a = (t & 1) != 0 && s.m > 1;
      cs.trans_b = (t & 2) != 0;
      cs.unit_flag = t == 1;
      cs.quant = F322F16;
      RunMatmul<half, float, half>(cs);
      cs.quant = F322BF16;
      RunMatmul<bfloat16, float, bfloat16>(cs);
      cs.quant = NoQuant;
      RunMatmul<half, float, float>(cs);
      if (t < 2 && !cs.trans_a) {
        cs.trans_b = t == 1;
        RunMatmul<float, float, float>(cs);
        RunMatmul<int8_t, int32_t, int32_t>(cs);
      }
      if (quick) break;
    }
  }
}

TEST(CubeMatmulTest, EveryDtypeFastMode) {
  testing::CheckedScope scope(false);
  AllDtypes(false);
}

TEST(CubeMatmulTest, EveryDtypeCheckedModeBothProfiles) {
  testing::CheckedScope scope(true);
  for (const char* profile : {"native", "ascend910b"}) {
    testing::ProfileScope p(profile);
    AllDtypes(true);
  }
}

TEST(CubeMatmulTest, BiasReluAndAccumulate) {
  for (bool checked : {false, true}) {
    testing::CheckedScope scope(checked);
    for (const Shape& s : {Shape{17, 33, 130}, Shape{1, 40, 70}, Shape{64, 16, 16}}) {
      for (int bias : {1, 2}) {
        MatmulCase cs;
        cs.m = s.m, cs.n = s.n, cs.k = s.k, cs.bias = bias, cs.relu = true;
        RunMatmul<half, float, float>(cs);
        cs.quant = F322F16;
        cs.unit_flag = true;
        RunMatmul<half, float, half>(cs);
        cs.quant = F322BF16;
        RunMatmul<bfloat16, float, bfloat16>(cs);
        if (bias == 1) {
          cs.quant = NoQuant;
          RunMatmul<float, float, float>(cs);
          cs.unit_flag = false;  // CATLASS: no unit flag with int8
          RunMatmul<int8_t, int32_t, int32_t>(cs);
          cs.bias_from_table = true;
          RunMatmul<int8_t, int32_t, int32_t>(cs);
          RunMatmul<float, float, float>(cs);
        }
      }
    }
  }
}

TEST(CubeMatmulTest, Int8DequantToHalf) {
  MatmulCase cs;
  cs.m = 33, cs.n = 47, cs.k = 100, cs.quant = DEQF16;
  cs.deq = std::bit_cast<uint32_t>(0.0012345f);
  RunMatmul<int8_t, int32_t, half>(cs);
  cs.relu = true;
  RunMatmul<int8_t, int32_t, half>(cs);
}

// The legacy MmadParams form (isBias = accumulate), zero sizes as no-ops, and Fixpipe into L1
// (Nz, half) on a 16 x 16 x 16 half tile written straight into L0A/L0B.
void LegacyAndL1Kernel(half* a_zz, half* b_zn, half* out_nz, float* out_nd) {
  LocalMemAllocator<Hardware::L1> l1;
  LocalMemAllocator<Hardware::L0A> l0a;
  LocalMemAllocator<Hardware::L0B> l0b;
  LocalMemAllocator<Hardware::L0C> l0c;
  LocalTensor<half> a2 = l0a.Alloc<TPosition::A2, half>(256);
  LocalTensor<half> b2 = l0b.Alloc<TPosition::B2, half>(256);
  LocalTensor<float> c1 = l0c.Alloc<TPosition::CO1, float>(256);
  LocalTensor<half> c1l1 = l1.Alloc<TPosition::C1, half>(256);
  std::memcpy(a2.GetPhyAddr(), a_zz, 512);
  std::memcpy(b2.GetPhyAddr(), b_zn, 512);
  Mmad(c1, a2, b2, MmadParams{16, 16, 16, false, 0, false, false, false});  // C = AB
  Mmad(c1, a2, b2, MmadParams{16, 16, 16, true, 0, false, false, false});   // C += AB
  Mmad(c1, a2, b2, MmadParams{16, 16, 0, 0, false, true});                  // k 0: no-op
  Mmad(c1, a2, b2, MmadParams{0, 16, 16, 0, false, true});                  // m 0: no-op
  Fixpipe<half, float, CFG_NZ>(c1l1, c1,
                               FixpipeParamsV220{16, 16, 16, 16, false, F322F16, 0, 1, 0, 0, 0});
  std::memcpy(out_nz, c1l1.GetPhyAddr(), 512);
  GlobalTensor<float> g;
  g.SetGlobalBuffer(out_nd, 256);
  Fixpipe(g, c1, FixpipeParamsV220{16, 16, 16, 16, false});
}

TEST(CubeMatmulTest, LegacyParamsNoOpsAndFixpipeToL1) {
  for (bool checked : {false, true}) {
    testing::CheckedScope scope(checked);
    std::vector<half> a = testing::Random<half>(256, 1), b = testing::Random<half>(256, 2);
    // Logical A (i, k) = a[i*16+k], B (k, j) = b[k*16+j]; one fractal each, so Zz is row-major A
    // and Zn holds B column by column.
    std::vector<half> a_zz(256), b_zn(256);
    for (size_t i = 0; i < 16; ++i) {
      for (size_t kk = 0; kk < 16; ++kk) {
        a_zz[testing::ZzOffset(i, kk, 1, 16)] = a[i * 16 + kk];
        b_zn[testing::ZnOffset(kk, i, 1, 16)] = b[kk * 16 + i];
      }
    }
    DeviceBuffer<half> da(a_zz), db(b_zn), dnz(256);
    DeviceBuffer<float> dnd(256);
    Status st = RunCube("legacy", KernelType::kAic, 1, LegacyAndL1Kernel, da.get(), db.get(),
                        dnz.get(), dnd.get());
    ASSERT_TRUE(st.ok()) << st.ToString();
    const std::vector<half> nz = dnz.ToHost();
    const std::vector<float> nd = dnd.ToHost();
    for (size_t i = 0; i < 16; ++i) {
      for (size_t j = 0; j < 16; ++j) {
        double ref = 0;
        for (size_t kk = 0; kk < 16; ++kk)
          ref += 2.0 * static_cast<float>(a[i * 16 + kk]) * static_cast<float>(b[kk * 16 + j]);
        EXPECT_NEAR(nd[i * 16 + j], ref, testing::Tolerance(ref, 16, 0));
        EXPECT_EQ(nz[i * 16 + j].bits, half(nd[i * 16 + j]).bits);  // Nz of one fractal: row-major
      }
    }
  }
}

// ---- Fixpipe alone on exact L0C values ----

struct FixpipeCase {
  uint32_t m, n;
  bool nz;
  FixpipeParamsV220 p;
};

// Writes `values` (Nz, srcStride rows per column block) into L0C, then Fixpipes it to GM.
template <class Acc, class Out>
void FixpipeKernel(Acc* values, uint32_t count, Out* out, uint64_t* words, FixpipeCase fc) {
  LocalMemAllocator<Hardware::L0C> l0c;
  LocalTensor<Acc> c1 = l0c.Alloc<TPosition::CO1, Acc>(count);
  std::memcpy(c1.GetPhyAddr(), values, count * sizeof(Acc));
  GlobalTensor<Out> g;
  g.SetGlobalBuffer(out);
  if (words != nullptr) {
    LocalMemAllocator<Hardware::L1> l1;
    LocalTensor<uint64_t> w = l1.Alloc<TPosition::C1, uint64_t>(Ceil(fc.n, 4) * 4);
    std::memcpy(w.GetPhyAddr(), words, fc.n * sizeof(uint64_t));
    Fixpipe<Out, Acc, CFG_ROW_MAJOR>(g, c1, w, fc.p);
  } else if (fc.nz) {
    Fixpipe<Out, Acc, CFG_NZ>(g, c1, fc.p);
  } else {
    Fixpipe<Out, Acc, CFG_ROW_MAJOR>(g, c1, fc.p);
  }
}

TEST(CubeFixpipeTest, RoundToNearestEvenTies) {
  // Row 0 holds halfway cases of half (spacing 2^-10 at 1) and bfloat16 (2^-7 at 1).
  const float ties_h[] = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, -(1.0f + 0x1p-11f), 65520.0f,
                          0x1p-25f,        3 * 0x1p-25f};
  const uint16_t want_h[] = {0x3C00, 0x3C02, 0xBC00, 0x7C00, 0x0000, 0x0002};
  const float ties_b[] = {
      1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f,       -(1.0f + 0x1p-8f), 0x1.fffffep127f,
      -0.0f,          1.0f + 0x1p-8f + 0x1p-20f};
  const uint16_t want_b[] = {0x3F80, 0x3F82, 0xBF80, 0x7F80, 0x8000, 0x3F81};
  for (int which = 0; which < 2; ++which) {
    const float* in = which == 0 ? ties_h : ties_b;
    const uint16_t* want = which == 0 ? want_h : want_b;
    std::vector<float> l0c(16 * 16, 0.0f);
    for (int j = 0; j < 6; ++j)
      l0c[j] = in[j];  // row 0, columns 0..5 of the first fractal
    DeviceBuffer<float> dv(l0c);
    DeviceBuffer<uint16_t> dout(6);
    FixpipeCase fc{
        1, 6, false,
        FixpipeParamsV220{6, 1, 16, 6, false, which == 0 ? F322F16 : F322BF16, 0, 1, 0, 0, 0}};
    Status st = which == 0
                    ? RunCube("fixpipe_rne", KernelType::kAic, 1, FixpipeKernel<float, half>,
                              dv.get(), 256u, reinterpret_cast<half*>(dout.get()),
                              static_cast<uint64_t*>(nullptr), fc)
                    : RunCube("fixpipe_rne", KernelType::kAic, 1, FixpipeKernel<float, bfloat16>,
                              dv.get(), 256u, reinterpret_cast<bfloat16*>(dout.get()),
                              static_cast<uint64_t*>(nullptr), fc);
    ASSERT_TRUE(st.ok()) << st.ToString();
    const std::vector<uint16_t> got = dout.ToHost();
    for (int j = 0; j < 6; ++j)
      EXPECT_EQ(got[j], want[j]) << (which == 0 ? "half" : "bfloat16") << " case " << j;
  }
}

TEST(CubeFixpipeTest, NzToNzLayouts) {
  // 20 x 40 float tile in L0C (srcStride 32 rows), out as Nz half (C0 16) and float (16 or 8).
  const uint32_t m = 20, n = 40, rows = 32;
  std::vector<float> l0c = testing::Random<float>(3 * rows * 16, 9);
  DeviceBuffer<float> dv(l0c);
  for (int variant = 0; variant < 3; ++variant) {
    const bool split = variant == 2;
    const bool to_half = variant == 0;
    const uint32_t c0 = to_half ? 16 : (split ? 8 : 16);
    const uint32_t elem = to_half ? 2 : 4;
    const uint32_t block_rows = 24;  // destination column blocks 24 rows apart
    const uint32_t dst_stride = block_rows * c0 * elem / 32;
    const uint32_t out_count = Ceil(n, c0) * block_rows * c0;
    FixpipeCase fc{m, n, true,
                   FixpipeParamsV220{n, m, rows, dst_stride, false, to_half ? F322F16 : NoQuant, 0,
                                     1, 0, 0, 0, split}};
    std::vector<uint8_t> want(out_count * elem, 0xEE);
    for (uint32_t i = 0; i < m; ++i) {
      for (uint32_t j = 0; j < n; ++j) {
        const float v = l0c[(j / 16) * rows * 16 + i * 16 + j % 16];
        const size_t at = (j / c0) * block_rows * c0 + i * c0 + j % c0;
        if (to_half) {
          const half h(v);
          std::memcpy(&want[at * 2], &h, 2);
        } else {
          std::memcpy(&want[at * 4], &v, 4);
        }
      }
    }
    DeviceBuffer<uint8_t> dout(std::vector<uint8_t>(out_count * elem, 0xEE));
    Status st = to_half
                    ? RunCube("fixpipe_nz", KernelType::kAic, 1, FixpipeKernel<float, half>,
                              dv.get(), uint32_t(l0c.size()), reinterpret_cast<half*>(dout.get()),
                              static_cast<uint64_t*>(nullptr), fc)
                    : RunCube("fixpipe_nz", KernelType::kAic, 1, FixpipeKernel<float, float>,
                              dv.get(), uint32_t(l0c.size()), reinterpret_cast<float*>(dout.get()),
                              static_cast<uint64_t*>(nullptr), fc);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(dout.ToHost(), want) << "variant " << variant;
  }
}

// REQ8 / VREQ8 / QF322B8_PRE: scale (1-8-10), round to nearest even, add the 9-bit offset,
// saturate to int8 / uint8.
int32_t Requant(double x, uint64_t w, bool is_signed, bool relu) {
  float v = static_cast<float>(x) * QuantScale(w);
  if (relu) v = std::max(v, 0.0f);
  const auto raw = static_cast<int32_t>((w >> 37) & 0x1FF);
  const int32_t offset = raw >= 256 ? raw - 512 : raw;
  const double r = std::nearbyint(v) + offset;
  return static_cast<int32_t>(std::clamp(r, is_signed ? -128.0 : 0.0, is_signed ? 127.0 : 255.0));
}

TEST(CubeFixpipeTest, QuantToInt8PerTensorAndPerChannel) {
  const uint32_t m = 17, n = 20, rows = 32;
  std::vector<int32_t> l0c(2 * rows * 16);
  std::mt19937 rng(4);
  std::uniform_int_distribution<int32_t> d(-40000, 40000);
  for (int32_t& v : l0c)
    v = d(rng);
  std::vector<float> l0cf(l0c.begin(), l0c.end());
  for (float& v : l0cf)
    v *= 0.25f;
  std::vector<uint64_t> words(n);
  for (uint32_t j = 0; j < n; ++j) {
    const uint64_t offset = (j * 37u) & 0x1FF;
    words[j] = std::bit_cast<uint32_t>(0.003f * (1 + j)) | (offset << 37);
  }
  const uint64_t scalar = std::bit_cast<uint32_t>(0.0041f) | (uint64_t{500} << 37);  // offset -12
  DeviceBuffer<int32_t> dv(l0c);
  DeviceBuffer<float> dvf(l0cf);
  DeviceBuffer<uint64_t> dw(words);
  for (int variant = 0; variant < 4; ++variant) {
    const bool per_channel = variant == 1;
    const bool from_float = variant == 3;
    const bool is_signed = variant != 2;
    const bool relu = variant == 2;
    FixpipeParamsV220 p{
        n,      m, rows, n, relu, from_float ? QF322B8_PRE : (per_channel ? VREQ8 : REQ8),
        scalar, 1, 0,    0, 0};
    FixpipeCase fc{m, n, false, p};
    DeviceBuffer<int8_t> dout(size_t{m} * n);
    Status st;
    if (from_float) {
      st = RunCube("fixpipe_q", KernelType::kAic, 1, FixpipeKernel<float, int8_t>, dvf.get(),
                   uint32_t(l0cf.size()), dout.get(), static_cast<uint64_t*>(nullptr), fc);
    } else if (is_signed) {
      st = RunCube("fixpipe_q", KernelType::kAic, 1, FixpipeKernel<int32_t, int8_t>, dv.get(),
                   uint32_t(l0c.size()), dout.get(), per_channel ? dw.get() : nullptr, fc);
    } else {
      st = RunCube("fixpipe_q", KernelType::kAic, 1, FixpipeKernel<int32_t, uint8_t>, dv.get(),
                   uint32_t(l0c.size()), reinterpret_cast<uint8_t*>(dout.get()),
                   static_cast<uint64_t*>(nullptr), fc);
    }
    ASSERT_TRUE(st.ok()) << st.ToString();
    const std::vector<int8_t> got = dout.ToHost();
    for (uint32_t i = 0; i < m; ++i) {
      for (uint32_t j = 0; j < n; ++j) {
        const size_t at = (j / 16) * rows * 16 + i * 16 + j % 16;
        const double x = from_float ? l0cf[at] : l0c[at];
        const int32_t want = Requant(x, per_channel ? words[j] : scalar, is_signed, relu);
        const int32_t g = is_signed ? got[i * n + j] : static_cast<uint8_t>(got[i * n + j]);
        ASSERT_EQ(g, want) << "variant " << variant << " at (" << i << ", " << j << ")";
      }
    }
  }
}

}  // namespace
}  // namespace tessera::kernel

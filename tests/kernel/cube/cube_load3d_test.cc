// LoadData with LoadData3DParamsV2 (img2col, L1 -> L0A/L0B) against a scalar model of the vendor's
// description: the NC1HWC0 map padded explicitly, windows enumerated row by row, the img2col
// matrix sliced and placed in the destination's fractal layout. Random maps, awkward shapes,
// padding, strides, dilation, both destinations, the transpose, fast and checked modes. Also
// Mmad's kDirectionAlign (fp32 K padded to 16 in L0A) against a double reference.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "cube_test_util.h"

namespace tessera::kernel {
namespace {

using device::KernelType;
using testing::DeviceBuffer;
using testing::RunCube;

constexpr uint8_t kPoison = 0x5A;

template <class T>
void Load3DKernel(T* src, uint32_t l1_count, T* out, uint32_t l0_count, bool to_b,
                  LoadData3DParamsV2<T> p) {
  LocalMemAllocator<Hardware::L1> l1;
  LocalTensor<T> a1 = l1.Alloc<TPosition::A1, T>(l1_count);
  std::memcpy(a1.GetPhyAddr(), src, l1_count * sizeof(T));
  LocalTensor<T> l0;
  if (to_b) {
    LocalMemAllocator<Hardware::L0B> b;
    l0 = b.Alloc<TPosition::B2, T>(l0_count);
  } else {
    LocalMemAllocator<Hardware::L0A> a;
    l0 = a.Alloc<TPosition::A2, T>(l0_count);
  }
  std::memset(static_cast<void*>(l0.GetPhyAddr()), kPoison, l0_count * sizeof(T));
  LoadData(l0, a1, p);
  std::memcpy(out, l0.GetPhyAddr(), l0_count * sizeof(T));
}

struct Shape {
  uint16_t h, w, channels;
  uint8_t fh, fw, sh, sw, dh, dw;
  uint8_t pad[4];  // left, right, top, bottom
  uint16_t kStart, kExt, mStart, mExt;
  bool transpose;
};

// The img2col matrix [C1*Hk*Wk*C0 rows x Hout*Wout columns] of `map` (C1 x H x W x C0).
template <class T>
std::vector<std::vector<T>> Img2Col(const std::vector<T>& map, const Shape& s, T pad) {
  const size_t c0 = 32 / sizeof(T), c1 = s.channels / c0;
  const size_t hp = s.h + s.pad[2] + s.pad[3], wp = s.w + s.pad[0] + s.pad[1];
  std::vector<T> padded(c1 * hp * wp * c0, pad);
  for (size_t c = 0; c < c1; ++c)
    for (size_t y = 0; y < s.h; ++y)
      for (size_t x = 0; x < s.w; ++x)
        for (size_t e = 0; e < c0; ++e)
          padded[((c * hp + y + s.pad[2]) * wp + x + s.pad[0]) * c0 + e] =
              map[((c * s.h + y) * s.w + x) * c0 + e];
  const size_t kh_span = (s.fh - 1) * s.dh + 1, kw_span = (s.fw - 1) * s.dw + 1;
  std::vector<std::vector<T>> cols;  // one column (all K rows) per window
  for (size_t y0 = 0; y0 + kh_span <= hp; y0 += s.sh) {
    for (size_t x0 = 0; x0 + kw_span <= wp; x0 += s.sw) {
      std::vector<T> col;
      for (size_t c = 0; c < c1; ++c)
        for (size_t i = 0; i < s.fh; ++i)
          for (size_t j = 0; j < s.fw; ++j)
            for (size_t e = 0; e < c0; ++e)
              col.push_back(padded[((c * hp + y0 + i * s.dh) * wp + x0 + j * s.dw) * c0 + e]);
      cols.push_back(col);
    }
  }
  return cols;
}

template <class T>
void CheckLoad3D(const Shape& s, bool to_b, uint32_t seed) {
  const size_t c0 = 32 / sizeof(T);
  const size_t l1_count = size_t{s.channels} * s.h * s.w;
  const std::vector<T> map = testing::Random<T>(l1_count, seed);
  const T pad = testing::Random<T>(1, seed + 1)[0];
  const auto cols = Img2Col(map, s, pad);
  ASSERT_LE(size_t{s.mStart} + s.mExt, cols.size());
  const size_t l0_count = 64 * 512 / sizeof(T);
  uint8_t padList[4] = {s.pad[0], s.pad[1], s.pad[2], s.pad[3]};
  LoadData3DParamsV2<T> p(padList, s.h, s.w, s.channels, s.kExt, s.mExt, s.kStart, s.mStart, s.sw,
                          s.sh, s.fw, s.fh, s.dw, s.dh, s.transpose, false, pad);
  DeviceBuffer<T> dsrc(map), dout(l0_count);
  const Status st = RunCube("load3d", KernelType::kAic, 1, Load3DKernel<T>, dsrc.get(),
                            uint32_t(l1_count), dout.get(), uint32_t(l0_count), to_b, p);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const std::vector<T> got = dout.ToHost();
  std::vector<bool> written(l0_count, false);
  for (size_t i = 0; i < s.mExt; ++i) {
    for (size_t k = 0; k < s.kExt; ++k) {
      const T want = cols[s.mStart + i][s.kStart + k];
      size_t at = 0;
      if (to_b) {
        at = testing::ZnOffset(i, k, testing::Ceil(s.kExt, 16), c0);
      } else if (s.transpose) {
        at = testing::ZzOffset(k, i, testing::Ceil(s.mExt, c0), c0);
      } else {
        at = testing::ZzOffset(i, k, testing::Ceil(s.kExt, c0), c0);
      }
      ASSERT_LT(at, l0_count);
      written[at] = true;
      ASSERT_EQ(std::memcmp(&got[at], &want, sizeof(T)), 0)
          << "img2col (" << s.kStart + k << ", " << s.mStart + i << "), " << sizeof(T)
          << "-byte, to " << (to_b ? "L0B" : "L0A") << (s.transpose ? " transposed" : "");
    }
  }
  uint8_t poison[sizeof(T)];
  std::memset(poison, kPoison, sizeof(T));
  for (size_t i = 0; i < l0_count; ++i) {
    if (!written[i]) {
      ASSERT_EQ(std::memcmp(&got[i], poison, sizeof(T)), 0) << "element " << i;
    }
  }
}

TEST(CubeLoad3DTest, Img2ColToL0AAndL0B) {
  for (bool checked : {false, true}) {
    testing::CheckedScope scope(checked);
    // A matrix in Nz as a 1-wide map (the vendor samples' use): K = channels, M = rows.
    const Shape plain{48, 1, 32, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 0, 32, 0, 48, false};
    CheckLoad3D<half>(plain, false, 1);
    CheckLoad3D<half>(plain, true, 2);
    Shape tr = plain;
    tr.transpose = true;
    CheckLoad3D<half>(tr, false, 3);
    CheckLoad3D<float>(Shape{24, 1, 16, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 0, 16, 0, 24, true}, false,
                       4);
    CheckLoad3D<float>(Shape{24, 1, 16, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 0, 16, 0, 24, false}, true,
                       5);
    // A convolution window: 3x3 filter, padding, stride 2, dilation, a slice of K and M.
    CheckLoad3D<half>(Shape{7, 9, 32, 3, 3, 2, 1, 1, 2, {1, 2, 1, 0}, 16, 64, 3, 17, false}, false,
                      6);
    CheckLoad3D<half>(Shape{7, 9, 32, 3, 3, 2, 1, 1, 2, {1, 2, 1, 0}, 32, 48, 0, 24, false}, true,
                      7);
    CheckLoad3D<bfloat16>(Shape{5, 6, 16, 2, 3, 1, 2, 2, 1, {0, 1, 2, 1}, 0, 96, 1, 16, true},
                          false, 8);
    CheckLoad3D<int8_t>(Shape{6, 5, 64, 2, 2, 1, 1, 1, 1, {1, 0, 0, 1}, 32, 64, 2, 28, false},
                        false, 9);
    CheckLoad3D<float>(Shape{4, 7, 24, 3, 2, 1, 3, 1, 1, {2, 2, 1, 1}, 8, 40, 3, 13, true}, false,
                       10);
  }
}

void BadLoad3D(bool to_b, LoadData3DParamsV2<half> p) {
  LocalMemAllocator<Hardware::L1> l1;
  LocalTensor<half> a1 = l1.Alloc<TPosition::A1, half>(4096);
  LocalMemAllocator<Hardware::L0B> b;
  LocalTensor<half> l0 = b.Alloc<TPosition::B2, half>(4096);
  LocalTensor<half> other = l1.Alloc<TPosition::B1, half>(4096);  // not an L0 buffer
  LoadData(to_b ? l0 : other, a1, p);
}

TEST(CubeLoad3DTest, BadParametersFailWithTheReason) {
  uint8_t padList[4] = {0, 0, 0, 0};
  const auto run = [&](bool to_b, const LoadData3DParamsV2<half>& p, const char* what) {
    const Status st = RunCube("load3d_bad", KernelType::kAic, 1, BadLoad3D, to_b, p);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.ToString().find(what), std::string::npos) << st.ToString();
  };
  run(false,
      LoadData3DParamsV2<half>(padList, 16, 1, 16, 16, 16, 0, 0, 1, 1, 1, 1, 1, 1, false, false,
                               half(0.0f)),
      "L0A (A2) or L0B (B2)");
  run(true,
      LoadData3DParamsV2<half>(padList, 16, 1, 24, 16, 16, 0, 0, 1, 1, 1, 1, 1, 1, false, false,
                               half(0.0f)),
      "multiple of C0");
  run(true,
      LoadData3DParamsV2<half>(padList, 16, 1, 16, 32, 16, 0, 0, 1, 1, 1, 1, 1, 1, false, false,
                               half(0.0f)),
      "exceeds the img2col's 16 rows");
  // A 16 x 1 map with a 1 x 1 filter has 16 output positions: columns 8..23 run past them.
  run(true,
      LoadData3DParamsV2<half>(padList, 16, 1, 16, 16, 16, 0, 8, 1, 1, 1, 1, 1, 1, false, false,
                               half(0.0f)),
      "mStartPt + mExtension = 24 exceeds the img2col's 16 columns (Hout*Wout = 16 x 1)");
  run(true,
      LoadData3DParamsV2<half>(padList, 4, 4, 16, 16, 17, 0, 0, 1, 1, 1, 1, 1, 1, false, false,
                               half(0.0f)),
      "mStartPt + mExtension = 17 exceeds the img2col's 16 columns");
  run(true,
      LoadData3DParamsV2<half>(padList, 2, 2, 16, 16, 16, 0, 0, 1, 1, 3, 3, 1, 1, false, false,
                               half(0.0f)),
      "does not fit");
}

// Mmad with kDirectionAlign: A (m x k, fp32) in Zz with ceil(k/16)*2 fractals per M block (the
// pad fractal holds NaN, which must not be read), B in Zn; C read back from L0C (Nz).
void KAlignKernel(const float* a, const float* b, float* c, uint32_t m, uint32_t n, uint32_t k) {
  const uint32_t m1 = testing::Ceil(m, 16), n1 = testing::Ceil(n, 16), k16 = testing::Ceil(k, 16);
  LocalMemAllocator<Hardware::L0A> l0a;
  LocalMemAllocator<Hardware::L0B> l0b;
  LocalMemAllocator<Hardware::L0C> l0c;
  LocalTensor<float> a2 = l0a.Alloc<TPosition::A2, float>(m1 * k16 * 2 * 128);
  LocalTensor<float> b2 = l0b.Alloc<TPosition::B2, float>(k16 * 2 * n1 * 128);
  LocalTensor<float> c1 = l0c.Alloc<TPosition::CO1, float>(m1 * 16 * n1 * 16);
  std::memcpy(a2.GetPhyAddr(), a, size_t{m1} * k16 * 2 * 128 * sizeof(float));
  std::memcpy(b2.GetPhyAddr(), b, size_t{k16} * 2 * n1 * 128 * sizeof(float));
  MmadParams p(m, n, k, 0, false, true);
  p.kDirectionAlign = true;
  Mmad(c1, a2, b2, p);
  std::memcpy(c, c1.GetPhyAddr(), size_t{m1} * 16 * n1 * 16 * sizeof(float));
}

TEST(CubeMmadTest, KDirectionAlignPadsFp32KTo16) {
  for (bool checked : {false, true}) {
    testing::CheckedScope scope(checked);
    for (const auto& [m, n, k] :
         {std::array<uint32_t, 3>{20, 18, 40}, {7, 33, 8}, {31, 5, 23}, {16, 16, 32}}) {
      const uint32_t m1 = testing::Ceil(m, 16), n1 = testing::Ceil(n, 16);
      const uint32_t ka = testing::Ceil(k, 16) * 2;  // fractals per M block in L0A
      const std::vector<float> av = testing::Random<float>(size_t{m} * k, m + k);
      const std::vector<float> bv = testing::Random<float>(size_t{k} * n, n + k);
      std::vector<float> a(size_t{m1} * ka * 128, std::nanf("")), b(size_t{ka} * n1 * 128, 0.0f);
      for (uint32_t i = 0; i < m; ++i)
        for (uint32_t kk = 0; kk < k; ++kk)
          a[testing::ZzOffset(i, kk, ka, 8)] = av[size_t{i} * k + kk];
      for (uint32_t i = m; i < m1 * 16; ++i)  // rows past m: zeros, as a load leaves them
        for (uint32_t kk = 0; kk < ka * 8; ++kk)
          a[testing::ZzOffset(i, kk, ka, 8)] = 0.0f;
      for (uint32_t i = 0; i < m; ++i)
        for (uint32_t kk = k; kk < testing::Ceil(k, 8) * 8; ++kk)
          a[testing::ZzOffset(i, kk, ka, 8)] = 0.0f;
      for (uint32_t kk = 0; kk < k; ++kk)
        for (uint32_t j = 0; j < n; ++j)
          b[testing::ZnOffset(kk, j, n1, 8)] = bv[size_t{kk} * n + j];
      DeviceBuffer<float> da(a), db(b), dc(size_t{m1} * 16 * n1 * 16);
      const Status st = RunCube("kalign", KernelType::kAic, 1, KAlignKernel, da.get(), db.get(),
                                dc.get(), m, n, k);
      ASSERT_TRUE(st.ok()) << st.ToString();
      const std::vector<float> c = dc.ToHost();
      for (uint32_t i = 0; i < m; ++i) {
        for (uint32_t j = 0; j < n; ++j) {
          double ref = 0;
          for (uint32_t kk = 0; kk < k; ++kk)
            ref += double{av[size_t{i} * k + kk]} * bv[size_t{kk} * n + j];
          const float got = c[(j / 16) * (m1 * 16) * 16 + i * 16 + j % 16];
          ASSERT_NEAR(got, ref, testing::Tolerance(ref, k, 0.0))
              << m << "x" << n << "x" << k << " at " << i << ", " << j;
        }
      }
    }
  }
}

}  // namespace
}  // namespace tessera::kernel

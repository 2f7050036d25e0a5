// TransData (NCDHW <-> NDC1HWC0 / FRACTAL_Z_3D) with Layout / MakeShape / MakeStride, and the
// Layout and Coord structures, in the vendor's dialect: fast and checked mode, random 16-bit data,
// awkward shapes, against references that walk the output in order. Built as C++17 and C++20.
#include <gtest/gtest.h>

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

// Layout and Coord, at compile time as the vendor's are constexpr.
constexpr auto kShape = AscendC::MakeShape(10, 20, 30);
constexpr auto kStride = AscendC::MakeStride(1, 100, 200);
constexpr AscendC::Layout kLayout = AscendC::MakeLayout(kShape, kStride);
static_assert(AscendC::Std::get<1>(kLayout.GetShape()) == 20, "GetShape");
static_assert(AscendC::Std::get<2>(kLayout.GetStride()) == 200, "GetStride");
static_assert(kLayout(AscendC::MakeCoord(3, 2, 1)) == 3 + 200 + 200, "operator() is Crd2Idx");
static_assert(AscendC::Crd2Idx(AscendC::MakeCoord(9, 0, 4), kShape, kStride) == 809, "Crd2Idx");
static_assert(AscendC::is_layout<std::decay_t<decltype(kLayout)>>::value &&
                  !AscendC::is_layout<std::decay_t<decltype(kShape)>>::value,
              "is_layout");
static_assert(std::is_same_v<AscendC::Coord<int, int>, AscendC::Std::tuple<int, int>>, "Coord");

constexpr AscendC::TransDataConfig kToNdc = {AscendC::DataFormat::NCDHW,
                                             AscendC::DataFormat::NDC1HWC0};
constexpr AscendC::TransDataConfig kFromNdc = {AscendC::DataFormat::NDC1HWC0,
                                               AscendC::DataFormat::NCDHW};
constexpr AscendC::TransDataConfig kToFz = {AscendC::DataFormat::NCDHW,
                                            AscendC::DataFormat::FRACTAL_Z_3D};
constexpr AscendC::TransDataConfig kFromFz = {AscendC::DataFormat::FRACTAL_Z_3D,
                                              AscendC::DataFormat::NCDHW};

enum Mode : int32_t { kModeToNdc, kModeFromNdc, kModeToFz, kModeFromFz };

// Copies `srcCount` elements in, converts, copies `dstCount` out. `bad` 1 passes an NDC1HWC0
// layout whose C1 does not match C; `bad` 2 converts within the source buffer.
template <typename T>
__global__ __vector__ void transdata_custom(__gm__ T* src, __gm__ T* dst, uint32_t srcCount,
                                            uint32_t dstCount, int32_t mode, int32_t n, int32_t c,
                                            int32_t d, int32_t h, int32_t w, int32_t bad) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> bs, bd, tmp;
  pipe.InitBuffer(bs, srcCount * sizeof(T));
  pipe.InitBuffer(bd, dstCount * sizeof(T));
  pipe.InitBuffer(tmp, 64);
  AscendC::GlobalTensor<T> gs, gd;
  gs.SetGlobalBuffer(src, srcCount);
  gd.SetGlobalBuffer(dst, dstCount);
  AscendC::LocalTensor<T> ls = bs.Get<T>(), ld = bad == 2 ? bs.Get<T>() : bd.Get<T>();
  AscendC::DataCopy(ls, gs, srcCount);
  AscendC::PipeBarrier<PIPE_ALL>();
  const int32_t c1 = (c + 15) / 16 + (bad == 1 ? 1 : 0), n1 = (n + 15) / 16;
  auto ncdhw = AscendC::MakeLayout(AscendC::MakeShape(n, c, d, h, w), AscendC::MakeStride());
  auto ndc = AscendC::MakeLayout(AscendC::MakeShape(n, d, c1, h, w, 16), AscendC::MakeStride());
  auto fz = AscendC::MakeLayout(AscendC::MakeShape(d, c1, h, w, n1, 16, 16), AscendC::MakeStride());
  AscendC::LocalTensor<uint8_t> t = tmp.Get<uint8_t>();
  if (mode == kModeToNdc) {
    AscendC::TransDataParams<decltype(ncdhw), decltype(ndc)> p = {ncdhw, ndc};
    AscendC::TransData<kToNdc>(ld, ls, t, p);
  } else if (mode == kModeFromNdc) {
    AscendC::TransDataParams<decltype(ndc), decltype(ncdhw)> p = {ndc, ncdhw};
    AscendC::TransData<kFromNdc>(ld, ls, p);
  } else if (mode == kModeToFz) {
    AscendC::TransDataParams<decltype(ncdhw), decltype(fz)> p = {ncdhw, fz};
    AscendC::TransData<kToFz>(ld, ls, t, p);
  } else {
    AscendC::TransDataParams<decltype(fz), decltype(ncdhw)> p = {fz, ncdhw};
    AscendC::TransData<kFromFz, T, decltype(fz), decltype(ncdhw)>(ld, ls, t, p);
  }
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopy(gd, ld, dstCount);
}

struct Shape5 {
  uint32_t n, c, d, h, w;
  uint32_t c1() const { return (c + 15) / 16; }
  uint32_t n1() const { return (n + 15) / 16; }
  uint32_t row() const { return (h * w + 15) / 16 * 16; }
  uint32_t ncdhw() const { return n * c * d * row(); }
  uint64_t ncdhw_at(uint32_t in, uint32_t ic, uint32_t id, uint32_t i) const {
    return ((uint64_t{in} * c + ic) * d + id) * row() + i;
  }
};

// The blocked tensor in its own axis order, each element from the NCDHW value `at`, 0 in padding.
template <class F>
std::vector<int16_t> Blocked(const Shape5& s, bool fractal, F at) {
  std::vector<int16_t> out;
  const uint32_t hw = s.h * s.w;
  if (!fractal) {
    for (uint32_t n = 0; n < s.n; ++n)
      for (uint32_t d = 0; d < s.d; ++d)
        for (uint32_t c1 = 0; c1 < s.c1(); ++c1)
          for (uint32_t i = 0; i < hw; ++i)
            for (uint32_t c0 = 0; c0 < 16; ++c0)
              out.push_back(c1 * 16 + c0 < s.c ? at(n, c1 * 16 + c0, d, i) : 0);
  } else {
    for (uint32_t d = 0; d < s.d; ++d)
      for (uint32_t c1 = 0; c1 < s.c1(); ++c1)
        for (uint32_t i = 0; i < hw; ++i)
          for (uint32_t n1 = 0; n1 < s.n1(); ++n1)
            for (uint32_t n0 = 0; n0 < 16; ++n0)
              for (uint32_t c0 = 0; c0 < 16; ++c0) {
                const uint32_t n = n1 * 16 + n0, c = c1 * 16 + c0;
                out.push_back(n < s.n && c < s.c ? at(n, c, d, i) : 0);
              }
  }
  return out;
}

using compat_test::Dev;
class TransDataTest : public compat_test::FastAndCheckedTest {};

// Runs `mode` on `src` (16-bit patterns, as int16_t or reinterpreted as half).
template <typename T>
tessera::Status RunTransData(int32_t mode, const Shape5& s, const std::vector<int16_t>& src,
                             size_t dst_count, std::vector<int16_t>* dst, int32_t bad = 0) {
  Dev gs(src.size() * 2), gd(dst_count * 2);
  gs.Put(src.data());
  tessera::device::Stream stream;
  tessera::Status st = tessera::device::Launch(
      transdata_custom<T>, 1, stream, static_cast<T*>(gs.ptr), static_cast<T*>(gd.ptr),
      static_cast<uint32_t>(src.size()), static_cast<uint32_t>(dst_count), mode,
      static_cast<int32_t>(s.n), static_cast<int32_t>(s.c), static_cast<int32_t>(s.d),
      static_cast<int32_t>(s.h), static_cast<int32_t>(s.w), bad);
  if (st.ok()) st = stream.Synchronize();
  stream.ResetError();
  if (!st.ok()) return st;
  dst->assign(dst_count, 0);
  gd.Get(dst->data());
  return st;
}

TEST_P(TransDataTest, ConvertsBothWaysWithPadding) {
  for (const Shape5& s : {Shape5{1, 7, 2, 3, 5}, Shape5{17, 31, 1, 1, 1}, Shape5{16, 16, 1, 4, 4},
                          Shape5{3, 33, 3, 2, 9}}) {
    std::mt19937 rng(s.n * 1000 + s.c * 10 + s.h);
    std::uniform_int_distribution<int> bits(-30000, 30000);
    // NCDHW input with 16-element rows; the row padding holds junk the conversion must ignore.
    std::vector<int16_t> ncdhw(s.ncdhw());
    for (auto& v : ncdhw)
      v = static_cast<int16_t>(bits(rng));
    const auto at = [&](uint32_t n, uint32_t c, uint32_t d, uint32_t i) {
      return ncdhw[s.ncdhw_at(n, c, d, i)];
    };
    for (bool fractal : {false, true}) {
      const std::vector<int16_t> blocked = Blocked(s, fractal, at);
      const std::string where = "n " + std::to_string(s.n) + " c " + std::to_string(s.c) + " h*w " +
                                std::to_string(s.h * s.w) +
                                (fractal ? " FRACTAL_Z_3D" : " NDC1HWC0");
      std::vector<int16_t> got;
      tessera::Status st = fractal
                               ? RunTransData<half>(kModeToFz, s, ncdhw, blocked.size(), &got)
                               : RunTransData<int16_t>(kModeToNdc, s, ncdhw, blocked.size(), &got);
      ASSERT_TRUE(st.ok()) << st.ToString();
      ASSERT_EQ(got, blocked) << "to " << where;
      st = fractal ? RunTransData<int16_t>(kModeFromFz, s, blocked, ncdhw.size(), &got)
                   : RunTransData<half>(kModeFromNdc, s, blocked, ncdhw.size(), &got);
      ASSERT_TRUE(st.ok()) << st.ToString();
      for (uint32_t n = 0; n < s.n; ++n)
        for (uint32_t c = 0; c < s.c; ++c)
          for (uint32_t d = 0; d < s.d; ++d)
            for (uint32_t i = 0; i < s.row(); ++i) {
              const int16_t want = i < s.h * s.w ? at(n, c, d, i) : 0;
              ASSERT_EQ(got[s.ncdhw_at(n, c, d, i)], want)
                  << "from " << where << " at n " << n << " c " << c << " d " << d << " i " << i;
            }
    }
  }
}

TEST_P(TransDataTest, LayoutsThatContradictTheFormatsFailTheBlock) {
  const Shape5 s{2, 20, 1, 2, 3};
  std::vector<int16_t> src(s.ncdhw(), 1), got;
  const tessera::Status st =
      RunTransData<int16_t>(kModeToNdc, s, src, uint64_t{s.n} * s.d * 3 * 6 * 16, &got, /*bad=*/1);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("NDC1HWC0 shape"), std::string::npos) << st.ToString();
}

TEST_P(TransDataTest, OverlappingTensorsFailTheBlock) {
  const Shape5 s{2, 20, 1, 2, 3};
  std::mt19937 rng(77);
  std::uniform_int_distribution<int> bits(-30000, 30000);
  std::vector<int16_t> src(s.ncdhw()), got;
  for (auto& v : src)
    v = static_cast<int16_t>(bits(rng));
  const tessera::Status st = RunTransData<int16_t>(
      kModeToNdc, s, src, uint64_t{s.n} * s.d * s.c1() * s.h * s.w * 16, &got, /*bad=*/2);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("overlap"), std::string::npos) << st.ToString();
}

INSTANTIATE_TEST_SUITE_P(FastAndChecked, TransDataTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("Checked") : std::string("Fast");
                         });

}  // namespace

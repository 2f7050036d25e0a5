// The vendor's basic transposes (tessera/compat/kernel/adv/transpose.h): Transpose 16 x 16,
// Transpose with TransposeParamsExt (NCHW <-> NHWC) and TransDataTo5HD, launched through
// tessera's device runtime and compared with index-mapping references on random data. Built as
// C++17 and C++20.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "dev_buf.h"
#include "kernel_operator.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tiling/transpose/unpad_tiling.h"
namespace {

using adv_test::DevBuf;

using UbBuf = AscendC::TBuf<AscendC::TPosition::VECCALC>;

template <class T>
AscendC::LocalTensor<T> Load(AscendC::TPipe& pipe, UbBuf& buf, __gm__ uint8_t* gm, uint32_t n) {
  AscendC::GlobalTensor<T> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gm), n);
  pipe.InitBuffer(buf, n * sizeof(T));
  AscendC::LocalTensor<T> t = buf.Get<T>();
  AscendC::DataCopy(t, g, n);
  AscendC::PipeBarrier<PIPE_ALL>();
  return t;
}
template <class T>
void Store(__gm__ uint8_t* gm, const AscendC::LocalTensor<T>& t, uint32_t n) {
  AscendC::GlobalTensor<T> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gm), n);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopy(g, t, n);
}

template <class... Params, class... Args>
tessera::Status RunKernel(void (*kernel)(Params...), Args... args) {
  auto stream = tessera::device::Stream::Create();
  if (!stream.ok()) return stream.status();
  tessera::Status st = tessera::device::Launch(kernel, 1, *stream, args...);
  if (!st.ok()) return st;
  return stream->Synchronize();
}

template <class T>
std::vector<T> RandomBits(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    const auto bits = static_cast<std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>>(rng());
    std::memcpy(&x, &bits, sizeof(T));
  }
  return v;
}

// mode 0: Transpose 16 x 16; 1: TransposeParamsExt NCHW2NHWC; 2: NHWC2NCHW.
template <class T>
__global__ __vector__ void transpose_custom(__gm__ uint8_t* x, __gm__ uint8_t* y, uint32_t n,
                                            uint32_t c, uint32_t h, uint32_t w, uint32_t mode,
                                            uint32_t stored) {
  AscendC::TPipe pipe;
  UbBuf in, out, tmp;
  AscendC::LocalTensor<T> src = Load<T>(pipe, in, x, stored);
  pipe.InitBuffer(out, stored * sizeof(T));
  pipe.InitBuffer(tmp, 32);
  AscendC::LocalTensor<T> dst = out.Get<T>();
  AscendC::Duplicate(dst, static_cast<T>(0.0f), static_cast<int32_t>(stored));
  if constexpr (sizeof(T) == 2) {
    if (mode == 0) {
      AscendC::Transpose<T>(dst, src);
      Store(y, dst, stored);
      return;
    }
  }
  {
    AscendC::TransposeParamsExt p(static_cast<uint16_t>(n), static_cast<uint16_t>(c),
                                  static_cast<uint16_t>(h), static_cast<uint16_t>(w),
                                  mode == 1 ? AscendC::TransposeType::TRANSPOSE_NCHW2NHWC
                                            : AscendC::TransposeType::TRANSPOSE_NHWC2NCHW);
    AscendC::Transpose(dst, src, tmp.Get<uint8_t>(), p);
  }
  Store(y, dst, stored);
}

TEST(CompatAdvTranspose, Sixteen) {
  const std::vector<half> x = RandomBits<half>(256, 3);
  DevBuf<half> dx(x), dy{std::vector<half>(256)};
  ASSERT_TRUE(RunKernel(transpose_custom<half>, dx.gm(), dy.gm(), 1u, 1u, 16u, 16u, 0u, 256u).ok());
  const std::vector<half>& y = dy.Download();
  for (uint32_t r = 0; r < 16; ++r)
    for (uint32_t c = 0; c < 16; ++c)
      ASSERT_EQ(std::memcmp(&y[c * 16 + r], &x[r * 16 + c], 2), 0) << r << "," << c;
}

template <class T>
void CheckNchw(uint32_t n, uint32_t c, uint32_t h, uint32_t w, uint32_t seed) {
  SCOPED_TRACE(std::to_string(n) + "x" + std::to_string(c) + "x" + std::to_string(h) + "x" +
               std::to_string(w));
  const uint32_t total = n * c * h * w;
  const uint32_t stored = (total * sizeof(T) + 31) / 32 * 32 / sizeof(T);
  const std::vector<T> x = RandomBits<T>(stored, seed);
  for (uint32_t mode : {1u, 2u}) {
    DevBuf<T> dx(x), dy{std::vector<T>(stored)};
    const tessera::Status st =
        RunKernel(transpose_custom<T>, dx.gm(), dy.gm(), n, c, h, w, mode, stored);
    ASSERT_TRUE(st.ok()) << st.message();
    const std::vector<T>& y = dy.Download();
    for (uint32_t in = 0; in < n; ++in)
      for (uint32_t ic = 0; ic < c; ++ic)
        for (uint32_t s = 0; s < h * w; ++s) {
          const uint32_t nchw = (in * c + ic) * h * w + s;
          const uint32_t nhwc = (in * h * w + s) * c + ic;
          const T& got = mode == 1 ? y[nhwc] : y[nchw];
          const T& want = mode == 1 ? x[nchw] : x[nhwc];
          ASSERT_EQ(std::memcmp(&got, &want, sizeof(T)), 0) << "mode " << mode << " at " << nchw;
        }
  }
}

TEST(CompatAdvTranspose, NchwNhwcHalfAndFloat) {
  CheckNchw<half>(1, 3, 3, 16, 1);
  CheckNchw<half>(2, 7, 5, 3, 2);
  CheckNchw<float>(1, 1, 1, 8, 3);
  CheckNchw<float>(3, 31, 2, 7, 4);
}

// The 5HD layout as the vendor's sample builds it: a [C0 = 16, H, W = 16] half image to
// [H * W, C0], 16 repeats.
__global__ __vector__ void to5hd_custom(__gm__ uint8_t* x, __gm__ uint8_t* y, uint32_t h) {
  AscendC::TPipe pipe;
  UbBuf in, out;
  const uint32_t total = 16 * h * 16;
  AscendC::LocalTensor<half> src = Load<half>(pipe, in, x, total);
  pipe.InitBuffer(out, total * sizeof(half));
  AscendC::LocalTensor<half> dst = out.Get<half>();
  AscendC::TransDataTo5HDParams params(false, false, static_cast<uint8_t>(h), 16, 1);
  uint64_t dst_list[16], src_list[16];
  for (int i = 0; i < 16; ++i) {
    dst_list[i] = reinterpret_cast<uint64_t>(dst[16 * i].GetPhyAddr());
    src_list[i] = reinterpret_cast<uint64_t>(src[h * 16 * i].GetPhyAddr());
  }
  AscendC::TransDataTo5HD<half>(dst_list, src_list, params);
  Store(y, dst, total);
}

TEST(CompatAdvTranspose, TransDataTo5HD) {
  for (uint32_t h : {1u, 5u, 16u}) {
    const std::vector<half> x = RandomBits<half>(256 * h, h);
    DevBuf<half> dx(x), dy{std::vector<half>(256 * h)};
    const tessera::Status st = RunKernel(to5hd_custom, dx.gm(), dy.gm(), h);
    ASSERT_TRUE(st.ok()) << st.message();
    const std::vector<half>& y = dy.Download();
    for (uint32_t c = 0; c < 16; ++c)
      for (uint32_t s = 0; s < h * 16; ++s)
        ASSERT_EQ(std::memcmp(&y[s * 16 + c], &x[c * h * 16 + s], 2), 0) << c << "," << s;
  }
}

// UnPad of [h, w] rows (w a whole number of 32-byte blocks) with leftPad / rightPad, the tiling
// made by the host's UnPadTilingFunc and saved with SaveToBuffer as a vendor sample does.
__global__ __vector__ void unpad_custom(__gm__ uint8_t* x, __gm__ uint8_t* y, __gm__ uint8_t* t,
                                        uint32_t left, uint32_t right) {
  AscendC::tiling::UnPadTiling tiling;
  std::memcpy(&tiling, t, sizeof(tiling));
  AscendC::TPipe pipe;
  UbBuf in, out;
  const uint32_t total = tiling.srcHeight * tiling.srcWidth;
  AscendC::LocalTensor<float> src = Load<float>(pipe, in, x, total);
  pipe.InitBuffer(out, total * sizeof(float));
  AscendC::LocalTensor<float> dst = out.Get<float>();
  AscendC::Duplicate(dst, 0.0f, static_cast<int32_t>(total));
  AscendC::UnPadParams params(static_cast<uint16_t>(left), static_cast<uint16_t>(right));
  AscendC::UnPad(dst, src, params, tiling);
  Store(y, dst, total);
}

TEST(CompatAdvUnPad, RowsLoseTheirPadding) {
  uint32_t seed = 9;
  for (uint32_t h : {1u, 7u, 31u})
    for (uint32_t w : {8u, 16u, 136u})
      for (uint32_t left : {0u, 1u})
        for (uint32_t right : {0u, 1u, 7u}) {
          SCOPED_TRACE(std::to_string(h) + "x" + std::to_string(w) + " left " +
                       std::to_string(left) + " right " + std::to_string(right));
          optiling::UnPadTiling host;
          uint32_t max_bytes = 1, min_bytes = 1;
          platform_ascendc::PlatformAscendC plat;
          const AscendC::TensorShape shape(std::vector<int64_t>{h, w});
          AscendC::GetUnPadMaxMinTmpSize(plat, shape, sizeof(float), max_bytes, min_bytes);
          EXPECT_EQ(max_bytes, 0u);
          AscendC::UnPadTilingFunc(shape, min_bytes, sizeof(float), host);
          std::vector<uint8_t> bytes(sizeof(AscendC::tiling::UnPadTiling));
          host.SaveToBuffer(bytes.data(), bytes.size());
          const std::vector<float> x = RandomBits<float>(h * w, seed++);
          DevBuf<float> dx(x), dy{std::vector<float>(h * w)};
          DevBuf<uint8_t> dt(bytes);
          const tessera::Status st =
              RunKernel(unpad_custom, dx.gm(), dy.gm(), dt.gm(), left, right);
          ASSERT_TRUE(st.ok()) << st.message();
          const std::vector<float>& y = dy.Download();
          const uint32_t ow = w - left - right;
          for (uint32_t r = 0; r < h; ++r)
            for (uint32_t j = 0; j < ow; ++j)
              ASSERT_EQ(std::memcmp(&y[r * ow + j], &x[r * w + left + j], 4), 0) << r << "," << j;
        }
}

}  // namespace

// The cube's data moves against scalar models of the vendor's pseudo-code: DataCopy GM -> L1 with
// Nd2NzParams (zero-filled padding columns, untouched padding rows, several matrices), LoadData 2D
// (with and without transpose, strides, gaps, decrementing addresses) and LoadDataWithTranspose
// (b8, b16 and b32 squares with dstGap / dstFracGap), on random data of awkward sizes.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cube_test_util.h"

namespace tessera::kernel {
namespace {

using device::KernelType;
using testing::Contains;
using testing::DeviceBuffer;
using testing::RunCube;

constexpr uint8_t kPoison = 0xA5;

// GM src -> L1 (Nd2Nz) -> GM out (the whole L1 tensor, bytes).
template <class T>
void Nd2NzKernel(T* src, uint64_t src_count, T* out, uint32_t l1_count, Nd2NzParams p) {
  LocalMemAllocator<Hardware::L1> l1;
  LocalTensor<T> a1 = l1.Alloc<TPosition::A1, T>(l1_count);
  std::memset(static_cast<void*>(a1.GetPhyAddr()), kPoison, l1_count * sizeof(T));
  GlobalTensor<T> g;
  g.SetGlobalBuffer(src, src_count);
  DataCopy(a1, g, p);
  std::memcpy(out, a1.GetPhyAddr(), l1_count * sizeof(T));
}

template <class T>
void CheckNd2Nz(uint32_t rows, uint32_t cols, uint32_t nd, uint32_t pitch_extra) {
  constexpr uint32_t c0 = 32 / sizeof(T);
  const uint32_t pitch = cols + pitch_extra;
  const uint32_t src_mat = rows * pitch + 3;  // source matrices 3 elements apart beyond a matrix
  const uint32_t hp = testing::Ceil(rows, 16) * 16;
  const uint32_t blocks = testing::Ceil(cols, c0);
  const uint32_t dst_mat = blocks * hp * c0 + 64;
  const uint32_t l1_count = dst_mat * nd;
  std::vector<T> src = testing::Random<T>(size_t{src_mat} * nd, rows * 131 + cols);
  DeviceBuffer<T> dsrc(src);
  DeviceBuffer<T> dout(l1_count);
  const Nd2NzParams p{nd, rows, cols, src_mat, pitch, hp, 1, dst_mat};
  Status st = RunCube("nd2nz", KernelType::kAic, 1, Nd2NzKernel<T>, dsrc.get(),
                      uint64_t{src_mat} * nd, dout.get(), l1_count, p);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const std::vector<T> out = dout.ToHost();
  for (uint32_t i = 0; i < nd; ++i) {
    for (uint32_t r = 0; r < hp; ++r) {
      for (uint32_t c = 0; c < blocks * c0; ++c) {
        const size_t at = size_t{i} * dst_mat + testing::NzOffset(r, c, hp, c0);
        uint8_t got[sizeof(T)], want[sizeof(T)];
        std::memcpy(got, &out[at], sizeof(T));
        if (r < rows && c < cols) {
          std::memcpy(want, &src[size_t{i} * src_mat + size_t{r} * pitch + c], sizeof(T));
        } else if (r < rows) {
          std::memset(want, 0, sizeof(T));  // padding columns: zeros
        } else {
          std::memset(want, kPoison, sizeof(T));  // padding rows: not written
        }
        ASSERT_EQ(std::memcmp(got, want, sizeof(T)), 0)
            << "matrix " << i << " row " << r << " col " << c << " of " << rows << "x" << cols;
      }
    }
  }
}

TEST(CubeNd2NzTest, AwkwardSizesEveryElementWidth) {
  for (uint32_t rows : {1u, 15u, 16u, 17u, 255u}) {
    for (uint32_t cols : {1u, 15u, 16u, 17u, 255u}) {
      CheckNd2Nz<half>(rows, cols, 1, 0);
      CheckNd2Nz<float>(rows, cols, 1, 5);
      CheckNd2Nz<int8_t>(rows, cols, 1, 1);
    }
  }
}

TEST(CubeNd2NzTest, SeveralMatricesAndCheckedMode) {
  testing::CheckedScope checked(true);
  CheckNd2Nz<half>(17, 33, 3, 7);
  CheckNd2Nz<bfloat16>(16, 16, 2, 0);
  CheckNd2Nz<float>(31, 9, 2, 1);
  CheckNd2Nz<int8_t>(5, 64, 2, 0);
}

// Rows wide enough for the copy's groups of column blocks plus single blocks and a partial tail,
// with a source pitch of whole 4 KB pages (a GEMM operand's), and strips cut short by nValue.
TEST(CubeNd2NzTest, WideRowsAtAPageMultiplePitch) {
  CheckNd2Nz<float>(40, 203, 2, 1024 - 203);
  CheckNd2Nz<half>(33, 130, 1, 2048 - 130);
  CheckNd2Nz<int8_t>(17, 300, 1, 4096 - 300);
  testing::CheckedScope checked(true);
  CheckNd2Nz<float>(7, 129, 1, 1024 - 129);
}

TEST(CubeNd2NzTest, ZeroSizesAreNoOps) {
  std::vector<half> src(64, half(1.0f));
  DeviceBuffer<half> dsrc(src), dout(256);
  for (const Nd2NzParams& p :
       {Nd2NzParams{0, 4, 4, 0, 4, 16, 1, 0}, Nd2NzParams{1, 0, 4, 0, 4, 16, 1, 0},
        Nd2NzParams{1, 4, 0, 0, 4, 16, 1, 0}}) {
    ASSERT_TRUE(RunCube("nd2nz_nop", KernelType::kAic, 1, Nd2NzKernel<half>, dsrc.get(), 64,
                        dout.get(), 256u, p)
                    .ok());
    for (half v : dout.ToHost())
      EXPECT_EQ(v.bits, 0xA5A5);
  }
}

// ---- LoadData ----

// GM -> L1 (raw) -> L0A/L0B via LoadData -> GM (raw dump of the L0 tensor).
template <class T, bool kWithTranspose, class Params>
void LoadKernel(T* src, uint32_t l1_count, T* out, uint32_t l0_count, bool to_b, Params p) {
  LocalMemAllocator<Hardware::L1> l1;
  LocalTensor<T> a1 = l1.Alloc<TPosition::A1, T>(l1_count);
  std::memcpy(a1.GetPhyAddr(), src, l1_count * sizeof(T));
  LocalTensor<T> dst;
  if (to_b) {
    LocalMemAllocator<Hardware::L0B> l0b;
    dst = l0b.Alloc<TPosition::B2, T>(l0_count);
  } else {
    LocalMemAllocator<Hardware::L0A> l0a;
    dst = l0a.Alloc<TPosition::A2, T>(l0_count);
  }
  std::memset(static_cast<void*>(dst.GetPhyAddr()), kPoison, l0_count * sizeof(T));
  if constexpr (kWithTranspose) {
    LoadDataWithTranspose(dst, a1, p);
  } else {
    LoadData(dst, a1, p);
  }
  std::memcpy(out, dst.GetPhyAddr(), l0_count * sizeof(T));
}

// The vendor's load2d.py model on fractal indices.
template <class T>
std::vector<T> LoadData2DModel(const std::vector<T>& src, size_t out_count,
                               const LoadData2DParams& p) {
  constexpr size_t frac = 512 / sizeof(T);
  constexpr size_t c0 = 32 / sizeof(T);
  std::vector<T> out(out_count);
  std::memset(static_cast<void*>(out.data()), kPoison, out_count * sizeof(T));
  for (size_t i = 0; i < p.repeatTimes; ++i) {
    const size_t s =
        (p.addrMode == 0 ? p.startIndex + i * p.srcStride : p.startIndex - i * p.srcStride) * frac;
    const size_t d = i * (p.dstGap + 1u) * frac;
    for (size_t r = 0; r < 16; ++r) {
      for (size_t c = 0; c < c0; ++c)
        out[d + r * c0 + c] = p.ifTranspose ? src[s + c * c0 + r] : src[s + r * c0 + c];
    }
  }
  return out;
}

template <class T>
void CheckLoadData(const LoadData2DParams& p, bool to_b) {
  constexpr size_t frac = 512 / sizeof(T);
  const size_t l1_count = 40 * frac, l0_count = 24 * frac;
  std::vector<T> src = testing::Random<T>(l1_count, p.startIndex * 7 + p.repeatTimes);
  DeviceBuffer<T> dsrc(src), dout(l0_count);
  Status st = RunCube("load2d", KernelType::kAic, 1, LoadKernel<T, false, LoadData2DParams>,
                      dsrc.get(), uint32_t(l1_count), dout.get(), uint32_t(l0_count), to_b, p);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const std::vector<T> want = LoadData2DModel(src, l0_count, p);
  const std::vector<T> got = dout.ToHost();
  ASSERT_EQ(std::memcmp(got.data(), want.data(), l0_count * sizeof(T)), 0)
      << "start " << p.startIndex << " repeat " << int(p.repeatTimes) << " stride " << p.srcStride
      << " gap " << p.dstGap << " transpose " << p.ifTranspose << " mode " << int(p.addrMode);
}

TEST(CubeLoadDataTest, FractalsMovedAndTransposed) {
  for (bool checked : {false, true}) {
    testing::CheckedScope scope(checked);
    for (bool tr : {false, true}) {
      CheckLoadData<half>(LoadData2DParams{0, 4, 1, 0, 0, tr, 0}, false);
      CheckLoadData<half>(LoadData2DParams{3, 7, 5, 0, 2, tr, 0}, true);
      CheckLoadData<bfloat16>(LoadData2DParams{30, 6, 4, 0, 1, tr, 1}, false);
      CheckLoadData<half>(LoadData2DParams{2, 5, 0, 0, 0, tr, 0}, true);  // stride 0: reread
    }
    CheckLoadData<float>(LoadData2DParams{1, 9, 3, 0, 1, false, 0}, false);
    CheckLoadData<float>(LoadData2DParams{2, 9, 1, 0, 0, false, 0}, true);  // one contiguous run
    CheckLoadData<int8_t>(LoadData2DParams{0, 12, 2, 0, 0, false, 0}, true);
    CheckLoadData<half>(LoadData2DParams{0, 0, 1, 0, 0, false, 0}, true);  // repeat 0: no-op
  }
}

// The vendor's load_data_with_transpose.py model: a square is an S x S Nz matrix of `fracs`
// fractals; its transpose leaves as the same Nz shape, fractal f at f * (dstFracGap + 1).
template <class T>
std::vector<T> TransposeModel(const std::vector<T>& src, size_t out_count,
                              const LoadData2dTransposeParams& p) {
  constexpr size_t frac = 512 / sizeof(T);
  constexpr size_t c0 = 32 / sizeof(T);
  constexpr size_t side = sizeof(T) == 1 ? 32 : 16;
  constexpr size_t fracs = sizeof(T) == 2 ? 1 : 2;
  std::vector<T> out(out_count);
  std::memset(static_cast<void*>(out.data()), kPoison, out_count * sizeof(T));
  // Element (r, c) of an S x S Nz square: column block c / c0 holds S rows of c0.
  auto at = [&](size_t r, size_t c) { return (c / c0) * side * c0 + r * c0 + c % c0; };
  for (size_t i = 0; i < p.repeatTimes; ++i) {
    const size_t s =
        (p.addrMode == 0 ? p.startIndex + i * p.srcStride : p.startIndex - i * p.srcStride) *
        fracs * frac;
    const size_t d = i * (p.dstGap + 1u) * frac;
    for (size_t r = 0; r < side; ++r) {
      for (size_t c = 0; c < side; ++c) {
        const size_t o = at(r, c);  // transposed element (r, c) = source (c, r)
        const size_t f = o / frac;
        out[d + f * (p.dstFracGap + 1u) * frac + o % frac] = src[s + at(c, r)];
      }
    }
  }
  return out;
}

template <class T>
void CheckTranspose(const LoadData2dTransposeParams& p, bool to_b) {
  constexpr size_t frac = 512 / sizeof(T);
  const size_t l1_count = 48 * frac, l0_count = 40 * frac;
  std::vector<T> src = testing::Random<T>(l1_count, p.startIndex * 3 + p.repeatTimes + 11);
  DeviceBuffer<T> dsrc(src), dout(l0_count);
  Status st =
      RunCube("transpose", KernelType::kAic, 1, LoadKernel<T, true, LoadData2dTransposeParams>,
              dsrc.get(), uint32_t(l1_count), dout.get(), uint32_t(l0_count), to_b, p);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const std::vector<T> want = TransposeModel(src, l0_count, p);
  const std::vector<T> got = dout.ToHost();
  for (size_t i = 0; i < l0_count; ++i) {
    ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(T)), 0)
        << "element " << i << " (fractal " << i / frac << "), " << sizeof(T) << "-byte, repeat "
        << int(p.repeatTimes) << " stride " << p.srcStride << " gap " << p.dstGap << " fracgap "
        << p.dstFracGap;
  }
}

TEST(CubeLoadDataWithTransposeTest, SquaresOfEveryWidth) {
  for (bool checked : {false, true}) {
    testing::CheckedScope scope(checked);
    CheckTranspose<half>(LoadData2dTransposeParams{0, 3, 1, 0, 0}, true);
    CheckTranspose<half>(LoadData2dTransposeParams{5, 4, 3, 2, 0}, false);
    CheckTranspose<float>(LoadData2dTransposeParams{0, 3, 1, 1, 0}, true);
    CheckTranspose<float>(LoadData2dTransposeParams{1, 5, 2, 0, 2}, false);
    CheckTranspose<int32_t>(LoadData2dTransposeParams{20, 4, 4, 3, 1, 1}, true);
    CheckTranspose<int8_t>(LoadData2dTransposeParams{0, 3, 1, 1, 0}, true);
    CheckTranspose<int8_t>(LoadData2dTransposeParams{2, 6, 3, 0, 2}, false);
    CheckTranspose<uint8_t>(LoadData2dTransposeParams{0, 0, 1, 0, 0}, true);  // no-op
  }
}

}  // namespace
}  // namespace tessera::kernel

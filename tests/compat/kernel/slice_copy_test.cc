// DataCopy with SliceInfo (GM <-> UB slice copies) in the vendor's dialect: the kit's 2-D example,
// random 1-D and 3-D slices against an independent nested-loop reference, and bad SliceInfos
// failing with a message. ListTensorDesc / TensorDesc decoding a list built as the vendor's host
// code builds it. PopStackBuffer handing out the UB past the pipe's buffers; TBuf's queue-binding
// members; DataCopyPad's DataCopyParams / DataCopyPadParams form against the DataCopyExtParams
// form. Built as C++17 and C++20.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"

namespace {

struct Dim {
  uint32_t start, end, stride, burst, shape;
};

// Up to 3 dimensions of slices per side, passed by value to the kernel.
struct Slices {
  uint32_t dims;
  Dim src[3];
  Dim dst[3];
  uint32_t ub_elems;  // UB tensor size (the destination shape's product)
};

__global__ __vector__ void slice_custom(__gm__ uint8_t* x, __gm__ uint8_t* y, Slices s) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, (s.ub_elems * sizeof(float) + 31) / 32 * 32);
  AscendC::LocalTensor<float> ub = buf.Get<float>();
  AscendC::GlobalTensor<float> gx, gy;
  gx.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x));
  gy.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y));
  AscendC::SliceInfo src[AscendC::K_MAX_DIM], dst[AscendC::K_MAX_DIM];
  for (uint32_t i = 0; i < s.dims; ++i) {
    src[i] = {s.src[i].start, s.src[i].end, s.src[i].stride, s.src[i].burst, s.src[i].shape};
    dst[i] = {s.dst[i].start, s.dst[i].end, s.dst[i].stride, s.dst[i].burst, s.dst[i].shape};
  }
  AscendC::DataCopy(ub, gx, dst, src, s.dims);
  AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
  AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
  // Back out with the destination slice on both sides: the same positions of y.
  AscendC::DataCopy(gy, ub, dst, dst, s.dims);
}

template <class... Params, class... Args>
tessera::Status RunKernel(void (*kernel)(Params...), Args... args) {
  auto stream = tessera::device::Stream::Create();
  if (!stream.ok()) return stream.status();
  tessera::Status st = tessera::device::Launch(kernel, 1, *stream, args...);
  if (!st.ok()) return st;
  return stream->Synchronize();
}

// The offsets a slice selects, by nested loops (dimension 0 innermost, segments of burst*8
// floats in dimension 0 and single indices elsewhere).
std::vector<size_t> Offsets(const Dim* d, uint32_t dims) {
  std::vector<std::vector<size_t>> idx(dims);
  for (uint32_t k = 0; k < dims; ++k) {
    const size_t seg = k == 0 ? d[k].burst * 8 : 1;
    for (size_t at = d[k].start; at + seg - 1 <= d[k].end; at += seg + d[k].stride)
      for (size_t i = 0; i < seg; ++i)
        idx[k].push_back(at + i);
  }
  std::vector<size_t> out;
  const size_t pitch1 = d[0].shape, pitch2 = dims > 1 ? size_t{d[0].shape} * d[1].shape : 0;
  const std::vector<size_t> one{0};
  const auto& i2 = dims > 2 ? idx[2] : one;
  const auto& i1 = dims > 1 ? idx[1] : one;
  for (size_t c : i2)
    for (size_t b : i1)
      for (size_t a : idx[0])
        out.push_back(a + b * pitch1 + c * pitch2);
  return out;
}

size_t Elems(const Dim* d, uint32_t dims) {
  size_t n = 1;
  for (uint32_t k = 0; k < dims; ++k)
    n *= d[k].shape;
  return n;
}

void CheckSlices(const Slices& s, uint32_t seed) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(Elems(s.src, s.dims));
  for (auto& v : x)
    v = dist(rng);
  const size_t ny = Elems(s.dst, s.dims);
  const float sentinel = 42.5f;
  std::vector<float> y(ny, sentinel);
  auto px = tessera::device::Malloc(x.size() * 4);
  auto py = tessera::device::Malloc(y.size() * 4);
  ASSERT_TRUE(px.ok() && py.ok());
  using tessera::device::MemcpyKind;
  ASSERT_TRUE(
      tessera::device::Memcpy(*px, x.size() * 4, x.data(), x.size() * 4, MemcpyKind::kHostToDevice)
          .ok());
  ASSERT_TRUE(
      tessera::device::Memcpy(*py, y.size() * 4, y.data(), y.size() * 4, MemcpyKind::kHostToDevice)
          .ok());
  const tessera::Status st =
      RunKernel(slice_custom, static_cast<uint8_t*>(*px), static_cast<uint8_t*>(*py), s);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_TRUE(
      tessera::device::Memcpy(y.data(), y.size() * 4, *py, y.size() * 4, MemcpyKind::kDeviceToHost)
          .ok());
  const std::vector<size_t> from = Offsets(s.src, s.dims), to = Offsets(s.dst, s.dims);
  ASSERT_EQ(from.size(), to.size());
  std::vector<float> want(ny, sentinel);
  for (size_t i = 0; i < from.size(); ++i)
    want[to[i]] = x[from[i]];
  for (size_t i = 0; i < ny; ++i)
    ASSERT_EQ(y[i], want[i]) << "element " << i;
  EXPECT_TRUE(tessera::device::Free(*px).ok());
  EXPECT_TRUE(tessera::device::Free(*py).ok());
}

TEST(CompatSliceCopy, KitExample) {
  // 3 x 87 floats -> 2 x 48: two segments of 24 from rows 0 and 2.
  Slices s{2, {{16, 70, 7, 3, 87}, {0, 2, 1, 1, 3}}, {{0, 47, 0, 3, 48}, {0, 1, 0, 1, 2}}, 96};
  CheckSlices(s, 1);
}

TEST(CompatSliceCopy, RandomSlices) {
  std::mt19937 rng(7);
  for (uint32_t trial = 0; trial < 20; ++trial) {
    Slices s{};
    s.dims = 1 + trial % 3;
    uint32_t ub = 1;
    for (uint32_t k = 0; k < s.dims; ++k) {
      const uint32_t burst = k == 0 ? 1 + rng() % 3 : 1;
      const uint32_t seg = k == 0 ? burst * 8 : 1;
      const uint32_t n = 1 + rng() % 4;  // segments
      const uint32_t gap = rng() % 9;
      const uint32_t start = rng() % 5;
      const uint32_t end = start + n * seg + (n - 1) * gap - 1;
      s.src[k] = {start, end, gap, burst, end + 1 + static_cast<uint32_t>(rng() % 4)};
      // The destination packs the same segments densely (dimension 0) or in order.
      const uint32_t dend = n * seg - 1;
      s.dst[k] = {0, dend, 0, burst, dend + 1};
      ub *= dend + 1;
    }
    s.ub_elems = ub;
    CheckSlices(s, 100 + trial);
  }
}

TEST(CompatSliceCopy, BadSliceFails) {
  // end - start + 1 = 30 is not whole segments of 24 floats.
  Slices s{1, {{0, 29, 0, 3, 64}}, {{0, 23, 0, 3, 24}}, 24};
  std::vector<float> x(64, 1.0f);
  auto px = tessera::device::Malloc(64 * 4);
  auto py = tessera::device::Malloc(64 * 4);
  ASSERT_TRUE(px.ok() && py.ok());
  const tessera::Status st =
      RunKernel(slice_custom, static_cast<uint8_t*>(*px), static_cast<uint8_t*>(*py), s);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("srcSliceInfo[0]"), std::string::npos) << st.message();
  EXPECT_TRUE(tessera::device::Free(*px).ok());
  EXPECT_TRUE(tessera::device::Free(*py).ok());
}

TEST(CompatSliceCopy, SliceBeyondTheTensorFailsInCheckedMode) {
  // The destination slice ends at element 48 of a 24-element UB tensor.
  Slices s{1, {{0, 23, 0, 3, 24}}, {{24, 47, 0, 3, 48}}, 24};
  const bool was_checked = tessera::device::CheckedMode();
  tessera::device::SetCheckedMode(true);
  auto px = tessera::device::Malloc(48 * 4);
  auto py = tessera::device::Malloc(48 * 4);
  ASSERT_TRUE(px.ok() && py.ok());
  const tessera::Status st =
      RunKernel(slice_custom, static_cast<uint8_t*>(*px), static_cast<uint8_t*>(*py), s);
  EXPECT_TRUE(tessera::device::Free(*px).ok());
  EXPECT_TRUE(tessera::device::Free(*py).ok());
  tessera::device::SetCheckedMode(was_checked);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("slice destination: count 48 exceeds the tensor's 24"),
            std::string::npos)
      << st.message();
}

// For each tensor of the list: its rank, index, shape and the sum of its elements.
__global__ __vector__ void list_custom(__gm__ uint8_t* list, __gm__ uint8_t* out) {
  AscendC::ListTensorDesc l((__gm__ void*)list);
  auto* o = reinterpret_cast<__gm__ float*>(out);
  o[0] = static_cast<float>(l.GetSize());
  for (uint32_t i = 0; i < l.GetSize(); ++i) {
    uint64_t shape[2] = {0, 0};
    AscendC::TensorDesc<float> d;
    d.SetShapeAddr(shape);
    l.GetDesc(d, i);
    AscendC::GlobalTensor<float> g = d.GetDataObj();
    float sum = 0;
    for (uint64_t k = 0; k < d.GetShape(0) * d.GetShape(1); ++k)
      sum += g.GetValue(k);
    o[1 + i * 5] = static_cast<float>(d.GetDim());
    o[2 + i * 5] = static_cast<float>(d.GetIndex());
    o[3 + i * 5] = static_cast<float>(d.GetShape(0));
    o[4 + i * 5] = static_cast<float>(d.GetShape(1));
    o[5 + i * 5] = sum;
    if (l.GetDataPtr<__gm__ float>(i) != d.GetDataPtr()) o[0] = -1.0f;
  }
}

TEST(CompatListTensor, DecodesTheVendorLayout) {
  constexpr uint32_t kCount = 3;
  const uint64_t shapes[kCount][2] = {{2, 8}, {1, 5}, {3, 7}};
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<void*> data(kCount);
  std::vector<double> sums(kCount, 0.0);
  for (uint32_t i = 0; i < kCount; ++i) {
    std::vector<float> v(shapes[i][0] * shapes[i][1]);
    for (auto& x : v) {
      x = dist(rng);
      sums[i] += x;
    }
    auto p = tessera::device::Malloc(v.size() * 4);
    ASSERT_TRUE(p.ok());
    data[i] = *p;
    ASSERT_TRUE(tessera::device::Memcpy(data[i], v.size() * 4, v.data(), v.size() * 4,
                                        tessera::device::MemcpyKind::kHostToDevice)
                    .ok());
  }
  // Header word, kCount descriptors of (dim | index << 32, shape0, shape1), then the pointers.
  std::vector<uint64_t> list{(1 + 3 * kCount) * 8};
  for (uint32_t i = 0; i < kCount; ++i) {
    list.push_back(2u | (uint64_t{i} << 32));
    list.push_back(shapes[i][0]);
    list.push_back(shapes[i][1]);
  }
  for (void* p : data)
    list.push_back(reinterpret_cast<uintptr_t>(p));
  auto dl = tessera::device::Malloc(list.size() * 8);
  auto dout = tessera::device::Malloc(64 * 4);
  ASSERT_TRUE(dl.ok() && dout.ok());
  ASSERT_TRUE(tessera::device::Memcpy(*dl, list.size() * 8, list.data(), list.size() * 8,
                                      tessera::device::MemcpyKind::kHostToDevice)
                  .ok());
  const tessera::Status st =
      RunKernel(list_custom, static_cast<uint8_t*>(*dl), static_cast<uint8_t*>(*dout));
  ASSERT_TRUE(st.ok()) << st.message();
  std::vector<float> out(64);
  ASSERT_TRUE(tessera::device::Memcpy(out.data(), 64 * 4, *dout, 64 * 4,
                                      tessera::device::MemcpyKind::kDeviceToHost)
                  .ok());
  EXPECT_EQ(out[0], static_cast<float>(kCount));
  for (uint32_t i = 0; i < kCount; ++i) {
    EXPECT_EQ(out[1 + i * 5], 2.0f);
    EXPECT_EQ(out[2 + i * 5], static_cast<float>(i));
    EXPECT_EQ(out[3 + i * 5], static_cast<float>(shapes[i][0]));
    EXPECT_EQ(out[4 + i * 5], static_cast<float>(shapes[i][1]));
    EXPECT_NEAR(out[5 + i * 5], sums[i], 1e-4);
    EXPECT_TRUE(tessera::device::Free(data[i]).ok());
  }
  EXPECT_TRUE(tessera::device::Free(*dl).ok());
  EXPECT_TRUE(tessera::device::Free(*dout).ok());
}

// A header whose pointer offset disagrees with its descriptors fails with a message.
TEST(CompatListTensor, BadHeaderFails) {
  std::vector<uint64_t> list{5 * 8, 2u | (uint64_t{2} << 32), 4, 4, 0, 0};
  auto dl = tessera::device::Malloc(list.size() * 8);
  auto dout = tessera::device::Malloc(64 * 4);
  ASSERT_TRUE(dl.ok() && dout.ok());
  ASSERT_TRUE(tessera::device::Memcpy(*dl, list.size() * 8, list.data(), list.size() * 8,
                                      tessera::device::MemcpyKind::kHostToDevice)
                  .ok());
  const tessera::Status st =
      RunKernel(list_custom, static_cast<uint8_t*>(*dl), static_cast<uint8_t*>(*dout));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("ListTensorDesc"), std::string::npos) << st.message();
  EXPECT_TRUE(tessera::device::Free(*dl).ok());
  EXPECT_TRUE(tessera::device::Free(*dout).ok());
}

// Reads every descriptor of a list; the test expects the decode itself to fail.
__global__ __vector__ void list_rank_custom(__gm__ uint8_t* list) {
  AscendC::ListTensorDesc l((__gm__ void*)list);
  for (uint32_t i = 0; i < l.GetSize(); ++i) {
    uint64_t shape[2] = {0, 0};
    AscendC::TensorDesc<float> d;
    d.SetShapeAddr(shape);
    l.GetDesc(d, i);
  }
}

// A descriptor whose rank differs from the list's (the layout has one rank per list) fails with
// the tensor's index and both ranks, instead of reading the next descriptor's words as its shape.
TEST(CompatListTensor, MixedRanksFail) {
  std::mt19937_64 rng(11);
  const uint64_t p0 = rng(), p1 = rng();
  // Tensor 0 is 2 x 3; tensor 1 claims rank 1, padded to the list's descriptor size.
  std::vector<uint64_t> list{7 * 8, 2u, 2, 3, 1u | (uint64_t{1} << 32), 5, 0, p0, p1};
  auto dl = tessera::device::Malloc(list.size() * 8);
  ASSERT_TRUE(dl.ok());
  ASSERT_TRUE(tessera::device::Memcpy(*dl, list.size() * 8, list.data(), list.size() * 8,
                                      tessera::device::MemcpyKind::kHostToDevice)
                  .ok());
  const tessera::Status st = RunKernel(list_rank_custom, static_cast<uint8_t*>(*dl));
  EXPECT_TRUE(tessera::device::Free(*dl).ok());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("tensor 1 has rank 1 but the list's tensors have rank 2"),
            std::string::npos)
      << st.message();
}

// out: [free bytes, stack bytes, stack offset from the buffer, stack bytes after a second
// InitBuffer, a value written through the stack view and read back].
__global__ __vector__ void stack_custom(__gm__ uint8_t* out) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> a, b;
  pipe.InitBuffer(a, 1000);  // rounds to 1024
  AscendC::LocalTensor<float> la = a.Get<float>();
  AscendC::LocalTensor<float> stack;
  auto* o = reinterpret_cast<__gm__ int64_t*>(out);
  o[0] = static_cast<int64_t>(pipe.FreeBytes());
  if (!AscendC::PopStackBuffer<float, AscendC::TPosition::LCM>(stack)) return;
  o[1] = static_cast<int64_t>(stack.GetSize()) * 4;
  o[2] = (stack.GetPhyAddr() - la.GetPhyAddr()) * 4;
  stack.SetValue(3, 2.5f);
  o[4] = static_cast<int64_t>(stack.GetValue(3) * 2);
  pipe.InitBuffer(b, 4096);
  AscendC::LocalTensor<uint8_t> again;
  AscendC::PopStackBuffer<uint8_t, AscendC::TPosition::LCM>(again);
  o[3] = again.GetSize();
}

TEST(CompatStackBuffer, PopStackBufferIsTheFreeUb) {
  auto dout = tessera::device::Malloc(8 * 8);
  ASSERT_TRUE(dout.ok());
  std::vector<int64_t> out(8, -1);
  ASSERT_TRUE(
      tessera::device::Memcpy(*dout, 64, out.data(), 64, tessera::device::MemcpyKind::kHostToDevice)
          .ok());
  const tessera::Status st = RunKernel(stack_custom, static_cast<uint8_t*>(*dout));
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_TRUE(
      tessera::device::Memcpy(out.data(), 64, *dout, 64, tessera::device::MemcpyKind::kDeviceToHost)
          .ok());
  EXPECT_GT(out[0], 0);
  EXPECT_EQ(out[1], out[0]);
  EXPECT_EQ(out[2], 1024);
  EXPECT_EQ(out[3], out[0] - 4096);
  EXPECT_EQ(out[4], 5);
  EXPECT_TRUE(tessera::device::Free(*dout).ok());
}

// y = x + 1 through a TBuf used as the vendor's samples use it: AllocTensor, EnQue / DeQue,
// FreeTensor, GetWithOffset.
__global__ __vector__ void tbuf_custom(__gm__ uint8_t* x, __gm__ uint8_t* y, uint32_t n) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 2 * n * sizeof(float));
  AscendC::LocalTensor<float> all = buf.AllocTensor<float>();
  AscendC::LocalTensor<float> in = buf.GetWithOffset<float>(n, 0);
  AscendC::LocalTensor<float> out = buf.GetWithOffset<float>(n, n * sizeof(float));
  AscendC::GlobalTensor<float> gx, gy;
  gx.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), n);
  gy.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), n);
  AscendC::DataCopy(in, gx, n);
  buf.EnQue(all);
  AscendC::LocalTensor<float> again = buf.DeQue<float>();
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::Adds(out, again, 1.0f, static_cast<int32_t>(n));
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopy(gy, out, n);
  buf.FreeTensor(all);
}

TEST(CompatTBuf, QueueBindingMembers) {
  constexpr uint32_t n = 72;
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-5.0f, 5.0f);
  std::vector<float> x(n), y(n, 0.0f);
  for (auto& v : x)
    v = dist(rng);
  auto px = tessera::device::Malloc(n * 4);
  auto py = tessera::device::Malloc(n * 4);
  ASSERT_TRUE(px.ok() && py.ok());
  ASSERT_TRUE(tessera::device::Memcpy(*px, n * 4, x.data(), n * 4,
                                      tessera::device::MemcpyKind::kHostToDevice)
                  .ok());
  const tessera::Status st =
      RunKernel(tbuf_custom, static_cast<uint8_t*>(*px), static_cast<uint8_t*>(*py), n);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_TRUE(tessera::device::Memcpy(y.data(), n * 4, *py, n * 4,
                                      tessera::device::MemcpyKind::kDeviceToHost)
                  .ok());
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(y[i], x[i] + 1.0f) << "element " << i;
  EXPECT_TRUE(tessera::device::Free(*px).ok());
  EXPECT_TRUE(tessera::device::Free(*py).ok());
}

// The same GM -> UB padded copy through both forms, then both UB tensors out: y = [old, new].
__global__ __vector__ void pad_forms_custom(__gm__ uint8_t* x, __gm__ uint8_t* y, uint32_t len,
                                            uint32_t blocks, uint32_t left, uint32_t right,
                                            uint32_t pad_bits, uint32_t ub) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> a, b;
  pipe.InitBuffer(a, ub * sizeof(half));
  pipe.InitBuffer(b, ub * sizeof(half));
  AscendC::LocalTensor<half> la = a.Get<half>(), lb = b.Get<half>();
  AscendC::Duplicate(la, half(0.0f), static_cast<int32_t>(ub));
  AscendC::Duplicate(lb, half(0.0f), static_cast<int32_t>(ub));
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::GlobalTensor<half> gx, gy;
  gx.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x));
  gy.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(y), 2 * ub);
  const half value = half::FromBits(static_cast<uint16_t>(pad_bits));
  AscendC::DataCopyExtParams ext{static_cast<uint16_t>(blocks), len * 2, 4, 0, 0};
  AscendC::DataCopyPadExtParams<half> pad_ext{true, static_cast<uint8_t>(left),
                                              static_cast<uint8_t>(right), value};
  AscendC::DataCopyPad(la, gx, ext, pad_ext);
  AscendC::DataCopyParams old{static_cast<uint16_t>(blocks), static_cast<uint16_t>(len * 2), 4, 0};
  AscendC::DataCopyPadParams pad_old{true, static_cast<uint8_t>(left), static_cast<uint8_t>(right),
                                     uint64_t{pad_bits} | (uint64_t{0xABCD} << 16)};
  AscendC::DataCopyPad(lb, gx, old, pad_old);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopy(gy, la, ub);
  AscendC::DataCopy(gy[ub], lb, ub);
}

TEST(CompatDataCopyPad, PadParamsFormMatchesExtForm) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> dist(-8.0f, 8.0f);
  for (uint32_t trial = 0; trial < 6; ++trial) {
    const uint32_t len = 1 + rng() % 29, blocks = 1 + rng() % 3, left = rng() % 3,
                   right = rng() % 3;
    const uint32_t row = (left + len + right + 15) / 16 * 16;
    const uint32_t ub = row * blocks;
    std::vector<half> x(blocks * (len + 2) + 16);
    for (auto& v : x)
      v = half(dist(rng));
    const half padv(dist(rng));
    const uint16_t bits = padv.bits;
    auto px = tessera::device::Malloc(x.size() * 2);
    auto py = tessera::device::Malloc(2 * ub * 2);
    ASSERT_TRUE(px.ok() && py.ok());
    ASSERT_TRUE(tessera::device::Memcpy(*px, x.size() * 2, x.data(), x.size() * 2,
                                        tessera::device::MemcpyKind::kHostToDevice)
                    .ok());
    const tessera::Status st =
        RunKernel(pad_forms_custom, static_cast<uint8_t*>(*px), static_cast<uint8_t*>(*py), len,
                  blocks, left, right, uint32_t{bits}, ub);
    ASSERT_TRUE(st.ok()) << st.message();
    std::vector<half> y(2 * ub);
    ASSERT_TRUE(tessera::device::Memcpy(y.data(), y.size() * 2, *py, y.size() * 2,
                                        tessera::device::MemcpyKind::kDeviceToHost)
                    .ok());
    for (uint32_t i = 0; i < ub; ++i)
      ASSERT_EQ(static_cast<float>(y[ub + i]), static_cast<float>(y[i])) << "element " << i;
    // And the padded layout itself: left pads, the block (4 bytes = 2 elements apart in GM),
    // right pads.
    for (uint32_t blk = 0; blk < blocks; ++blk) {
      for (uint32_t i = 0; i < left; ++i)
        ASSERT_EQ(static_cast<float>(y[blk * row + i]), static_cast<float>(padv));
      for (uint32_t i = 0; i < len; ++i)
        ASSERT_EQ(static_cast<float>(y[blk * row + left + i]),
                  static_cast<float>(x[blk * (len + 2) + i]));
      for (uint32_t i = 0; i < right; ++i)
        ASSERT_EQ(static_cast<float>(y[blk * row + left + len + i]), static_cast<float>(padv));
    }
    EXPECT_TRUE(tessera::device::Free(*px).ok());
    EXPECT_TRUE(tessera::device::Free(*py).ok());
  }
}

}  // namespace

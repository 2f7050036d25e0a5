// Kernel-side Ascend C names of the compat layer (tessera/compat/vendor/kernel_operator.h), in the
// vendor's dialect, launched through tessera's device runtime. Built as C++17 and as C++20.
// assert() is exercised, so it stays on in Release builds.
#undef NDEBUG
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "utils/debug/asc_dump.h"

namespace {

// Names the vendor's headers put at global scope, usable as template arguments and constants.
static_assert(PIPE_ALL == tessera::kernel::pipe_t::PIPE_ALL, "PIPE_* are global");
static_assert(EVENT_ID3 == 3, "EVENT_ID* are global");
static_assert(AscendC::ONE_BLK_SIZE == 32, "ONE_BLK_SIZE is one UB block");
static_assert(AscendC::DivCeil(7u, 2u) == 4u && AscendC::DivCeil(8, 2) == 4, "DivCeil rounds up");
static_assert(AscendC::IsSameType<int8_t, int8_t>::value &&
                  !AscendC::IsSameType<int8_t, uint8_t>::value &&
                  !AscendC::IsSameType<half, float>::value,
              "IsSameType is type equality");
static_assert(std::is_same_v<AscendC::QuePosition, AscendC::TPosition>, "QuePosition aliases");

struct ScaleTiling {
  uint32_t length;
  uint16_t scale;
  uint8_t pad;
  int64_t bias;
};

// out[block] = tiling.scale * block_idx + tiling.bias, plus block_num in the last slot.
__global__ __vector__ void tiling_custom(__gm__ uint8_t* out, __gm__ uint8_t* tiling) {
  REGISTER_TILING_DEFAULT(ScaleTiling);
  GET_TILING_DATA(t, tiling);
  auto* o = reinterpret_cast<__gm__ int64_t*>(out);
  ascendc_assert(block_idx < t.length);
  o[block_idx] = t.scale * block_idx + t.bias;
  if (block_idx == 0) o[t.length] = block_num;
  AscendC::PipeBarrier<PIPE_ALL>();
}

__global__ __vector__ void assert_custom(int32_t limit) {
  ascendc_assert(block_idx < limit, "block %d is past the limit %d", static_cast<int>(block_idx),
                 limit);
}

__global__ __vector__ void c_assert_custom(int32_t limit) {
  assert(static_cast<int32_t>(block_idx) < limit && "block past the limit");
}

__global__ __vector__ void assert_macro_custom(int32_t v) {
  ASCENDC_ASSERT(v != 0, { KERNEL_LOG(KERNEL_ERROR, "v is %d", v); });
}

TEST(CompatKernelNames, GetTilingDataAndBlockGlobals) {
  std::mt19937 rng(__cplusplus % 1000);
  const uint32_t blocks = 31;
  const ScaleTiling tiling{blocks, static_cast<uint16_t>(rng() % 1000 + 1), 0,
                           static_cast<int64_t>(rng() % 100000) - 50000};
  auto out = tessera::device::Malloc((blocks + 1) * sizeof(int64_t));
  auto dt = tessera::device::Malloc(sizeof(ScaleTiling));
  ASSERT_TRUE(out.ok() && dt.ok());
  ASSERT_TRUE(tessera::device::Memcpy(*dt, sizeof(ScaleTiling), &tiling, sizeof(ScaleTiling),
                                      tessera::device::MemcpyKind::kHostToDevice)
                  .ok());
  tessera::device::Stream stream;
  ASSERT_TRUE(tessera::device::Launch(tiling_custom, blocks, stream, static_cast<uint8_t*>(*out),
                                      static_cast<uint8_t*>(*dt))
                  .ok());
  ASSERT_TRUE(stream.Synchronize().ok());
  std::vector<int64_t> host(blocks + 1);
  ASSERT_TRUE(tessera::device::Memcpy(host.data(), host.size() * 8, *out, host.size() * 8,
                                      tessera::device::MemcpyKind::kDeviceToHost)
                  .ok());
  for (uint32_t b = 0; b < blocks; ++b) {
    EXPECT_EQ(host[b], int64_t{tiling.scale} * b + tiling.bias) << "block " << b;
  }
  EXPECT_EQ(host[blocks], blocks);
  ASSERT_TRUE(tessera::device::Free(*out).ok());
  ASSERT_TRUE(tessera::device::Free(*dt).ok());
}

TEST(CompatKernelNames, AscendcAssertFailsTheBlockWithItsMessage) {
  tessera::device::Stream stream;
  ASSERT_TRUE(tessera::device::Launch(assert_custom, 7, stream, 5).ok());
  const tessera::Status status = stream.Synchronize();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), tessera::StatusCode::kKernelError);
  const std::string text = status.ToString();
  EXPECT_NE(text.find("is past the limit 5"), std::string::npos) << text;
  EXPECT_NE(text.find("kernel_names_test.cc"), std::string::npos) << text;
  stream.ResetError();
  ASSERT_TRUE(tessera::device::Launch(assert_custom, 5, stream, 5).ok());
  EXPECT_TRUE(stream.Synchronize().ok());
}

TEST(CompatKernelNames, CAssertInAKernelFailsTheBlockAndAbortsOnTheHost) {
  tessera::device::Stream stream;
  ASSERT_TRUE(tessera::device::Launch(c_assert_custom, 7, stream, 5).ok());
  const tessera::Status status = stream.Synchronize();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), tessera::StatusCode::kKernelError);
  const std::string text = status.ToString();
  EXPECT_NE(text.find("Assertion `static_cast<int32_t>(block_idx) < limit && \"block past the "
                      "limit\"' failed."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("kernel_names_test.cc:"), std::string::npos) << text;
  stream.ResetError();
  ASSERT_TRUE(tessera::device::Launch(c_assert_custom, 5, stream, 5).ok());
  EXPECT_TRUE(stream.Synchronize().ok());
  const int zero = static_cast<int>(block_num) * 0;  // not a constant: the check runs
  EXPECT_DEATH(assert(zero == 1), "Assertion `zero == 1' failed");
}

__global__ __vector__ void raw_dump_custom(__gm__ int32_t* gm, uint32_t n) {
  asc_dump_gm<int32_t>(gm, 11, n);
  AscendC::LocalMemAllocator<AscendC::Hardware::UB> ub;
  AscendC::LocalTensor<int32_t> local = ub.Alloc<int32_t, 16>();
  for (uint32_t i = 0; i < 3; ++i)
    local.SetValue(i, gm[i] * 2);
  asc_dump_ubuf<int32_t>((__ubuf__ int32_t*)local.GetPhyAddr(), 12, 3);
  asc_dump_l1buf<int32_t>(nullptr, 13, 1);  // a NULL address is reported, nothing printed
}

TEST(CompatKernelNames, AscDumpPrintsRawAddressesLikeDumpTensor) {
  std::mt19937 rng(11);
  const uint32_t n = 9;
  std::vector<int32_t> host(n);
  for (auto& v : host)
    v = static_cast<int32_t>(rng() % 20001) - 10000;
  auto dev = tessera::device::Malloc(n * sizeof(int32_t));
  ASSERT_TRUE(dev.ok());
  std::memcpy(*dev, host.data(), n * sizeof(int32_t));
  tessera::device::Stream stream;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  ASSERT_TRUE(tessera::device::Launch(
                  tessera::device::LaunchConfig{1, tessera::device::KernelType::kAiv, "rd"},
                  raw_dump_custom, stream, static_cast<int32_t*>(*dev), n)
                  .ok());
  ASSERT_TRUE(stream.Synchronize().ok());
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  const std::string p = "[rd block 0 AIV] ";
  std::ostringstream want;
  want << p << "DumpTensor: desc=11, dtype=int32, position=GM, 9 of 9 elements\n" << p << "[0]";
  for (uint32_t i = 0; i < 8; ++i)
    want << ' ' << host[i];
  want << '\n'
       << p << "[8] " << host[8] << '\n'
       << p << "DumpTensor: desc=12, dtype=int32, position=UB, 3 of 3 elements\n"
       << p << "[0]";
  for (uint32_t i = 0; i < 3; ++i)
    want << ' ' << host[i] * 2;
  want << '\n';
  EXPECT_EQ(out, want.str());
  EXPECT_NE(err.find("asc_dump_l1buf: NULL address (desc 13)"), std::string::npos) << err;
  ASSERT_TRUE(tessera::device::Free(*dev).ok());
}

TEST(CompatKernelNames, AscendcAssertMacroRunsItsStatementsThenFails) {
  tessera::device::Stream stream;
  testing::internal::CaptureStderr();
  ASSERT_TRUE(tessera::device::Launch(assert_macro_custom, 1, stream, 0).ok());
  const tessera::Status status = stream.Synchronize();
  const std::string err = testing::internal::GetCapturedStderr();
  stream.ResetError();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(err.find("[ERROR] v is 0"), std::string::npos) << err;
  EXPECT_NE(status.ToString().find("v != 0"), std::string::npos) << status.ToString();
}

// GM -> UB with DataCopyPad: `len` elements per row, `rows` rows; isPad selects how the rest of
// each row's 32-byte unit is filled (SetPadValue(7) without isPad, paddingValue 9 with it). The
// whole UB row span goes back to GM.
template <class T>
__global__ __vector__ void pad_custom(__gm__ T* x, __gm__ T* z, uint32_t rows, uint32_t len,
                                      bool is_pad, bool set_pad) {
  constexpr uint32_t kPerUnit = 32 / sizeof(T);
  const uint32_t pitch = AscendC::DivCeil(len, kPerUnit) * kPerUnit;
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, rows * pitch * sizeof(T));
  AscendC::LocalTensor<T> ub = buf.Get<T>();
  AscendC::Duplicate(ub, static_cast<T>(-1), rows * pitch);
  AscendC::GlobalTensor<T> xGm, zGm;
  xGm.SetGlobalBuffer(x, rows * len);
  zGm.SetGlobalBuffer(z, rows * pitch);
  if (set_pad) AscendC::SetPadValue(static_cast<T>(7));
  const uint8_t right = static_cast<uint8_t>(pitch - len);
  AscendC::DataCopyExtParams copy{static_cast<uint16_t>(rows),
                                  static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
  AscendC::DataCopyPad(ub, xGm, copy, AscendC::DataCopyPadExtParams<T>{is_pad, 0, right, 9});
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopy(zGm, ub, rows * pitch);
}

template <class T>
void CheckPad(uint32_t rows, uint32_t len, bool is_pad, bool set_pad) {
  constexpr uint32_t kPerUnit = 32 / sizeof(T);
  const uint32_t pitch = (len + kPerUnit - 1) / kPerUnit * kPerUnit;
  std::mt19937 rng(rows * 131 + len);
  std::vector<T> x(rows * len), z(rows * pitch);
  for (auto& v : x)
    v = static_cast<T>(rng() % 200) - static_cast<T>(100);
  auto dx = tessera::device::Malloc(x.size() * sizeof(T));
  auto dz = tessera::device::Malloc(z.size() * sizeof(T));
  ASSERT_TRUE(dx.ok() && dz.ok());
  ASSERT_TRUE(tessera::device::Memcpy(*dx, x.size() * sizeof(T), x.data(), x.size() * sizeof(T),
                                      tessera::device::MemcpyKind::kHostToDevice)
                  .ok());
  tessera::device::Stream stream;
  ASSERT_TRUE(tessera::device::Launch(pad_custom<T>, 1, stream, static_cast<T*>(*dx),
                                      static_cast<T*>(*dz), rows, len, is_pad, set_pad)
                  .ok());
  ASSERT_TRUE(stream.Synchronize().ok());
  ASSERT_TRUE(tessera::device::Memcpy(z.data(), z.size() * sizeof(T), *dz, z.size() * sizeof(T),
                                      tessera::device::MemcpyKind::kDeviceToHost)
                  .ok());
  const T fill = is_pad ? static_cast<T>(9) : set_pad ? static_cast<T>(7) : static_cast<T>(-1);
  for (uint32_t r = 0; r < rows; ++r) {
    for (uint32_t c = 0; c < pitch; ++c) {
      const T want = c < len ? x[r * len + c] : fill;
      ASSERT_EQ(z[r * pitch + c], want) << "row " << r << " col " << c << " len " << len;
    }
  }
  ASSERT_TRUE(tessera::device::Free(*dx).ok());
  ASSERT_TRUE(tessera::device::Free(*dz).ok());
}

TEST(CompatKernelNames, DataCopyPadFillsWithSetPadValueWithoutIsPad) {
  for (uint32_t len : {1u, 7u, 20u, 31u, 33u}) {
    CheckPad<int32_t>(3, len, false, true);
    CheckPad<float>(2, len, false, true);
    CheckPad<int32_t>(1, len, true, true);  // isPad: paddingValue wins
    CheckPad<float>(2, len, false, false);  // never set: the bytes stay as they were
  }
}

// z[i] = x[i + offset] through UB, with the L2 hints the vendor's best-practice samples set on
// streamed inputs: the hint reaches views (operator[]) and the data is unchanged by it.
__global__ __vector__ void l2_hint_custom(__gm__ float* x, __gm__ float* z, uint32_t offset,
                                          uint32_t len, __gm__ int32_t* modes) {
  AscendC::GlobalTensor<float> xGm, zGm;
  xGm.SetGlobalBuffer(x, offset + len);
  zGm.SetGlobalBuffer(z, len);
  xGm.SetL2CacheHint(AscendC::CacheMode::CACHE_MODE_DISABLE);
  zGm.SetL2CacheHint<AscendC::CacheRwMode::WRITE>(AscendC::CacheMode::CACHE_MODE_LAST);
  AscendC::GlobalTensor<float> view = xGm[offset];
  modes[0] = static_cast<int32_t>(view.GetL2CacheHint());
  modes[1] = static_cast<int32_t>(zGm.GetL2CacheHint());
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, AscendC::DivCeil(len, 8u) * 32);
  AscendC::LocalTensor<float> ub = buf.Get<float>();
  AscendC::DataCopyPad(ub, view, AscendC::DataCopyExtParams{1, len * 4, 0, 0, 0},
                       AscendC::DataCopyPadExtParams<float>{false, 0, 0, 0});
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopyPad(zGm, ub, AscendC::DataCopyExtParams{1, len * 4, 0, 0, 0});
  xGm.SetL2CacheHint(AscendC::CacheMode::CACHE_MODE_NORMAL);
  modes[2] = static_cast<int32_t>(xGm.GetL2CacheHint());
}

TEST(CompatKernelNames, SetL2CacheHintKeepsDataAndReachesViews) {
  for (uint32_t len : {1u, 7u, 31u, 4097u}) {
    const uint32_t offset = len % 5 + 3;
    std::mt19937 rng(len);
    std::uniform_real_distribution<float> dist(-100.f, 100.f);
    std::vector<float> x(offset + len), z(len);
    for (auto& v : x)
      v = dist(rng);
    auto dx = tessera::device::Malloc(x.size() * 4);
    auto dz = tessera::device::Malloc(z.size() * 4);
    auto dm = tessera::device::Malloc(3 * 4);
    ASSERT_TRUE(dx.ok() && dz.ok() && dm.ok());
    ASSERT_TRUE(tessera::device::Memcpy(*dx, x.size() * 4, x.data(), x.size() * 4,
                                        tessera::device::MemcpyKind::kHostToDevice)
                    .ok());
    tessera::device::Stream stream;
    ASSERT_TRUE(tessera::device::Launch(l2_hint_custom, 1, stream, static_cast<float*>(*dx),
                                        static_cast<float*>(*dz), offset, len,
                                        static_cast<int32_t*>(*dm))
                    .ok());
    ASSERT_TRUE(stream.Synchronize().ok());
    int32_t modes[3];
    ASSERT_TRUE(tessera::device::Memcpy(z.data(), z.size() * 4, *dz, z.size() * 4,
                                        tessera::device::MemcpyKind::kDeviceToHost)
                    .ok());
    ASSERT_TRUE(tessera::device::Memcpy(modes, sizeof(modes), *dm, sizeof(modes),
                                        tessera::device::MemcpyKind::kDeviceToHost)
                    .ok());
    for (uint32_t i = 0; i < len; ++i)
      ASSERT_EQ(z[i], x[offset + i]) << "len " << len << " i " << i;
    EXPECT_EQ(modes[0], static_cast<int32_t>(AscendC::CacheMode::CACHE_MODE_DISABLE));
    EXPECT_EQ(modes[1], static_cast<int32_t>(AscendC::CacheMode::CACHE_MODE_LAST));
    EXPECT_EQ(modes[2], static_cast<int32_t>(AscendC::CacheMode::CACHE_MODE_NORMAL));
    ASSERT_TRUE(tessera::device::Free(*dx).ok());
    ASSERT_TRUE(tessera::device::Free(*dz).ok());
    ASSERT_TRUE(tessera::device::Free(*dm).ok());
  }
}

// Copies `n` elements of x to UB, applies `Body::Run(out_ub, in_ub, n, param)` and copies the
// result to z.
template <class Body, class In, class Out>
void RunUbKernel(const std::vector<In>& x, std::vector<Out>& z, int32_t param) {
  const uint32_t n = static_cast<uint32_t>(x.size());
  auto dx = tessera::device::Malloc(n * sizeof(In));
  auto dz = tessera::device::Malloc(n * sizeof(Out));
  ASSERT_TRUE(dx.ok() && dz.ok());
  ASSERT_TRUE(tessera::device::Memcpy(*dx, n * sizeof(In), x.data(), n * sizeof(In),
                                      tessera::device::MemcpyKind::kHostToDevice)
                  .ok());
  auto kernel = [](In* xp, Out* zp, uint32_t count, int32_t prm) {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> in_buf, out_buf;
    pipe.InitBuffer(in_buf, AscendC::DivCeil(count * sizeof(In), 32u) * 32);
    pipe.InitBuffer(out_buf, AscendC::DivCeil(count * sizeof(Out), 32u) * 32);
    AscendC::GlobalTensor<In> xGm;
    AscendC::GlobalTensor<Out> zGm;
    xGm.SetGlobalBuffer(xp, count);
    zGm.SetGlobalBuffer(zp, count);
    AscendC::LocalTensor<In> in = in_buf.Get<In>();
    AscendC::LocalTensor<Out> out = out_buf.Get<Out>();
    AscendC::DataCopyPad(in, xGm,
                         AscendC::DataCopyExtParams{1, uint32_t(count * sizeof(In)), 0, 0, 0},
                         AscendC::DataCopyPadExtParams<In>{false, 0, 0, 0});
    AscendC::PipeBarrier<PIPE_ALL>();
    Body::Run(out, in, count, prm);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopyPad(zGm, out,
                         AscendC::DataCopyExtParams{1, uint32_t(count * sizeof(Out)), 0, 0, 0});
  };
  tessera::device::Stream stream;
  ASSERT_TRUE(tessera::device::Launch(+kernel, 1, stream, static_cast<In*>(*dx),
                                      static_cast<Out*>(*dz), n, param)
                  .ok());
  ASSERT_TRUE(stream.Synchronize().ok());
  z.resize(n);
  ASSERT_TRUE(tessera::device::Memcpy(z.data(), n * sizeof(Out), *dz, n * sizeof(Out),
                                      tessera::device::MemcpyKind::kDeviceToHost)
                  .ok());
  ASSERT_TRUE(tessera::device::Free(*dx).ok());
  ASSERT_TRUE(tessera::device::Free(*dz).ok());
}

// The vendor's precision-conversion rules for half -> int8/uint8: round by the mode (NONE is
// RINT for a lossy conversion), saturate to the byte type's range, NaN gives 0.
long double RoundRef(long double v, AscendC::RoundMode mode) {
  switch (mode) {
    case AscendC::RoundMode::CAST_FLOOR:
      return std::floor(v);
    case AscendC::RoundMode::CAST_CEIL:
      return std::ceil(v);
    case AscendC::RoundMode::CAST_ROUND:
      return std::round(v);
    case AscendC::RoundMode::CAST_TRUNC:
      return std::trunc(v);
    default: {
      const long double f = std::floor(v);
      if (v - f != 0.5L) return v - f < 0.5L ? f : f + 1;
      return std::fmod(f, 2.0L) == 0 ? f : f + 1;
    }
  }
}

// Cast with the RoundMode `param`.
struct CastBody {
  template <class Out, class In>
  static void Run(const AscendC::LocalTensor<Out>& out, const AscendC::LocalTensor<In>& in,
                  uint32_t count, int32_t param) {
    AscendC::Cast(out, in, static_cast<AscendC::RoundMode>(param), count);
  }
};

// int16 op `param` (Add, Sub, Mul, Max, Min) of the input and the input reversed.
struct Int16Body {
  static void Run(const AscendC::LocalTensor<int16_t>& out, const AscendC::LocalTensor<int16_t>& in,
                  uint32_t count, int32_t op) {
    AscendC::LocalTensor<int16_t> rev = out;  // out doubles as the reversed operand
    for (uint32_t i = 0; i < count; ++i)
      rev.SetValue(i, in.GetValue(count - 1 - i));
    const int32_t c = static_cast<int32_t>(count);
    if (op == 0) AscendC::Add(out, in, rev, c);
    if (op == 1) AscendC::Sub(out, in, rev, c);
    if (op == 2) AscendC::Mul(out, in, rev, c);
    if (op == 3) AscendC::Max(out, in, rev, c);
    if (op == 4) AscendC::Min(out, in, rev, c);
  }
};

template <class B>
void CheckHalfToByte(uint32_t n, AscendC::RoundMode mode) {
  std::mt19937 rng(n * 7 + static_cast<int>(mode));
  std::uniform_real_distribution<float> dist(std::is_signed_v<B> ? -160.f : -20.f, 300.f);
  std::vector<half> x(n);
  for (auto& v : x)
    v = half(dist(rng));
  if (n > 3) {
    x[0] = half(std::numeric_limits<float>::quiet_NaN());
    x[1] = half(2.5f);  // a tie
    x[2] = half(-0.5f);
  }
  std::vector<B> z;
  RunUbKernel<CastBody>(x, z, static_cast<int32_t>(mode));
  constexpr long double lo = std::numeric_limits<B>::min(), hi = std::numeric_limits<B>::max();
  for (uint32_t i = 0; i < n; ++i) {
    const float v = static_cast<float>(x[i]);
    const B want = std::isnan(v) ? B{0} : static_cast<B>(std::clamp(RoundRef(v, mode), lo, hi));
    ASSERT_EQ(int{z[i]}, int{want})
        << "n " << n << " i " << i << " x " << v << " mode " << static_cast<int>(mode);
  }
}

TEST(CompatKernelNames, CastHalfToInt8AndUint8RoundsAndSaturates) {
  for (uint32_t n : {1u, 7u, 31u, 4097u}) {
    for (auto mode : {AscendC::RoundMode::CAST_NONE, AscendC::RoundMode::CAST_RINT,
                      AscendC::RoundMode::CAST_FLOOR, AscendC::RoundMode::CAST_CEIL,
                      AscendC::RoundMode::CAST_ROUND, AscendC::RoundMode::CAST_TRUNC}) {
      CheckHalfToByte<int8_t>(n, mode);
      CheckHalfToByte<uint8_t>(n, mode);
    }
  }
}

template <class B>
void CheckByteToHalf(uint32_t n) {
  std::mt19937 rng(n);
  std::vector<B> x(n);
  for (auto& v : x)
    v = static_cast<B>(rng());
  std::vector<half> z;
  RunUbKernel<CastBody>(x, z, static_cast<int32_t>(AscendC::RoundMode::CAST_NONE));
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(static_cast<float>(z[i]), static_cast<float>(int{x[i]})) << "n " << n << " i " << i;
}

TEST(CompatKernelNames, CastInt8AndUint8ToHalfIsExact) {
  for (uint32_t n : {1u, 7u, 31u, 4097u}) {
    CheckByteToHalf<int8_t>(n);
    CheckByteToHalf<uint8_t>(n);
  }
}

// int16 Add/Sub/Mul/Max/Min against int32 arithmetic reduced modulo 2^16 (the second operand is
// the input reversed).
TEST(CompatKernelNames, Int16ArithmeticWraps) {
  for (uint32_t n : {1u, 7u, 31u, 4097u}) {
    std::mt19937 rng(n + 11);
    std::vector<int16_t> x(n);
    for (auto& v : x)
      v = static_cast<int16_t>(rng());
    for (int op = 0; op < 5; ++op) {
      std::vector<int16_t> z;
      RunUbKernel<Int16Body>(x, z, op);
      for (uint32_t i = 0; i < n; ++i) {
        const int32_t a = x[i], b = x[n - 1 - i];
        const int32_t full = op == 0   ? a + b
                             : op == 1 ? a - b
                             : op == 2 ? a * b
                             : op == 3 ? std::max(a, b)
                                       : std::min(a, b);
        ASSERT_EQ(z[i], static_cast<int16_t>(static_cast<uint16_t>(full & 0xFFFF)))
            << "op " << op << " n " << n << " i " << i;
      }
    }
  }
}

// AscendC::Std: tuples, get and forward as the vendor's matmul samples use them, and min/max over
// two operand types.
template <size_t I, class T>
constexpr decltype(auto) GetForwarded(T&& t) {
  return AscendC::Std::get<I>(AscendC::Std::forward<T>(t));
}
static_assert(AscendC::Std::is_same_v<AscendC::Std::remove_cv_t<const volatile int>, int>);
static_assert(AscendC::Std::conditional_t<true, AscendC::Std::true_type, void>::value);

TEST(CompatKernelNames, StdTupleGetAndMinMax) {
  std::mt19937_64 rng(97);
  for (int trial = 0; trial < 31; ++trial) {
    const auto a = static_cast<int64_t>(rng()), b = static_cast<int64_t>(rng());
    const auto c = static_cast<int32_t>(rng());
    AscendC::Std::tuple<int64_t, int64_t, int32_t> t = AscendC::Std::make_tuple(a, b, c);
    EXPECT_EQ(GetForwarded<0>(t), a);
    EXPECT_EQ(GetForwarded<2>(t), c);
    GetForwarded<1>(t) = c;  // an lvalue tuple gives a reference
    EXPECT_EQ(AscendC::Std::get<1>(t), int64_t{c});
    EXPECT_EQ(GetForwarded<0>(AscendC::Std::make_tuple(b, a, c)), b);
    EXPECT_EQ(AscendC::Std::min(a, c), a < c ? a : int64_t{c});
    EXPECT_EQ(AscendC::Std::max(c, b), b > c ? b : int64_t{c});
  }
}

// half -> int4b_t (and back) on a UB int8 buffer seen as int4b_t, which starts with y's bytes so
// the nibbles a Cast must not touch are checked. form 0: count form on `count` elements; form 1:
// the mask + repeat form with a mask of `mask` elements per repeat; form 2: int4b_t -> half of
// y's nibbles, written to x's buffer as half.
struct Int4Args {
  uint32_t halves, bytes, count;
  int32_t mode, form;
  uint64_t mask;
  uint8_t repeat;
  AscendC::UnaryRepeatParams rp;
};

__global__ __vector__ void int4_custom(__gm__ half* x, __gm__ int8_t* y, __gm__ uint8_t* args) {
  Int4Args a;
  std::memcpy(&a, args, sizeof(a));
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> xb, yb;
  pipe.InitBuffer(xb, AscendC::DivCeil(a.halves * 2, 32u) * 32);
  pipe.InitBuffer(yb, AscendC::DivCeil(a.bytes, 32u) * 32);
  AscendC::GlobalTensor<half> xGm;
  AscendC::GlobalTensor<int8_t> yGm;
  xGm.SetGlobalBuffer(x, a.halves);
  yGm.SetGlobalBuffer(y, a.bytes);
  AscendC::LocalTensor<half> xl = xb.Get<half>();
  AscendC::LocalTensor<int8_t> yl = yb.Get<int8_t>();
  AscendC::DataCopyPad(xl, xGm, AscendC::DataCopyExtParams{1, a.halves * 2, 0, 0, 0},
                       AscendC::DataCopyPadExtParams<half>{false, 0, 0, 0});
  AscendC::DataCopyPad(yl, yGm, AscendC::DataCopyExtParams{1, a.bytes, 0, 0, 0},
                       AscendC::DataCopyPadExtParams<int8_t>{false, 0, 0, 0});
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::LocalTensor<AscendC::int4b_t> y4 = yl.ReinterpretCast<AscendC::int4b_t>();
  const auto mode = static_cast<AscendC::RoundMode>(a.mode);
  if (a.form == 0) AscendC::Cast(y4, xl, mode, a.count);
  if (a.form == 1) AscendC::Cast<AscendC::int4b_t, half>(y4, xl, mode, a.mask, a.repeat, a.rp);
  if (a.form == 2) AscendC::Cast(xl, y4, AscendC::RoundMode::CAST_NONE, a.count);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopyPad(yGm, yl, AscendC::DataCopyExtParams{1, a.bytes, 0, 0, 0});
  AscendC::DataCopyPad(xGm, xl, AscendC::DataCopyExtParams{1, a.halves * 2, 0, 0, 0});
}

// int4b_t compares by value, with int literals too (one conversion, no ambiguity).
static_assert(AscendC::int4b_t(3) == 3 && AscendC::int4b_t(-8) < 0 && 7 > AscendC::int4b_t(-1));
static_assert(AscendC::int4b_t(19) == AscendC::int4b_t(3) && AscendC::int4b_t(-8) != 8);
static_assert(AscendC::int4b_t(-8) < AscendC::int4b_t(7) && AscendC::int4b_t(15) == -1);

// Element e of packed int4 data (low nibble first), sign-extended by hand, not by int4b_t.
int Nibble(const std::vector<int8_t>& y, uint64_t e) {
  const int bits = (uint8_t(y[e / 2]) >> (e % 2 * 4)) & 0xF;
  return (bits ^ 8) - 8;
}

void RunInt4(const Int4Args& a, std::vector<half>& x, std::vector<int8_t>& y) {
  auto dx = tessera::device::Malloc(x.size() * 2);
  auto dy = tessera::device::Malloc(y.size());
  auto da = tessera::device::Malloc(sizeof(a));
  ASSERT_TRUE(dx.ok() && dy.ok() && da.ok());
  using tessera::device::MemcpyKind;
  ASSERT_TRUE(
      tessera::device::Memcpy(*dx, x.size() * 2, x.data(), x.size() * 2, MemcpyKind::kHostToDevice)
          .ok());
  ASSERT_TRUE(
      tessera::device::Memcpy(*dy, y.size(), y.data(), y.size(), MemcpyKind::kHostToDevice).ok());
  ASSERT_TRUE(
      tessera::device::Memcpy(*da, sizeof(a), &a, sizeof(a), MemcpyKind::kHostToDevice).ok());
  tessera::device::Stream stream;
  ASSERT_TRUE(tessera::device::Launch(int4_custom, 1, stream, static_cast<half*>(*dx),
                                      static_cast<int8_t*>(*dy), static_cast<uint8_t*>(*da))
                  .ok());
  ASSERT_TRUE(stream.Synchronize().ok());
  ASSERT_TRUE(
      tessera::device::Memcpy(x.data(), x.size() * 2, *dx, x.size() * 2, MemcpyKind::kDeviceToHost)
          .ok());
  ASSERT_TRUE(
      tessera::device::Memcpy(y.data(), y.size(), *dy, y.size(), MemcpyKind::kDeviceToHost).ok());
  for (void* p : {*dx, *dy, *da})
    ASSERT_TRUE(tessera::device::Free(p).ok());
}

TEST(CompatKernelNames, CastHalfToInt4PacksSaturatesAndKeepsOtherNibbles) {
  for (uint32_t count : {1u, 7u, 31u, 4097u}) {
    for (auto mode : {AscendC::RoundMode::CAST_NONE, AscendC::RoundMode::CAST_FLOOR,
                      AscendC::RoundMode::CAST_CEIL, AscendC::RoundMode::CAST_ROUND,
                      AscendC::RoundMode::CAST_TRUNC}) {
      std::mt19937 rng(count * 3 + static_cast<int>(mode));
      std::uniform_real_distribution<float> dist(-11.f, 10.f);
      const uint32_t bytes = count / 2 + 2;
      std::vector<half> x(count);
      for (auto& v : x)
        v = half(dist(rng));
      std::vector<int8_t> y(bytes), before;
      for (auto& v : y)
        v = static_cast<int8_t>(rng());
      before = y;
      Int4Args a{count, bytes, count, static_cast<int32_t>(mode), 0, 0, 0, {}};
      RunInt4(a, x, y);
      for (uint64_t e = 0; e < 2ull * bytes; ++e) {
        const int want = e < count ? static_cast<int>(std::clamp(
                                         RoundRef(static_cast<float>(x[e]), mode), -8.0L, 7.0L))
                                   : Nibble(before, e);
        ASSERT_EQ(Nibble(y, e), want)
            << "count " << count << " e " << e << " mode " << static_cast<int>(mode);
      }
    }
  }
}

// The vendor's cast sample: 128 elements per repeat, the int4 dst two blocks per repeat; here
// with partial masks and gaps between repeats, against the per-element addressing.
TEST(CompatKernelNames, CastHalfToInt4RepeatFormFollowsMaskAndStrides) {
  struct Case {
    uint64_t mask;
    uint8_t repeat;
    AscendC::UnaryRepeatParams rp;
  };
  for (const Case& c : {Case{128, 4, {1, 1, 2, 8}}, Case{77, 3, {1, 1, 3, 9}},
                        Case{1, 5, {1, 1, 2, 8}}, Case{100, 2, {2, 1, 4, 8}}}) {
    const uint64_t src_elems = (uint64_t{c.repeat} * c.rp.srcRepStride + 8) * 16;
    const uint64_t dst_bytes =
        (uint64_t{c.repeat} * c.rp.dstRepStride + 2 * c.rp.dstBlkStride) * 32;
    std::mt19937 rng(static_cast<uint32_t>(c.mask * 7 + c.repeat));
    std::uniform_real_distribution<float> dist(-10.f, 9.f);
    std::vector<half> x(src_elems);
    for (auto& v : x)
      v = half(dist(rng));
    std::vector<int8_t> y(dst_bytes), before;
    for (auto& v : y)
      v = static_cast<int8_t>(rng());
    before = y;
    Int4Args a{static_cast<uint32_t>(src_elems),
               static_cast<uint32_t>(dst_bytes),
               0,
               static_cast<int32_t>(AscendC::RoundMode::CAST_CEIL),
               1,
               c.mask,
               c.repeat,
               c.rp};
    RunInt4(a, x, y);
    std::vector<int> want(2 * dst_bytes);
    for (uint64_t e = 0; e < want.size(); ++e)
      want[e] = Nibble(before, e);
    for (uint64_t r = 0; r < c.repeat; ++r) {
      for (uint64_t e = 0; e < c.mask; ++e) {
        const uint64_t d = (r * c.rp.dstRepStride + e / 64 * c.rp.dstBlkStride) * 64 + e % 64;
        const uint64_t s = (r * c.rp.srcRepStride + e / 16 * c.rp.srcBlkStride) * 16 + e % 16;
        want[d] = static_cast<int>(
            std::clamp(std::ceil(static_cast<long double>(float(x[s]))), -8.0L, 7.0L));
      }
    }
    for (uint64_t e = 0; e < want.size(); ++e)
      ASSERT_EQ(Nibble(y, e), want[e])
          << "mask " << c.mask << " repeat " << int{c.repeat} << " e " << e;
  }
}

TEST(CompatKernelNames, CastInt4ToHalfIsExact) {
  for (uint32_t count : {1u, 7u, 31u, 4097u}) {
    std::mt19937 rng(count + 5);
    std::vector<half> x(count);
    std::vector<int8_t> y(count / 2 + 1);
    for (auto& v : y)
      v = static_cast<int8_t>(rng());
    Int4Args a{count, static_cast<uint32_t>(y.size()), count, 0, 2, 0, 0, {}};
    RunInt4(a, x, y);
    for (uint32_t e = 0; e < count; ++e)
      ASSERT_EQ(static_cast<float>(x[e]), static_cast<float>(Nibble(y, e)))
          << "count " << count << " e " << e;
  }
}

// A MIX kernel whose set-up (run by the AIC as well) gives UB buffers to a queue and a TBuf, as
// the vendor's fused matmul samples do: the AIC gets addresses only, the AIVs use the buffers.
// misuse 1: the AIC allocates from the queue; misuse 2: every core asks for more UB than exists.
__global__ __mix__(1, 2) void mix_ub_custom(__gm__ float* x, __gm__ float* z, uint32_t n,
                                            int32_t misuse) {
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::TPosition::VECIN, 1> in_queue;
  AscendC::TBuf<AscendC::TPosition::VECCALC> out_buf;
  pipe.InitBuffer(in_queue, 2, n * 4);
  pipe.InitBuffer(out_buf, misuse == 2 ? 200 * 1024 : n * 4);
  if ASCEND_IS_AIC {
    if (misuse == 1) (void)in_queue.AllocTensor<float>();
    return;
  }
  const int64_t base = AscendC::GetBlockIdx() * n;
  AscendC::GlobalTensor<float> xGm, zGm;
  xGm.SetGlobalBuffer(x + base, n);
  zGm.SetGlobalBuffer(z + base, n);
  AscendC::LocalTensor<float> in = in_queue.AllocTensor<float>();
  AscendC::DataCopy(in, xGm, n);
  in_queue.EnQue(in);
  AscendC::LocalTensor<float> xl = in_queue.DeQue<float>();
  AscendC::LocalTensor<float> out = out_buf.Get<float>();
  AscendC::Muls(out, xl, static_cast<float>(AscendC::GetBlockIdx() + 1), static_cast<int32_t>(n));
  in_queue.FreeTensor(xl);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopy(zGm, out, n);
}

TEST(CompatKernelNames, MixKernelUbBuffersAreAddressesOnlyOnTheAic) {
  const uint32_t groups = 3, n = 72, total = groups * 2 * n;
  std::mt19937 rng(groups);
  std::uniform_real_distribution<float> dist(-50.f, 50.f);
  std::vector<float> x(total), z(total);
  for (auto& v : x)
    v = dist(rng);
  auto dx = tessera::device::Malloc(total * 4);
  auto dz = tessera::device::Malloc(total * 4);
  ASSERT_TRUE(dx.ok() && dz.ok());
  ASSERT_TRUE(tessera::device::Memcpy(*dx, total * 4, x.data(), total * 4,
                                      tessera::device::MemcpyKind::kHostToDevice)
                  .ok());
  const tessera::device::LaunchConfig mix{groups, tessera::device::KernelType::kMix, "mix_ub"};
  tessera::device::Stream stream;
  for (int32_t misuse : {0, 1, 2}) {
    ASSERT_TRUE(tessera::device::Launch(mix, mix_ub_custom, stream, static_cast<float*>(*dx),
                                        static_cast<float*>(*dz), n, misuse)
                    .ok());
    const tessera::Status status = stream.Synchronize();
    if (misuse == 0) {
      ASSERT_TRUE(status.ok()) << status.ToString();
      continue;
    }
    ASSERT_FALSE(status.ok());
    const std::string text = status.ToString();
    EXPECT_NE(text.find(misuse == 1 ? "addresses but no memory" : "exceeds the limit"),
              std::string::npos)
        << text;
    stream.ResetError();
  }
  ASSERT_TRUE(tessera::device::Memcpy(z.data(), total * 4, *dz, total * 4,
                                      tessera::device::MemcpyKind::kDeviceToHost)
                  .ok());
  for (uint32_t i = 0; i < total; ++i)
    ASSERT_EQ(z[i], x[i] * static_cast<float>(i / n + 1)) << i;
  ASSERT_TRUE(tessera::device::Free(*dx).ok());
  ASSERT_TRUE(tessera::device::Free(*dz).ok());
}

// FreeAllEvent after the queue's buffers are back passes; with one still enqueued (`early`) it
// fails the block. likely/unlikely are the vendor's branch hints.
__global__ __vector__ void free_all_event_custom(__gm__ int32_t* out, int32_t early) {
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::TPosition::VECIN, 2> queue;
  pipe.InitBuffer(queue, 2, 64);
  AscendC::LocalTensor<int32_t> t = queue.AllocTensor<int32_t>();
  t.SetValue(0, early + 40);
  queue.EnQue(t);
  if (unlikely(early != 0)) queue.FreeAllEvent();
  AscendC::LocalTensor<int32_t> d = queue.DeQue<int32_t>();
  if (likely(d.GetValue(0) == 40)) out[0] = d.GetValue(0) + 2;
  queue.FreeTensor(d);
  queue.FreeAllEvent();
}

TEST(CompatKernelNames, FreeAllEventNeedsEveryBufferOutOfTheQueue) {
  auto dout = tessera::device::Malloc(4);
  ASSERT_TRUE(dout.ok());
  tessera::device::Stream stream;
  ASSERT_TRUE(
      tessera::device::Launch(free_all_event_custom, 1, stream, static_cast<int32_t*>(*dout), 0)
          .ok());
  ASSERT_TRUE(stream.Synchronize().ok());
  int32_t out = 0;
  ASSERT_TRUE(
      tessera::device::Memcpy(&out, 4, *dout, 4, tessera::device::MemcpyKind::kDeviceToHost).ok());
  EXPECT_EQ(out, 42);
  ASSERT_TRUE(
      tessera::device::Launch(free_all_event_custom, 1, stream, static_cast<int32_t*>(*dout), 1)
          .ok());
  const tessera::Status status = stream.Synchronize();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.ToString().find("still in the queue"), std::string::npos) << status.ToString();
  stream.ResetError();
  ASSERT_TRUE(tessera::device::Free(*dout).ok());
}

// `dst = src0 op src1` over dst's size, for +, -, *, /, |, & (op picks the operator), against
// the same element-wise arithmetic on the host.
struct SymbolBody {
  static void Run(const AscendC::LocalTensor<int32_t>& out, const AscendC::LocalTensor<int32_t>& in,
                  uint32_t count, int32_t op) {
    AscendC::LocalTensor<int32_t> rev = out;
    for (uint32_t i = 0; i < count; ++i)
      rev.SetValue(i, in.GetValue(count - 1 - i));
    AscendC::LocalTensor<int32_t> dst = out;
    if (op == 0) dst = in + rev;
    if (op == 1) dst = in - rev;
    if (op == 2) dst = in * rev;
    if (op == 3) dst = in | rev;
    if (op == 4) dst = in & rev;
  }
};
struct FloatSymbolBody {
  static void Run(const AscendC::LocalTensor<float>& out, const AscendC::LocalTensor<float>& in,
                  uint32_t count, int32_t) {
    AscendC::LocalTensor<float> rev = out;
    for (uint32_t i = 0; i < count; ++i)
      rev.SetValue(i, in.GetValue(count - 1 - i));
    AscendC::LocalTensor<float> dst = out;
    dst = in / rev;
  }
};

TEST(CompatKernelNames, TensorOperatorsRunTheVectorInstructions) {
  for (uint32_t n : {1u, 7u, 31u, 4097u}) {
    std::mt19937 rng(n * 13);
    std::vector<int32_t> x(n);
    for (auto& v : x)
      v = static_cast<int32_t>(rng() % 2000001) - 1000000;
    for (int32_t op = 0; op < 5; ++op) {
      std::vector<int32_t> z;
      RunUbKernel<SymbolBody>(x, z, op);
      for (uint32_t i = 0; i < n; ++i) {
        const int64_t a = x[i], b = x[n - 1 - i];
        const int64_t want = op == 0   ? a + b
                             : op == 1 ? a - b
                             : op == 2 ? a * b
                             : op == 3 ? (a | b)
                                       : (a & b);
        ASSERT_EQ(z[i], static_cast<int32_t>(static_cast<uint32_t>(want))) << op << " " << i;
      }
    }
    std::vector<float> xf(n), zf;
    std::uniform_real_distribution<float> dist(0.5f, 100.f);
    for (auto& v : xf)
      v = dist(rng);
    RunUbKernel<FloatSymbolBody>(xf, zf, 0);
    for (uint32_t i = 0; i < n; ++i)
      ASSERT_EQ(zf[i], xf[i] / xf[n - 1 - i]) << i;
  }
}

TEST(CompatKernelNames, GetSystemCycleIsMonotonic) {
  const int64_t a = AscendC::GetSystemCycle();
  const int64_t b = AscendC::GetSystemCycle();
  EXPECT_GE(b, a);
  EXPECT_GT(a, 0);
}

}  // namespace

// The vendor's TransData (adv_api/transpose): 16-bit data between NCDHW and NDC1HWC0 or
// FRACTAL_Z_3D, in namespace AscendC. C splits into C1 x C0 and N into N1 x N0 with C0 = N0 = 16;
// the split axes are padded with zeros. An NCDHW tensor in UB keeps each (n, c, d) row of H x W
// elements padded to 32 bytes (16 elements): the input as DataCopyPad leaves it, the output as
// DataCopyPad takes it (its padding is written as zeros). The layouts give the shapes, in the
// formats' axis order; shapes that do not match the formats fail the block.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

#include "tessera/compat/kernel/layout.h"
#include "tessera/kernel/check.h"
#include "tessera/kernel/detail/pipe_phase.h"
#include "tessera/kernel/local_tensor.h"

namespace AscendC {
namespace adv_api {

using ::tessera::kernel::DataFormat;
using ::tessera::kernel::LocalTensor;

struct TransDataConfig {
  DataFormat srcFormat;
  DataFormat dstFormat;
};

template <typename T, typename U>
struct TransDataParams {
  T srcLayout;
  U dstLayout;
};

namespace transdata_detail {

constexpr uint32_t kC0 = 16;  // C0 = N0 = 16 for 16-bit data

struct Dims {
  uint32_t n, c, d, h, w;
};

template <size_t I, class L>
uint32_t Dim(const L& layout) {
  return static_cast<uint32_t>(Std::get<I>(layout.GetShape()));
}

inline uint32_t Split(uint32_t x) {
  return (x + kC0 - 1) / kC0;
}

[[noreturn]] inline void Mismatch(const char* what, const std::string& detail) {
  ::tessera::kernel::KernelFail("TransData", std::string(what) + ": " + detail);
}

template <class L>
Dims Ncdhw(const L& layout) {
  static_assert(std::tuple_size_v<std::decay_t<decltype(layout.GetShape())>> == 5,
                "TransData: an NCDHW layout has the shape (N, C, D, H, W)");
  return {Dim<0>(layout), Dim<1>(layout), Dim<2>(layout), Dim<3>(layout), Dim<4>(layout)};
}

// (N, D, C1, H, W, C0) against the NCDHW dims.
template <class L>
void CheckNdc1hwc0(const L& layout, const Dims& s) {
  static_assert(std::tuple_size_v<std::decay_t<decltype(layout.GetShape())>> == 6,
                "TransData: an NDC1HWC0 layout has the shape (N, D, C1, H, W, C0)");
  if (Dim<0>(layout) != s.n || Dim<1>(layout) != s.d || Dim<2>(layout) != Split(s.c) ||
      Dim<3>(layout) != s.h || Dim<4>(layout) != s.w || Dim<5>(layout) != kC0) {
    Mismatch("NDC1HWC0 shape", "expected (N " + std::to_string(s.n) + ", D " + std::to_string(s.d) +
                                   ", C1 " + std::to_string(Split(s.c)) + ", H " +
                                   std::to_string(s.h) + ", W " + std::to_string(s.w) +
                                   ", C0 16) for NCDHW (" + std::to_string(s.n) + ", " +
                                   std::to_string(s.c) + ", ...)");
  }
}

// (D, C1, H, W, N1, N0, C0) against the NCDHW dims.
template <class L>
void CheckFractalZ3d(const L& layout, const Dims& s) {
  static_assert(std::tuple_size_v<std::decay_t<decltype(layout.GetShape())>> == 7,
                "TransData: a FRACTAL_Z_3D layout has the shape (D, C1, H, W, N1, N0, C0)");
  if (Dim<0>(layout) != s.d || Dim<1>(layout) != Split(s.c) || Dim<2>(layout) != s.h ||
      Dim<3>(layout) != s.w || Dim<4>(layout) != Split(s.n) || Dim<5>(layout) != kC0 ||
      Dim<6>(layout) != kC0) {
    Mismatch("FRACTAL_Z_3D shape", "expected (D " + std::to_string(s.d) + ", C1 " +
                                       std::to_string(Split(s.c)) + ", H " + std::to_string(s.h) +
                                       ", W " + std::to_string(s.w) + ", N1 " +
                                       std::to_string(Split(s.n)) + ", N0 16, C0 16)");
  }
}

// Index of (n, c, d, hw) in a UB NCDHW tensor with 16-element-padded H x W rows.
inline uint64_t NcdhwAt(const Dims& s, uint32_t n, uint32_t c, uint32_t d, uint32_t hw) {
  const uint64_t row = Split(s.h * s.w) * kC0;
  return ((uint64_t{n} * s.c + c) * s.d + d) * row + hw;
}
inline uint64_t NcdhwSize(const Dims& s) {
  return NcdhwAt(s, s.n, 0, 0, 0);
}
// Index of (n, c, d, hw) in NDC1HWC0, and in FRACTAL_Z_3D.
inline uint64_t Ndc1hwc0At(const Dims& s, uint32_t n, uint32_t c, uint32_t d, uint32_t hw) {
  return (((uint64_t{n} * s.d + d) * Split(s.c) + c / kC0) * (s.h * s.w) + hw) * kC0 + c % kC0;
}
inline uint64_t FractalZ3dAt(const Dims& s, uint32_t n, uint32_t c, uint32_t d, uint32_t hw) {
  return ((((uint64_t{d} * Split(s.c) + c / kC0) * (s.h * s.w) + hw) * Split(s.n) + n / kC0) * kC0 +
          n % kC0) *
             kC0 +
         c % kC0;
}

template <class T>
void Check(const LocalTensor<T>& t, uint64_t count, const char* role) {
  if (t.checked()) t.CheckRange(count, "TransData", role);
}

}  // namespace transdata_detail

template <const TransDataConfig& config, typename T, typename U, typename S>
void TransData(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
               const LocalTensor<uint8_t>& /*sharedTmpBuffer*/,
               const TransDataParams<U, S>& params) {
  namespace td = transdata_detail;
  static_assert(sizeof(T) == 2, "TransData: int16_t, uint16_t, half or bfloat16_t data");
  constexpr DataFormat from = config.srcFormat;
  constexpr DataFormat to = config.dstFormat;
  constexpr bool to_ndc = from == DataFormat::NCDHW && to == DataFormat::NDC1HWC0;
  constexpr bool from_ndc = from == DataFormat::NDC1HWC0 && to == DataFormat::NCDHW;
  constexpr bool to_fz = from == DataFormat::NCDHW && to == DataFormat::FRACTAL_Z_3D;
  constexpr bool from_fz = from == DataFormat::FRACTAL_Z_3D && to == DataFormat::NCDHW;
  static_assert(to_ndc || from_ndc || to_fz || from_fz,
                "TransData: NCDHW <-> NDC1HWC0 and NCDHW <-> FRACTAL_Z_3D are supported");
  const ::tessera::kernel::detail::PipeScope phase(dstTensor.checked(),
                                                   ::tessera::device::TracePipe::kV);
  td::Dims s{};
  if constexpr (to_ndc || to_fz) {
    s = td::Ncdhw(params.srcLayout);
  } else {
    s = td::Ncdhw(params.dstLayout);
  }
  if constexpr (to_ndc) td::CheckNdc1hwc0(params.dstLayout, s);
  if constexpr (from_ndc) td::CheckNdc1hwc0(params.srcLayout, s);
  if constexpr (to_fz) td::CheckFractalZ3d(params.dstLayout, s);
  if constexpr (from_fz) td::CheckFractalZ3d(params.srcLayout, s);
  if (uint64_t{s.h} * s.w > UINT32_MAX) {
    td::Mismatch("NCDHW shape",
                 "H * W = " + std::to_string(uint64_t{s.h} * s.w) + " elements exceed 2^32 - 1");
  }
  const uint32_t hw = s.h * s.w;
  const uint32_t c_pad = td::Split(s.c) * td::kC0;
  const uint32_t n_pad = (to_fz || from_fz) ? td::Split(s.n) * td::kC0 : s.n;
  const uint64_t ncdhw = td::NcdhwSize(s);
  const uint64_t other = uint64_t{n_pad} * c_pad * s.d * hw;
  const uint64_t src_count = (to_ndc || to_fz) ? ncdhw : other;
  const uint64_t dst_count = (to_ndc || to_fz) ? other : ncdhw;
  td::Check(srcTensor, src_count, "src");
  td::Check(dstTensor, dst_count, "dst");
  // The vendor forbids overlapping tensors: the conversion would read elements it already wrote.
  const auto src_at = reinterpret_cast<uintptr_t>(srcTensor.data());
  const auto dst_at = reinterpret_cast<uintptr_t>(dstTensor.data());
  if (src_count > 0 && dst_count > 0 && dst_at < src_at + src_count * sizeof(T) &&
      src_at < dst_at + dst_count * sizeof(T)) {
    td::Mismatch("tensors", "the source (" + std::to_string(src_count) +
                                " elements) and the destination (" + std::to_string(dst_count) +
                                " elements) overlap");
  }
  T* dst = dstTensor.data();
  const T* src = srcTensor.data();
  const auto blocked = [&](uint32_t n, uint32_t c, uint32_t d, uint32_t i) {
    return (to_ndc || from_ndc) ? td::Ndc1hwc0At(s, n, c, d, i) : td::FractalZ3dAt(s, n, c, d, i);
  };
  if constexpr (to_ndc || to_fz) {
    for (uint32_t n = 0; n < n_pad; ++n)
      for (uint32_t c = 0; c < c_pad; ++c)
        for (uint32_t d = 0; d < s.d; ++d)
          for (uint32_t i = 0; i < hw; ++i)
            dst[blocked(n, c, d, i)] =
                n < s.n && c < s.c ? src[td::NcdhwAt(s, n, c, d, i)] : static_cast<T>(0);
  } else {
    const uint32_t row = td::Split(hw) * td::kC0;
    for (uint32_t n = 0; n < s.n; ++n)
      for (uint32_t c = 0; c < s.c; ++c)
        for (uint32_t d = 0; d < s.d; ++d)
          for (uint32_t i = 0; i < row; ++i)
            dst[td::NcdhwAt(s, n, c, d, i)] = i < hw ? src[blocked(n, c, d, i)] : static_cast<T>(0);
  }
}

template <const TransDataConfig& config, typename T, typename U, typename S>
void TransData(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
               const TransDataParams<U, S>& params) {
  TransData<config>(dstTensor, srcTensor, LocalTensor<uint8_t>(), params);
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC

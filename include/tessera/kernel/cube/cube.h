// The cube (matrix) half of an AI core: DataCopy GM -> L1 with ND -> Nz, L1 -> bias table,
// LoadData / LoadDataWithTranspose L1 -> L0A/L0B, Mmad and Fixpipe L0C -> GM/L1, in Ascend C's
// 2201 ("Atlas A2") forms.
//
// The buffers hold the NPU's true byte layouts (C0 = 32 bytes of elements; fractal = 16 x C0):
//   L1 (A1/B1/C1)  Nz: element (h, w) of an H x W tile at (w/C0)*(Hp*C0) + h*C0 + w%C0, Hp =
//   ceil16(H) L0A (A2)       Zz: element (i, k) at ((i/16)*K1 + k/C0)*16*C0 + (i%16)*C0 + k%C0, K1
//   = ceil(K/C0)
//                  (m == 1, GEMV: read as a plain 1 x K vector)
//   L0B (B2)       Zn: element (k, j) at ((k/C0)*N1 + j/16)*16*C0 + (j%16)*C0 + k%C0, N1 =
//   ceil(N/16) L0C (CO1)      Nz of 16 x 16 fp32/int32 fractals: (i, j) at (j/16)*(Mp*16) + i*16 +
//   j%16
// so kernels that compute fractal offsets by hand address the same elements as on the NPU.
//
// Every instruction runs synchronously in program order; SetFlag/WaitFlag keep their meaning for
// checked mode only. Structural errors (Mmad sizes beyond 4095, unsupported dtype combinations,
// modes tessera cannot honour) always fail the block with a message naming the API and values;
// checked mode (TESSERA_CHECK=1) adds alignment, position, extent and unitFlag checks.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/core/float16.h"
#include "tessera/kernel/cube/params.h"
#include "tessera/kernel/data_copy.h"
#include "tessera/kernel/global_tensor.h"
#include "tessera/kernel/local_tensor.h"

namespace tessera::kernel {
namespace detail {

// Element types the cube instructions move or convert.
enum class CubeType : uint8_t { kF16, kBF16, kF32, kS8, kU8, kS16, kU16, kS32, kU32, kU64 };

template <class T>
constexpr CubeType CubeTypeOf() {
  if constexpr (std::is_same_v<T, half>)
    return CubeType::kF16;
  else if constexpr (std::is_same_v<T, bfloat16>)
    return CubeType::kBF16;
  else if constexpr (std::is_same_v<T, float>)
    return CubeType::kF32;
  else if constexpr (std::is_same_v<T, int8_t>)
    return CubeType::kS8;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return CubeType::kU8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return CubeType::kS16;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return CubeType::kU16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return CubeType::kS32;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return CubeType::kU32;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return CubeType::kU64;
  else
    static_assert(sizeof(T) == 0, "cube instructions move 1-, 2-, 4- or 8-byte elements");
}

// A tensor as the cube instructions see it (type-erased, so the work happens in compiled code).
struct CubeOperand {
  void* data = nullptr;
  uint64_t elements = 0;  // the view's extent
  CubeType type = CubeType::kF32;
  TPosition pos = TPosition::GM;
  bool checked = false;
  bool live = true;
};

template <class T>
CubeOperand Operand(const LocalTensor<T>& t) {
  return CubeOperand{t.data(),        t.GetSize(), CubeTypeOf<T>(),
                     t.GetPosition(), t.checked(), t.Live()};
}
template <class T>
CubeOperand Operand(const GlobalTensor<T>& t) {
  return CubeOperand{t.data(), t.GetSize(), CubeTypeOf<T>(), TPosition::GM, t.checked(), true};
}

void CopyNd2Nz(const CubeOperand& dst, const CubeOperand& src, const Nd2NzParams& p);
void CopyToBiasTable(const CubeOperand& dst, const CubeOperand& src, const DataCopyParams& p);
void CopyToBiasTable(const CubeOperand& dst, const CubeOperand& src, uint32_t count);
void LoadData2D(const CubeOperand& dst, const CubeOperand& src, const LoadData2DParams& p);
void LoadData2DTranspose(const CubeOperand& dst, const CubeOperand& src,
                         const LoadData2dTransposeParams& p);
// LoadData3DParamsV2 without its pad value (`pad` points at one element of the tensors' type).
struct Load3DGeometry {
  uint8_t padList[4];
  uint32_t l1H, l1W, channelSize, kExtension, mExtension, kStartPt, mStartPt;
  uint32_t strideW, strideH, filterW, filterH, dilationW, dilationH;
  bool enTranspose, enSmallK, fMatrixCtrl;
};
void LoadData3DV2(const CubeOperand& dst, const CubeOperand& src, const Load3DGeometry& g,
                  const void* pad);
// Sets every L0C tile's unit flag to 0 (checked mode tracks them; fast mode has none).
void ClearUnitFlags();
// `bias` is null for the three-operand form.
void RunCubeMmad(const CubeOperand& c, const CubeOperand& a, const CubeOperand& b,
                 const CubeOperand* bias, const MmadParams& p);
// `quant` is the per-column quant word tensor of the V... modes, else null.
void RunFixpipe(const CubeOperand& dst, const CubeOperand& src, const CubeOperand* quant,
                const FixpipeParamsV220& p, CO2Layout format);

template <class T>
inline constexpr bool kIsBiasTableType = std::is_same_v<T, float> || std::is_same_v<T, int32_t>;

}  // namespace detail

// GM -> L1 (A1/B1/C1), ND -> Nz on the fly (MTE2). dst 32-byte aligned; see Nd2NzParams.
template <class T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& params) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kMte2);
  detail::CopyNd2Nz(detail::Operand(dst), detail::Operand(src), params);
}

// L1 (C1) -> bias table (C2) with a dtype change (half -> float), MTE1. blockLen and dstGap are
// in 64-byte units of the bias table, srcGap in 32-byte units of L1. Same-type L1 -> BT copies use
// the count and DataCopyParams forms of DataCopy (float and int32_t below).
template <class T, class U,
          std::enable_if_t<!std::is_same_v<T, U> && detail::kIsBiasTableType<T>, int> = 0>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& params) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kMte1);
  detail::CopyToBiasTable(detail::Operand(dst), detail::Operand(src), params);
}

// Same-type local copies of float / int32_t: to the bias table (dst in C2: blockLen and dstGap in
// 64-byte units, dst 64-byte aligned) or, for any other destination, the ordinary local copy.
inline void DataCopy(const LocalTensor<float>& dst, const LocalTensor<float>& src,
                     const DataCopyParams& params) {
  const detail::PipeScope phase(dst.checked(), detail::LocalCopyPipe(dst.GetPosition()));
  if (dst.GetPosition() == TPosition::C2) {
    detail::CopyToBiasTable(detail::Operand(dst), detail::Operand(src), params);
  } else {
    detail::StridedCopy<float>(dst, src, params, false);
  }
}
inline void DataCopy(const LocalTensor<int32_t>& dst, const LocalTensor<int32_t>& src,
                     const DataCopyParams& params) {
  const detail::PipeScope phase(dst.checked(), detail::LocalCopyPipe(dst.GetPosition()));
  if (dst.GetPosition() == TPosition::C2) {
    detail::CopyToBiasTable(detail::Operand(dst), detail::Operand(src), params);
  } else {
    detail::StridedCopy<int32_t>(dst, src, params, false);
  }
}
inline void DataCopy(const LocalTensor<float>& dst, const LocalTensor<float>& src, uint32_t count) {
  const detail::PipeScope phase(dst.checked(), detail::LocalCopyPipe(dst.GetPosition()));
  if (dst.GetPosition() == TPosition::C2) {
    detail::CopyToBiasTable(detail::Operand(dst), detail::Operand(src), count);
  } else {
    DataCopy<float>(dst, src, count);
  }
}
inline void DataCopy(const LocalTensor<int32_t>& dst, const LocalTensor<int32_t>& src,
                     uint32_t count) {
  const detail::PipeScope phase(dst.checked(), detail::LocalCopyPipe(dst.GetPosition()));
  if (dst.GetPosition() == TPosition::C2) {
    detail::CopyToBiasTable(detail::Operand(dst), detail::Operand(src), count);
  } else {
    DataCopy<int32_t>(dst, src, count);
  }
}

// L1 (A1/B1) -> L0A (A2) / L0B (B2) in 512-byte fractals (MTE1); dst 512-byte aligned, src 32.
// ifTranspose is for 2-byte types only.
template <class T>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src,
              const LoadData2DParams& params) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kMte1);
  detail::LoadData2D(detail::Operand(dst), detail::Operand(src), params);
}

// L1 (A1/B1, NC1HWC0) -> L0A/L0B through img2col (MTE1); see LoadData3DParamsV2. U is the pad
// value's type, the tensors' own.
template <class T, class U, std::enable_if_t<std::is_same_v<T, U>, int> = 0>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src,
              const LoadData3DParamsV2<U>& params) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kMte1);
  detail::Load3DGeometry g{};
  for (int i = 0; i < 4; ++i)
    g.padList[i] = params.padList[i];
  g.l1H = params.l1H;
  g.l1W = params.l1W;
  g.channelSize = params.channelSize;
  g.kExtension = params.kExtension;
  g.mExtension = params.mExtension;
  g.kStartPt = params.kStartPt;
  g.mStartPt = params.mStartPt;
  g.strideW = params.strideW;
  g.strideH = params.strideH;
  g.filterW = params.filterW + (params.filterSizeW ? 256u : 0u);
  g.filterH = params.filterH + (params.filterSizeH ? 256u : 0u);
  g.dilationW = params.dilationFilterW;
  g.dilationH = params.dilationFilterH;
  g.enTranspose = params.enTranspose;
  g.enSmallK = params.enSmallK;
  g.fMatrixCtrl = params.fMatrixCtrl;
  const T pad = params.padValue;
  detail::LoadData3DV2(detail::Operand(dst), detail::Operand(src), g, &pad);
}

// L1 -> L0A/L0B with a transpose of squares built from 1 (b16) or 2 (b8, b32) fractals (MTE1).
template <class T>
void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                           const LoadData2dTransposeParams& params) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kMte1);
  detail::LoadData2DTranspose(detail::Operand(dst), detail::Operand(src), params);
}

namespace detail {
template <class T, class U, class S>
constexpr bool kMmadTypesOk = std::is_same_v<U, S> &&
                              ((std::is_same_v<T, float> &&
                                (std::is_same_v<U, half> || std::is_same_v<U, bfloat16> ||
                                 std::is_same_v<U, float>)) ||
                               (std::is_same_v<T, int32_t> && std::is_same_v<U, int8_t>));
}  // namespace detail

// C (CO1, 1024-byte aligned) = A (A2) x B (B2) per params (M pipe). Types (C, A, B): (float,
// half, half), (float, bfloat16_t, bfloat16_t), (float, float, float), (int32_t, int8_t, int8_t).
template <class T, class U, class S>
void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
          const MmadParams& params) {
  static_assert(detail::kMmadTypesOk<T, U, S>,
                "Mmad: supported (C, A, B) are (float, half, half), (float, bfloat16_t, "
                "bfloat16_t), (float, float, float) and (int32_t, int8_t, int8_t)");
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kM);
  detail::RunCubeMmad(detail::Operand(dst), detail::Operand(fm), detail::Operand(filter), nullptr,
                      params);
}

// The bias form: C = A x B + bias (n values in the bias table, C2, broadcast over the rows).
template <class T, class U, class S, class V>
void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
          const LocalTensor<V>& bias, const MmadParams& params) {
  static_assert(detail::kMmadTypesOk<T, U, S>,
                "Mmad: supported (C, A, B) are (float, half, half), (float, bfloat16_t, "
                "bfloat16_t), (float, float, float) and (int32_t, int8_t, int8_t)");
  static_assert(std::is_same_v<V, T>, "Mmad: the bias has the accumulator type (float or int32_t)");
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kM);
  const detail::CubeOperand b = detail::Operand(bias);
  detail::RunCubeMmad(detail::Operand(dst), detail::Operand(fm), detail::Operand(filter), &b,
                      params);
}

namespace detail {
template <class T, class U>
constexpr bool kFixpipeTypesOk = (std::is_same_v<U, float> &&
                                  (std::is_same_v<T, float> || std::is_same_v<T, half> ||
                                   std::is_same_v<T, bfloat16> || std::is_same_v<T, int8_t> ||
                                   std::is_same_v<T, uint8_t>)) ||
                                 (std::is_same_v<U, int32_t> &&
                                  (std::is_same_v<T, int32_t> || std::is_same_v<T, half> ||
                                   std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>));
}  // namespace detail

// L0C (CO1, 64-byte aligned) -> GM (FIX pipe): Nz -> ND (CFG_ROW_MAJOR) or Nz -> Nz (CFG_NZ), with
// relu and quantPre conversions. Output types: from float -> float, half, bfloat16_t, int8_t,
// uint8_t; from int32_t -> int32_t, half, int8_t, uint8_t.
// Fixpipe's pre-stage configuration (the NPU's FPC register): where the relu / quant parameter
// vectors of the following Fixpipes live, and with isUnitFlag the clearing of every L0C tile's
// unit flag (after unitFlag Mmads and Fixpipes, so later ones start clean). tessera's Fixpipe
// takes its quant vector as an argument, so the addresses select nothing here; the clearing is
// what checked mode's unitFlag check sees.
template <class T, bool setRelu = false>
void SetFixPipeConfig(const LocalTensor<T>& preData, bool isUnitFlag = false) {
  static_cast<void>(preData);
  if (isUnitFlag) detail::ClearUnitFlags();
}
template <class T>
void SetFixPipeConfig(const LocalTensor<T>& reluPre, const LocalTensor<T>& quantPre,
                      bool isUnitFlag = false) {
  static_cast<void>(reluPre);
  static_cast<void>(quantPre);
  if (isUnitFlag) detail::ClearUnitFlags();
}

template <class T, class U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src,
             const FixpipeParamsV220& params) {
  static_assert(detail::kFixpipeTypesOk<T, U>, "Fixpipe: unsupported (output, L0C) type pair");
  const detail::PipeScope phase(src.checked(), device::TracePipe::kFix);
  detail::RunFixpipe(detail::Operand(dst), detail::Operand(src), nullptr, params, config.format);
}
// The same with per-column quant words (uint64_t, C1) for VDEQF16 / VQF322B8_PRE / VREQ8.
template <class T, class U, const FixpipeConfig& config = CFG_ROW_MAJOR, class S = uint64_t>
void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src,
             const LocalTensor<S>& cbufWorkspace, const FixpipeParamsV220& params) {
  static_assert(detail::kFixpipeTypesOk<T, U>, "Fixpipe: unsupported (output, L0C) type pair");
  static_assert(std::is_same_v<S, uint64_t>, "Fixpipe: quant words are uint64_t");
  const detail::PipeScope phase(src.checked(), device::TracePipe::kFix);
  const detail::CubeOperand q = detail::Operand(cbufWorkspace);
  detail::RunFixpipe(detail::Operand(dst), detail::Operand(src), &q, params, config.format);
}
// L0C -> L1 (C1/A1/B1): the same conversions, into an on-chip tensor.
template <class T, class U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src,
             const FixpipeParamsV220& params) {
  static_assert(detail::kFixpipeTypesOk<T, U>, "Fixpipe: unsupported (output, L0C) type pair");
  const detail::PipeScope phase(src.checked(), device::TracePipe::kFix);
  detail::RunFixpipe(detail::Operand(dst), detail::Operand(src), nullptr, params, config.format);
}
template <class T, class U, const FixpipeConfig& config = CFG_ROW_MAJOR, class S = uint64_t>
void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src,
             const LocalTensor<S>& cbufWorkspace, const FixpipeParamsV220& params) {
  static_assert(detail::kFixpipeTypesOk<T, U>, "Fixpipe: unsupported (output, L0C) type pair");
  static_assert(std::is_same_v<S, uint64_t>, "Fixpipe: quant words are uint64_t");
  const detail::PipeScope phase(src.checked(), device::TracePipe::kFix);
  const detail::CubeOperand q = detail::Operand(cbufWorkspace);
  detail::RunFixpipe(detail::Operand(dst), detail::Operand(src), &q, params, config.format);
}

}  // namespace tessera::kernel

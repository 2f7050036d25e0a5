// Parameter structs of the cube instructions (DataCopy ND->Nz, LoadData, Mmad, Fixpipe), with the
// members, defaults and constructor parameter orders of Ascend C's 2201 ("Atlas A2") forms.
//
// Ascend C declares constructors whose parameter order differs from the member order, and kernels
// brace-initialise the structs (`MmadParams{m, n, k, 0, false, true}`), which calls those
// constructors. The constructors here take the same parameters in the same order. Integer
// parameters are taken as int64_t and stored in the vendor's field widths, so brace-initialisation
// from int or uint32_t variables is not a narrowing error; values beyond a field's range are
// truncated as the NPU's fields would be, and checked mode reports the ranges where it matters.
#pragma once

#include <cstdint>

namespace tessera::kernel {

// Fixpipe's on-the-fly conversion of L0C values (2201). F322F16 and F322BF16 are plain casts with
// round-to-nearest-even; DEQF16 (int32 -> half), QF322B8_PRE (float -> int8/uint8) and REQ8 (int32
// -> int8/uint8) scale by FixpipeParamsV220::deqScalar; the V... forms take one quant word per
// column from a C1 tensor. Ascend C declares QuantMode_t at global scope; kernel_operator.h
// re-exports it there, so `QuantMode_t::F322F16` works as in vendor kernels.
enum QuantMode_t : uint8_t {
  NoQuant = 0,
  F322F16,
  F322BF16,
  DEQF16,
  VDEQF16,
  QF322B8_PRE,
  VQF322B8_PRE,
  REQ8,
  VREQ8,
};

// DataCopy GM -> L1 with ND -> Nz conversion. Source element (r, c) of ND matrix i lands at
// dst + i*dstNzMatrixStride + (c/C0)*dstNzC0Stride*C0 + r*dstNzNStride*C0 + c%C0 (C0 = 32 bytes of
// elements). Columns from dValue up to the next multiple of C0 are zero-filled; padding rows are
// not written. ndNum, nValue or dValue of 0 makes the copy a no-op.
struct Nd2NzParams {
  uint16_t ndNum = 0;              // ND matrices to copy, 0..4095
  uint16_t nValue = 0;             // rows of each, 0..16384
  uint16_t dValue = 0;             // columns of each, 0..65535
  uint16_t srcNdMatrixStride = 0;  // elements between source matrices (ignored when ndNum == 1)
  uint16_t srcDValue = 0;          // source row pitch in elements, 1..65535
  uint16_t dstNzC0Stride = 0;      // C0-wide column blocks apart, in 32-byte rows (usually Hp)
  uint16_t dstNzNStride = 0;       // destination rows apart, in 32-byte units (usually 1)
  uint16_t dstNzMatrixStride = 0;  // elements between destination matrices

  Nd2NzParams() = default;
  Nd2NzParams(int64_t ndNumIn, int64_t nValueIn, int64_t dValueIn, int64_t srcNdMatrixStrideIn,
              int64_t srcDValueIn, int64_t dstNzC0StrideIn, int64_t dstNzNStrideIn,
              int64_t dstNzMatrixStrideIn)
      : ndNum(static_cast<uint16_t>(ndNumIn)),
        nValue(static_cast<uint16_t>(nValueIn)),
        dValue(static_cast<uint16_t>(dValueIn)),
        srcNdMatrixStride(static_cast<uint16_t>(srcNdMatrixStrideIn)),
        srcDValue(static_cast<uint16_t>(srcDValueIn)),
        dstNzC0Stride(static_cast<uint16_t>(dstNzC0StrideIn)),
        dstNzNStride(static_cast<uint16_t>(dstNzNStrideIn)),
        dstNzMatrixStride(static_cast<uint16_t>(dstNzMatrixStrideIn)) {}
};

// LoadData 2D, L1 -> L0A/L0B in whole 512-byte fractals: fractal i is read at
// startIndex + i*srcStride (addrMode 0; minus for addrMode 1) and written at i*(dstGap + 1);
// ifTranspose (b16 only) transposes each 16x16 fractal. repeatTimes 0 is a no-op.
struct LoadData2DParams {
  uint16_t startIndex = 0;  // first source fractal, in 512-byte units
  uint16_t dstGap = 0;      // fractals skipped between destination fractals
  uint16_t srcStride = 0;   // source fractals between consecutive reads (0 = reread one)
  bool ifTranspose = false;
  uint8_t repeatTimes = 0;  // fractals moved, 0..255
  uint8_t sid = 0;          // reserved
  uint8_t addrMode = 0;     // 0: source index increments; 1: decrements

  LoadData2DParams() = default;
  LoadData2DParams(int64_t startIndexIn, int64_t repeatTimesIn, int64_t srcStrideIn, int64_t sidIn,
                   int64_t dstGapIn, bool ifTransposeIn, int64_t addrModeIn)
      : startIndex(static_cast<uint16_t>(startIndexIn)),
        dstGap(static_cast<uint16_t>(dstGapIn)),
        srcStride(static_cast<uint16_t>(srcStrideIn)),
        ifTranspose(ifTransposeIn),
        repeatTimes(static_cast<uint8_t>(repeatTimesIn)),
        sid(static_cast<uint8_t>(sidIn)),
        addrMode(static_cast<uint8_t>(addrModeIn)) {}
};

// LoadDataWithTranspose, L1 -> L0A/L0B: each repeat joins fractals into a square (b8: two 16x32
// fractals -> 32x32; b16: one 16x16; b32: two 16x8 -> 16x16), transposes the square and splits it
// into fractals again. repeatTimes counts squares, srcStride is in squares, dstGap (between
// repeats) and dstFracGap (between the fractals of one square, b8/b32) in 512-byte fractals.
struct LoadData2dTransposeParams {
  uint16_t startIndex = 0;
  uint8_t repeatTimes = 0;
  uint16_t srcStride = 0;
  uint16_t dstGap = 0;
  uint16_t dstFracGap = 0;
  uint8_t addrMode = 0;

  LoadData2dTransposeParams() = default;
  LoadData2dTransposeParams(int64_t startIndexIn, int64_t repeatTimesIn, int64_t srcStrideIn,
                            int64_t dstGapIn, int64_t dstFracGapIn, int64_t addrModeIn = 0)
      : startIndex(static_cast<uint16_t>(startIndexIn)),
        repeatTimes(static_cast<uint8_t>(repeatTimesIn)),
        srcStride(static_cast<uint16_t>(srcStrideIn)),
        dstGap(static_cast<uint16_t>(dstGapIn)),
        dstFracGap(static_cast<uint16_t>(dstFracGapIn)),
        addrMode(static_cast<uint8_t>(addrModeIn)) {}
};

// Mmad: C (L0C) = A (L0A) x B (L0B) [+ C or bias]. m, n, k are the valid sizes (0..4095; any 0 is a
// no-op). cmatrixInitVal true: C = A*B. false: C += A*B (cmatrixSource false) or C = A*B + BT
// (cmatrixSource true, the bias form). unitFlag 0 off, 2 on (more Mmads follow), 3 on (last Mmad
// before the Fixpipe that drains C); Fixpipe must use the same setting.
struct MmadParams {
  uint16_t m = 0;
  uint16_t n = 0;
  uint16_t k = 0;
  bool isBias = false;  // legacy: true = accumulate into C
  int32_t fmOffset = 0;
  bool enSsparse = false;
  bool enWinogradA = false;
  bool enWinogradB = false;
  uint8_t unitFlag = 0;
  bool kDirectionAlign = false;  // fp32 only: K padded to 16 instead of 8 in L0 (transposed A)
  bool cmatrixSource = false;
  bool cmatrixInitVal = true;

  MmadParams() = default;
  MmadParams(int64_t mIn, int64_t nIn, int64_t kIn, int64_t unitFlagIn, bool cmatrixSourceIn,
             bool cmatrixInitValIn)
      : m(static_cast<uint16_t>(mIn)),
        n(static_cast<uint16_t>(nIn)),
        k(static_cast<uint16_t>(kIn)),
        unitFlag(static_cast<uint8_t>(unitFlagIn)),
        cmatrixSource(cmatrixSourceIn),
        cmatrixInitVal(cmatrixInitValIn) {}
  // The legacy form: isBias true accumulates into C.
  MmadParams(int64_t mIn, int64_t nIn, int64_t kIn, bool isBiasIn, int64_t fmOffsetIn,
             bool enSsparseIn, bool enWinogradAIn, bool enWinogradBIn)
      : m(static_cast<uint16_t>(mIn)),
        n(static_cast<uint16_t>(nIn)),
        k(static_cast<uint16_t>(kIn)),
        isBias(isBiasIn),
        fmOffset(static_cast<int32_t>(fmOffsetIn)),
        enSsparse(enSsparseIn),
        enWinogradA(enWinogradAIn),
        enWinogradB(enWinogradBIn),
        cmatrixInitVal(!isBiasIn) {}
};

// Fixpipe, L0C -> GM or L1. nSize x mSize values (columns first, as in Ascend C) leave L0C, whose
// 16-wide column blocks are srcStride rows apart (the L0C tile height rounded up to 16). Nz -> ND
// (CFG_ROW_MAJOR): row j lands at dst + j*dstStride (elements). Nz -> Nz (CFG_NZ): column blocks of
// 32 bytes of output elements (16 for float unless isChannelSplit) are dstStride 32-byte units
// apart. ndNum matrices repeat the move srcNdStride L0C fractals and dstNdStride elements apart.
struct FixpipeParamsV220 {
  uint16_t nSize = 0;  // columns, 0..4095 (0 = no-op)
  uint16_t mSize = 0;  // rows, 0..65535 (8192 with Nz -> ND; 0 = no-op)
  uint16_t srcStride = 0;
  uint32_t dstStride = 0;
  QuantMode_t quantPre = NoQuant;
  uint64_t deqScalar = 0;  // scalar quant word: bits 0-31 an fp32 multiplier (read as 1-8-10)
  uint16_t ndNum = 1;
  uint16_t srcNdStride = 0;
  uint16_t dstNdStride = 0;
  bool reluEn = false;
  uint8_t unitFlag = 0;
  bool isChannelSplit = false;

  FixpipeParamsV220() = default;
  FixpipeParamsV220(int64_t nSizeIn, int64_t mSizeIn, int64_t srcStrideIn, int64_t dstStrideIn,
                    bool reluEnIn)
      : nSize(static_cast<uint16_t>(nSizeIn)),
        mSize(static_cast<uint16_t>(mSizeIn)),
        srcStride(static_cast<uint16_t>(srcStrideIn)),
        dstStride(static_cast<uint32_t>(dstStrideIn)),
        reluEn(reluEnIn) {}
  FixpipeParamsV220(int64_t nSizeIn, int64_t mSizeIn, int64_t srcStrideIn, int64_t dstStrideIn,
                    bool reluEnIn, QuantMode_t quantPreIn, uint64_t deqScalarIn, int64_t ndNumIn,
                    int64_t srcNdStrideIn, int64_t dstNdStrideIn, int64_t unitFlagIn,
                    bool isChannelSplitIn = false)
      : nSize(static_cast<uint16_t>(nSizeIn)),
        mSize(static_cast<uint16_t>(mSizeIn)),
        srcStride(static_cast<uint16_t>(srcStrideIn)),
        dstStride(static_cast<uint32_t>(dstStrideIn)),
        quantPre(quantPreIn),
        deqScalar(deqScalarIn),
        ndNum(static_cast<uint16_t>(ndNumIn)),
        srcNdStride(static_cast<uint16_t>(srcNdStrideIn)),
        dstNdStride(static_cast<uint16_t>(dstNdStrideIn)),
        reluEn(reluEnIn),
        unitFlag(static_cast<uint8_t>(unitFlagIn)),
        isChannelSplit(isChannelSplitIn) {}
};

// The destination layout of a Fixpipe.
enum class CO2Layout : uint8_t { ROW_MAJOR = 0, NZ = 1 };
struct FixpipeConfig {
  CO2Layout format = CO2Layout::ROW_MAJOR;
  bool isToUB = false;  // 950 only; must stay false on 2201
};
// LoadData (convolution move, "load3d v2"), L1 -> L0A/L0B: the feature map in L1 is C1 x H x W x C0
// (NC1HWC0 with N = 1, C0 = 32 bytes of elements, channelSize = C1*C0 channels, l1H x l1W). Its
// img2col matrix has K = C1*Hk*Wk*C0 rows (channel block c1, then the filter position kh*Wk + kw,
// then c0) and M = Hout*Wout columns (output positions, row-major); element (k, m) reads the map at
// h = oh*strideH + kh*dilationFilterH - pad_top, w = ow*strideW + kw*dilationFilterW - pad_left
// (padValue outside the map). The move takes rows kStartPt..+kExtension and columns
// mStartPt..+mExtension and writes, in the destination's fractal layout:
//   L0A: the left matrix [mExtension x kExtension] (element (i, k) = img2col(k, i)), or with
//        enTranspose (2- and 4-byte types) [kExtension x mExtension] (element (r, c) = img2col(r,
//        c));
//   L0B: the right matrix [mExtension x kExtension] (element (k, n) = img2col(n, k)).
// padList is [left, right, top, bottom]; filterSizeW/H add 256 to filterW/H; l1H, l1W,
// channelSize, kExtension or mExtension 0 make the move a no-op. fMatrixCtrl must be false, and
// enSmallK is not supported (the vendor dropped it).
inline constexpr int32_t PAD_SIZE = 4;
template <class T>
struct LoadData3DParamsV2 {
  LoadData3DParamsV2() = default;
  LoadData3DParamsV2(const uint8_t padListIn[PAD_SIZE], uint16_t l1HIn, uint16_t l1WIn,
                     uint16_t channelSizeIn, uint16_t kExtensionIn, uint16_t mExtensionIn,
                     uint16_t kStartPtIn, uint16_t mStartPtIn, uint8_t strideWIn, uint8_t strideHIn,
                     uint8_t filterWIn, uint8_t filterHIn, uint8_t dilationFilterWIn,
                     uint8_t dilationFilterHIn, bool enTransposeIn, bool enSmallKIn, T padValueIn,
                     bool filterSizeWIn = false, bool filterSizeHIn = false,
                     bool fMatrixCtrlIn = false)
      : l1H(l1HIn),
        l1W(l1WIn),
        channelSize(channelSizeIn),
        kExtension(kExtensionIn),
        mExtension(mExtensionIn),
        kStartPt(kStartPtIn),
        mStartPt(mStartPtIn),
        strideW(strideWIn),
        strideH(strideHIn),
        filterW(filterWIn),
        filterH(filterHIn),
        dilationFilterW(dilationFilterWIn),
        dilationFilterH(dilationFilterHIn),
        enTranspose(enTransposeIn),
        enSmallK(enSmallKIn),
        padValue(padValueIn),
        filterSizeW(filterSizeWIn),
        filterSizeH(filterSizeHIn),
        fMatrixCtrl(fMatrixCtrlIn) {
    for (int32_t i = 0; i < PAD_SIZE; ++i)
      padList[i] = padListIn[i];
  }
  uint8_t padList[PAD_SIZE] = {0, 0, 0, 0};
  uint16_t l1H = 0;
  uint16_t l1W = 0;
  uint16_t channelSize = 0;
  uint16_t kExtension = 0;
  uint16_t mExtension = 0;
  uint16_t kStartPt = 0;
  uint16_t mStartPt = 0;
  uint8_t strideW = 1;
  uint8_t strideH = 1;
  uint8_t filterW = 1;
  uint8_t filterH = 1;
  uint8_t dilationFilterW = 1;
  uint8_t dilationFilterH = 1;
  bool enTranspose = false;
  bool enSmallK = false;
  T padValue = T{};
  bool filterSizeW = false;
  bool filterSizeH = false;
  bool fMatrixCtrl = false;
};

inline constexpr FixpipeConfig CFG_ROW_MAJOR{CO2Layout::ROW_MAJOR, false};
inline constexpr FixpipeConfig CFG_NZ{CO2Layout::NZ, false};

}  // namespace tessera::kernel

// The cube's data moves: DataCopy GM -> L1 (ND -> Nz), L1 -> bias table, LoadData 2D and
// LoadDataWithTranspose L1 -> L0A/L0B. These are the packing steps of a GEMM, so the inner loops
// move whole 32-byte rows and transpose fractals with SIMD shuffles (SSE2 is part of x86-64).
#include <algorithm>
#include <cstring>
#include <string>

#include "cube_internal.h"
#include "mmad_kernels.h"
#include "mmad_layout.h"
#include "tessera/device/gm_access.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace tessera::kernel::detail {
namespace {

constexpr uint32_t kFractalBytes = 512;

inline void Copy32(std::byte* dst, const std::byte* src) {
  std::memcpy(dst, src, 32);
}

// ---- fractal transposes ---------------------------------------------------------------------
// Each transposes a square block: out[c][r] = in[r][c], rows `in_pitch` / `out_pitch` bytes apart.

#if defined(__x86_64__)
inline __m128i Load(const std::byte* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
inline void Store(std::byte* p, __m128i v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
}

// 8 x 8 of 16-bit elements.
void Transpose8x8x16(const std::byte* in, size_t in_pitch, std::byte* out, size_t out_pitch) {
  __m128i a[8];
  for (int i = 0; i < 8; ++i)
    a[i] = Load(in + i * in_pitch);
  const __m128i t0 = _mm_unpacklo_epi16(a[0], a[1]), t1 = _mm_unpackhi_epi16(a[0], a[1]);
  const __m128i t2 = _mm_unpacklo_epi16(a[2], a[3]), t3 = _mm_unpackhi_epi16(a[2], a[3]);
  const __m128i t4 = _mm_unpacklo_epi16(a[4], a[5]), t5 = _mm_unpackhi_epi16(a[4], a[5]);
  const __m128i t6 = _mm_unpacklo_epi16(a[6], a[7]), t7 = _mm_unpackhi_epi16(a[6], a[7]);
  const __m128i u0 = _mm_unpacklo_epi32(t0, t2), u1 = _mm_unpackhi_epi32(t0, t2);
  const __m128i u2 = _mm_unpacklo_epi32(t1, t3), u3 = _mm_unpackhi_epi32(t1, t3);
  const __m128i u4 = _mm_unpacklo_epi32(t4, t6), u5 = _mm_unpackhi_epi32(t4, t6);
  const __m128i u6 = _mm_unpacklo_epi32(t5, t7), u7 = _mm_unpackhi_epi32(t5, t7);
  Store(out + 0 * out_pitch, _mm_unpacklo_epi64(u0, u4));
  Store(out + 1 * out_pitch, _mm_unpackhi_epi64(u0, u4));
  Store(out + 2 * out_pitch, _mm_unpacklo_epi64(u1, u5));
  Store(out + 3 * out_pitch, _mm_unpackhi_epi64(u1, u5));
  Store(out + 4 * out_pitch, _mm_unpacklo_epi64(u2, u6));
  Store(out + 5 * out_pitch, _mm_unpackhi_epi64(u2, u6));
  Store(out + 6 * out_pitch, _mm_unpacklo_epi64(u3, u7));
  Store(out + 7 * out_pitch, _mm_unpackhi_epi64(u3, u7));
}

// 4 x 4 of 32-bit elements.
void Transpose4x4x32(const std::byte* in, size_t in_pitch, std::byte* out, size_t out_pitch) {
  const __m128i a0 = Load(in), a1 = Load(in + in_pitch), a2 = Load(in + 2 * in_pitch),
                a3 = Load(in + 3 * in_pitch);
  const __m128i t0 = _mm_unpacklo_epi32(a0, a1), t1 = _mm_unpackhi_epi32(a0, a1);
  const __m128i t2 = _mm_unpacklo_epi32(a2, a3), t3 = _mm_unpackhi_epi32(a2, a3);
  Store(out, _mm_unpacklo_epi64(t0, t2));
  Store(out + out_pitch, _mm_unpackhi_epi64(t0, t2));
  Store(out + 2 * out_pitch, _mm_unpacklo_epi64(t1, t3));
  Store(out + 3 * out_pitch, _mm_unpackhi_epi64(t1, t3));
}

// 16 x 16 of 8-bit elements.
void Transpose16x16x8(const std::byte* in, size_t in_pitch, std::byte* out, size_t out_pitch) {
  __m128i a[16], b[16];
  for (int i = 0; i < 16; ++i)
    a[i] = Load(in + i * in_pitch);
  for (int i = 0; i < 8; ++i) {
    b[i] = _mm_unpacklo_epi8(a[2 * i], a[2 * i + 1]);
    b[i + 8] = _mm_unpackhi_epi8(a[2 * i], a[2 * i + 1]);
  }
  for (int i = 0; i < 8; ++i) {
    a[i] = _mm_unpacklo_epi16(b[2 * i], b[2 * i + 1]);
    a[i + 8] = _mm_unpackhi_epi16(b[2 * i], b[2 * i + 1]);
  }
  for (int i = 0; i < 8; ++i) {
    b[i] = _mm_unpacklo_epi32(a[2 * i], a[2 * i + 1]);
    b[i + 8] = _mm_unpackhi_epi32(a[2 * i], a[2 * i + 1]);
  }
  for (int i = 0; i < 8; ++i) {
    a[i] = _mm_unpacklo_epi64(b[2 * i], b[2 * i + 1]);
    a[i + 8] = _mm_unpackhi_epi64(b[2 * i], b[2 * i + 1]);
  }
  // After four interleaving rounds the rows come out in bit-reversed order of their index.
  static constexpr int kOrder[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
  for (int i = 0; i < 16; ++i)
    Store(out + kOrder[i] * out_pitch, a[i]);
}
#endif

template <class E>
void TransposeScalar(const std::byte* in, size_t in_pitch, std::byte* out, size_t out_pitch,
                     int n) {
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      E v;
      std::memcpy(&v, in + r * in_pitch + c * sizeof(E), sizeof(E));
      std::memcpy(out + c * out_pitch + r * sizeof(E), &v, sizeof(E));
    }
  }
}

// One 16 x 16 b16 fractal (rows 32 bytes).
void TransposeFractal16(const std::byte* in, std::byte* out) {
#if defined(__x86_64__)
  for (int br = 0; br < 2; ++br) {
    for (int bc = 0; bc < 2; ++bc)
      Transpose8x8x16(in + br * 8 * 32 + bc * 16, 32, out + bc * 8 * 32 + br * 16, 32);
  }
#else
  TransposeScalar<uint16_t>(in, 32, out, 32, 16);
#endif
}

// A b32 square: 16 x 16 held as two Nz fractals of 16 x 8 (S[r][c] at (c/8)*512 + r*32 +
// (c%8)*4 bytes); the transpose goes to the same shape with the second fractal `frac2` bytes after
// the first.
void TransposeSquare32(const std::byte* in, std::byte* out, size_t frac2) {
#if defined(__x86_64__)
  for (int br = 0; br < 4; ++br) {
    for (int bc = 0; bc < 4; ++bc) {
      const std::byte* src = in + (bc / 2) * kFractalBytes + br * 4 * 32 + (bc % 2) * 16;
      std::byte* dst = out + (br / 2) * frac2 + bc * 4 * 32 + (br % 2) * 16;
      Transpose4x4x32(src, 32, dst, 32);
    }
  }
#else
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 16; ++c) {
      std::memcpy(out + (r / 8) * frac2 + c * 32 + (r % 8) * 4,
                  in + (c / 8) * kFractalBytes + r * 32 + (c % 8) * 4, 4);
    }
  }
#endif
}

// A b8 square: 32 x 32 held as two Nz fractals of 16 x 32 (rows 32 bytes, contiguous); the
// transpose's rows 16f.. go to the fractal `f * frac2` bytes after the first.
void TransposeSquare8(const std::byte* in, std::byte* out, size_t frac2) {
  for (int br = 0; br < 2; ++br) {
    for (int bc = 0; bc < 2; ++bc) {
      const std::byte* src = in + br * 16 * 32 + bc * 16;
      std::byte* dst = out + bc * frac2 + br * 16;
#if defined(__x86_64__)
      Transpose16x16x8(src, 32, dst, 32);
#else
      TransposeScalar<uint8_t>(src, 32, dst, 32, 16);
#endif
    }
  }
}

const char* const kL1Role = "source (L1)";

#if defined(__x86_64__)
// Whether the AVX-512 units of the Mmad paths (and their transposes) run on this CPU.
bool HasAvx512Path() {
  for (MmadPath path : MmadPathsAvailable()) {
    if (path == MmadPath::kAvx512) return true;
  }
  return false;
}

bool HasAvx2Path() {
  for (MmadPath path : MmadPathsAvailable()) {
    if (path == MmadPath::kAvx2) return true;
  }
  return false;
}
#endif

}  // namespace

// ---- DataCopy GM -> L1, ND -> Nz ------------------------------------------------------------

void CopyNd2Nz(const CubeOperand& dst, const CubeOperand& src, const Nd2NzParams& p) {
  constexpr const char* kApi = "DataCopy(Nd2NzParams)";
  const uint32_t elem = CubeTypeBytes(dst.type);
  const uint32_t c0 = 32 / elem;
  const bool checked = dst.checked || src.checked;
  if (checked) {
    CheckPosition(kApi, "destination", dst,
                  {TPosition::A1, TPosition::B1, TPosition::C1, TPosition::TSCM});
    CheckAligned(kApi, "destination", dst, 32);
    if (p.ndNum > 4095 || p.nValue > 16384) {
      KernelFail(kApi, "ndNum " + Str(p.ndNum) + " / nValue " + Str(p.nValue) +
                           " out of range; expected ndNum <= 4095, nValue <= 16384");
    }
  }
  if (p.ndNum == 0 || p.nValue == 0 || p.dValue == 0) return;
  const uint32_t blocks = (p.dValue + c0 - 1) / c0;
  if (checked) {
    if (p.srcDValue < p.dValue) {
      KernelFail(kApi, "srcDValue " + Str(p.srcDValue) + " is smaller than dValue " +
                           Str(p.dValue) + "; the source row pitch must cover a row");
    }
    if (p.dstNzNStride == 0 ||
        (blocks > 1 && p.dstNzC0Stride < uint32_t{p.nValue} * p.dstNzNStride)) {
      KernelFail(kApi, "dstNzNStride " + Str(p.dstNzNStride) + " / dstNzC0Stride " +
                           Str(p.dstNzC0Stride) + " make destination rows of the " + Str(p.nValue) +
                           "-row matrix overlap (need dstNzNStride >= 1 and "
                           "dstNzC0Stride >= nValue * dstNzNStride)");
    }
    CheckExtent(kApi, "source (GM)", src,
                uint64_t{p.ndNum - 1u} * p.srcNdMatrixStride +
                    uint64_t{p.nValue - 1u} * p.srcDValue + p.dValue);
    CheckExtent(kApi, "destination (L1)", dst,
                uint64_t{p.ndNum - 1u} * p.dstNzMatrixStride +
                    uint64_t{blocks - 1} * p.dstNzC0Stride * c0 +
                    uint64_t{p.nValue - 1u} * p.dstNzNStride * c0 + c0);
    for (uint32_t i = 0; i < p.ndNum; ++i) {
      for (uint32_t r = 0; r < p.nValue; ++r) {
        device::NoteGmAccess(
            device::GmAccess::kRead,
            static_cast<const std::byte*>(src.data) +
                (uint64_t{i} * p.srcNdMatrixStride + uint64_t{r} * p.srcDValue) * elem,
            size_t{p.dValue} * elem, kApi);
      }
    }
  }
  const uint32_t full = p.dValue / c0;
  const uint32_t tail_bytes = (p.dValue % c0) * elem;
  const size_t block_pitch = size_t{p.dstNzC0Stride} * 32;
  const size_t row_pitch = size_t{p.dstNzNStride} * 32;
  // Rows go in strips of 16 (one fractal high), and each row of the strip copies a group of up to
  // kGroup column blocks (two 64-byte cache lines) before the next row: a source line is used whole
  // right after it arrives. Column block by column block, the strip would touch its 16 rows' lines
  // twice, 32 bytes each time; with a row pitch that is a multiple of 4 KB (a GEMM operand's) those
  // 16 lines share one set of the CPU's 8-way L1, so each line left before its second half was
  // read. Row by row over the whole width would write 32 bytes per column block Hp*32 bytes apart,
  // which collide in the cache sets the same way.
  constexpr uint32_t kGroup = 4;
  for (uint32_t i = 0; i < p.ndNum; ++i) {
    const auto* s_mat =
        static_cast<const std::byte*>(src.data) + uint64_t{i} * p.srcNdMatrixStride * elem;
    auto* d_mat = static_cast<std::byte*>(dst.data) + uint64_t{i} * p.dstNzMatrixStride * elem;
    for (uint32_t r0 = 0; r0 < p.nValue; r0 += 16) {
      const uint32_t r1 = std::min<uint32_t>(p.nValue, r0 + 16);
      uint32_t b0 = 0;
      for (; b0 + kGroup <= full; b0 += kGroup) {
        std::byte* d = d_mat + b0 * block_pitch;
        const std::byte* s = s_mat + b0 * 32;
        for (uint32_t r = r0; r < r1; ++r) {
          const std::byte* row = s + uint64_t{r} * p.srcDValue * elem;
          for (uint32_t g = 0; g < kGroup; ++g)
            Copy32(d + g * block_pitch + r * row_pitch, row + g * 32);
        }
      }
      for (uint32_t b = b0; b < full; ++b) {
        std::byte* d = d_mat + b * block_pitch;
        const std::byte* s = s_mat + b * 32;
        for (uint32_t r = r0; r < r1; ++r)
          Copy32(d + r * row_pitch, s + uint64_t{r} * p.srcDValue * elem);
      }
      if (tail_bytes != 0) {
        for (uint32_t r = r0; r < r1; ++r) {
          std::byte* t = d_mat + full * block_pitch + r * row_pitch;
          std::memcpy(t, s_mat + uint64_t{r} * p.srcDValue * elem + full * 32, tail_bytes);
          std::memset(t + tail_bytes, 0, 32 - tail_bytes);  // padding columns are zeros
        }
      }
    }
  }
}

// ---- DataCopy L1 -> bias table ---------------------------------------------------------------

namespace {

void CheckBiasTableCopy(const char* api, const CubeOperand& dst, const CubeOperand& src) {
  CheckPosition(api, "destination", dst, {TPosition::C2});
  CheckPosition(api, kL1Role, src, {TPosition::C1, TPosition::A1, TPosition::B1});
  CheckAligned(api, "destination", dst, 64);
  CheckAligned(api, kL1Role, src, 32);
}

void ConvertToBias(std::byte* d, const CubeOperand& dst, const std::byte* s, const CubeOperand& src,
                   uint64_t count) {
  if (dst.type == src.type) {
    std::memcpy(d, s, count * CubeTypeBytes(dst.type));
    return;
  }
  float* out = reinterpret_cast<float*>(d);
  for (uint64_t i = 0; i < count; ++i) {
    uint16_t bits;
    std::memcpy(&bits, s + 2 * i, 2);
    out[i] = src.type == CubeType::kF16 ? HalfBitsToFloat(bits) : Bfloat16BitsToFloat(bits);
  }
}

void CheckBiasTypes(const char* api, const CubeOperand& dst, const CubeOperand& src) {
  const bool ok =
      dst.type == src.type ||
      (dst.type == CubeType::kF32 && (src.type == CubeType::kF16 || src.type == CubeType::kBF16));
  if (!ok) {
    KernelFail(api, std::string("L1 -> bias table converts half/bfloat16_t to float or copies "
                                "float/int32_t; not ") +
                        CubeTypeName(src.type) + " to " + CubeTypeName(dst.type));
  }
}

}  // namespace

void CopyToBiasTable(const CubeOperand& dst, const CubeOperand& src, const DataCopyParams& p) {
  constexpr const char* kApi = "DataCopy(L1 -> bias table)";
  CheckBiasTypes(kApi, dst, src);
  if (p.blockCount == 0 || p.blockLen == 0) return;
  const uint32_t dst_elem = CubeTypeBytes(dst.type);
  const uint32_t src_elem = CubeTypeBytes(src.type);
  const uint64_t block_elems = uint64_t{p.blockLen} * 64 / dst_elem;  // blockLen: 64-byte units
  const uint64_t dst_pitch = block_elems + uint64_t{p.dstStride} * 64 / dst_elem;
  const uint64_t src_pitch = block_elems + uint64_t{p.srcStride} * 32 / src_elem;
  if (dst.checked || src.checked) {
    CheckBiasTableCopy(kApi, dst, src);
    CheckExtent(kApi, "destination (bias table)", dst,
                dst_pitch * (p.blockCount - 1u) + block_elems);
    CheckExtent(kApi, kL1Role, src, src_pitch * (p.blockCount - 1u) + block_elems);
  }
  for (uint32_t b = 0; b < p.blockCount; ++b) {
    ConvertToBias(static_cast<std::byte*>(dst.data) + b * dst_pitch * dst_elem, dst,
                  static_cast<const std::byte*>(src.data) + b * src_pitch * src_elem, src,
                  block_elems);
  }
}

void CopyToBiasTable(const CubeOperand& dst, const CubeOperand& src, uint32_t count) {
  constexpr const char* kApi = "DataCopy(L1 -> bias table)";
  CheckBiasTypes(kApi, dst, src);
  if (dst.checked || src.checked) {
    CheckBiasTableCopy(kApi, dst, src);
    if (uint64_t{count} * CubeTypeBytes(src.type) % 32 != 0) {
      KernelFail(kApi, "count " + Str(count) + " x " + Str(CubeTypeBytes(src.type)) +
                           " bytes is not a multiple of 32 bytes");
    }
    CheckExtent(kApi, "destination (bias table)", dst, count);
    CheckExtent(kApi, kL1Role, src, count);
  }
  ConvertToBias(static_cast<std::byte*>(dst.data), dst, static_cast<const std::byte*>(src.data),
                src, count);
}

// ---- LoadData 2D -----------------------------------------------------------------------------

void LoadData2D(const CubeOperand& dst, const CubeOperand& src, const LoadData2DParams& p) {
  constexpr const char* kApi = "LoadData(LoadData2DParams)";
  const uint32_t elem = CubeTypeBytes(dst.type);
  if (p.ifTranspose && elem != 2) {
    KernelFail(kApi, std::string("ifTranspose is for 2-byte types only; this is ") +
                         CubeTypeName(dst.type) + " (use LoadDataWithTranspose)");
  }
  if (p.repeatTimes == 0) return;
  const uint32_t frac = kFractalBytes / elem;
  const uint64_t last = uint64_t{p.repeatTimes - 1u} * p.srcStride;
  if (p.addrMode != 0 && last > p.startIndex) {
    KernelFail(kApi, "addrMode 1 walks back " + Str(last) + " fractals from startIndex " +
                         Str(p.startIndex) + ", before the source tensor");
  }
  if (dst.checked || src.checked) {
    CheckPosition(kApi, "destination", dst, {TPosition::A2, TPosition::B2});
    CheckPosition(kApi, kL1Role, src,
                  {TPosition::A1, TPosition::B1, TPosition::C1, TPosition::TSCM});
    CheckAligned(kApi, "destination", dst, 512);
    CheckAligned(kApi, kL1Role, src, 32);
    const uint64_t max_src = p.addrMode == 0 ? p.startIndex + last : p.startIndex;
    CheckExtent(kApi, kL1Role, src, (max_src + 1) * frac);
    CheckExtent(kApi, "destination", dst,
                (uint64_t{p.repeatTimes - 1u} * (p.dstGap + 1u) + 1) * frac);
  }
  const auto* s = static_cast<const std::byte*>(src.data);
  auto* d = static_cast<std::byte*>(dst.data);
  if (!p.ifTranspose && p.addrMode == 0 && p.srcStride == 1 && p.dstGap == 0) {
    // Consecutive fractals to consecutive fractals (an L1 band of A to its Zz strip): one run.
    std::memcpy(d, s + uint64_t{p.startIndex} * kFractalBytes,
                size_t{p.repeatTimes} * kFractalBytes);
    return;
  }
  const size_t dst_step = size_t{p.dstGap + 1u} * kFractalBytes;
  for (uint32_t i = 0; i < p.repeatTimes; ++i) {
    const uint64_t index = p.addrMode == 0 ? p.startIndex + uint64_t{i} * p.srcStride
                                           : p.startIndex - uint64_t{i} * p.srcStride;
    const std::byte* from = s + index * kFractalBytes;
    std::byte* to = d + i * dst_step;
    if (p.ifTranspose) {
      TransposeFractal16(from, to);
    } else {
      std::memcpy(to, from, kFractalBytes);
    }
  }
}

// ---- LoadDataWithTranspose -------------------------------------------------------------------

void LoadData2DTranspose(const CubeOperand& dst, const CubeOperand& src,
                         const LoadData2dTransposeParams& p) {
  constexpr const char* kApi = "LoadDataWithTranspose";
  const uint32_t elem = CubeTypeBytes(dst.type);
  if (elem == 8) KernelFail(kApi, "8-byte elements cannot be transposed by the cube's MTE1");
  if (p.repeatTimes == 0) return;
  // Fractals per square: b8 and b32 join two, b16 transposes one.
  const uint32_t fracs = elem == 2 ? 1 : 2;
  const uint64_t square_bytes = uint64_t{fracs} * kFractalBytes;
  const uint64_t last = uint64_t{p.repeatTimes - 1u} * p.srcStride;
  if (p.addrMode != 0 && last > p.startIndex) {
    KernelFail(kApi, "addrMode 1 walks back " + Str(last) + " squares from startIndex " +
                         Str(p.startIndex) + ", before the source tensor");
  }
  const size_t frac2 = size_t{p.dstFracGap + 1u} * kFractalBytes;
  const size_t dst_step = size_t{p.dstGap + 1u} * kFractalBytes;
  if (dst.checked || src.checked) {
    CheckPosition(kApi, "destination", dst, {TPosition::A2, TPosition::B2});
    CheckPosition(kApi, kL1Role, src,
                  {TPosition::A1, TPosition::B1, TPosition::C1, TPosition::TSCM});
    CheckAligned(kApi, "destination", dst, 512);
    CheckAligned(kApi, kL1Role, src, 32);
    const uint64_t max_src = p.addrMode == 0 ? p.startIndex + last : p.startIndex;
    CheckExtent(kApi, kL1Role, src, (max_src + 1) * square_bytes / elem);
    CheckExtent(
        kApi, "destination", dst,
        (uint64_t{p.repeatTimes - 1u} * dst_step + (fracs - 1) * frac2 + kFractalBytes) / elem);
  }
  const auto* s = static_cast<const std::byte*>(src.data);
  auto* d = static_cast<std::byte*>(dst.data);
#if defined(__x86_64__)
  static const bool avx512 = HasAvx512Path();
  static const bool avx2 = HasAvx2Path();
#endif
  for (uint32_t i = 0; i < p.repeatTimes; ++i) {
    const uint64_t index = p.addrMode == 0 ? p.startIndex + uint64_t{i} * p.srcStride
                                           : p.startIndex - uint64_t{i} * p.srcStride;
    const std::byte* from = s + index * square_bytes;
    std::byte* to = d + i * dst_step;
    if (elem == 2) {
      TransposeFractal16(from, to);
    } else if (elem == 4) {
#if defined(__x86_64__)
      if (avx512) {
        TransposeSquare32Avx512(from, to, frac2);
        continue;
      }
      if (avx2) {
        TransposeSquare32Avx2(from, to, frac2);
        continue;
      }
#endif
      TransposeSquare32(from, to, frac2);
    } else {
      TransposeSquare8(from, to, frac2);
    }
  }
}

// ---- LoadData 3D v2 (img2col) ----------------------------------------------------------------

void LoadData3DV2(const CubeOperand& dst, const CubeOperand& src, const Load3DGeometry& g,
                  const void* pad) {
  constexpr const char* kApi = "LoadData(LoadData3DParamsV2)";
  const uint32_t elem = CubeTypeBytes(dst.type);
  if (dst.pos != TPosition::A2 && dst.pos != TPosition::B2) {
    KernelFail(kApi, "the destination must be in L0A (A2) or L0B (B2)");
  }
  if (g.fMatrixCtrl) KernelFail(kApi, "fMatrixCtrl must be false (the vendor's only mode)");
  if (g.enSmallK) KernelFail(kApi, "enSmallK is not supported (the vendor dropped it)");
  if (g.l1H == 0 || g.l1W == 0 || g.channelSize == 0 || g.kExtension == 0 || g.mExtension == 0 ||
      (g.filterW == 0) || (g.filterH == 0)) {
    return;  // the vendor's no-op cases
  }
  const bool l0b = dst.pos == TPosition::B2;
  if (elem == 8 || (elem == 1 && (l0b || g.enTranspose))) {
    KernelFail(kApi, std::string(CubeTypeName(dst.type)) +
                         (l0b ? " cannot be moved to L0B" : " cannot be transposed") +
                         " by load3d (2- and 4-byte types; 1-byte to L0A without enTranspose)");
  }
  const uint32_t c0 = 32 / elem;
  if (g.channelSize % c0 != 0) {
    KernelFail(kApi, "channelSize " + Str(g.channelSize) + " must be a multiple of C0 = " +
                         Str(c0) + " for " + CubeTypeName(dst.type));
  }
  if (g.strideW == 0 || g.strideH == 0 || g.dilationW == 0 || g.dilationH == 0) {
    KernelFail(kApi, "strideW/strideH/dilationFilterW/dilationFilterH must be at least 1");
  }
  const int64_t h = g.l1H, w = g.l1W;
  const int64_t pl = g.padList[0], pr = g.padList[1], pt = g.padList[2], pb = g.padList[3];
  const int64_t kh_span = int64_t{g.filterH - 1} * g.dilationH + 1;
  const int64_t kw_span = int64_t{g.filterW - 1} * g.dilationW + 1;
  const int64_t hout = (h + pt + pb - kh_span) / g.strideH + 1;
  const int64_t wout = (w + pl + pr - kw_span) / g.strideW + 1;
  if (h + pt + pb < kh_span || w + pl + pr < kw_span || hout <= 0 || wout <= 0) {
    KernelFail(kApi, "the filter (" + Str(g.filterH) + " x " + Str(g.filterW) +
                         ", dilated) does not fit the padded " + Str(h) + " x " + Str(w) + " map");
  }
  const uint64_t c1 = g.channelSize / c0;
  const uint64_t taps = uint64_t{g.filterH} * g.filterW;
  const uint64_t k_rows = c1 * taps * c0;
  if (uint64_t{g.kStartPt} + g.kExtension > k_rows) {
    KernelFail(kApi, "kStartPt + kExtension = " + Str(uint64_t{g.kStartPt} + g.kExtension) +
                         " exceeds the img2col's " + Str(k_rows) + " rows (C1*Hk*Wk*C0)");
  }
  const uint64_t m_cols = static_cast<uint64_t>(hout) * static_cast<uint64_t>(wout);
  if (uint64_t{g.mStartPt} + g.mExtension > m_cols) {
    KernelFail(kApi, "mStartPt + mExtension = " + Str(uint64_t{g.mStartPt} + g.mExtension) +
                         " exceeds the img2col's " + Str(m_cols) +
                         " columns (Hout*Wout = " + Str(hout) + " x " + Str(wout) + ")");
  }
  const uint64_t kext = g.kExtension, mext = g.mExtension;
  // Destination extent of the fractal layout written (rows rounded to 16, columns to C0 or 16).
  uint64_t dst_need = 0;
  if (l0b) {
    dst_need = ((mext + c0 - 1) / c0) * ((kext + 15) / 16) * 16 * c0;
  } else if (g.enTranspose) {
    dst_need = ((kext + 15) / 16) * ((mext + c0 - 1) / c0) * 16 * c0;
  } else {
    dst_need = ((mext + 15) / 16) * ((kext + c0 - 1) / c0) * 16 * c0;
  }
  if (dst.checked || src.checked) {
    CheckPosition(kApi, kL1Role, src, {TPosition::A1, TPosition::B1, TPosition::TSCM});
    CheckAligned(kApi, "destination", dst, 512);
    CheckAligned(kApi, kL1Role, src, 32);
    CheckExtent(kApi, kL1Role, src, c1 * h * w * c0);
    CheckExtent(kApi, "destination", dst, dst_need);
  }
  const auto* s = static_cast<const std::byte*>(src.data);
  auto* d = static_cast<std::byte*>(dst.data);
  const auto* padv = static_cast<const std::byte*>(pad);
  // img2col element (k, m) -> its bytes (the map's, or the pad value).
  const auto source = [&](uint64_t k, uint64_t m) -> const std::byte* {
    const uint64_t kb = k / c0, cc = k % c0;
    const uint64_t ch = kb / taps, tap = kb % taps;
    const int64_t kh = static_cast<int64_t>(tap / g.filterW),
                  kw = static_cast<int64_t>(tap % g.filterW);
    const int64_t oh = static_cast<int64_t>(m) / wout, ow = static_cast<int64_t>(m) % wout;
    const int64_t y = oh * g.strideH + kh * g.dilationH - pt;
    const int64_t x = ow * g.strideW + kw * g.dilationW - pl;
    if (y < 0 || y >= h || x < 0 || x >= w) return padv;
    return s +
           (((ch * h + static_cast<uint64_t>(y)) * w + static_cast<uint64_t>(x)) * c0 + cc) * elem;
  };
  const uint64_t frac = 16 * c0;
  for (uint64_t i = 0; i < mext; ++i) {
    const uint64_t m = g.mStartPt + i;
    for (uint64_t j = 0; j < kext; ++j) {
      const uint64_t k = g.kStartPt + j;
      uint64_t at = 0;
      if (l0b) {  // right matrix (i, j) in Zn: k = i, n = j
        at = ((i / c0) * ((kext + 15) / 16) + j / 16) * frac + (j % 16) * c0 + i % c0;
      } else if (g.enTranspose) {  // left matrix (j, i) in Zz
        at = ((j / 16) * ((mext + c0 - 1) / c0) + i / c0) * frac + (j % 16) * c0 + i % c0;
      } else {  // left matrix (i, j) in Zz
        at = ((i / 16) * ((kext + c0 - 1) / c0) + j / c0) * frac + (i % 16) * c0 + j % c0;
      }
      std::memcpy(d + at * elem, source(k, m), elem);
    }
  }
}

}  // namespace tessera::kernel::detail

// Mmad (validation, then the microkernels of mmad_kernels.h) and Fixpipe (L0C -> GM/L1 with
// Nz -> ND/Nz, relu and the quantPre conversions).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../block_state.h"
#include "cube_internal.h"
#include "mmad_kernels.h"
#include "tessera/device/gm_access.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tessera::kernel::detail {
namespace {

constexpr uint32_t kMaxMmadDim = 4095;

uint64_t Ceil(uint64_t v, uint64_t to) {
  return (v + to - 1) / to;
}

// Checked mode: remembers the unitFlag of the last Mmad into the L0C tile at `l0c`.
void RecordUnitFlag(const void* l0c, uint8_t flag) {
  KernelBlockState& state = State("Mmad");
  for (auto& rec : state.unit_flags) {
    if (rec.l0c == l0c) {
      rec.unit_flag = flag;
      return;
    }
  }
  state.unit_flags.push_back({l0c, flag});
}

// Checked mode: a Fixpipe draining `l0c` with `flag` must match the Mmads that filled it.
void CheckUnitFlag(const void* l0c, uint8_t flag) {
  KernelBlockState& state = State("Fixpipe");
  // The tile holding `l0c`: the record with the highest start at or below it (a Fixpipe may drain
  // a view into the tile).
  const KernelBlockState::UnitFlagRecord* rec = nullptr;
  for (const auto& r : state.unit_flags) {
    if (r.l0c <= l0c && (rec == nullptr || r.l0c > rec->l0c)) rec = &r;
  }
  const int mmad = rec ? rec->unit_flag : -1;
  if (flag != 0 && mmad <= 0) {
    KernelFail("Fixpipe", "unitFlag " + Str(flag) + " but " +
                              (mmad < 0 ? std::string("no Mmad with a unitFlag wrote this L0C tile")
                                        : std::string("the last Mmad into this L0C tile had "
                                                      "unitFlag 0")) +
                              "; set the same unitFlag on the Mmads and the Fixpipe");
  }
  if (flag == 0 && mmad > 0) {
    KernelFail("Fixpipe", "unitFlag 0 but the last Mmad into this L0C tile had unitFlag " +
                              Str(mmad) +
                              "; a tile filled with unitFlag must be drained with unitFlag 3");
  }
  if (flag != 0 && mmad == 2) {
    KernelFail("Fixpipe", "unitFlag " + Str(flag) +
                              " but the last Mmad into this L0C tile had unitFlag 2 (more Mmads "
                              "to come); the last Mmad before the Fixpipe takes unitFlag 3");
  }
}

MmadKind KindOf(CubeType t) {
  switch (t) {
    case CubeType::kF16:
      return MmadKind::kF16;
    case CubeType::kBF16:
      return MmadKind::kBF16;
    case CubeType::kS8:
      return MmadKind::kS8;
    default:
      return MmadKind::kF32;
  }
}

}  // namespace

void RunCubeMmad(const CubeOperand& c, const CubeOperand& a, const CubeOperand& b,
                 const CubeOperand* bias, const MmadParams& p) {
  constexpr const char* kApi = "Mmad";
  if (p.m > kMaxMmadDim || p.n > kMaxMmadDim || p.k > kMaxMmadDim) {
    KernelFail(kApi,
               "m " + Str(p.m) + ", n " + Str(p.n) + ", k " + Str(p.k) + ": each must be 0..4095");
  }
  if (p.unitFlag == 1 || p.unitFlag > 3) {
    KernelFail(kApi, "unitFlag " + Str(p.unitFlag) +
                         " is not 0 (off), 2 (more Mmads follow) or 3 (last Mmad)");
  }
  // cmatrixSource without a bias tensor: C starts from the bias table's start (the address the
  // vendor's instruction uses when no bias is given), where the kernel copied the bias.
  CubeOperand table;
  if (bias == nullptr && !p.isBias && !p.cmatrixInitVal && p.cmatrixSource) {
    const device::BlockContext* ctx = device::CurrentBlock();
    if (ctx == nullptr || ctx->bt == nullptr) {
      KernelFail(kApi, "cmatrixSource = true starts C from the bias table, which a " +
                           std::string(ctx ? device::CoreTypeName(ctx->core_type) : "host") +
                           " core does not have");
    }
    table = CubeOperand{
        ctx->bt, ctx->bt_bytes / CubeTypeBytes(c.type), c.type, TPosition::C2, c.checked, true};
    bias = &table;
  }
  const uint32_t elem = CubeTypeBytes(a.type);
  const uint32_t c0 = 32 / elem;
  // kDirectionAlign: fp32 K is padded to 16 in L0 instead of 8. Only L0A's Zz layout changes (an
  // M block's fractal row holds ceil(K/16)*2 fractals); L0B's Zn pads past its last K block.
  const bool k_align16 =
      p.kDirectionAlign && a.type == CubeType::kF32 && p.m > 1 && p.k % 16 != 0 && p.k % 16 <= 8;
  const bool checked = c.checked || a.checked || b.checked;
  if (checked) {
    CheckPosition(kApi, "dst", c, {TPosition::CO1});
    CheckPosition(kApi, "fm", a, {TPosition::A2});
    CheckPosition(kApi, "filter", b, {TPosition::B2});
    CheckAligned(kApi, "dst", c, 1024);
    CheckAligned(kApi, "fm", a, 512);
    CheckAligned(kApi, "filter", b, 512);
    if (bias != nullptr) {
      CheckPosition(kApi, "bias", *bias, {TPosition::C2});
      CheckAligned(kApi, "bias", *bias, 64);
    }
  }
  if (p.m == 0 || p.n == 0 || p.k == 0) return;  // a no-op, as on the NPU
  if (checked) {
    const uint64_t k1 = Ceil(p.k, c0);
    const uint64_t mp = Ceil(p.m, 16) * 16;
    // GEMV (m == 1) reads L0A as a 1 x k vector; otherwise A is a Zz tile of whole fractals.
    CheckExtent(kApi, "fm (L0A)", a, p.m == 1 ? p.k : mp * (k_align16 ? k1 + 1 : k1) * c0);
    CheckExtent(kApi, "filter (L0B)", b, k1 * c0 * Ceil(p.n, 16) * 16);
    CheckExtent(kApi, "dst (L0C)", c, (uint64_t{p.n - 1u} / 16) * mp * 16 + mp * 16);
    if (bias != nullptr) CheckExtent(kApi, "bias (bias table)", *bias, p.n);
    RecordUnitFlag(c.data, p.unitFlag);
  }
  MmadCall call;
  call.kind = KindOf(a.type);
  call.a = a.data;
  std::vector<float> packed;  // L0A with the 8-padding the Mmad kernels read (kDirectionAlign)
  if (k_align16) {
    const uint64_t k1 = Ceil(p.k, c0), m1 = Ceil(p.m, 16), frac = 16 * c0;
    packed.resize(m1 * k1 * frac);
    const auto* src = static_cast<const float*>(a.data);
    for (uint64_t i = 0; i < m1; ++i)
      std::memcpy(packed.data() + i * k1 * frac, src + i * (k1 + 1) * frac,
                  k1 * frac * sizeof(float));
    call.a = packed.data();
  }
  call.b = b.data;
  call.c = c.data;
  call.bias = bias ? bias->data : nullptr;
  call.m = p.m;
  call.n = p.n;
  call.k = p.k;
  call.accumulate = bias == nullptr && (p.isBias || !p.cmatrixInitVal);
  RunMmad(call);
}

// ---- Fixpipe ---------------------------------------------------------------------------------

namespace {

// The fp32 multiplier of a quant word: bits 0..31, read by the hardware as 1-8-10 (the low 13
// mantissa bits are ignored).
float QuantScale(uint64_t word) {
  return std::bit_cast<float>(static_cast<uint32_t>(word) & 0xFFFFE000u);
}
// The 9-bit signed offset of REQ8 / QF322B8_PRE words (bits 37..45).
int32_t QuantOffset(uint64_t word) {
  const auto raw = static_cast<int32_t>((word >> 37) & 0x1FFu);
  return raw >= 256 ? raw - 512 : raw;
}

enum class Conv : uint8_t { kCopy32, kF32ToF16, kF32ToBF16, kF32ToB8, kS32ToF16, kS32ToB8 };

#if defined(__x86_64__)
__attribute__((target("avx,f16c"))) void F32ToF16F16c(const float* in, uint16_t* out, uint32_t n,
                                                      bool relu) {
  uint32_t i = 0;
  const __m256 zero = _mm256_setzero_ps();
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(in + i);
    if (relu) v = _mm256_max_ps(v, zero);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  for (; i < n; ++i)
    out[i] = FloatToHalfBits(relu ? std::max(in[i], 0.0f) : in[i]);
}
bool HasF16c() {
  static const bool has = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
  return has;
}
#endif

// NaN stays NaN through relu (max(NaN, 0) is taken as NaN, as fmax would not).
inline float Relu(float v) {
  return v < 0.0f ? 0.0f : v;
}

int32_t SaturateB8(float v, int32_t offset, bool is_signed) {
  if (std::isnan(v)) return 0;
  const float r = std::nearbyint(v);
  const double shifted = static_cast<double>(r) + offset;
  const double lo = is_signed ? -128.0 : 0.0, hi = is_signed ? 127.0 : 255.0;
  return static_cast<int32_t>(std::clamp(shifted, lo, hi));
}

// Converts one row of n L0C values (contiguous) into n output elements at `out`. `words` holds a
// quant word per column (V... modes) or is null (the scalar word applies).
void ConvertRow(Conv conv, const void* in_row, std::byte* out, uint32_t n, bool relu,
                bool out_signed, uint64_t scalar, const uint64_t* words, CubeType in_type) {
  switch (conv) {
    case Conv::kCopy32: {
      if (!relu) {
        std::memcpy(out, in_row, size_t{n} * 4);
        return;
      }
      if (in_type == CubeType::kF32) {
        const auto* in = static_cast<const float*>(in_row);
        auto* o = reinterpret_cast<float*>(out);
        for (uint32_t i = 0; i < n; ++i)
          o[i] = Relu(in[i]);
      } else {
        const auto* in = static_cast<const int32_t*>(in_row);
        auto* o = reinterpret_cast<int32_t*>(out);
        for (uint32_t i = 0; i < n; ++i)
          o[i] = std::max(in[i], 0);
      }
      return;
    }
    case Conv::kF32ToF16: {
      const auto* in = static_cast<const float*>(in_row);
      auto* o = reinterpret_cast<uint16_t*>(out);
#if defined(__x86_64__)
      if (HasF16c()) {
        F32ToF16F16c(in, o, n, relu);
        return;
      }
#endif
      for (uint32_t i = 0; i < n; ++i)
        o[i] = FloatToHalfBits(relu ? Relu(in[i]) : in[i]);
      return;
    }
    case Conv::kF32ToBF16: {
      const auto* in = static_cast<const float*>(in_row);
      auto* o = reinterpret_cast<uint16_t*>(out);
      for (uint32_t i = 0; i < n; ++i)
        o[i] = FloatToBfloat16Bits(relu ? Relu(in[i]) : in[i]);
      return;
    }
    case Conv::kS32ToF16: {
      const auto* in = static_cast<const int32_t*>(in_row);
      auto* o = reinterpret_cast<uint16_t*>(out);
      for (uint32_t i = 0; i < n; ++i) {
        float v = static_cast<float>(in[i]) * QuantScale(words ? words[i] : scalar);
        o[i] = FloatToHalfBits(relu ? Relu(v) : v);
      }
      return;
    }
    case Conv::kF32ToB8:
    case Conv::kS32ToB8: {
      for (uint32_t i = 0; i < n; ++i) {
        const uint64_t w = words ? words[i] : scalar;
        const float x = conv == Conv::kF32ToB8
                            ? static_cast<const float*>(in_row)[i]
                            : static_cast<float>(static_cast<const int32_t*>(in_row)[i]);
        float v = x * QuantScale(w);
        if (relu) v = Relu(v);
        const int32_t q = SaturateB8(v, QuantOffset(w), out_signed);
        out[i] = static_cast<std::byte>(static_cast<uint8_t>(q));
      }
      return;
    }
    default:
      return;
  }
}

// The conversion for (L0C type, output type, quantPre), or fails naming what was expected.
Conv PickConversion(CubeType in, CubeType out, QuantMode_t q, bool* vector_words) {
  *vector_words = q == VDEQF16 || q == VQF322B8_PRE || q == VREQ8;
  const bool b8 = out == CubeType::kS8 || out == CubeType::kU8;
  if (in == CubeType::kF32) {
    if (out == CubeType::kF32 && q == NoQuant) return Conv::kCopy32;
    if (out == CubeType::kF16 && q == F322F16) return Conv::kF32ToF16;
    if (out == CubeType::kBF16 && q == F322BF16) return Conv::kF32ToBF16;
    if (b8 && (q == QF322B8_PRE || q == VQF322B8_PRE)) return Conv::kF32ToB8;
  } else {
    if (out == CubeType::kS32 && q == NoQuant) return Conv::kCopy32;
    if (out == CubeType::kF16 && (q == DEQF16 || q == VDEQF16)) return Conv::kS32ToF16;
    if (b8 && (q == REQ8 || q == VREQ8)) return Conv::kS32ToB8;
  }
  static const char* const kModes[] = {"NoQuant",      "F322F16", "F322BF16",
                                       "DEQF16",       "VDEQF16", "QF322B8_PRE",
                                       "VQF322B8_PRE", "REQ8",    "VREQ8"};
  const char* expected = "NoQuant";
  if (in == CubeType::kF32) {
    if (out == CubeType::kF16) expected = "F322F16";
    if (out == CubeType::kBF16) expected = "F322BF16";
    if (b8) expected = "QF322B8_PRE or VQF322B8_PRE";
  } else {
    if (out == CubeType::kF16) expected = "DEQF16 or VDEQF16";
    if (b8) expected = "REQ8 or VREQ8";
  }
  KernelFail("Fixpipe", std::string("quantPre ") +
                            (static_cast<size_t>(q) < 9 ? kModes[q] : "invalid") + " cannot turn " +
                            CubeTypeName(in) + " L0C values into " + CubeTypeName(out) +
                            " output; expected " + expected);
}

}  // namespace

namespace {

// Checked mode: the GM bytes a Fixpipe writes, row by row (ND) or 32-byte column block by block
// (Nz), for the race and unwritten-output checks.
void NoteFixpipeWrites(const CubeOperand& dst, const FixpipeParamsV220& p, CO2Layout format,
                       uint32_t c0_out) {
  const uint32_t out_elem = CubeTypeBytes(dst.type);
  const uint64_t block_bytes = uint64_t{p.dstStride} * 32;
  for (uint32_t i = 0; i < p.ndNum; ++i) {
    const auto* d_mat =
        static_cast<const std::byte*>(dst.data) + uint64_t{i} * p.dstNdStride * out_elem;
    for (uint64_t j = 0; j < p.mSize; ++j) {
      if (format == CO2Layout::ROW_MAJOR) {
        device::NoteGmAccess(device::GmAccess::kWrite, d_mat + j * p.dstStride * out_elem,
                             size_t{p.nSize} * out_elem, "Fixpipe");
        continue;
      }
      for (uint64_t c = 0; c < p.nSize; c += c0_out) {
        const uint64_t len = std::min<uint64_t>(c0_out, p.nSize - c);
        device::NoteGmAccess(device::GmAccess::kWrite,
                             d_mat + (c / c0_out) * block_bytes + j * c0_out * out_elem,
                             len * out_elem, "Fixpipe");
      }
    }
  }
}

}  // namespace

void ClearUnitFlags() {
  for (auto& rec : State("SetFixPipeConfig").unit_flags)
    rec.unit_flag = 0;
}

void RunFixpipe(const CubeOperand& dst, const CubeOperand& src, const CubeOperand* quant,
                const FixpipeParamsV220& p, CO2Layout format) {
  constexpr const char* kApi = "Fixpipe";
  bool vector_words = false;
  const Conv conv = PickConversion(src.type, dst.type, p.quantPre, &vector_words);
  if (vector_words && quant == nullptr) {
    KernelFail(kApi,
               "a per-column quantPre (VDEQF16, VQF322B8_PRE, VREQ8) needs the form with a "
               "cbufWorkspace tensor of quant words");
  }
  const uint32_t out_elem = CubeTypeBytes(dst.type);
  // Nz output: column blocks of 32 bytes of output elements (16 floats unless split).
  const uint32_t c0_out = dst.type == CubeType::kF32 && !p.isChannelSplit ? 16 : 32 / out_elem;
  const bool checked = dst.checked || src.checked;
  if (checked) {
    CheckPosition(kApi, "src", src, {TPosition::CO1});
    CheckAligned(kApi, "src", src, 64);
    CheckPosition(kApi, "dst", dst,
                  {TPosition::GM, TPosition::A1, TPosition::B1, TPosition::C1, TPosition::TSCM});
    if (p.unitFlag == 1 || p.unitFlag > 3) {
      KernelFail(kApi, "unitFlag " + Str(p.unitFlag) + " is not 0, 2 or 3");
    }
    CheckUnitFlag(src.data, p.unitFlag);
    if (p.isChannelSplit && (dst.type != CubeType::kF32 || format != CO2Layout::NZ)) {
      KernelFail(kApi, "isChannelSplit is for float Nz output only");
    }
    if (quant != nullptr) {
      CheckPosition(kApi, "cbufWorkspace", *quant, {TPosition::C1, TPosition::A1, TPosition::B1});
    }
  }
  if (p.nSize == 0 || p.mSize == 0 || p.ndNum == 0) return;
  const uint64_t n = p.nSize, m = p.mSize;
  const uint64_t nd_src_step = uint64_t{p.srcNdStride} * 256;  // L0C fractals of 16 x 16
  if (checked) {
    if (p.nSize > 4095) KernelFail(kApi, "nSize " + Str(n) + " exceeds 4095");
    if (format == CO2Layout::ROW_MAJOR && m > 8192) {
      KernelFail(kApi, "mSize " + Str(m) + " exceeds 8192, the Nz -> ND limit");
    }
    if (p.srcStride < m) {
      KernelFail(kApi, "srcStride " + Str(p.srcStride) + " is smaller than mSize " + Str(m) +
                           "; it is the L0C tile height rounded up to 16");
    }
    CheckExtent(kApi, "src (L0C)", src,
                (p.ndNum - 1u) * nd_src_step + ((n - 1) / 16) * p.srcStride * 16 + m * 16);
    if (format == CO2Layout::ROW_MAJOR) {
      if (p.dstStride < n && m > 1) {
        KernelFail(kApi, "dstStride " + Str(p.dstStride) + " is smaller than nSize " + Str(n) +
                             "; output rows would overlap");
      }
      CheckExtent(kApi, "dst", dst,
                  uint64_t{p.ndNum - 1u} * p.dstNdStride + (m - 1) * p.dstStride + n);
    } else {
      const uint64_t block_elems = uint64_t{p.dstStride} * 32 / out_elem;
      CheckExtent(kApi, "dst", dst,
                  uint64_t{p.ndNum - 1u} * p.dstNdStride + ((n - 1) / c0_out) * block_elems +
                      (m - 1) * c0_out + c0_out);
    }
    if (quant != nullptr) CheckExtent(kApi, "cbufWorkspace", *quant, n);
    if (dst.pos == TPosition::GM) NoteFixpipeWrites(dst, p, format, c0_out);
  }
  const bool out_signed = dst.type == CubeType::kS8;
  const auto* words = quant ? static_cast<const uint64_t*>(quant->data) : nullptr;
  const auto* l0c = static_cast<const std::byte*>(src.data);
  auto* out = static_cast<std::byte*>(dst.data);
  const uint64_t blocks = Ceil(n, 16);
  // Rows are gathered 16 at a time (one L0C fractal row): each column block then gives 1 KB of
  // contiguous L0C, instead of 64 bytes per row at a power-of-two stride that makes the reads
  // collide in the same cache sets. Thread-local: a fiber never yields inside Fixpipe, and 272 KB
  // is too much for a fiber's stack.
  constexpr uint32_t kStrip = 16;
  alignas(64) static thread_local uint32_t rows[kStrip][4096 + 16];
  alignas(64) static thread_local std::byte converted[4096 * 4];
  const uint64_t block_bytes = uint64_t{p.dstStride} * 32;
  for (uint32_t i = 0; i < p.ndNum; ++i) {
    const std::byte* s_mat = l0c + i * nd_src_step * 4;
    std::byte* d_mat = out + uint64_t{i} * p.dstNdStride * out_elem;
    for (uint64_t j0 = 0; j0 < m; j0 += kStrip) {
      const uint64_t strip = std::min<uint64_t>(kStrip, m - j0);
      for (uint64_t b = 0; b < blocks; ++b) {
        const std::byte* block = s_mat + (b * p.srcStride * 16 + j0 * 16) * 4;
        for (uint64_t jj = 0; jj < strip; ++jj)
          std::memcpy(rows[jj] + b * 16, block + jj * 64, 64);
      }
      for (uint64_t jj = 0; jj < strip; ++jj) {
        const uint64_t j = j0 + jj;
        if (format == CO2Layout::ROW_MAJOR) {
          ConvertRow(conv, rows[jj], d_mat + j * p.dstStride * out_elem, static_cast<uint32_t>(n),
                     p.reluEn, out_signed, p.deqScalar, words, src.type);
          continue;
        }
        ConvertRow(conv, rows[jj], converted, static_cast<uint32_t>(n), p.reluEn, out_signed,
                   p.deqScalar, words, src.type);
        for (uint64_t c = 0; c < n; c += c0_out) {
          const uint64_t len = std::min<uint64_t>(c0_out, n - c);
          std::memcpy(d_mat + (c / c0_out) * block_bytes + j * c0_out * out_elem,
                      converted + c * out_elem, len * out_elem);
        }
      }
    }
  }
}

}  // namespace tessera::kernel::detail

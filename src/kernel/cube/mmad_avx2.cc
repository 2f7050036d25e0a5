// Mmad on AVX2 + FMA, for x86-64 CPUs without AVX-512 (Zen 1-3, Haswell..Alder Lake). The engine
// works on 32-bit "units": one f32 (f32 as is, f16/bf16 widened exactly), or one pair of s16 values
// adjacent along K (s8 widened, multiplied with vpmaddwd: exact, |a b| <= 2^14, k <= 4095).
//
// A is read in place from L0A when it is f32 (Zz fractal rows of 8 units); f16/bf16/s8 are first
// widened into a copy with the same geometry and 16 units per fractal row. Either way unit u of row
// i sits at strip(i) * a_strip + (u / c0u) * 16 * c0u + (i % 16) * c0u + u % c0u, so a block of
// rows broadcasts its A values through one moving pointer plus a fixed offset per row (a block may
// span two 16-row strips). B (Zn: the K values of one column contiguous) is transposed, one K block
// of one 16-column fractal column at a time, into a panel with the 16 columns of a unit contiguous,
// right before the row blocks use it, so the panel stays in L1. C stays in L0C: row r of a Nz
// fractal column is 16 contiguous values, two ymm.
//
// The 6 x 16 microkernel holds 12 ymm accumulators (2 B vectors and a broadcast fill the other
// 4 of 16): 12 independent FMA chains cover the 2 pipes x 5 cycles of Zen 1's FMA latency.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "mmad_kernels.h"
#include "mmad_layout.h"
#include "tessera/core/float16.h"

// Everything defined below is compiled for AVX2 and runs only after the CPU check.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma,f16c"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
#endif

namespace tessera::kernel::detail {
namespace {

using U32Alias = uint32_t __attribute__((may_alias));

constexpr int kMr = 6;         // rows per register block
constexpr uint32_t kNr = 16;   // columns per block and per B panel (one fractal column of C)
constexpr uint32_t kKc = 256;  // units per K block: a 256 x 16 panel (16 KB) stays in L1
static_assert(kKc % 16 == 0, "K blocks start on a fractal boundary for every unit width");

struct OpF32 {
  using Vec = __m256;
  static Vec Zero() { return _mm256_setzero_ps(); }
  static Vec Load(const uint32_t* p) { return _mm256_loadu_ps(reinterpret_cast<const float*>(p)); }
  static Vec MaskLoad(const uint32_t* p, __m256i m) {
    return _mm256_maskload_ps(reinterpret_cast<const float*>(p), m);
  }
  static void Store(uint32_t* p, Vec v) { _mm256_storeu_ps(reinterpret_cast<float*>(p), v); }
  static void MaskStore(uint32_t* p, __m256i m, Vec v) {
    _mm256_maskstore_ps(reinterpret_cast<float*>(p), m, v);
  }
  static Vec Broadcast(const uint32_t* p) {
    return _mm256_broadcast_ss(reinterpret_cast<const float*>(p));
  }
  static Vec Fma(Vec acc, Vec a, Vec b) { return _mm256_fmadd_ps(a, b, acc); }
};

// s16 pairs: acc += a0*b0 + a1*b1 (products of s8 values: no overflow, exact).
struct OpS16Pairs {
  using Vec = __m256i;
  static Vec Zero() { return _mm256_setzero_si256(); }
  static Vec Load(const uint32_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static Vec MaskLoad(const uint32_t* p, __m256i m) {
    return _mm256_maskload_epi32(reinterpret_cast<const int*>(p), m);
  }
  static void Store(uint32_t* p, Vec v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static void MaskStore(uint32_t* p, __m256i m, Vec v) {
    _mm256_maskstore_epi32(reinterpret_cast<int*>(p), m, v);
  }
  static Vec Broadcast(const uint32_t* p) {
    return _mm256_set1_epi32(static_cast<int>(*reinterpret_cast<const U32Alias*>(p)));
  }
  static Vec Fma(Vec acc, Vec a, Vec b) { return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b)); }
};

struct KernelArgs {
  const uint32_t* a;     // A at the K block's first unit, strip 0 (add row_off[r] for row r)
  size_t row_off[kMr];   // units from `a` to each row of the block
  const uint32_t* b;     // the packed panel at the K block's first unit
  uint32_t* c;           // C at (first row, first column) of the block
  const uint32_t* bias;  // bias at the block's first column, or nullptr
  uint32_t units;        // units of this K block
  uint32_t cols;         // valid columns, 1..16
  bool load_c;           // start from C; else from the bias, else from zero
};

// Lane masks (sign bit set) of the first `cols` columns of a 16-column row, as two halves.
inline void ColumnMasks(uint32_t cols, __m256i& m0, __m256i& m1) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  m0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(cols)), lane);
  m1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(cols) - 8), lane);
}

template <class Op, int MR>
__attribute__((always_inline)) inline void Step(const uint32_t* const (&a)[MR], int u0,
                                                const uint32_t* b, typename Op::Vec (&acc)[MR][2]) {
  const typename Op::Vec b0 = Op::Load(b), b1 = Op::Load(b + 8);
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
    const typename Op::Vec av = Op::Broadcast(a[r] + u0);
    acc[r][0] = Op::Fma(acc[r][0], av, b0);
    acc[r][1] = Op::Fma(acc[r][1], av, b1);
  }
}

// One MR x 16 block of C over one K block.
template <class Op, int C0U, int MR>
void Kernel(const KernelArgs& p) {
  using Vec = typename Op::Vec;
  const bool full = p.cols == kNr;
  Vec acc[MR][2];
  {
    __m256i m0, m1;
    ColumnMasks(p.cols, m0, m1);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      if (p.load_c) {
        const uint32_t* src = p.c + r * 16;
        acc[r][0] = full ? Op::Load(src) : Op::MaskLoad(src, m0);
        acc[r][1] = full ? Op::Load(src + 8) : Op::MaskLoad(src + 8, m1);
      } else if (p.bias != nullptr) {
        // The bias table holds n values: never read past the last valid column.
        acc[r][0] = full ? Op::Load(p.bias) : Op::MaskLoad(p.bias, m0);
        acc[r][1] = full ? Op::Load(p.bias + 8) : Op::MaskLoad(p.bias + 8, m1);
      } else {
        acc[r][0] = Op::Zero();
        acc[r][1] = Op::Zero();
      }
    }
  }
  // One pointer per row, all moving by a fractal per C0U units: the broadcasts address A with
  // constant displacements.
  const uint32_t* a[MR];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r)
    a[r] = p.a + p.row_off[r];
  const uint32_t* b = p.b;
  uint32_t u = 0;
  for (; u + C0U <= p.units; u += C0U) {
#pragma GCC unroll 16
    for (int u0 = 0; u0 < C0U; ++u0)
      Step<Op, MR>(a, u0, b + u0 * kNr, acc);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r)
      a[r] += 16 * C0U;
    b += C0U * kNr;
  }
  for (int u0 = 0; u < p.units; ++u, ++u0)
    Step<Op, MR>(a, u0, b + u0 * kNr, acc);
  if (full) {
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      Op::Store(p.c + r * 16, acc[r][0]);
      Op::Store(p.c + r * 16 + 8, acc[r][1]);
    }
    return;
  }
  __m256i m0, m1;
  ColumnMasks(p.cols, m0, m1);
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
    Op::MaskStore(p.c + r * 16, m0, acc[r][0]);
    Op::MaskStore(p.c + r * 16 + 8, m1, acc[r][1]);
  }
}

using KernelFn = void (*)(const KernelArgs&);

template <class Op, int C0U>
constexpr KernelFn kKernels[kMr] = {&Kernel<Op, C0U, 1>, &Kernel<Op, C0U, 2>, &Kernel<Op, C0U, 3>,
                                    &Kernel<Op, C0U, 4>, &Kernel<Op, C0U, 5>, &Kernel<Op, C0U, 6>};

// 8 x 8 transpose of 32-bit units: row i of src (stride src_stride) becomes column i of dst.
inline void Transpose8x8(const uint32_t* src, size_t src_stride, uint32_t* dst, size_t dst_stride) {
  __m256 r[8], t[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i)
    r[i] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + i * src_stride));
#pragma GCC unroll 4
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  // s[q] for q < 4: units q and q + 4 of rows 0..3 (low / high lane); s[4 + q]: rows 4..7.
  __m256 s[8];
#pragma GCC unroll 2
  for (int h = 0; h < 8; h += 4) {
    s[h + 0] = _mm256_shuffle_ps(t[h], t[h + 2], 0x44);
    s[h + 1] = _mm256_shuffle_ps(t[h], t[h + 2], 0xEE);
    s[h + 2] = _mm256_shuffle_ps(t[h + 1], t[h + 3], 0x44);
    s[h + 3] = _mm256_shuffle_ps(t[h + 1], t[h + 3], 0xEE);
  }
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {
    _mm256_storeu_ps(reinterpret_cast<float*>(dst + q * dst_stride),
                     _mm256_permute2f128_ps(s[q], s[q + 4], 0x20));
    _mm256_storeu_ps(reinterpret_cast<float*>(dst + (q + 4) * dst_stride),
                     _mm256_permute2f128_ps(s[q], s[q + 4], 0x31));
  }
}

// One Zn fractal as 16 columns x C0U units (column j's units at j * C0U) -> C0U panel rows of 16.
template <int C0U>
inline void TransposeFractal(const uint32_t* src, uint32_t* panel_rows) {
#pragma GCC unroll 2
  for (int jb = 0; jb < 16; jb += 8) {
#pragma GCC unroll 2
    for (int ub = 0; ub < C0U; ub += 8)
      Transpose8x8(src + jb * C0U + ub, C0U, panel_rows + ub * kNr + jb, kNr);
  }
}

// Widening of one 32-byte fractal row (16 f16/bf16 values, or 32 s8 values) to 16 units.
struct WidenF16 {
  static void Row(const uint8_t* src, uint32_t* dst) {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 16));
    _mm256_storeu_ps(reinterpret_cast<float*>(dst), _mm256_cvtph_ps(lo));
    _mm256_storeu_ps(reinterpret_cast<float*>(dst + 8), _mm256_cvtph_ps(hi));
  }
};
// A bfloat16 is the high half of an f32: exact.
struct WidenBf16 {
  static void Row(const uint8_t* src, uint32_t* dst) {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 16));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst),
                        _mm256_slli_epi32(_mm256_cvtepu16_epi32(lo), 16));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 8),
                        _mm256_slli_epi32(_mm256_cvtepu16_epi32(hi), 16));
  }
};
// s8 -> s16: unit u holds elements 2u (low half) and 2u + 1 (high half).
struct WidenS8 {
  static void Row(const uint8_t* src, uint32_t* dst) {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 16));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_cvtepi8_epi16(lo));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 8), _mm256_cvtepi8_epi16(hi));
  }
};

// The operands of one call in engine form.
struct EngineArgs {
  const uint32_t* a;  // Zz units, C0U units per fractal row
  size_t a_strip;     // units between two 16-row strips of A
  const uint8_t* b;   // L0B (Zn, 512-byte fractals)
  uint32_t* c;        // L0C
  const uint32_t* bias;
  uint32_t m, n;
  uint32_t units;      // units along K
  bool odd_pair_tail;  // s16 pairs with odd k: the high half of the last unit is K padding
  bool accumulate;
};

// Loop order: K blocks, then fractal columns of C (whose B panel is packed for the K block and
// stays in L1), then 6-row blocks of A. `Widen` converts one 32-byte row of a B fractal column to
// 16 units (void: B is f32 and used as is).
template <class Op, int C0U, class Widen>
void Engine(const EngineArgs& e) {
  const uint32_t n1 = (e.n + 15) / 16;
  const size_t mp16 = size_t((e.m + 15) / 16) * 16 * 16;
  uint32_t* panel = MmadScratchUnits(1, size_t(kKc) * kNr);
  alignas(32) uint32_t widened[16 * C0U];
  for (uint32_t k0 = 0; k0 < e.units; k0 += kKc) {
    KernelArgs p{};
    p.units = e.units - k0 < kKc ? e.units - k0 : kKc;
    p.load_c = e.accumulate || k0 > 0;
    p.a = e.a + size_t(k0) * 16;
    const uint32_t kf0 = k0 / C0U, kf_count = (p.units + C0U - 1) / C0U;
    for (uint32_t q = 0; q < n1; ++q) {
      for (uint32_t kf = 0; kf < kf_count; ++kf) {
        const uint8_t* src = e.b + (size_t(kf0 + kf) * n1 + q) * 512;
        uint32_t* rows = panel + size_t(kf) * C0U * kNr;
        if constexpr (std::is_void_v<Widen>) {
          TransposeFractal<C0U>(reinterpret_cast<const uint32_t*>(src), rows);
        } else {
#pragma GCC unroll 4
          for (int j = 0; j < 16; ++j)
            Widen::Row(src + j * 32, widened + j * C0U);
          TransposeFractal<C0U>(widened, rows);
        }
      }
      if (e.odd_pair_tail && k0 + p.units == e.units) {
        // B's half of the K padding becomes zero, so A's (whatever it holds) adds nothing.
        uint32_t* last = panel + size_t(p.units - 1) * kNr;
        const __m256i low = _mm256_set1_epi32(0xFFFF);
        for (uint32_t v = 0; v < kNr; v += 8) {
          auto* x = reinterpret_cast<__m256i*>(last + v);
          _mm256_storeu_si256(x, _mm256_and_si256(_mm256_loadu_si256(x), low));
        }
      }
      // The next column's B fractals sit n1 fractals apart, a stride the hardware prefetcher
      // does not follow: fetch them into L2 while this column's row blocks run.
      if (q + 1 < n1) {
        for (uint32_t kf = 0; kf < kf_count; ++kf) {
          const char* next =
              reinterpret_cast<const char*>(e.b) + (size_t(kf0 + kf) * n1 + q + 1) * 512;
          for (uint32_t line = 0; line < 512; line += 64)
            _mm_prefetch(next + line, _MM_HINT_T1);
        }
      }
      p.b = panel;
      p.cols = e.n - q * 16 < kNr ? e.n - q * 16 : kNr;
      p.bias = (!p.load_c && e.bias != nullptr) ? e.bias + q * 16 : nullptr;
      uint32_t* c_col = e.c + size_t(q) * mp16;
      for (uint32_t row0 = 0, mr = 0; row0 < e.m; row0 += mr) {
        // The last 7..11 rows go as two blocks of about half each rather than 6 + a narrow rest:
        // a block of 1 or 2 rows runs too few FMA chains to hide the latency.
        const uint32_t left = e.m - row0;
        mr = left > uint32_t(kMr) && left < 2 * uint32_t(kMr) ? (left + 1) / 2
             : left < uint32_t(kMr)                           ? left
                                                              : uint32_t(kMr);
        for (uint32_t r = 0; r < mr; ++r) {
          const uint32_t i = row0 + r;
          p.row_off[r] = size_t(i / 16) * e.a_strip + size_t(i % 16) * C0U;
        }
        p.c = c_col + size_t(row0) * 16;
        kKernels<Op, C0U>[mr - 1](p);
      }
    }
  }
}

// A (Zz, 32-byte fractal rows) widened to 16 units per fractal row; only the valid rows.
template <class Widen>
void WidenA(const uint8_t* a, uint32_t m, uint32_t k1, uint32_t* out) {
  for (uint32_t s = 0; s * 16 < m; ++s) {
    const uint32_t rows = m - s * 16 < 16 ? m - s * 16 : 16;
    for (uint32_t kf = 0; kf < k1; ++kf) {
      const size_t frac = size_t(s) * k1 + kf;
      for (uint32_t r = 0; r < rows; ++r)
        Widen::Row(a + frac * 512 + r * 32, out + frac * 256 + r * 16);
    }
  }
}

// GEMV (m == 1): A is a plain vector of k elements; widened into row 0 of a Zz copy. `Widen`
// void: f32 units copied as they are.
template <class Widen>
void VectorA(const uint8_t* a, uint32_t k, uint32_t c0, uint32_t* out) {
  const uint32_t k1 = (k + c0 - 1) / c0;
  if constexpr (std::is_void_v<Widen>) {
    for (uint32_t kf = 0; kf < k1; ++kf) {
      const uint32_t n = k - kf * 8 < 8 ? k - kf * 8 : 8;
      std::memcpy(out + size_t(kf) * 128, a + size_t(kf) * 32, n * 4);
    }
  } else {
    // Whole 32-byte rows except the last, which is copied through a zeroed row.
    const uint32_t row_bytes = 32, bytes = k * (c0 == 32 ? 1 : 2);
    alignas(32) uint8_t tail[32];
    for (uint32_t kf = 0; kf < k1; ++kf) {
      const uint8_t* src = a + size_t(kf) * row_bytes;
      if (bytes - kf * row_bytes < row_bytes) {
        std::memset(tail, 0, sizeof(tail));
        std::memcpy(tail, src, bytes - kf * row_bytes);
        src = tail;
      }
      Widen::Row(src, out + size_t(kf) * 256);
    }
  }
}

template <class Op, class Widen>
void RunKind(const MmadCall& call, uint32_t c0) {
  constexpr int kC0U = std::is_void_v<Widen> ? 8 : 16;
  const uint32_t k1 = (call.k + c0 - 1) / c0;
  const bool pairs = c0 == 32;
  EngineArgs e{};
  e.b = static_cast<const uint8_t*>(call.b);
  e.c = static_cast<uint32_t*>(call.c);
  e.bias = static_cast<const uint32_t*>(call.bias);
  e.m = call.m;
  e.n = call.n;
  e.units = pairs ? (call.k + 1) / 2 : call.k;
  e.odd_pair_tail = pairs && call.k % 2 != 0;
  e.accumulate = call.accumulate;
  e.a_strip = size_t(k1) * 16 * kC0U;
  const auto* a = static_cast<const uint8_t*>(call.a);
  if (call.m == 1) {
    uint32_t* copy = MmadScratchUnits(0, e.a_strip);
    VectorA<Widen>(a, call.k, c0, copy);
    e.a = copy;
  } else if constexpr (std::is_void_v<Widen>) {
    e.a = reinterpret_cast<const uint32_t*>(a);
  } else {
    uint32_t* copy = MmadScratchUnits(0, size_t((call.m + 15) / 16) * e.a_strip);
    WidenA<Widen>(a, call.m, k1, copy);
    e.a = copy;
  }
  Engine<Op, kC0U, Widen>(e);
}

}  // namespace

void RunMmadAvx2(const MmadCall& call) {
  switch (call.kind) {
    case MmadKind::kF32:
      RunKind<OpF32, void>(call, 8);
      return;
    case MmadKind::kF16:
      RunKind<OpF32, WidenF16>(call, 16);
      return;
    case MmadKind::kBF16:
      RunKind<OpF32, WidenBf16>(call, 16);
      return;
    case MmadKind::kS8:
      RunKind<OpS16Pairs, WidenS8>(call, 32);
      return;
  }
}

// The square is S[r][c] at (c / 8) * 512 + r * 32 + (c % 8) * 4 bytes; its four 8 x 8 blocks
// (rows 8rb.., columns 8cb..) each go through one register transpose to block (cb, rb) of the
// result, whose fractal rb starts rb * frac2 bytes after `out`.
void TransposeSquare32Avx2(const std::byte* in, std::byte* out, size_t frac2) {
#pragma GCC unroll 2
  for (int rb = 0; rb < 2; ++rb) {
#pragma GCC unroll 2
    for (int cb = 0; cb < 2; ++cb) {
      Transpose8x8(reinterpret_cast<const uint32_t*>(in + cb * 512 + rb * 8 * 32), 8,
                   reinterpret_cast<uint32_t*>(out + rb * frac2 + cb * 8 * 32), 8);
    }
  }
}

}  // namespace tessera::kernel::detail

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

// AVX-512 Mmad engine shared by mmad_avx512.cc and mmad_avx512bf16.cc. Each of those translation
// units includes this header after its standard headers and *after* `#pragma GCC target(...)`, so
// every function here is compiled for that unit's instruction set; everything has internal linkage
// (anonymous namespace), so the two copies never meet at link time and no inline function of a
// standard header is compiled with AVX-512 (the library stays runnable on any x86-64).
//
// The engine works on 32-bit "units": one f32, or one pair of 16-bit values adjacent along K (bf16
// for vdpbf16ps, s16 for vpmaddwd / vpdpwssd). A is read in place from L0A when its Zz fractal rows
// are 32 bytes (f32, bf16: c0u = 8 units per fractal row) or from a widened copy (f16 -> f32, s8 ->
// s16: c0u = 16 units per row); either way row r of a 16-row strip sits at a constant offset
// r * c0u inside each fractal, so an MR-row block broadcasts its A values from one pointer. B (Zn:
// K values of one column contiguous) is repacked per call into panels of NR = 16 * kNv columns,
// unit-major (`panel[u][0..NR)`), so one k step of the microkernel loads kNv vectors of B.
// C stays in L0C: a 16-column fractal row of Nz is one zmm, so C loads and stores are whole
// (masked at the right edge) vectors.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::kernel::detail {
namespace {

using U32Alias = uint32_t __attribute__((may_alias));

constexpr int kMr = 8;         // rows per register block (half a Zz strip)
constexpr int kNv = 3;         // zmm vectors (16 columns each) per register block
constexpr int kNr = 16 * kNv;  // columns per B panel
#ifndef TESSERA_MMAD_KC
#define TESSERA_MMAD_KC 128
#endif
constexpr uint32_t kKc =
    TESSERA_MMAD_KC;  // units per K block: a 128 x 48 B block (24 KB) stays in L1

struct KernelArgs {
  const uint32_t* a;     // A at (first row of the block, first unit of the K block)
  const uint32_t* b;     // B panel at the first unit of the K block
  uint32_t* c;           // C at (first row, first column) of the block
  size_t c_stride;       // units between two fractal columns of C (Mp * 16)
  const uint32_t* bias;  // bias at the block's first column, or nullptr
  uint32_t units;        // whole units of this K block
  bool odd_tail;         // one more unit whose high 16 bits of A are padding (odd K, pairs)
  bool load_c;           // start from C; else from the bias, else from zero
  __mmask16 last_mask;   // valid columns of the block's last vector
};

template <int MR, int NV, int C0U, class Op>
__attribute__((always_inline)) inline void Step(const uint32_t* a, const uint32_t* b,
                                                __m512i (&acc)[MR][NV], uint32_t a_mask) {
  __m512i bv[NV];
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v)
    bv[v] = _mm512_loadu_si512(b + v * 16);
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    const __m512i av = _mm512_set1_epi32(
        static_cast<int>(*reinterpret_cast<const U32Alias*>(a + r * C0U) & a_mask));
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v)
      acc[r][v] = Op::Fma(acc[r][v], av, bv[v]);
  }
}

// One MR x (16 * NV) block of C over one K block.
template <int MR, int NV, int C0U, class Op>
void Kernel(const KernelArgs& p) {
  __m512i acc[MR][NV];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      const __mmask16 mask = v == NV - 1 ? p.last_mask : __mmask16(0xFFFF);
      if (p.load_c) {
        acc[r][v] = _mm512_maskz_loadu_epi32(mask, p.c + v * p.c_stride + r * 16);
      } else if (p.bias != nullptr) {
        acc[r][v] = _mm512_maskz_loadu_epi32(mask, p.bias + v * 16);
      } else {
        acc[r][v] = _mm512_setzero_si512();
      }
    }
  }
  const uint32_t* a = p.a;
  const uint32_t* b = p.b;
  uint32_t u = 0;
  for (; u + C0U <= p.units; u += C0U) {
#pragma GCC unroll 16
    for (int u0 = 0; u0 < C0U; ++u0)
      Step<MR, NV, C0U, Op>(a + u0, b + u0 * kNr, acc, ~0u);
    a += 16 * C0U;
    b += C0U * kNr;
  }
  uint32_t u0 = 0;
  for (; u < p.units; ++u, ++u0)
    Step<MR, NV, C0U, Op>(a + u0, b + u0 * kNr, acc, ~0u);
  // Odd K with pairs: the high half of A's last unit is padding (possibly NaN); B's is zero.
  if (p.odd_tail) Step<MR, NV, C0U, Op>(a + u0, b + u0 * kNr, acc, 0xFFFFu);
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      const __mmask16 mask = v == NV - 1 ? p.last_mask : __mmask16(0xFFFF);
      _mm512_mask_storeu_epi32(p.c + v * p.c_stride + r * 16, mask, acc[r][v]);
    }
  }
}

using KernelFn = void (*)(const KernelArgs&);

template <int C0U, class Op, int... Ms>
struct KernelTable {
  template <int MR, int... Nvs>
  static constexpr void Row(KernelFn* row, std::integer_sequence<int, Nvs...>) {
    ((row[Nvs] = &Kernel<MR, Nvs + 1, C0U, Op>), ...);
  }
  static constexpr auto Make() {
    struct Table {
      KernelFn fn[kMr][kNv];
    } t{};
    (Row<Ms + 1>(t.fn[Ms], std::make_integer_sequence<int, kNv>{}), ...);
    return t;
  }
};

template <int C0U, class Op, int... Ms>
constexpr auto MakeTable(std::integer_sequence<int, Ms...>) {
  return KernelTable<C0U, Op, Ms...>::Make();
}

// Columns of C in B panels: groups of kNv fractal columns (16 columns each), except that a
// last group of one is avoided (3 + 1 -> 2 + 2): a one-vector block issues 8 FMAs per 9 loads.
struct PanelMap {
  uint32_t n1;          // fractal columns
  uint32_t panels;      // number of panels
  uint32_t plain;       // panels of kNv fractal columns (the first ones)
  uint32_t split_from;  // first fractal column of the two narrowed panels (n1 when none)

  explicit PanelMap(uint32_t n1_) : n1(n1_) {
    panels = (n1 + kNv - 1) / kNv;
    const bool split = kNv == 3 && n1 % 3 == 1 && n1 >= 4;
    plain = split ? panels - 2 : panels;
    split_from = split ? plain * kNv : n1;
  }
  // Panel and lane offset of fractal column nf.
  uint32_t PanelOf(uint32_t nf) const {
    return nf < split_from ? nf / kNv : plain + (nf - split_from) / 2;
  }
  uint32_t LaneOf(uint32_t nf) const {
    return (nf < split_from ? nf % kNv : (nf - split_from) % 2) * 16;
  }
  // First fractal column and width (in fractal columns) of panel p.
  uint32_t Start(uint32_t p) const { return p < plain ? p * kNv : split_from + (p - plain) * 2; }
  uint32_t Width(uint32_t p) const {
    const uint32_t end = p + 1 < panels ? Start(p + 1) : n1;
    return end - Start(p);
  }
};

// The operands of one call in engine form.
struct EngineArgs {
  const uint32_t* a;     // Zz units with c0u units per fractal row
  size_t a_strip;        // units between two 16-row strips of A
  const uint32_t* b;     // packed panels
  size_t b_panel;        // units between two panels
  uint32_t* c;           // L0C
  const uint32_t* bias;  // n values or nullptr
  uint32_t m, n;
  uint32_t units;  // whole units along K
  bool odd_tail;   // plus one half unit (odd K, pairs)
  bool accumulate;
};

// Loop order: K blocks, then B panels (the panel's K block stays in L1), then 8-row blocks of A.
template <int C0U, class Op>
void Engine(const EngineArgs& e) {
  static constexpr auto table = MakeTable<C0U, Op>(std::make_integer_sequence<int, kMr>{});
  const size_t mp16 = size_t((e.m + 15) / 16) * 16 * 16;
  const uint32_t total = e.units + (e.odd_tail ? 1 : 0);
  for (uint32_t k0 = 0; k0 < total; k0 += kKc) {
    KernelArgs p{};
    const bool last_k = k0 + kKc >= total;
    p.units = last_k ? e.units - k0 : kKc;
    p.odd_tail = last_k && e.odd_tail;
    p.load_c = e.accumulate || k0 > 0;
    p.c_stride = mp16;
    const PanelMap map((e.n + 15) / 16);
    for (uint32_t panel = 0; panel < map.panels; ++panel) {
      const uint32_t col0 = map.Start(panel) * 16;
      const int nv = int(map.Width(panel));
      const uint32_t last_cols = e.n - col0 - uint32_t(nv - 1) * 16;
      p.last_mask = static_cast<__mmask16>(last_cols >= 16 ? 0xFFFFu : (1u << last_cols) - 1u);
      p.b = e.b + size_t(panel) * e.b_panel + size_t(k0) * kNr;
      p.bias = (!p.load_c && e.bias != nullptr) ? e.bias + col0 : nullptr;
      // Row blocks never cross a 16-row strip, so a block's A rows sit at r * C0U.
      for (uint32_t row0 = 0; row0 < e.m;) {
        const uint32_t strip_left = 16 - row0 % 16;
        uint32_t mr = e.m - row0 < strip_left ? e.m - row0 : strip_left;
        if (mr > uint32_t(kMr)) mr = kMr;
        p.a = e.a + size_t(row0 / 16) * e.a_strip + size_t(k0) * 16 + size_t(row0 % 16) * C0U;
        p.c = e.c + size_t(col0 / 16) * mp16 + size_t(row0) * 16;
        table.fn[mr - 1][nv - 1](p);
        row0 += mr;
      }
    }
  }
}

// Index vectors of the 16 x 8 -> 8 x 16 transpose in ScatterFractal<8> (vpermt2d: index bit 4
// picks the second source). Stage 1 merges vector pairs holding columns 4p..4p+3 into units
// 4h..4h+3 (lane (u % 4) * 4 + j % 4); stage 2 merges those into units 4h+2s, 4h+2s+1 of columns
// 8q..8q+7 (lane (u % 2) * 8 + j % 8); stage 3 into one unit of all 16 columns (lane j).
struct Transpose16x8Index {
  alignas(64) int32_t stage1[2][16];
  alignas(64) int32_t stage2[2][16];
  alignas(64) int32_t stage3[2][16];
};
constexpr Transpose16x8Index MakeTranspose16x8Index() {
  Transpose16x8Index t{};
  for (int h = 0; h < 2; ++h) {
    for (int uu = 0; uu < 4; ++uu) {
      for (int c = 0; c < 4; ++c)
        t.stage1[h][uu * 4 + c] = (c < 2 ? c * 8 : 16 + (c - 2) * 8) + 4 * h + uu;
    }
  }
  for (int s = 0; s < 2; ++s) {
    for (int u2 = 0; u2 < 2; ++u2) {
      for (int jj = 0; jj < 8; ++jj)
        t.stage2[s][u2 * 8 + jj] = (jj / 4) * 16 + (2 * s + u2) * 4 + jj % 4;
    }
  }
  for (int u = 0; u < 2; ++u) {
    for (int j = 0; j < 16; ++j)
      t.stage3[u][j] = (j / 8) * 16 + u * 8 + j % 8;
  }
  return t;
}
inline constexpr Transpose16x8Index kTranspose16x8 = MakeTranspose16x8Index();

// Stages 1 and 2 of the 16 x 8 -> 8 x 16 transpose of a 512-byte fractal of 16 columns x 8 units,
// each column's units contiguous (vector i holds columns 2i, 2i + 1). Leaves in w[h][s][q] units
// 4h + 2s and 4h + 2s + 1 of columns 8q..8q+7 (lane (u % 2) * 8 + j % 8). Shared by the B packing
// (ScatterFractal<8> adds stage 3) and the b32 square transpose of LoadDataWithTranspose.
inline void Transpose16x8Stages12(const uint32_t* src, __m512i (&w)[2][2][2]) {
  __m512i z[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i)
    z[i] = _mm512_loadu_si512(src + 16 * i);
  __m512i y[4][2];
#pragma GCC unroll 4
  for (int p = 0; p < 4; ++p) {
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      y[p][h] = _mm512_permutex2var_epi32(z[2 * p], _mm512_load_si512(kTranspose16x8.stage1[h]),
                                          z[2 * p + 1]);
    }
  }
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
#pragma GCC unroll 2
    for (int s = 0; s < 2; ++s) {
#pragma GCC unroll 2
      for (int q = 0; q < 2; ++q) {
        w[h][s][q] = _mm512_permutex2var_epi32(
            y[2 * q][h], _mm512_load_si512(kTranspose16x8.stage2[s]), y[2 * q + 1][h]);
      }
    }
  }
}

// B packing: one Zn fractal of 16 columns x C0U units, already as 32-bit units with `row` units
// between columns, goes to packed rows [u0 .. u0 + C0U) of its panel at lane offset `lane`.
// The fractal is transposed in registers: C0U == 8 (f32, bf16 pairs: 8 vectors) with 24
// two-source permutes, C0U == 16 (widened f16/bf16, s16 pairs: 16 vectors) with 64 unpacks and
// lane shuffles.
template <int C0U>
inline void ScatterFractal(const uint32_t* src, uint32_t* panel_row0, uint32_t lane) {
  if constexpr (C0U == 8) {
    __m512i w[2][2][2];
    Transpose16x8Stages12(src, w);
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
#pragma GCC unroll 2
      for (int s = 0; s < 2; ++s) {
#pragma GCC unroll 2
        for (int t = 0; t < 2; ++t) {
          const int u0 = 4 * h + 2 * s + t;
          _mm512_storeu_si512(
              panel_row0 + size_t(u0) * kNr + lane,
              _mm512_permutex2var_epi32(w[h][s][0], _mm512_load_si512(kTranspose16x8.stage3[t]),
                                        w[h][s][1]));
        }
      }
    }
  } else {
    static_assert(C0U == 16, "ScatterFractal: fractals of 8 or 16 units per column");
    // 16 x 16: 32-bit and 64-bit unpacks within 128-bit lanes, then two rounds of 128-bit lane
    // shuffles.
    __m512i r[16], t[16];
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j)
      r[j] = _mm512_loadu_si512(src + 16 * j);
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
      t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
      t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
#pragma GCC unroll 4
    for (int g = 0; g < 16; g += 4) {
      r[g] = _mm512_unpacklo_epi64(t[g], t[g + 2]);
      r[g + 1] = _mm512_unpackhi_epi64(t[g], t[g + 2]);
      r[g + 2] = _mm512_unpacklo_epi64(t[g + 1], t[g + 3]);
      r[g + 3] = _mm512_unpackhi_epi64(t[g + 1], t[g + 3]);
    }
#pragma GCC unroll 2
    for (int h = 0; h < 16; h += 8) {
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        t[h + i] = _mm512_shuffle_i32x4(r[h + i], r[h + 4 + i], 0x88);
        t[h + 4 + i] = _mm512_shuffle_i32x4(r[h + i], r[h + 4 + i], 0xdd);
      }
    }
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
      _mm512_storeu_si512(panel_row0 + size_t(i) * kNr + lane,
                          _mm512_shuffle_i32x4(t[i], t[8 + i], 0x88));
      _mm512_storeu_si512(panel_row0 + size_t(8 + i) * kNr + lane,
                          _mm512_shuffle_i32x4(t[i], t[8 + i], 0xdd));
    }
  }
}

struct OpF32 {
  static __m512i Fma(__m512i acc, __m512i a, __m512i b) {
    return _mm512_castps_si512(
        _mm512_fmadd_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b), _mm512_castsi512_ps(acc)));
  }
};

// 16 half values -> 16 f32 (exact).
struct WidenF16 {
  static __m512 Widen(__m256i h) { return _mm512_cvtph_ps(h); }
};
// 16 bfloat16 values -> 16 f32 (exact: a bf16 is the high half of an f32).
struct WidenBf16 {
  static __m512 Widen(__m256i h) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
};

inline uint32_t CeilDiv(uint32_t x, uint32_t y) {
  return (x + y - 1) / y;
}

// B (Zn, fractals of 16 columns x 32 bytes) -> panels. `Convert(src_fractal, tmp)` writes the
// fractal as 16 columns x C0U units, `C0U` units per column, into tmp.
template <int C0U, class Convert>
void PackB(const uint8_t* b, uint32_t k1, uint32_t n1, uint32_t* packed, size_t panel_units,
           Convert convert) {
  alignas(64) uint32_t tmp[16 * C0U];
  const PanelMap map(n1);
  for (uint32_t kf = 0; kf < k1; ++kf) {
    for (uint32_t nf = 0; nf < n1; ++nf) {
      const uint8_t* src = b + (size_t(kf) * n1 + nf) * 512;
      uint32_t* dst = packed + size_t(map.PanelOf(nf)) * panel_units + size_t(kf) * C0U * kNr;
      const uint32_t lane = map.LaneOf(nf);
      if constexpr (C0U == 8) {
        ScatterFractal<8>(reinterpret_cast<const uint32_t*>(src), dst, lane);
      } else {
        convert(src, tmp);
        ScatterFractal<C0U>(tmp, dst, lane);
      }
    }
  }
}

// Odd K with pairs: the high half of the last unit is B's K padding; make it zero.
inline void ZeroOddTail(uint32_t* packed, size_t panel_units, uint32_t panels, uint32_t unit) {
  const __m512i low = _mm512_set1_epi32(0xFFFF);
  for (uint32_t p = 0; p < panels; ++p) {
    uint32_t* row = packed + size_t(p) * panel_units + size_t(unit) * kNr;
    for (int v = 0; v < kNv; ++v) {
      _mm512_storeu_si512(row + v * 16, _mm512_and_si512(_mm512_loadu_si512(row + v * 16), low));
    }
  }
}

// A (Zz) of 16-bit values widened to f32 with the same fractal geometry (16 x 16 f32).
template <class Widen>
void WidenA16(const uint16_t* a, uint32_t m, uint32_t k1, float* out) {
  for (uint32_t s = 0; s * 16 < m; ++s) {
    const uint32_t rows = m - s * 16 < 16 ? m - s * 16 : 16;
    for (uint32_t kf = 0; kf < k1; ++kf) {
      const size_t base = (size_t(s) * k1 + kf) * 256;
      for (uint32_t r = 0; r < rows; ++r) {
        const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + base + r * 16));
        _mm512_storeu_ps(out + base + r * 16, Widen::Widen(h));
      }
    }
  }
}

// A (Zz) of s8 widened to s16 with the same geometry (16 x 32 s16 = 16 x 16 units).
inline void WidenAS8(const int8_t* a, uint32_t m, uint32_t k1, int16_t* out) {
  for (uint32_t s = 0; s * 16 < m; ++s) {
    const uint32_t rows = m - s * 16 < 16 ? m - s * 16 : 16;
    for (uint32_t kf = 0; kf < k1; ++kf) {
      const size_t base = (size_t(s) * k1 + kf) * 512;
      for (uint32_t r = 0; r < rows; ++r) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + base + r * 32));
        _mm512_storeu_si512(out + base + r * 32, _mm512_cvtepi8_epi16(x));
      }
    }
  }
}

// The whole call. `BfOp` is the pair operation for bf16 (void: widen bf16 to f32 instead);
// `S16Op` the pair operation for s8 widened to s16.
template <class BfOp, class S16Op>
void RunSimd(const MmadCall& call) {
  const uint32_t m = call.m, n = call.n, k = call.k;
  const uint32_t n1 = CeilDiv(n, 16);
  const uint32_t panels = PanelMap(n1).panels;
  EngineArgs e{};
  e.c = static_cast<uint32_t*>(call.c);
  e.bias = static_cast<const uint32_t*>(call.bias);
  e.m = m;
  e.n = n;
  e.accumulate = call.accumulate;
  const auto* b = static_cast<const uint8_t*>(call.b);
  const bool gemv = m == 1;

  // f32, or bf16 with a pair operation: A in place (32-byte fractal rows), B scattered as is.
  const bool direct =
      call.kind == MmadKind::kF32 || (call.kind == MmadKind::kBF16 && !std::is_void_v<BfOp>);
  if (direct) {
    const bool pairs = call.kind == MmadKind::kBF16;
    const uint32_t c0 = pairs ? 16 : 8;  // elements per fractal row
    const uint32_t k1 = CeilDiv(k, c0);
    e.units = pairs ? k / 2 : k;
    e.odd_tail = pairs && (k % 2) != 0;
    e.a_strip = size_t(k1) * 128;
    e.b_panel = size_t(k1) * 8 * kNr;
    uint32_t* packed = MmadScratchUnits(1, e.b_panel * panels);
    PackB<8>(b, k1, n1, packed, e.b_panel, [](const uint8_t*, uint32_t*) {});
    if (e.odd_tail) ZeroOddTail(packed, e.b_panel, panels, e.units);
    e.b = packed;
    if (gemv) {
      uint32_t* a = MmadScratchUnits(0, size_t(k1) * 128);
      const auto* src = static_cast<const uint8_t*>(call.a);
      const uint32_t units = e.units + (e.odd_tail ? 1 : 0);
      for (uint32_t u = 0; u < units; ++u) {
        uint32_t v = 0;
        std::memcpy(&v, src + size_t(u) * 4, (pairs && 2 * u + 1 == k) ? 2 : 4);
        a[(u / 8) * 128 + u % 8] = v;
      }
      e.a = a;
    } else {
      e.a = static_cast<const uint32_t*>(call.a);
    }
    if (pairs) {
      if constexpr (!std::is_void_v<BfOp>) Engine<8, BfOp>(e);
    } else {
      Engine<8, OpF32>(e);
    }
    return;
  }

  // f16 (or bf16 without a pair operation) widened to f32; s8 widened to s16 pairs. Fractals of
  // 16 rows x 32 bytes become 16 x 64 bytes = 16 units per row.
  const bool s8 = call.kind == MmadKind::kS8;
  const uint32_t c0 = s8 ? 32 : 16;
  const uint32_t k1 = CeilDiv(k, c0);
  e.units = s8 ? k / 2 : k;
  e.odd_tail = s8 && (k % 2) != 0;
  e.a_strip = size_t(k1) * 256;
  e.b_panel = size_t(k1) * 16 * kNr;
  uint32_t* packed = MmadScratchUnits(1, e.b_panel * panels);
  uint32_t* a = MmadScratchUnits(0, size_t(CeilDiv(m, 16)) * e.a_strip);
  e.b = packed;
  if (s8) {
    PackB<16>(b, k1, n1, packed, e.b_panel, [](const uint8_t* src, uint32_t* tmp) {
      for (int j = 0; j < 16; ++j) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + j * 32));
        _mm512_storeu_si512(tmp + j * 16, _mm512_cvtepi8_epi16(x));
      }
    });
    if (e.odd_tail) ZeroOddTail(packed, e.b_panel, panels, e.units);
    if (gemv) {
      const auto* src = static_cast<const int8_t*>(call.a);
      auto* a16 = reinterpret_cast<int16_t*>(a);
      for (uint32_t kk = 0; kk < k; ++kk)
        a16[(kk / 32) * 512 + kk % 32] = src[kk];
      if (k % 2 != 0) a16[(k / 32) * 512 + k % 32] = 0;
    } else {
      WidenAS8(static_cast<const int8_t*>(call.a), m, k1, reinterpret_cast<int16_t*>(a));
    }
    e.a = a;
    Engine<16, S16Op>(e);
    return;
  }
  auto widen_b = [](auto widen) {
    return [](const uint8_t* src, uint32_t* tmp) {
      for (int j = 0; j < 16; ++j) {
        const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + j * 32));
        _mm512_storeu_ps(reinterpret_cast<float*>(tmp + j * 16), decltype(widen)::Widen(h));
      }
    };
  };
  const auto* a16 = static_cast<const uint16_t*>(call.a);
  auto* af = reinterpret_cast<float*>(a);
  if (call.kind == MmadKind::kF16) {
    PackB<16>(b, k1, n1, packed, e.b_panel, widen_b(WidenF16{}));
    if (gemv) {
      for (uint32_t kk = 0; kk < k; ++kk)
        af[(kk / 16) * 256 + kk % 16] = HalfBitsToFloat(a16[kk]);
    } else {
      WidenA16<WidenF16>(a16, m, k1, af);
    }
  } else {
    PackB<16>(b, k1, n1, packed, e.b_panel, widen_b(WidenBf16{}));
    if (gemv) {
      for (uint32_t kk = 0; kk < k; ++kk) {
        af[(kk / 16) * 256 + kk % 16] = Bfloat16BitsToFloat(a16[kk]);
      }
    } else {
      WidenA16<WidenBf16>(a16, m, k1, af);
    }
  }
  e.a = a;
  Engine<16, OpF32>(e);
}

}  // namespace
}  // namespace tessera::kernel::detail

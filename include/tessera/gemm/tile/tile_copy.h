// Tile layer: one cube instruction (or a short loop of them) with the parameters a layout needs.
//
//   CopyGmToL1<T, kTransposeInL0>   GM (ND rows x cols, pitch ld) -> L1 Nz       DataCopy +
//   Nd2NzParams CopyL1ToL0A<T, kColumnMajor>     L1 Nz -> L0A Zz (ND when m == 1) LoadData /
//   LoadDataWithTranspose CopyL1ToL0B<T, kRowMajor>        L1 Nz -> L0B Zn LoadData /
//   LoadDataWithTranspose TileMmad<T>                      L0A x L0B -> L0C Mmad CopyL0CToGm<TOut,
//   TAcc>          L0C Nz -> GM ND (cast on the way)            Fixpipe
//
// How an operand sits in L1 (the "L1 form") depends on whether the L1 -> L0 move transposes it:
// A row-major [M, K] and B column-major ([N, K] in GM) go to L0 fractal by fractal without a
// transpose; A column-major ([K, M] in GM) and B row-major ([K, N]) are transposed on the way to L0
// (LoadData ifTranspose for b16, LoadDataWithTranspose for b8 and b32). The GM rows of a tile are
// then its K rows. L1Form gives the padded extents each form needs:
//   - plain: rows padded to 16, columns to C0;
//   - transposed b16: 16x16 fractals, rows and columns padded to 16;
//   - transposed b8: 32x32 squares of two 16x32 fractals stacked in a column block: rows and
//     columns padded to 32;
//   - transposed b32: 16x16 squares of two 16x8 fractals side by side, which sit next to each other
//     only in an Nz matrix of 16 rows: the tile is stored as bands of 16 rows, each its own Nz
//     matrix (16 x columns padded to 16).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tessera/gemm/gemm_coord.h"
#include "tessera/kernel/kernel.h"

namespace tessera::gemm::tile {

using ::tessera::kernel::GlobalTensor;
using ::tessera::kernel::LocalTensor;

// Elements of T in 32 bytes (a fractal is 16 rows x C0, 512 bytes).
template <class T>
inline constexpr uint32_t kC0 = 32 / sizeof(T);
template <class T>
inline constexpr uint32_t kFractalElems = 512 / sizeof(T);
inline constexpr uint32_t kFractalRows = 16;
// Nd2NzParams fields are 16 bits: a source pitch beyond this is copied row by row.
inline constexpr uint32_t kMaxNd2NzPitch = 65535;

template <class T, bool kTransposeInL0_>
struct L1Form {
  static constexpr bool kTransposed = kTransposeInL0_;
  static constexpr bool kBands = kTransposed && sizeof(T) == 4;
  static constexpr uint32_t kRowAlign = kTransposed && sizeof(T) == 1 ? 32 : kFractalRows;
  static constexpr uint32_t kColAlign = kTransposed ? (sizeof(T) == 1 ? 32 : 16) : kC0<T>;
  static constexpr uint32_t PaddedRows(uint32_t rows) { return RoundUp(rows, kRowAlign); }
  static constexpr uint32_t PaddedCols(uint32_t cols) { return RoundUp(cols, kColAlign); }
  // L1 elements of a rows x cols tile; fractal (512-byte) aligned so LoadData may read whole
  // fractals past the last valid column.
  static constexpr uint32_t Elements(uint32_t rows, uint32_t cols) {
    return RoundUp(PaddedRows(rows) * PaddedCols(cols), kFractalElems<T>);
  }
};

// GM -> L1: the rows x cols tile at `src` (row pitch `ld` elements) into L1 in the form of
// L1Form<T, kTransposeInL0_>. With `as_vector` (one row, for the m == 1 GEMV path of A) the row is
// stored as a plain ND vector instead (column blocks 1 row apart), which LoadData moves unchanged.
template <class T, bool kTransposeInL0_>
struct CopyGmToL1 {
  using Form = L1Form<T, kTransposeInL0_>;

  static void Run(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t rows,
                  uint32_t cols, uint64_t ld, bool as_vector = false) {
    if (rows == 0 || cols == 0) return;
    if (as_vector) {
      ::tessera::kernel::DataCopy(dst, src,
                                  ::tessera::kernel::Nd2NzParams{1, 1, cols, 0, cols, 1, 1, 0});
      return;
    }
    if constexpr (Form::kBands) {
      const uint32_t band_elems = kFractalRows * Form::PaddedCols(cols);
      for (uint32_t r0 = 0; r0 < rows; r0 += kFractalRows) {
        const uint32_t r = std::min(kFractalRows, rows - r0);
        Copy(dst[(r0 / kFractalRows) * band_elems], src[uint64_t{r0} * ld], r, cols, ld,
             kFractalRows);
      }
    } else {
      Copy(dst, src, rows, cols, ld, Form::PaddedRows(rows));
    }
  }

 private:
  // One Nz matrix of height `hp` (its column blocks hp rows apart).
  static void Copy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t rows,
                   uint32_t cols, uint64_t ld, uint32_t hp) {
    if (ld <= kMaxNd2NzPitch) {
      ::tessera::kernel::DataCopy(
          dst, src,
          ::tessera::kernel::Nd2NzParams{1, rows, cols, 0, static_cast<int64_t>(ld), hp, 1, 0});
      return;
    }
    for (uint32_t r = 0; r < rows; ++r) {
      ::tessera::kernel::DataCopy(dst[r * kC0<T>], src[r * ld],
                                  ::tessera::kernel::Nd2NzParams{1, 1, cols, 0, cols, hp, 1, 0});
    }
  }
};

// L1 -> L0A: the m x k_part part of A starting at column k_offset (a multiple of the L0 K tile)
// of an L1 tile holding `l1_m` x `l1_k` valid elements of A (as A, or as A^T when kColumnMajor_).
// L0A receives Zz with K1 = ceil(k_part / C0) fractals per 16-row strip, or the plain vector when
// m == 1 (GEMV; only for row-major A, whose L1 tile was copied with as_vector).
template <class T, bool kColumnMajor_>
struct CopyL1ToL0A {
  using Form = L1Form<T, kColumnMajor_>;

  static void Run(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t m, uint32_t k_part,
                  uint32_t k_offset, uint32_t l1_k) {
    constexpr uint32_t c0 = kC0<T>;
    constexpr uint32_t frac = kFractalElems<T>;
    if constexpr (!kColumnMajor_) {
      (void)l1_k;
      if (m == 1) {
        Load2D(dst, src[k_offset], CeilDiv(k_part, frac), 1, false);
        return;
      }
      const uint32_t mp = Form::PaddedRows(m);
      const uint32_t k1 = CeilDiv(k_part, c0);
      for (uint32_t m1 = 0; m1 < mp / kFractalRows; ++m1) {
        Load2D(dst[m1 * k1 * frac], src[(k_offset / c0) * mp * c0 + m1 * frac], k1,
               mp / kFractalRows, false);
      }
    } else if constexpr (sizeof(T) == 2) {
      // L1 holds A^T [l1_k x m]: fractal (k1, m1) at m1 * Kp/16 + k1; transposing each 16x16 gives
      // the Zz fractal (m1, k1).
      const uint32_t kp = Form::PaddedRows(l1_k);
      const uint32_t k1 = CeilDiv(k_part, c0);
      for (uint32_t m1 = 0; m1 < CeilDiv(m, kFractalRows); ++m1) {
        Load2D(dst[m1 * k1 * frac], src[m1 * kp * c0 + (k_offset / kFractalRows) * frac], k1, 1,
               true);
      }
    } else if constexpr (sizeof(T) == 1) {
      // Column block b (32 m) of A^T: squares of 32 k x 32 m (two fractals stacked) along k; each
      // transposes into the Zz fractals (2b, k1) and (2b + 1, k1), K1 fractals apart.
      const uint32_t kp = Form::PaddedRows(l1_k);
      const uint32_t k1 = CeilDiv(k_part, c0);
      for (uint32_t b = 0; b < CeilDiv(m, 32); ++b) {
        ::tessera::kernel::LoadDataWithTranspose(
            dst[2 * b * k1 * frac], src[b * kp * c0 + (k_offset / 32) * 2 * frac],
            ::tessera::kernel::LoadData2dTransposeParams{0, k1, 1, 0, k1 - 1});
      }
    } else {
      // b32: band j (16 k) of A^T is a 16-row Nz matrix; its squares (16 k x 16 m: two 16x8
      // fractals) along m transpose into the Zz fractals (i, 2j) and (i, 2j + 1) of strip i,
      // strips K1 fractals apart. With K1 odd the last band's second fractal lands on the next
      // strip's first, so the bands run backwards and band 0 rewrites it last.
      const uint32_t band = kFractalRows * Form::PaddedCols(m);
      const uint32_t k1 = CeilDiv(k_part, c0);
      for (uint32_t j = CeilDiv(k_part, kFractalRows); j-- > 0;) {
        ::tessera::kernel::LoadDataWithTranspose(dst[2 * j * frac],
                                                 src[(k_offset / kFractalRows + j) * band],
                                                 ::tessera::kernel::LoadData2dTransposeParams{
                                                     0, CeilDiv(m, kFractalRows), 1, k1 - 1, 0});
      }
    }
  }

  static void Load2D(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count,
                     uint32_t src_stride, bool transpose) {
    for (uint32_t done = 0; done < count; done += 255) {
      const uint32_t n = std::min<uint32_t>(255, count - done);
      ::tessera::kernel::LoadData(
          dst[done * kFractalElems<T>], src[done * src_stride * kFractalElems<T>],
          ::tessera::kernel::LoadData2DParams{0, n, src_stride, 0, 0, transpose, 0});
    }
  }
};

// L1 -> L0B: the k_part x n part of B starting at row k_offset of an L1 tile with `l1_k` valid
// rows of B (as B [k x n] when kRowMajor_, else as B^T [n x k]). L0B receives Zn with
// N1 = ceil(n / 16) fractals per C0-row band of K (b8 row-major: N1 rounded up to even).
template <class T, bool kRowMajor_>
struct CopyL1ToL0B {
  using Form = L1Form<T, kRowMajor_>;

  static void Run(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t n, uint32_t k_part,
                  uint32_t k_offset, uint32_t l1_k) {
    constexpr uint32_t c0 = kC0<T>;
    constexpr uint32_t frac = kFractalElems<T>;
    if constexpr (!kRowMajor_) {
      // L1 holds B^T [n x l1_k] in Nz: fractal (n1, k1) at k1 * N1 + n1 - already the Zn order.
      (void)l1_k;
      const uint32_t np = Form::PaddedRows(n);
      CopyL1ToL0A<T, false>::Load2D(dst, src[(k_offset / c0) * np * c0],
                                    CeilDiv(k_part, c0) * (np / kFractalRows), 1, false);
    } else if constexpr (sizeof(T) == 2) {
      // L1 holds B [l1_k x n]: fractal (k1, n1) at n1 * Kp/16 + k1; transposed it is Zn (k1, n1).
      const uint32_t kp = Form::PaddedRows(l1_k);
      const uint32_t n1 = CeilDiv(n, kFractalRows);
      for (uint32_t k1 = 0; k1 < CeilDiv(k_part, c0); ++k1) {
        CopyL1ToL0A<T, false>::Load2D(dst[k1 * n1 * frac], src[(k_offset / c0 + k1) * frac], n1,
                                      kp / kFractalRows, true);
      }
    } else if constexpr (sizeof(T) == 1) {
      // Squares of 32 k x 32 n (two fractals stacked in column block b) transpose into the Zn
      // fractals (k1, 2b) and (k1, 2b + 1). With N1 odd the last square's second fractal lands on
      // (k1 + 1, 0), which the next k1 rewrites; the one past the last k1 is outside the tile.
      const uint32_t kp = Form::PaddedRows(l1_k);
      const uint32_t n1 = CeilDiv(n, kFractalRows);
      for (uint32_t k1 = 0; k1 < CeilDiv(k_part, c0); ++k1) {
        ::tessera::kernel::LoadDataWithTranspose(
            dst[k1 * n1 * frac], src[(k_offset / c0 + k1) * 2 * frac],
            ::tessera::kernel::LoadData2dTransposeParams{0, CeilDiv(n, 32), kp / 32, 1, 0});
      }
    } else {
      // b32: band j (16 k) is a 16-row Nz matrix; its squares (16 k x 16 n) along n transpose into
      // the Zn fractals (2j, i) and (2j + 1, i), N1 fractals apart.
      const uint32_t band = kFractalRows * Form::PaddedCols(n);
      const uint32_t n1 = CeilDiv(n, kFractalRows);
      for (uint32_t j = 0; j < CeilDiv(k_part, kFractalRows); ++j) {
        ::tessera::kernel::LoadDataWithTranspose(
            dst[2 * j * n1 * frac], src[(k_offset / kFractalRows + j) * band],
            ::tessera::kernel::LoadData2dTransposeParams{0, n1, 1, 0, n1 - 1});
      }
    }
  }
};

// L0A x L0B -> L0C: C = A*B when `init`, else C += A*B.
template <class T>
struct TileMmad {
  template <class TAcc>
  static void Run(const LocalTensor<TAcc>& c, const LocalTensor<T>& a, const LocalTensor<T>& b,
                  uint32_t m, uint32_t n, uint32_t k, bool init) {
    ::tessera::kernel::Mmad(c, a, b, ::tessera::kernel::MmadParams{m, n, k, 0, false, init});
  }
};

// L0C (Nz, tile height rounded to 16) -> GM ND rows of pitch ld, converting to TOut (float ->
// half/bfloat16 round to nearest even; float -> float and int32 -> int32 unchanged).
template <class TOut, class TAcc>
struct CopyL0CToGm {
  static constexpr ::tessera::kernel::QuantMode_t Quant() {
    if constexpr (std::is_same_v<TOut, half>) return ::tessera::kernel::QuantMode_t::F322F16;
    if constexpr (std::is_same_v<TOut, bfloat16>) return ::tessera::kernel::QuantMode_t::F322BF16;
    return ::tessera::kernel::QuantMode_t::NoQuant;
  }
  static_assert(std::is_same_v<TOut, TAcc> ||
                    (std::is_same_v<TAcc, float> &&
                     (std::is_same_v<TOut, half> || std::is_same_v<TOut, bfloat16>)),
                "CopyL0CToGm: supported conversions are float -> float/half/bfloat16 and "
                "int32 -> int32");

  static void Run(const GlobalTensor<TOut>& dst, const LocalTensor<TAcc>& src, uint32_t m,
                  uint32_t n, uint64_t ld) {
    ::tessera::kernel::Fixpipe<TOut, TAcc, ::tessera::kernel::CFG_ROW_MAJOR>(
        dst, src,
        ::tessera::kernel::FixpipeParamsV220{n, m, RoundUp(m, kFractalRows),
                                             static_cast<int64_t>(ld), false, Quant(), 0, 1, 0, 0,
                                             0});
  }
};

}  // namespace tessera::gemm::tile

// Tile layer: one cube instruction (or a short loop of them) with the parameters a layout needs.
//   - CopyGmToL1<T, kTransposeInL0>: GM ND (rows x cols, pitch ld) -> L1 (DataCopy, Nd2NzParams);
//   - CopyL1ToL0A<T, kColumnMajor>: L1 -> L0A Zz, ND when m == 1 (LoadData[WithTranspose]);
//   - CopyL1ToL0B<T, kRowMajor>: L1 -> L0B Zn (LoadData[WithTranspose]);
//   - TileMmad<T>: L0A x L0B -> L0C (Mmad);
//   - CopyL0CToGm<TOut, TAcc>: L0C Nz -> GM ND, converting on the way (Fixpipe).
//
// How an operand sits in L1 (the "L1 form"): as bands of kBandRows rows, each band its own Nz
// matrix (kBandRows x columns), so the fractals of a band are contiguous - Zz order for a row-major
// A, which LoadData then moves in long runs - and Nd2Nz writes stay within a few KB (one Nz matrix
// of the whole tile puts its column blocks Hp x 32 bytes apart, 4 KB or more, the stride that
// maps onto the same CPU cache sets). kBandRows is 16, except for b8 tiles transposed on the way to
// L0 (two 16-row fractals stacked make one 32 x 32 square): 32. Columns are padded to C0, or for
// tiles transposed on the way to L0 to the square width (b16 16, b8 32, b32 16: two 16x8 fractals
// side by side). Which tiles transpose: A column-major ([K, M] in GM) and B row-major ([K, N]) go
// through LoadData ifTranspose (b16) or LoadDataWithTranspose (b8, b32); A row-major and B
// column-major
// ([N, K]) are already in fractal order.
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
  static constexpr uint32_t kBandRows = kTransposed && sizeof(T) == 1 ? 32 : kFractalRows;
  static constexpr uint32_t kColAlign = kTransposed ? (sizeof(T) == 1 ? 32 : 16) : kC0<T>;
  static constexpr uint32_t PaddedCols(uint32_t cols) { return RoundUp(cols, kColAlign); }
  static constexpr uint32_t BandElems(uint32_t cols) { return kBandRows * PaddedCols(cols); }
  // L1 elements of a rows x cols tile; fractal (512-byte) aligned so LoadData may read whole
  // fractals past the last valid column.
  static constexpr uint32_t Elements(uint32_t rows, uint32_t cols) {
    return RoundUp(CeilDiv(rows, kBandRows) * BandElems(cols), kFractalElems<T>);
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
    constexpr uint32_t kB = Form::kBandRows;
    const uint32_t band = Form::BandElems(cols);
    for (uint32_t r0 = 0; r0 < rows; r0 += kB) {
      const uint32_t r = std::min(kB, rows - r0);
      Copy(dst[(r0 / kB) * band], src[uint64_t{r0} * ld], r, cols, ld);
    }
  }

 private:
  // One band: an Nz matrix of kBandRows rows (its column blocks kBandRows rows apart).
  static void Copy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t rows,
                   uint32_t cols, uint64_t ld) {
    constexpr uint32_t kB = Form::kBandRows;
    if (ld <= kMaxNd2NzPitch) {
      ::tessera::kernel::DataCopy(
          dst, src,
          ::tessera::kernel::Nd2NzParams{1, rows, cols, 0, static_cast<int64_t>(ld), kB, 1, 0});
      return;
    }
    for (uint32_t r = 0; r < rows; ++r) {
      ::tessera::kernel::DataCopy(dst[r * kC0<T>], src[r * ld],
                                  ::tessera::kernel::Nd2NzParams{1, 1, cols, 0, cols, kB, 1, 0});
    }
  }
};

// Moves `count` fractals with LoadData 2D, reading every `src_stride`-th source fractal and
// writing every (dst_gap + 1)-th destination fractal (in runs of at most 255).
template <class T>
void Load2D(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count,
            uint32_t src_stride, bool transpose, uint32_t dst_gap = 0) {
  constexpr uint32_t frac = kFractalElems<T>;
  for (uint32_t done = 0; done < count; done += 255) {
    const uint32_t n = std::min<uint32_t>(255, count - done);
    ::tessera::kernel::LoadData(
        dst[done * (dst_gap + 1) * frac], src[done * src_stride * frac],
        ::tessera::kernel::LoadData2DParams{0, n, src_stride, 0, dst_gap, transpose, 0});
  }
}

// L1 -> L0A: the m x k_part part of A starting at column k_offset (a multiple of the L0 K step)
// of an L1 tile holding `l1_k` columns of A (as A, or as A^T with l1_k rows when kColumnMajor_).
// L0A receives Zz with K1 = ceil(k_part / C0) fractals per 16-row strip, or the plain vector when
// m == 1 (GEMV; the L1 tile was copied with as_vector).
template <class T, bool kColumnMajor_>
struct CopyL1ToL0A {
  using Form = L1Form<T, kColumnMajor_>;

  static void Run(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t m, uint32_t k_part,
                  uint32_t k_offset, uint32_t l1_k) {
    constexpr uint32_t c0 = kC0<T>;
    constexpr uint32_t frac = kFractalElems<T>;
    const uint32_t k1 = CeilDiv(k_part, c0);
    if constexpr (!kColumnMajor_) {
      if (m == 1) {
        Load2D(dst, src[k_offset], CeilDiv(k_part, frac), 1, false);
        return;
      }
      // Band m1 is strip m1 of Zz: its K1 fractals from k_offset are contiguous; with the whole
      // K of the tile, so is all of A.
      const uint32_t band = Form::BandElems(l1_k);
      const uint32_t m1 = CeilDiv(m, kFractalRows);
      if (k_offset == 0 && k1 * c0 == Form::PaddedCols(l1_k)) {
        Load2D(dst, src, m1 * k1, 1, false);
        return;
      }
      for (uint32_t i = 0; i < m1; ++i)
        Load2D(dst[i * k1 * frac], src[i * band + (k_offset / c0) * frac], k1, 1, false);
    } else if constexpr (sizeof(T) == 2) {
      // Bands of 16 k of A^T: fractal (k band j, m1) at j * band + m1; transposed it is the Zz
      // fractal (m1, j).
      const uint32_t band = Form::BandElems(m);
      for (uint32_t i = 0; i < CeilDiv(m, kFractalRows); ++i) {
        Load2D(dst[i * k1 * frac], src[(k_offset / kFractalRows) * band + i * frac], k1,
               band / frac, true);
      }
    } else if constexpr (sizeof(T) == 1) {
      // Bands of 32 k: square (q, b) = two stacked fractals of column block b (32 m) of band q;
      // transposed it is the Zz fractals (2b, q) and (2b + 1, q), K1 fractals apart.
      const uint32_t band = Form::BandElems(m);
      for (uint32_t b = 0; b < CeilDiv(m, 32); ++b) {
        ::tessera::kernel::LoadDataWithTranspose(
            dst[2 * b * k1 * frac], src[(k_offset / 32) * band + b * 2 * frac],
            ::tessera::kernel::LoadData2dTransposeParams{0, k1, band / (2 * frac), 0, k1 - 1});
      }
    } else {
      // b32: band j (16 k) is a 16-row Nz matrix; its squares (16 k x 16 m: two 16x8 fractals)
      // along m transpose into the Zz fractals (i, 2j) and (i, 2j + 1) of strip i, strips K1
      // fractals apart. With K1 odd the last band's second fractal lands on the next strip's
      // first, so the bands run backwards and band 0 rewrites it last.
      const uint32_t band = Form::BandElems(m);
      for (uint32_t j = CeilDiv(k_part, kFractalRows); j-- > 0;) {
        ::tessera::kernel::LoadDataWithTranspose(dst[2 * j * frac],
                                                 src[(k_offset / kFractalRows + j) * band],
                                                 ::tessera::kernel::LoadData2dTransposeParams{
                                                     0, CeilDiv(m, kFractalRows), 1, k1 - 1, 0});
      }
    }
  }
};

// L1 -> L0B: the k_part x n part of B starting at row k_offset of an L1 tile holding `l1_k` rows
// of B (as B when kRowMajor_, else as B^T with l1_k columns). L0B receives Zn with
// N1 = ceil(n / 16) fractals per C0 rows of K.
template <class T, bool kRowMajor_>
struct CopyL1ToL0B {
  using Form = L1Form<T, kRowMajor_>;

  static void Run(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t n, uint32_t k_part,
                  uint32_t k_offset, uint32_t l1_k) {
    constexpr uint32_t c0 = kC0<T>;
    constexpr uint32_t frac = kFractalElems<T>;
    const uint32_t n1 = CeilDiv(n, kFractalRows);
    const uint32_t k1 = CeilDiv(k_part, c0);
    if constexpr (!kRowMajor_) {
      // Bands of 16 n of B^T: fractal (n1, k1) at n1 * band + k1 is the Zn fractal (k1, n1).
      const uint32_t band = Form::BandElems(l1_k);
      for (uint32_t j = 0; j < k1; ++j)
        Load2D(dst[j * n1 * frac], src[(k_offset / c0 + j) * frac], n1, band / frac, false);
    } else if constexpr (sizeof(T) == 2) {
      // Bands of 16 k: fractal (k1, n1) at k1 * N1 + n1 (the band is N1 fractals wide);
      // transposed one by one they are Zn in the same order.
      const uint32_t band = Form::BandElems(n);
      Load2D(dst, src[(k_offset / kFractalRows) * band], k1 * n1, 1, true);
    } else if constexpr (sizeof(T) == 1) {
      // Bands of 32 k: square (q, b) transposes into the Zn fractals (q, 2b) and (q, 2b + 1).
      // With N1 odd the last square's second fractal lands on (q + 1, 0), which the next q
      // rewrites; the one past the last q is outside the tile.
      const uint32_t band = Form::BandElems(n);
      for (uint32_t q = 0; q < k1; ++q) {
        ::tessera::kernel::LoadDataWithTranspose(
            dst[q * n1 * frac], src[(k_offset / 32 + q) * band],
            ::tessera::kernel::LoadData2dTransposeParams{0, CeilDiv(n, 32), 1, 1, 0});
      }
    } else {
      // b32: band j (16 k) is a 16-row Nz matrix; its squares (16 k x 16 n) along n transpose into
      // the Zn fractals (2j, i) and (2j + 1, i), N1 fractals apart.
      const uint32_t band = Form::BandElems(n);
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

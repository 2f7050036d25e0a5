// The gemm template instances of the matmul operators, per input type and layout; shared by the
// tiling functions (budgets, workspace, epilogue chunking) and the kernels.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/gemm/gemm.h"

namespace tessera::ops::matmul {

template <bool kTransposed>
using LayoutOf = std::conditional_t<kTransposed, gemm::layout::ColumnMajor, gemm::layout::RowMajor>;

// int8 products write int32; the others their input type.
template <class T>
using OutputOf = std::conditional_t<std::is_same_v<T, int8_t>, int32_t, T>;

template <class T, bool kTA, bool kTB, class TC>
using OpBlockMmad =
    gemm::block::BlockMmad<typename gemm::DefaultTiles<T>::Policy,
                           typename gemm::DefaultTiles<T>::L1, typename gemm::DefaultTiles<T>::L0,
                           gemm::GemmType<T, LayoutOf<kTA>>, gemm::GemmType<T, LayoutOf<kTB>>,
                           gemm::GemmType<TC>>;
using OpSwizzle = gemm::block::GemmIdentityBlockSwizzle<3, gemm::kSwizzleZn>;

template <class T, bool kTA, bool kTB>
using BasicKernel = gemm::kernel::BasicMatmul<OpBlockMmad<T, kTA, kTB, OutputOf<T>>, OpSwizzle>;
template <class T, bool kTA, bool kTB>
using MixKernel =
    gemm::kernel::MatmulEpilogue<OpBlockMmad<T, kTA, kTB, gemm::AccumulatorOf<T>>,
                                 gemm::epilogue::BlockEpilogue<gemm::AccumulatorOf<T>, OutputOf<T>>,
                                 OpSwizzle>;

}  // namespace tessera::ops::matmul

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

// kLarge: gemm::LargeTiles (256 x 512 blocks) for profiles with the room (native), else
// gemm::DefaultTiles (the 2201's 128 x 256). int8 (outside the speed goals) keeps DefaultTiles
// everywhere, which saves the kernel library a quarter of the large instances.
template <class T>
inline constexpr bool kHasLargeTiles = !std::is_same_v<T, int8_t>;

template <class T, bool kLarge>
using OpTiles = std::conditional_t<kLarge, gemm::LargeTiles<T>, gemm::DefaultTiles<T>>;

template <class T, bool kTA, bool kTB, class TC, bool kLarge = false>
using OpBlockMmad =
    gemm::block::BlockMmad<typename OpTiles<T, kLarge>::Policy, typename OpTiles<T, kLarge>::L1,
                           typename OpTiles<T, kLarge>::L0, gemm::GemmType<T, LayoutOf<kTA>>,
                           gemm::GemmType<T, LayoutOf<kTB>>, gemm::GemmType<TC>>;
using OpSwizzle = gemm::block::GemmIdentityBlockSwizzle<3, gemm::kSwizzleZn>;

template <class T, bool kTA, bool kTB, bool kLarge = false>
using BasicKernel =
    gemm::kernel::BasicMatmul<OpBlockMmad<T, kTA, kTB, OutputOf<T>, kLarge>, OpSwizzle>;
template <class T, bool kTA, bool kTB, bool kLarge = false>
using MixKernel =
    gemm::kernel::MatmulEpilogue<OpBlockMmad<T, kTA, kTB, gemm::AccumulatorOf<T>, kLarge>,
                                 gemm::epilogue::BlockEpilogue<gemm::AccumulatorOf<T>, OutputOf<T>>,
                                 OpSwizzle>;

}  // namespace tessera::ops::matmul

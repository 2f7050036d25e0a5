// CATLASS-style matmul templates in one include: tile copies, BlockMmad (ping-pong), block
// swizzle, MIX epilogues, kernels and the device adapter. See docs/cube.md, "Templates and
// operators".
#pragma once

#include "tessera/gemm/block/block_mmad.h"
#include "tessera/gemm/block/block_swizzle.h"
#include "tessera/gemm/default_tiles.h"
#include "tessera/gemm/device/device_gemm.h"
#include "tessera/gemm/epilogue/block_epilogue.h"
#include "tessera/gemm/gemm_coord.h"
#include "tessera/gemm/kernel/basic_matmul.h"
#include "tessera/gemm/kernel/batch.h"
#include "tessera/gemm/kernel/block_tile.h"
#include "tessera/gemm/kernel/matmul_epilogue.h"
#include "tessera/gemm/policy.h"
#include "tessera/gemm/tile/tile_copy.h"

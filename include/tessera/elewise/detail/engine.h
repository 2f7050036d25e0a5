// The block engine: runs a tile program over this core's share of the work. Compiled once per
// instruction-set level in src/elewise (Highway dynamic dispatch), so user operators instantiate
// no SIMD code and build fast.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/core/data_type.h"
#include "tessera/elewise/detail/program.h"

namespace tessera::elewise::block {

// How the 2-D view [rows, cols] is walked.
enum class Traversal : uint8_t {
  kFlat = 0,     // every operand dense and equal-shaped: the work unit is an element
  kRows = 1,     // AR reductions or broadcasting operands: the work unit is a row
  kColumns = 2,  // RA reductions: the work unit is a column; every pass sweeps all rows
};

// Row dimensions of an N-D elementwise problem beyond the one row stride (see BlockParams).
inline constexpr int kMaxRowDims = 7;

// One PlaceHolder parameter as the engine sees it. Element (r, c) of a tensor lives at
// ptr + r * row_stride + c * col_stride (elements); a stride of 0 broadcasts along that axis, any
// other col_stride but 1 is gathered element by element (inputs only). When the block has
// row_rank > 0, row r is the N-D index (i_0 .. i_{row_rank-1}) over row_dims and its offset is
// sum_k i_k * row_strides[k] instead.
struct Operand {
  void* ptr = nullptr;
  DataType dtype = DataType::kFloat32;
  int64_t row_stride = 0;
  int64_t col_stride = 1;
  uint32_t scalar_bits = 0;  // runtime scalar: the fp32 or int32 bit pattern
  int64_t row_strides[kMaxRowDims] = {};
};

struct BlockParams {
  tile::ProgramView program;
  std::vector<Operand> operands;    // PlaceHolder N is operands[N - 1]
  std::vector<uint32_t> attr_bits;  // fp32 or int32 bit pattern of each program attribute
  Traversal traversal = Traversal::kFlat;
  int64_t rows = 1;
  int64_t cols = 1;
  // Rows as an N-D index, outermost first (product = rows); 0: rows are evenly strided. Only
  // kRows traversals of programs without reductions use it.
  uint32_t row_rank = 0;
  int64_t row_dims[kMaxRowDims] = {};
  uint32_t tile_elems = 1024;   // micro-tile length, a multiple of 64
  uint32_t prefetch_tiles = 1;  // inputs of tile k + prefetch_tiles are fetched while k computes
  bool stream_outputs = false;  // non-temporal stores for outputs not read back
  // Temporaries that live across passes (spills): spill_elems elements per slot, in UB after the
  // registers when spill_in_ub, else in this core's slice of the global workspace.
  bool spill_in_ub = true;
  uint64_t spill_elems = 0;
  void* workspace = nullptr;
  uint64_t workspace_bytes_per_core = 0;
};

// UB bytes the engine needs for `tile_elems` (registers and RA accumulators; spills excluded).
uint64_t RegisterBytes(const tile::ProgramView& program, uint32_t tile_elems);

// Runs units [begin, begin + count) (elements, rows or columns per the traversal) on the calling
// kernel block. Uses the block's UB; fails the block (FailBlock) when UB is too small.
void RunBlock(const BlockParams& params, int64_t begin, int64_t count);

}  // namespace tessera::elewise::block

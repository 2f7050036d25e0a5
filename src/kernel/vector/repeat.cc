// Mask + repeat form of the binary instructions, lowered to contiguous runs of the count form.
//
// Each repeat covers 8 blocks of 32 bytes; within a block the selected elements form runs of
// consecutive mask bits, and each run is one call of the count kernel. Unselected elements of
// dst are left untouched, as on the NPU.
#include <bit>
#include <cstddef>
#include <cstdint>

#include "tessera/kernel/detail/vector_dispatch.h"

namespace tessera::kernel::vec {

void BinaryRepeat(BinaryOp op, DType t, void* dst, const void* a, const void* b,
                  const uint64_t mask[2], uint8_t repeat, const BinaryRepeatParams& p) {
  const size_t bytes = t == DType::kF16 || t == DType::kBF16 ? 2 : 4;
  const size_t per_block = 32 / bytes;
  auto* d8 = static_cast<uint8_t*>(dst);
  const auto* a8 = static_cast<const uint8_t*>(a);
  const auto* b8 = static_cast<const uint8_t*>(b);
  for (size_t r = 0; r < repeat; ++r) {
    for (size_t blk = 0; blk < 8; ++blk) {
      // This block's mask bits (a block is at most 16 elements, never straddling a word).
      const size_t first = blk * per_block;
      uint64_t bits = (mask[first / 64] >> (first % 64)) & ((uint64_t{1} << per_block) - 1);
      while (bits != 0) {
        const size_t start = static_cast<size_t>(std::countr_zero(bits));
        const size_t len = static_cast<size_t>(std::countr_one(bits >> start));
        bits &= ~(((uint64_t{1} << len) - 1) << start);
        const size_t e = start;  // element within the block
        const size_t d_off = (r * p.dstRepStride + blk * p.dstBlkStride) * 32 + e * bytes;
        const size_t a_off = (r * p.src0RepStride + blk * p.src0BlkStride) * 32 + e * bytes;
        const size_t b_off = (r * p.src1RepStride + blk * p.src1BlkStride) * 32 + e * bytes;
        Binary(op, t, d8 + d_off, a8 + a_off, b8 + b_off, len);
      }
    }
  }
}

}  // namespace tessera::kernel::vec

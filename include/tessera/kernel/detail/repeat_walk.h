// The addressing of the mask + repeat instruction forms, lowered to contiguous element runs.
//
// One repeat covers 256 bytes as 8 blocks of 32 bytes. Operand k's block b of repeat r starts
// (r * rep_k + b * blk_k) * 32 bytes into it; the mask selects elements within each repeat.
// WalkRuns hands each maximal run of selected elements that is contiguous in every operand to
// a count-form kernel, so a full mask with unit block strides is one call for the whole tensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tessera/kernel/check.h"
#include "tessera/kernel/vector_mask.h"

namespace tessera::kernel::detail {

struct RepeatStride {
  uint64_t blk = 1;  // 32-byte blocks between the blocks of one repeat
  uint64_t rep = 8;  // 32-byte blocks between the starts of consecutive repeats
};

// Which elements an instruction touches: `repeats` repeats selecting `bits`, the last one
// selecting `last` instead (the remainder of a COUNTER-mode count).
struct RepeatSelection {
  uint64_t bits[2] = {};
  uint64_t last[2] = {};
  uint64_t repeats = 0;
};

// The selection of an instruction on elements of `elem_bytes` given its mask argument
// (`mask_bits`, or the first `mask_len` elements when mask_bits is null), repeatTimes and
// isSetMask, and the block's mask register. Checked mode rejects a NORMAL-mode mask selecting
// nothing or naming elements past a repeat.
inline RepeatSelection ResolveRepeats(uint32_t elem_bytes, bool is_set_mask, uint64_t mask_len,
                                      const uint64_t* mask_bits, uint64_t repeat, bool checked,
                                      const char* api) {
  const uint64_t per_repeat = 256 / elem_bytes;
  VectorMaskState& reg = MaskRegister();
  RepeatSelection s;
  if (reg.counter) {
    const uint64_t count =
        is_set_mask ? (mask_bits != nullptr ? mask_bits[0] : mask_len) : reg.bits[0];
    if (is_set_mask) {
      reg.bits[0] = count;
      reg.bits[1] = 0;
    }
    s.repeats = (count + per_repeat - 1) / per_repeat;
    FirstBits(per_repeat, s.bits);
    FirstBits(count - (s.repeats == 0 ? 0 : (s.repeats - 1) * per_repeat), s.last);
    return s;
  }
  if (!is_set_mask) {
    s.bits[0] = reg.bits[0];
    s.bits[1] = reg.bits[1];
  } else if (mask_bits != nullptr) {
    s.bits[0] = mask_bits[0];
    s.bits[1] = mask_bits[1];
  } else {
    TESSERA_KERNEL_CHECK(checked, mask_len >= 1 && mask_len <= per_repeat, api,
                         "mask " + std::to_string(mask_len) + " is outside [1, " +
                             std::to_string(per_repeat) + "] for " +
                             std::to_string(elem_bytes * 8) + "-bit elements");
    FirstBits(mask_len < per_repeat ? mask_len : per_repeat, s.bits);
  }
  if (per_repeat < 128) s.bits[1] = 0;  // unused bits; checked below
  if (per_repeat < 64) s.bits[0] &= (uint64_t{1} << per_repeat) - 1;
  if (checked && repeat > 0) {
    TESSERA_KERNEL_CHECK(true, (s.bits[0] | s.bits[1]) != 0, api, "mask selects no element");
    const uint64_t* given = is_set_mask ? mask_bits : reg.bits;
    TESSERA_KERNEL_CHECK(true, given == nullptr || per_repeat > 64 || given[1] == 0, api,
                         "mask[1] must be 0 for " + std::to_string(elem_bytes * 8) +
                             "-bit types (a repeat holds " + std::to_string(per_repeat) +
                             " elements)");
  }
  if (is_set_mask) {
    reg.bits[0] = s.bits[0];
    reg.bits[1] = s.bits[1];
  }
  s.last[0] = s.bits[0];
  s.last[1] = s.bits[1];
  s.repeats = repeat;
  return s;
}

// Calls fn(off, len) for each maximal run: off[k] is the run's first element in operand k.
template <size_t K, class Fn>
void WalkRuns(uint32_t elem_bytes, const RepeatSelection& sel, const RepeatStride (&stride)[K],
              const Fn& fn) {
  const uint64_t per_block = 32 / elem_bytes;
  uint64_t run[K] = {};
  uint64_t run_len = 0;
  for (uint64_t r = 0; r < sel.repeats; ++r) {
    const uint64_t* bits = r + 1 == sel.repeats ? sel.last : sel.bits;
    for (uint64_t blk = 0; blk < 8; ++blk) {
      const uint64_t first = blk * per_block;  // a block never straddles a mask word
      uint64_t b = (bits[first / 64] >> (first % 64)) &
                   (per_block == 64 ? ~uint64_t{0} : (uint64_t{1} << per_block) - 1);
      while (b != 0) {
        const uint64_t start = static_cast<uint64_t>(__builtin_ctzll(b));
        const uint64_t shifted = ~(b >> start);
        const uint64_t len =
            shifted == 0 ? 64 - start : static_cast<uint64_t>(__builtin_ctzll(shifted));
        b &= len >= 64 ? 0 : ~(((uint64_t{1} << len) - 1) << start);
        uint64_t off[K];
        bool extends = run_len > 0;
        for (size_t k = 0; k < K; ++k) {
          off[k] = (r * stride[k].rep + blk * stride[k].blk) * per_block + start;
          extends = extends && off[k] == run[k] + run_len;
        }
        if (extends) {
          run_len += len;
          continue;
        }
        if (run_len > 0) fn(static_cast<const uint64_t*>(run), run_len);
        for (size_t k = 0; k < K; ++k)
          run[k] = off[k];
        run_len = len;
      }
    }
  }
  if (run_len > 0) fn(static_cast<const uint64_t*>(run), run_len);
}

// Checked mode: one past the farthest element operand `k` of the selection touches (0 if none).
template <size_t K>
uint64_t RepeatExtent(uint32_t elem_bytes, const RepeatSelection& sel,
                      const RepeatStride (&stride)[K], size_t k) {
  uint64_t end = 0;
  WalkRuns(elem_bytes, sel, stride, [&](const uint64_t* off, uint64_t len) {
    if (off[k] + len > end) end = off[k] + len;
  });
  return end;
}

}  // namespace tessera::kernel::detail

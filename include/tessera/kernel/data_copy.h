// DataCopy and DataCopyPad: moving data between global memory (GM) and on-chip buffers (UB).
//
// As on the NPU, DataCopy moves whole 32-byte blocks: a count form whose byte length must be a
// multiple of 32, and a strided 2-D form (DataCopyParams, lengths and strides in 32-byte blocks).
// DataCopyPad moves any byte length (DataCopyExtParams) and pads the UB side up to 32 bytes.
// Checked mode reports lengths and addresses that are not 32-byte aligned and copies outside a
// tensor's extent; fast mode does no checks. Large UB->GM copies into big outputs use streaming
// stores, since such outputs will not be read again soon (PERF_NOTES: ~1.25x bandwidth).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/core/float16.h"
#include "tessera/device/gm_access.h"
#include "tessera/kernel/check.h"
#include "tessera/kernel/detail/pipe_phase.h"
#include "tessera/kernel/global_tensor.h"
#include "tessera/kernel/local_tensor.h"

namespace tessera::kernel {

// 2-D copy: blockCount blocks of blockLen 32-byte units; between blocks the source skips srcStride
// and the destination dstStride units (gaps, not pitches).
struct DataCopyParams {
  uint16_t blockCount = 1;
  uint16_t blockLen = 0;
  uint16_t srcStride = 0;
  uint16_t dstStride = 0;
};

// DataCopyPad: blockLen in bytes. Strides are gaps: in bytes on the GM side, in 32-byte blocks on
// the UB side (each UB block starts 32-byte aligned).
struct DataCopyExtParams {
  uint16_t blockCount = 1;
  uint32_t blockLen = 0;
  uint32_t srcStride = 0;
  uint32_t dstStride = 0;
  uint32_t rsv = 0;
};

// One dimension of a slice copy (Ascend C's SliceInfo): from startIndex to endIndex (inclusive)
// of a dimension of shapeValue elements, segments of burstLen 32-byte blocks (dimension 0; 1
// index in the others) with `stride` elements between them.
struct SliceInfo {
  SliceInfo() = default;
  SliceInfo(uint32_t startIndexIn, uint32_t endIndexIn, uint32_t strideIn, uint32_t burstLenIn,
            uint32_t shapeValueIn = 0)
      : startIndex(startIndexIn),
        endIndex(endIndexIn),
        stride(strideIn),
        burstLen(burstLenIn),
        shapeValue(shapeValueIn) {}
  uint32_t startIndex = 0;
  uint32_t endIndex = 0;
  uint32_t stride = 0;
  uint32_t burstLen = 1;
  uint32_t shapeValue = 0;
};
inline constexpr uint32_t K_MAX_DIM = 8;

// The older padding form of DataCopyPad (with DataCopyParams): paddingValue holds the pad
// element's bits in its low bytes.
struct DataCopyPadParams {
  DataCopyPadParams() = default;
  DataCopyPadParams(bool isPadValue, uint8_t leftPadValue, uint8_t rightPadValue, uint64_t padValue)
      : isPad(isPadValue),
        leftPadding(leftPadValue),
        rightPadding(rightPadValue),
        paddingValue(padValue) {}
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  uint64_t paddingValue = 0;
};

template <class T>
struct DataCopyPadExtParams {
  bool isPad = false;
  uint8_t leftPadding = 0;   // elements written before each block's data (GM->UB)
  uint8_t rightPadding = 0;  // elements written after it; the rest of the 32-byte block stays as is
  T paddingValue{};
};

namespace detail {

inline constexpr uint32_t kBlockBytes = 32;

// Copies into global memory through `api`; `streaming` selects non-temporal stores. Between
// SetAtomicAdd and SetAtomicNone it adds the elements to GM atomically instead. In checked mode it
// records the write for the race and unwritten-output checks.
void CopyToGlobal(void* dst, const void* src, size_t bytes, bool streaming, const char* api);

// Copies `bytes` from global memory into on-chip memory. `ahead` is how many bytes of the source
// tensor follow the copy: the next tile of a kernel streaming through the tensor. A large copy
// prefetches up to its own length of them, so that tile's DRAM reads overlap the work on this one
// (the NPU's copy engines run ahead of the vector unit the same way). Prefetches are hints: they
// read nothing the kernel sees and write nothing.
void CopyFromGlobal(void* dst, const void* src, size_t bytes, uint64_t ahead);

// The block's pad value (SetPadValue), as the low bytes of `bits`; GetPadBits is false until set.
void SetPadBits(uint64_t bits);
bool GetPadBits(uint64_t& bits);

// The element type of SetAtomicAdd.
enum class AtomicType : uint8_t { kNone = 0, kF32, kF16, kBF16, kS32, kS16, kS8 };
void SetAtomicType(AtomicType type);
template <class T>
constexpr AtomicType AtomicTypeOf() {
  if constexpr (std::is_same_v<T, float>) {
    return AtomicType::kF32;
  } else if constexpr (std::is_same_v<T, half>) {
    return AtomicType::kF16;
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return AtomicType::kBF16;
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return AtomicType::kS32;
  } else if constexpr (std::is_same_v<T, int16_t>) {
    return AtomicType::kS16;
  } else {
    static_assert(std::is_same_v<T, int8_t>,
                  "SetAtomicAdd: T must be float, half, bfloat16_t, int32_t, int16_t or int8_t");
    return AtomicType::kS8;
  }
}

// Streaming pays off when the destination buffer is larger than the caches it would evict: the
// buffer SetGlobalBuffer was given, not the view's remaining extent (which would leave the last
// 8 MiB of every output, and every buffer split into smaller per-block views, unstreamed).
template <class T>
bool PreferStreaming(const GlobalTensor<T>& dst, size_t copy_bytes) {
  const uint64_t elements = dst.GetBufferSize();
  const bool large = elements >= (uint64_t{8} << 20) * 8 / kElemBits<T>;
  return large && copy_bytes >= 4096;
}
void FailAlignment(const char* api, const char* what, uint64_t value);

// Bytes of a tensor of `extent_bytes` starting at `base` that follow a copy of `bytes` at `at` (0
// when the copy reaches past the extent, which only fast mode lets through).
inline uint64_t BytesAfter(const void* base, uint64_t extent_bytes, const void* at, size_t bytes) {
  const uint64_t end =
      static_cast<uint64_t>(static_cast<const char*>(at) - static_cast<const char*>(base)) + bytes;
  return end < extent_bytes ? extent_bytes - end : 0;
}

// Checked mode: the length must be whole 32-byte blocks and the UB side(s) 32-byte aligned. GM
// addresses need no alignment: the NPU's copy engine reads and writes any GM address.
// The bytes of `count` elements (int4b_t packs two per byte).
template <class T>
constexpr size_t CountBytes(uint32_t count) {
  return (size_t{count} * kElemBits<T> + 7) / 8;
}

template <class T>
void CheckCountCopy(const char* api, bool checked, const void* ub_dst, const void* ub_src,
                    uint32_t count) {
  if (!checked) return;
  const uint64_t bytes = CountBytes<T>(count);
  if (bytes % kBlockBytes != 0) FailAlignment(api, "length in bytes", bytes);
  if (reinterpret_cast<uintptr_t>(ub_dst) % kBlockBytes != 0) {
    FailAlignment(api, "destination UB address", reinterpret_cast<uintptr_t>(ub_dst));
  }
  if (reinterpret_cast<uintptr_t>(ub_src) % kBlockBytes != 0) {
    FailAlignment(api, "source UB address", reinterpret_cast<uintptr_t>(ub_src));
  }
}

// Checked mode: the running block's GM reads, for the race check.
inline void NoteGmRead(const void* p, size_t bytes, const char* api) {
  device::NoteGmAccess(device::GmAccess::kRead, p, bytes, api);
}

// The pipe of a copy between two on-chip buffers: L1 -> bias table is MTE1, L1 -> fixpipe buffer
// FIX, UB -> UB the vector unit.
inline device::TracePipe LocalCopyPipe(TPosition dst) {
  if (dst == TPosition::C2) return device::TracePipe::kMte1;
  return dst == TPosition::C2PIPE2GM ? device::TracePipe::kFix : device::TracePipe::kV;
}

// Elements spanned by a 2-D copy whose blocks are `len` units long with `gap` units between them.
inline uint64_t SpanUnits(uint16_t count, uint64_t len, uint64_t gap) {
  return count == 0 ? 0 : uint64_t{count} * len + uint64_t{count - 1u} * gap;
}

// The element offsets a slice selects, in order (the last dimension outermost); fails the block
// when a SliceInfo breaks the vendor's rules.
std::vector<uint64_t> SliceOffsets(const SliceInfo info[], uint32_t dims, uint32_t elem_bytes,
                                   const char* side);
// The source and destination slices paired element by element (element offsets), with the
// extent each side needs (largest offset + 1); fails the block when the counts differ.
struct SlicePairs {
  std::vector<uint64_t> from;
  std::vector<uint64_t> to;
  uint64_t from_extent = 0;
  uint64_t to_extent = 0;
};
SlicePairs PairSlices(const SliceInfo dst_info[], const SliceInfo src_info[], uint32_t dims,
                      uint32_t elem_bytes);
// Copies the pairs in runs contiguous on both sides. The UB side is `ub` (its view start
// `ub_tensor` and position, for checked mode's unwritten-read reports); `to_global` says which
// way. With `checked`, GM reads are noted and UB reads must hit written bytes.
void SliceCopy(void* dst, const void* src, const SlicePairs& pairs, uint32_t elem_bytes,
               bool to_global, bool checked, const void* ub_tensor, TPosition ub_pos);

}  // namespace detail

// GM -> UB slice copy: the elements srcSliceInfo selects from a dimValue-dimensional GM tensor go,
// in order, to the positions dstSliceInfo selects in UB.
template <class T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const SliceInfo dstSliceInfo[],
              const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kMte2);
  const detail::SlicePairs pairs =
      detail::PairSlices(dstSliceInfo, srcSliceInfo, dimValue, sizeof(T));
  dst.CheckRange(pairs.to_extent, "DataCopy (slice)", "slice destination");
  src.CheckRange(pairs.from_extent, "DataCopy (slice)", "slice source");
  detail::SliceCopy(dst.data(), src.data(), pairs, sizeof(T), false, dst.checked(), dst.data(),
                    dst.GetPosition());
}
// UB -> GM slice copy.
template <class T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const SliceInfo dstSliceInfo[],
              const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1) {
  const detail::PipeScope phase(src.checked(), device::TracePipe::kMte3);
  const detail::SlicePairs pairs =
      detail::PairSlices(dstSliceInfo, srcSliceInfo, dimValue, sizeof(T));
  dst.CheckRange(pairs.to_extent, "DataCopy (slice)", "slice destination");
  src.CheckRange(pairs.from_extent, "DataCopy (slice)", "slice source");
  detail::SliceCopy(dst.data(), src.data(), pairs, sizeof(T), true, src.checked(), src.data(),
                    src.GetPosition());
}

// GM -> UB, `count` elements.
template <class T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kMte2);
  detail::CheckCountCopy<T>("DataCopy", dst.checked(), dst.data(), nullptr, count);
  dst.CheckRange(count, "DataCopy", "destination");
  src.CheckRange(count, "DataCopy", "source");
  const size_t bytes = detail::CountBytes<T>(count);
  if (src.checked()) detail::NoteGmRead(src.data(), bytes, "DataCopy");
  detail::CopyFromGlobal(
      dst.data(), src.data(), bytes,
      detail::BytesAfter(src.data(), detail::CountBytes<T>(src.GetSize()), src.data(), bytes));
}

// UB -> GM, `count` elements.
template <class T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  const detail::PipeScope phase(src.checked(), device::TracePipe::kMte3);
  detail::CheckCountCopy<T>("DataCopy", src.checked(), nullptr, src.data(), count);
  dst.CheckRange(count, "DataCopy", "destination");
  src.CheckRange(count, "DataCopy", "source");
  const size_t bytes = detail::CountBytes<T>(count);
  if (src.checked()) {
    detail::ShadowCheckRead(src.data(), bytes, src.data(), sizeof(T), src.GetPosition(), "DataCopy",
                            "source");
  }
  detail::CopyToGlobal(dst.data(), src.data(), bytes, detail::PreferStreaming(dst, bytes),
                       "DataCopy");
}

// UB -> UB, `count` elements.
template <class T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  const detail::PipeScope phase(dst.checked(), detail::LocalCopyPipe(dst.GetPosition()));
  detail::CheckCountCopy<T>("DataCopy", dst.checked(), dst.data(), src.data(), count);
  dst.CheckRange(count, "DataCopy", "destination");
  src.CheckRange(count, "DataCopy", "source");
  std::memmove(dst.data(), src.data(), detail::CountBytes<T>(count));
}

namespace detail {

template <class T, class Dst, class Src>
device::TracePipe CopyPipe(const Dst& dst) {
  if constexpr (std::is_same_v<Src, GlobalTensor<T>>) {
    return device::TracePipe::kMte2;
  } else if constexpr (std::is_same_v<Dst, GlobalTensor<T>>) {
    return device::TracePipe::kMte3;
  } else {
    return LocalCopyPipe(dst.GetPosition());
  }
}

// The strided copy shared by the three directions; Dst/Src are tensors.
template <class T, class Dst, class Src>
void StridedCopy(const Dst& dst, const Src& src, const DataCopyParams& p, bool to_global) {
  constexpr uint64_t kUnit = kBlockBytes / sizeof(T);  // elements per 32-byte block
  const bool checked = dst.checked() || src.checked();
  const PipeScope phase(checked, CopyPipe<T, Dst, Src>(dst));
  TESSERA_KERNEL_CHECK(checked, p.blockLen > 0 || p.blockCount == 0, "DataCopy",
                       "DataCopyParams.blockLen is 0; expected the block length in 32-byte units");
  if (checked) {
    if (!to_global && reinterpret_cast<uintptr_t>(dst.data()) % kBlockBytes) {
      FailAlignment("DataCopy", "destination UB address", reinterpret_cast<uintptr_t>(dst.data()));
    }
    if (std::is_same_v<Src, LocalTensor<T>> &&
        reinterpret_cast<uintptr_t>(src.data()) % kBlockBytes) {
      FailAlignment("DataCopy", "source UB address", reinterpret_cast<uintptr_t>(src.data()));
    }
    dst.CheckRange(SpanUnits(p.blockCount, p.blockLen, p.dstStride) * kUnit, "DataCopy",
                   "destination (DataCopyParams)");
    src.CheckRange(SpanUnits(p.blockCount, p.blockLen, p.srcStride) * kUnit, "DataCopy",
                   "source (DataCopyParams)");
  }
  T* d = dst.data();
  const T* s = src.data();
  const size_t bytes = p.blockLen * kBlockBytes;
  for (uint16_t b = 0; b < p.blockCount; ++b) {
    if constexpr (std::is_same_v<Src, GlobalTensor<T>>) {
      if (src.checked()) NoteGmRead(s, bytes, "DataCopy(DataCopyParams)");
    }
    if constexpr (std::is_same_v<Dst, GlobalTensor<T>>) {
      if constexpr (std::is_same_v<Src, LocalTensor<T>>) {
        if (src.checked()) {
          ShadowCheckRead(s, bytes, src.data(), sizeof(T), src.GetPosition(),
                          "DataCopy(DataCopyParams)", "source");
        }
      }
      CopyToGlobal(d, s, bytes, PreferStreaming(dst, bytes), "DataCopy(DataCopyParams)");
    } else if constexpr (std::is_same_v<Src, GlobalTensor<T>>) {
      CopyFromGlobal(d, s, bytes, BytesAfter(src.data(), CountBytes<T>(src.GetSize()), s, bytes));
    } else {
      std::memmove(d, s, bytes);
    }
    d += (uint64_t{p.blockLen} + p.dstStride) * kUnit;
    s += (uint64_t{p.blockLen} + p.srcStride) * kUnit;
  }
}

}  // namespace detail

template <class T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& params) {
  detail::StridedCopy<T>(dst, src, params, false);
}
template <class T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params) {
  detail::StridedCopy<T>(dst, src, params, true);
}
template <class T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params) {
  detail::StridedCopy<T>(dst, src, params, false);
}

// GM -> UB of any byte length: each of blockCount blocks (blockLen bytes, srcStride bytes apart in
// GM) lands at a 32-byte aligned UB position; with isPad, leftPadding/rightPadding elements of
// paddingValue are written around it. Without isPad, once the block has called SetPadValue, the
// rest of each block's last 32-byte unit gets that value (the vendor's pad register); before
// that, those bytes are left as they were.
template <class T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                 const DataCopyPadExtParams<T>& pad) {
  const bool checked = dst.checked() || src.checked();
  const detail::PipeScope phase(checked, device::TracePipe::kMte2);
  TESSERA_KERNEL_CHECK(checked, p.blockLen % sizeof(T) == 0, "DataCopyPad",
                       "blockLen " + std::to_string(p.blockLen) + " is not a multiple of the " +
                           std::to_string(sizeof(T)) + "-byte element");
  TESSERA_KERNEL_CHECK(checked, reinterpret_cast<uintptr_t>(dst.data()) % detail::kBlockBytes == 0,
                       "DataCopyPad", "destination UB address is not 32-byte aligned");
  const uint64_t elems = p.blockLen / sizeof(T);
  const uint64_t padded = pad.isPad ? pad.leftPadding + elems + pad.rightPadding : elems;
  const uint64_t ub_block = (padded * sizeof(T) + detail::kBlockBytes - 1) / detail::kBlockBytes;
  const uint64_t ub_pitch = (ub_block + p.dstStride) * (detail::kBlockBytes / sizeof(T));
  const uint64_t gm_pitch = p.blockLen + uint64_t{p.srcStride};
  if (checked && p.blockCount > 0) {
    dst.CheckRange(ub_pitch * (p.blockCount - 1u) + padded, "DataCopyPad", "destination");
    TESSERA_KERNEL_CHECK(
        checked, p.srcStride % sizeof(T) == 0, "DataCopyPad",
        "srcStride " + std::to_string(p.srcStride) + " bytes is not a multiple of the element");
    src.CheckRange((gm_pitch * (p.blockCount - 1u) + p.blockLen) / sizeof(T), "DataCopyPad",
                   "source");
  }
  for (uint16_t b = 0; b < p.blockCount; ++b) {
    T* row = dst.data() + ub_pitch * b;
    const auto* from = reinterpret_cast<const std::byte*>(src.data()) + gm_pitch * b;
    if (pad.isPad) {
      for (uint8_t i = 0; i < pad.leftPadding; ++i)
        row[i] = pad.paddingValue;
      row += pad.leftPadding;
    }
    if (src.checked()) detail::NoteGmRead(from, p.blockLen, "DataCopyPad");
    detail::CopyFromGlobal(
        row, from, p.blockLen,
        detail::BytesAfter(src.data(), detail::CountBytes<T>(src.GetSize()), from, p.blockLen));
    if (pad.isPad) {
      for (uint8_t i = 0; i < pad.rightPadding; ++i)
        row[elems + i] = pad.paddingValue;
    } else if (uint64_t bits = 0; sizeof(T) <= sizeof(bits) && detail::GetPadBits(bits)) {
      T value;
      std::memcpy(static_cast<void*>(&value), &bits, sizeof(T));
      const uint64_t unit_end = ub_block * (detail::kBlockBytes / sizeof(T));
      for (uint64_t i = elems; i < unit_end; ++i)
        row[i] = value;
    }
  }
}

// The DataCopyParams form (blockLen in bytes, strides as in DataCopyExtParams) with
// DataCopyPadParams: the same copy, the pad element read from paddingValue's low bytes.
template <class T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                 const DataCopyPadParams& pad) {
  DataCopyPadExtParams<T> ext;
  ext.isPad = pad.isPad;
  ext.leftPadding = pad.leftPadding;
  ext.rightPadding = pad.rightPadding;
  static_assert(sizeof(T) <= sizeof(uint64_t), "DataCopyPad: elements of at most 8 bytes");
  std::memcpy(static_cast<void*>(&ext.paddingValue), &pad.paddingValue, sizeof(T));
  DataCopyPad(dst, src, DataCopyExtParams{p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0},
              ext);
}

// Sets the value DataCopyPad (GM -> UB, isPad = false) writes after each block's data up to the
// next 32-byte boundary; lasts until the block ends or sets another. `pos` (VECIN / VECOUT) is the
// destination the vendor's register is for; both share one value here.
template <class T, TPosition pos = TPosition::VECIN>
void SetPadValue(T value) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "SetPadValue: element types of up to 8 bytes");
  static_assert(pos == TPosition::VECIN || pos == TPosition::VECOUT,
                "SetPadValue: pos is TPosition::VECIN or TPosition::VECOUT");
  uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const void*>(&value), sizeof(T));
  detail::SetPadBits(bits);
}

// UB -> GM of any byte length: each block's first blockLen bytes go to GM (dstStride bytes apart);
// UB blocks start 32-byte aligned, srcStride 32-byte units apart.
template <class T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                 const DataCopyExtParams& p) {
  const bool checked = dst.checked() || src.checked();
  const detail::PipeScope phase(checked, device::TracePipe::kMte3);
  TESSERA_KERNEL_CHECK(checked, p.blockLen % sizeof(T) == 0, "DataCopyPad",
                       "blockLen " + std::to_string(p.blockLen) + " is not a multiple of the " +
                           std::to_string(sizeof(T)) + "-byte element");
  TESSERA_KERNEL_CHECK(checked, reinterpret_cast<uintptr_t>(src.data()) % detail::kBlockBytes == 0,
                       "DataCopyPad", "source UB address is not 32-byte aligned");
  const uint64_t ub_block = (uint64_t{p.blockLen} + detail::kBlockBytes - 1) / detail::kBlockBytes;
  const uint64_t ub_pitch = (ub_block + p.srcStride) * (detail::kBlockBytes / sizeof(T));
  const uint64_t gm_pitch = p.blockLen + uint64_t{p.dstStride};
  if (checked && p.blockCount > 0) {
    src.CheckRange(ub_pitch * (p.blockCount - 1u) + p.blockLen / sizeof(T), "DataCopyPad",
                   "source");
    TESSERA_KERNEL_CHECK(
        checked, p.dstStride % sizeof(T) == 0, "DataCopyPad",
        "dstStride " + std::to_string(p.dstStride) + " bytes is not a multiple of the element");
    dst.CheckRange((gm_pitch * (p.blockCount - 1u) + p.blockLen) / sizeof(T), "DataCopyPad",
                   "destination");
  }
  for (uint16_t b = 0; b < p.blockCount; ++b) {
    auto* to = reinterpret_cast<std::byte*>(dst.data()) + gm_pitch * b;
    if (src.checked()) {
      detail::ShadowCheckRead(src.data() + ub_pitch * b, p.blockLen, src.data(), sizeof(T),
                              src.GetPosition(), "DataCopyPad", "source");
    }
    detail::CopyToGlobal(to, src.data() + ub_pitch * b, p.blockLen,
                         detail::PreferStreaming(dst, p.blockLen), "DataCopyPad");
  }
}

// Ascend C's atomic accumulation into GM: after SetAtomicAdd<T>(), DataCopy and DataCopyPad from
// UB to GM add their T elements to what GM holds (atomically, so blocks may add into the same
// output) until SetAtomicNone(). Checked mode treats such adds of different blocks to the same
// bytes as no race.
template <class T>
void SetAtomicAdd() {
  detail::SetAtomicType(detail::AtomicTypeOf<T>());
}
inline void SetAtomicNone() {
  detail::SetAtomicType(detail::AtomicType::kNone);
}

}  // namespace tessera::kernel

// LocalTensor<T>: a view of elements in this core's on-chip memory: UB on vector cores; L1 (A1, B1,
// C1, TSCM), L0A (A2), L0B (B2), L0C (CO1), bias table (C2) and fixpipe buffer (C2PIPE2GM) on AI
// cores.
//
// Views come from TQue::AllocTensor / DeQue and TBuf::Get; `tensor[offset]` is the view starting
// `offset` elements in, as in Ascend C. In checked mode every element access and every vector
// instruction is bounds-checked against the view, and a view of a buffer already returned with
// FreeTensor is reported.
#pragma once

#include <cstdint>
#include <string>

#include "tessera/core/float16.h"
#include "tessera/kernel/check.h"
#include "tessera/kernel/int4.h"

namespace tessera::kernel {

enum class TPosition : uint8_t {
  GM = 0,
  VECIN,
  VECOUT,
  VECCALC,
  A1,
  A2,
  B1,
  B2,
  C1,
  C2,
  CO1,
  CO2,
  TSCM,           // L1 shared with the vector cores' Matmul clients (Ascend C's TSCM)
  C2PIPE2GM,      // the fixpipe buffer (FB)
  LCM = VECCALC,  // Ascend C's name for UB scratch (PopStackBuffer)
};

const char* TPositionName(TPosition pos);

// Layout of a tensor's data (Ascend C's DataFormat).
enum class DataFormat : uint8_t { ND = 0, NZ, NCHW, NC1HWC0, NHWC, NCDHW, NDC1HWC0, FRACTAL_Z_3D };

inline constexpr int K_MAX_SHAPE_DIM = 8;

// The shape a kernel attaches to a LocalTensor (Ascend C's ShapeInfo): advanced APIs such as
// AscendAntiQuant read the rows / columns of their scale tensors from it. Dimensions past
// K_MAX_SHAPE_DIM are dropped.
struct ShapeInfo {
  ShapeInfo() = default;
  ShapeInfo(uint8_t inputShapeDim, const uint32_t inputShape[], uint8_t inputOriginalShapeDim,
            const uint32_t inputOriginalShape[], DataFormat inputFormat)
      : shapeDim(Clamp(inputShapeDim)),
        originalShapeDim(Clamp(inputOriginalShapeDim)),
        dataFormat(inputFormat) {
    for (int i = 0; i < shapeDim; ++i)
      shape[i] = inputShape[i];
    for (int i = 0; i < originalShapeDim; ++i)
      originalShape[i] = inputOriginalShape[i];
  }
  ShapeInfo(uint8_t inputShapeDim, const uint32_t inputShape[], DataFormat inputFormat)
      : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, inputFormat) {}
  ShapeInfo(uint8_t inputShapeDim, const uint32_t inputShape[])
      : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, DataFormat::ND) {}

  uint8_t shapeDim = 0;
  uint8_t originalShapeDim = 0;
  uint32_t shape[K_MAX_SHAPE_DIM] = {};
  uint32_t originalShape[K_MAX_SHAPE_DIM] = {};
  DataFormat dataFormat = DataFormat::ND;

 private:
  static uint8_t Clamp(uint8_t dim) { return dim > K_MAX_SHAPE_DIM ? K_MAX_SHAPE_DIM : dim; }
};

namespace detail {
// Checked mode: which bytes of this block's UB were written since TPipe::InitBuffer handed them
// out (UB outside TPipe buffers counts as written). Each call is a no-op for addresses outside UB.
void ShadowFresh(const void* p, uint64_t bytes);    // a new buffer: never written
void ShadowWritten(const void* p, uint64_t bytes);  // written by an instruction
// An elementwise instruction: byte i of dst is written iff byte i of a (and of b, unless null) is.
void ShadowPropagate(const void* dst, const void* a, const void* b, uint64_t bytes);
// Cast: element i of dst (dst_size bytes) is written iff element i of src (src_size bytes) is.
void ShadowPropagateCast(const void* dst, uint32_t dst_size, const void* src, uint32_t src_size,
                         uint64_t count);
// Fails the block when a byte of [p, p + bytes) was never written: `tensor` is the start of the
// view the instruction was given (for the offset), `elem` its element size.
void ShadowCheckRead(const void* p, uint64_t bytes, const void* tensor, uint32_t elem,
                     TPosition pos, const char* api, const char* role);
// The running block's address `addr` bytes into the memory of `pos`; fails the block unless
// [addr, addr + bytes) lies in it and addr is 32-byte aligned.
void* PositionAddress(TPosition pos, uint64_t addr, uint64_t bytes);
}  // namespace detail

template <class T>
class LocalTensor;

// Ascend C's operator forms of the binary vector instructions: `dst = src0 + src1` runs
// Add(dst, src0, src1, dst.GetSize()) (likewise -, *, /, |, &); vector.h defines the assignment.
enum class TensorSymbolOp : uint8_t { kAdd, kSub, kMul, kDiv, kOr, kAnd };
template <class T, TensorSymbolOp op>
struct TensorSymbol {
  const LocalTensor<T>& src0;
  const LocalTensor<T>& src1;
};

template <class T>
class LocalTensor {
 public:
  using PrimType = T;

  LocalTensor() = default;
  // For the pipe layer: a view of `size` elements at `data`. `generation` points at the owning
  // buffer's counter (bumped by FreeTensor); the view is stale once it differs from `seen`.
  LocalTensor(T* data, uint32_t size, TPosition pos, bool checked, const uint32_t* generation,
              uint32_t seen)
      : data_(data),
        size_(size),
        pos_(pos),
        checked_(checked),
        generation_(generation),
        seen_(seen) {}

  // A tensor of `tileSize` elements at byte `addr` of the memory `pos` lives in (the static
  // addressing of Ascend C's `LocalTensor<T>(TPosition::VECIN, addr, size)`); nothing else
  // tracks that memory, so do not mix it with TPipe buffers at the same addresses.
  LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize)
      : data_(static_cast<T*>(detail::PositionAddress(pos, addr, Bytes(tileSize)))),
        size_(tileSize),
        pos_(pos),
        checked_(CheckedLaunch()) {}

  uint32_t GetSize() const { return size_; }
  // Resizes the view to `size` elements (Ascend C's SetSize); the caller keeps it inside the
  // buffer, which the view cannot see.
  void SetSize(uint32_t size) { size_ = size; }
  uint32_t GetLength() const { return static_cast<uint32_t>(Bytes(size_)); }
  TPosition GetPosition() const { return pos_; }
  T* GetPhyAddr() const { return data_; }
  T* data() const { return data_; }
  // The shape attached with SetShapeInfo (shapeDim 0 when none was); views and copies keep it.
  void SetShapeInfo(const ShapeInfo& shapeInfo) { shape_info_ = shapeInfo; }
  ShapeInfo GetShapeInfo() const { return shape_info_; }
  bool checked() const { return checked_; }

  T GetValue(uint32_t index) const {
    CheckIndex(index, "LocalTensor::GetValue");
    if constexpr (kInt4) {
      return T(static_cast<uint32_t>(Byte(index) >> (index % 2 * 4)));
    } else {
      return data_[index];
    }
  }
  void SetValue(uint32_t index, T value) const {
    CheckIndex(index, "LocalTensor::SetValue");
    if constexpr (kInt4) {
      if (checked_) detail::ShadowWritten(&Byte(index), 1);
      const unsigned shift = index % 2 * 4;
      Byte(index) = static_cast<uint8_t>((Byte(index) & ~(0xFu << shift)) |
                                         (unsigned{value.storage} << shift));
    } else {
      if (checked_) detail::ShadowWritten(data_ + index, sizeof(T));
      data_[index] = value;
    }
  }
  // May be a write: the element counts as written in checked mode. Not for int4b_t, whose
  // elements are not addressable.
  T& operator()(uint32_t index) const {
    static_assert(!kInt4, "LocalTensor<int4b_t>: use GetValue / SetValue");
    CheckIndex(index, "LocalTensor::operator()");
    if (checked_) detail::ShadowWritten(data_ + index, sizeof(T));
    return data_[index];
  }
  // The view starting `offset` elements in (offset == size gives an empty view). An int4b_t view
  // starts on a byte: its offset is even.
  LocalTensor operator[](uint32_t offset) const {
    TESSERA_KERNEL_CHECK(checked_, offset <= size_ && Live(), "LocalTensor::operator[]",
                         Describe(offset, "offset"));
    TESSERA_KERNEL_CHECK(
        checked_, !kInt4 || offset % 2 == 0, "LocalTensor::operator[]",
        "an int4b_t view must start on a byte (offset " + std::to_string(offset) + " is odd)");
    LocalTensor view = *this;
    view.data_ += kInt4 ? offset / 2 : offset;
    view.size_ = offset <= size_ ? size_ - offset : 0;
    return view;
  }
  TensorSymbol<T, TensorSymbolOp::kAdd> operator+(const LocalTensor& src1) const {
    return {*this, src1};
  }
  TensorSymbol<T, TensorSymbolOp::kSub> operator-(const LocalTensor& src1) const {
    return {*this, src1};
  }
  TensorSymbol<T, TensorSymbolOp::kMul> operator*(const LocalTensor& src1) const {
    return {*this, src1};
  }
  TensorSymbol<T, TensorSymbolOp::kDiv> operator/(const LocalTensor& src1) const {
    return {*this, src1};
  }
  TensorSymbol<T, TensorSymbolOp::kOr> operator|(const LocalTensor& src1) const {
    return {*this, src1};
  }
  TensorSymbol<T, TensorSymbolOp::kAnd> operator&(const LocalTensor& src1) const {
    return {*this, src1};
  }
  template <TensorSymbolOp op>
  void operator=(const TensorSymbol<T, op>& symbol) const;  // vector.h

  // The same bytes seen as U (size rounds down to whole elements; int4b_t has two per byte).
  template <class U>
  LocalTensor<U> ReinterpretCast() const {
    return LocalTensor<U>(reinterpret_cast<U*>(data_),
                          static_cast<uint32_t>(uint64_t{size_} * kElemBits<T> / kElemBits<U>),
                          pos_, checked_, generation_, seen_);
  }

  // True while the buffer behind the view has not been freed (always true in fast mode views).
  bool Live() const { return generation_ == nullptr || *generation_ == seen_; }
  const uint32_t* generation() const { return generation_; }
  uint32_t seen_generation() const { return seen_; }

  // Checked mode: fails the block unless [0, count) lies in this view of a live buffer. A
  // destination role ("dst", "destination ...") marks the elements written unless `note_write` is
  // false: instructions whose destination takes its sources' written state (ShadowPropagate) must
  // not mark it first, or an in-place source would read as written.
  void CheckRange(uint64_t count, const char* api, const char* role, bool note_write = true) const {
    TESSERA_KERNEL_CHECK(checked_, count <= size_ && Live(), api,
                         std::string(role) + ": " +
                             (Live() ? "count " + std::to_string(count) + " exceeds the tensor's " +
                                           std::to_string(size_) + " elements"
                                     : UseAfterFree()));
    if (checked_ && note_write && role[0] == 'd') detail::ShadowWritten(data_, Bytes(count));
  }

 private:
  static constexpr bool kInt4 = kElemBits<T> == 4;
  // Bytes that hold `count` elements.
  static uint64_t Bytes(uint64_t count) { return (count * kElemBits<T> + 7) / 8; }
  uint8_t& Byte(uint32_t index) const { return reinterpret_cast<uint8_t*>(data_)[index / 2]; }

  void CheckIndex(uint32_t index, const char* api) const {
    TESSERA_KERNEL_CHECK(checked_, index < size_ && Live(), api, Describe(index, "index"));
  }
  std::string Describe(uint32_t value, const char* what) const {
    if (!Live()) return UseAfterFree();
    return std::string(what) + " " + std::to_string(value) + " is outside the tensor's " +
           std::to_string(size_) + " elements (" + TPositionName(pos_) + ")";
  }

  std::string UseAfterFree() const {
    return std::string("use after FreeTensor: the tensor's buffer (") + TPositionName(pos_) +
           ") was already freed with FreeTensor";
  }

  T* data_ = nullptr;
  uint32_t size_ = 0;
  TPosition pos_ = TPosition::VECCALC;
  bool checked_ = false;
  const uint32_t* generation_ = nullptr;
  uint32_t seen_ = 0;
  ShapeInfo shape_info_;
};

}  // namespace tessera::kernel

// The block engine: runs a tile program over this core's share of the work. Compiled once per
// instruction-set level in src/elewise (Highway dynamic dispatch), so user operators instantiate
// no SIMD code and build fast.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "tessera/core/data_type.h"
#include "tessera/elewise/detail/program.h"

namespace tessera::elewise::block {

// A vector of trivially copyable elements that keeps up to N of them in place and goes to the heap
// only beyond: the per-block tables (operands, registers) are rebuilt on every launch of every
// block, and a small launch must not allocate.
template <class T, size_t N>
class InlineVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "InlineVector holds trivially copyable elements only");

 public:
  InlineVector() = default;
  InlineVector(const InlineVector& other) { CopyFrom(other); }
  InlineVector(InlineVector&& other) noexcept { MoveFrom(other); }
  InlineVector& operator=(const InlineVector& other) {
    if (this != &other) {
      size_ = 0;
      CopyFrom(other);
    }
    return *this;
  }
  InlineVector& operator=(InlineVector&& other) noexcept {
    if (this != &other) {
      ::operator delete(heap_);
      heap_ = nullptr;
      capacity_ = N;
      MoveFrom(other);
    }
    return *this;
  }
  ~InlineVector() { ::operator delete(heap_); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return heap_ != nullptr ? heap_ : Inline(); }
  const T* data() const { return heap_ != nullptr ? heap_ : Inline(); }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }

  void clear() { size_ = 0; }
  void reserve(size_t n) {
    if (n > capacity_) Grow(n);
  }
  void resize(size_t n) { resize(n, T{}); }
  // `value` is copied before growing: it may be one of this vector's elements.
  void resize(size_t n, const T& value) {
    const T copy = value;
    reserve(n);
    for (size_t i = size_; i < n; ++i)
      ::new (static_cast<void*>(data() + i)) T(copy);
    size_ = n;
  }
  void assign(size_t n, const T& value) {
    size_ = 0;
    resize(n, value);
  }
  void push_back(const T& value) {
    const T copy = value;
    if (size_ == capacity_) Grow(2 * capacity_);
    ::new (static_cast<void*>(data() + size_)) T(copy);
    ++size_;
  }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    push_back(T(std::forward<Args>(args)...));
    return back();
  }

 private:
  T* Inline() { return std::launder(reinterpret_cast<T*>(inline_)); }
  const T* Inline() const { return std::launder(reinterpret_cast<const T*>(inline_)); }
  void Grow(size_t n) {
    T* fresh = static_cast<T*>(::operator new(n * sizeof(T)));
    if (size_ > 0) std::memcpy(static_cast<void*>(fresh), data(), size_ * sizeof(T));
    ::operator delete(heap_);
    heap_ = fresh;
    capacity_ = n;
  }
  void CopyFrom(const InlineVector& other) {
    reserve(other.size_);
    if (other.size_ > 0)
      std::memcpy(static_cast<void*>(data()), other.data(), other.size_ * sizeof(T));
    size_ = other.size_;
  }
  // `this` holds no heap block.
  void MoveFrom(InlineVector& other) {
    if (other.heap_ != nullptr) {
      heap_ = std::exchange(other.heap_, nullptr);
      capacity_ = std::exchange(other.capacity_, N);
    } else if (other.size_ > 0) {
      std::memcpy(static_cast<void*>(Inline()), other.Inline(), other.size_ * sizeof(T));
    }
    size_ = std::exchange(other.size_, 0);
  }

  alignas(T) unsigned char inline_[N * sizeof(T)];
  T* heap_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = N;
};

// Operands kept in place per block (op kernels take at most 16 parameters); more go to the heap.
inline constexpr size_t kInlineOperands = 16;
inline constexpr size_t kInlineAttrs = 8;

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
  InlineVector<Operand, kInlineOperands> operands;  // PlaceHolder N is operands[N - 1]
  InlineVector<uint32_t, kInlineAttrs> attr_bits;   // fp32 or int32 bits of each program attribute
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

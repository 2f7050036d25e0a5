// The prelude of every kernel the Python JIT generates (python/tessera/jit.py): tessera's kernel
// API, the tensor views, tiles and copies the generated code calls. Compiled once into a
// precompiled header by the build (jit.build_pch), so a kernel compiles only its own code.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <type_traits>

#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tessera/kernel/kernel.h"
#include "tessera/tessera_nn.h"
#include "tessera/tiling/tiling_data.h"

// The C API's stream handle (src/runtime/c_api_internal.h declares the same struct).
struct tsrStreamHandle {
  tessera::device::Stream stream;
};

namespace tsr_jit {
using namespace tessera::kernel;
using tessera::bfloat16;
using tessera::half;

std::atomic<int> g_failed_line{0};

// Records the Python line of the statement that was running when a kernel block unwound.
struct LineGuard {
  int line = 0;
  ~LineGuard() {
    if (std::uncaught_exceptions() > 0 && line > 0) {
      int expected = 0;
      g_failed_line.compare_exchange_strong(expected, line);
    }
  }
};

[[noreturn]] inline void Fail(const char* where, const std::string& message) {
  tessera::device::FailBlock(tessera::StatusCode::kKernelError,
                             std::string(where) + ": " + message);
}

inline int64_t FloorDiv(int64_t a, int64_t b, const char* where) {
  if (b == 0) Fail(where, "integer division by zero");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t Mod(int64_t a, int64_t b, const char* where) {
  if (b == 0) Fail(where, "integer modulo by zero");
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
inline double FloorDivF(double a, double b) {
  return std::floor(a / b);
}
inline double ModF(double a, double b) {
  return a - std::floor(a / b) * b;
}
inline int64_t Index(int64_t i, int64_t n, const char* where) {
  if (i < 0) i += n;
  if (i < 0 || i >= n)
    Fail(where,
         "index " + std::to_string(i) + " out of range for " + std::to_string(n) + " elements");
  return i;
}

template <class T, size_t R>
struct Tensor {
  T* data = nullptr;
  int64_t shape[R] = {};
  int64_t stride[R] = {};
};

template <class T, size_t R>
Tensor<T, R> MakeTensor(T* ptr, const std::array<int64_t, R>& shape,
                        const std::array<int64_t, R>& stride, const char* where) {
  Tensor<T, R> t;
  t.data = ptr;
  int64_t last = 0;
  bool empty = false;
  for (size_t i = 0; i < R; ++i) {
    if (shape[i] < 0 || stride[i] < 0) {
      Fail(where, "make_tensor: negative shape or stride (dim " + std::to_string(i) + ": shape " +
                      std::to_string(shape[i]) + ", stride " + std::to_string(stride[i]) + ")");
    }
    t.shape[i] = shape[i];
    t.stride[i] = stride[i];
    if (shape[i] == 0) empty = true;
    last += (shape[i] - 1) * stride[i];
  }
  if (CheckedLaunch() && !empty) {
    const uint64_t need = static_cast<uint64_t>(last + 1) * sizeof(T);
    const size_t have = tessera::device::DeviceBytesFrom(ptr);
    if (have < need) {
      Fail(where,
           "make_tensor: the view spans " + std::to_string(need) + " bytes but " +
               (have == 0 ? std::string("the pointer is not device memory")
                          : "only " + std::to_string(have) + " bytes are left in its allocation"));
    }
  }
  return t;
}

// Rows and columns of the tensor region [off, off + tile) that exist; tensors of rank 1 are one
// row. Checked mode reports an offset outside the tensor.
template <class T, size_t R>
void Region(const Tensor<T, R>& t, const std::array<int64_t, R>& off, int64_t rows, int64_t cols,
            int64_t& r_valid, int64_t& c_valid, int64_t& base, int64_t& pitch, int64_t& cstride,
            const char* api, const char* where) {
  for (size_t i = 0; i < R; ++i) {
    if (off[i] < 0 || (CheckedLaunch() && off[i] >= t.shape[i] && t.shape[i] > 0)) {
      Fail(where, std::string(api) + ": offset " + std::to_string(off[i]) + " of dim " +
                      std::to_string(i) + " is outside the tensor's " + std::to_string(t.shape[i]));
    }
  }
  if constexpr (R == 1) {
    r_valid = 1;
    c_valid = std::max<int64_t>(0, std::min<int64_t>(rows * cols, t.shape[0] - off[0]));
    base = off[0] * t.stride[0];
    pitch = 0;
    cstride = t.stride[0];
  } else {
    r_valid = std::max<int64_t>(0, std::min<int64_t>(rows, t.shape[0] - off[0]));
    c_valid = std::max<int64_t>(0, std::min<int64_t>(cols, t.shape[1] - off[1]));
    base = off[0] * t.stride[0] + off[1] * t.stride[1];
    pitch = t.stride[0];
    cstride = t.stride[1];
  }
}

template <class T, size_t R>
void Load(const LocalTensor<T>& tile, int64_t rows, int64_t cols, const Tensor<T, R>& src,
          const std::array<int64_t, R>& off, const char* where) {
  int64_t rv, cv, base, pitch, cs;
  Region(src, off, rows, cols, rv, cv, base, pitch, cs, "load", where);
  if (rv == 0 || cv == 0) return;
  const int64_t row_elems = (R == 1) ? rows * cols : cols;
  if (cs == 1) {
    GlobalTensor<T> g;
    const int64_t span = (rv - 1) * pitch + cv;
    g.SetGlobalBuffer(src.data + base, static_cast<uint64_t>(span));
    DataCopyExtParams p;
    p.blockCount = static_cast<uint16_t>(rv);
    p.blockLen = static_cast<uint32_t>(cv * sizeof(T));
    p.srcStride = static_cast<uint32_t>((pitch - cv) * sizeof(T));
    const int64_t row_bytes = (cv * static_cast<int64_t>(sizeof(T)) + 31) / 32 * 32;
    p.dstStride =
        static_cast<uint32_t>((row_elems * static_cast<int64_t>(sizeof(T)) - row_bytes) / 32);
    DataCopyPad(tile, g, p, DataCopyPadExtParams<T>{});
    return;
  }
  tile.CheckRange(static_cast<uint64_t>(rows * cols), "load", "tile");
  for (int64_t r = 0; r < rv; ++r)
    for (int64_t c = 0; c < cv; ++c)
      tile.data()[r * row_elems + c] = src.data[base + r * pitch + c * cs];
}

template <class T, size_t R>
void Store(const Tensor<T, R>& dst, const LocalTensor<T>& tile, int64_t rows, int64_t cols,
           const std::array<int64_t, R>& off, const char* where) {
  int64_t rv, cv, base, pitch, cs;
  Region(dst, off, rows, cols, rv, cv, base, pitch, cs, "store", where);
  if (rv == 0 || cv == 0) return;
  const int64_t row_elems = (R == 1) ? rows * cols : cols;
  if (cs == 1) {
    GlobalTensor<T> g;
    const int64_t span = (rv - 1) * pitch + cv;
    g.SetGlobalBuffer(dst.data + base, static_cast<uint64_t>(span));
    DataCopyExtParams p;
    p.blockCount = static_cast<uint16_t>(rv);
    p.blockLen = static_cast<uint32_t>(cv * sizeof(T));
    p.dstStride = static_cast<uint32_t>((pitch - cv) * sizeof(T));
    const int64_t row_bytes = (cv * static_cast<int64_t>(sizeof(T)) + 31) / 32 * 32;
    p.srcStride =
        static_cast<uint32_t>((row_elems * static_cast<int64_t>(sizeof(T)) - row_bytes) / 32);
    DataCopyPad(g, tile, p);
    return;
  }
  tile.CheckRange(static_cast<uint64_t>(rows * cols), "store", "tile");
  for (int64_t r = 0; r < rv; ++r)
    for (int64_t c = 0; c < cv; ++c)
      dst.data[base + r * pitch + c * cs] = tile.data()[r * row_elems + c];
}

// A cube tile (L1, L0A, L0B, L0C): the buffer and the rows/columns its last producer filled.
// Loads clip at the tensor's bounds, so a tile at a tail holds fewer valid rows or columns
// than its TileType; moves, matmuls and stores carry that extent on.
template <class T>
struct CubeTile {
  LocalTensor<T> t;
  int64_t rows = 0, cols = 0;  // the TileType's shape
  int64_t vr = 0, vc = 0;      // valid rows and columns
};

enum class Space { kVec, kMat, kLeft, kRight, kAcc };

inline int64_t RoundUp16(int64_t v) {
  return (v + 15) / 16 * 16;
}

// A tile at byte `addr` of the buffer `space` of the running core. An `optional` tile on a core
// without that buffer (an AIC for UB, an AIV for L1/L0) is empty: that core never uses it.
template <class T>
LocalTensor<T> ArenaTile(Space space, size_t addr, uint32_t elements, bool optional,
                         const char* where) {
  const tessera::device::BlockContext* blk = tessera::device::CurrentBlock();
  static constexpr const char* kNames[] = {"UB", "L1", "L0A", "L0B", "L0C"};
  static constexpr TPosition kPos[] = {TPosition::VECCALC, TPosition::A1, TPosition::A2,
                                       TPosition::B2, TPosition::CO1};
  std::byte* base = nullptr;
  size_t capacity = 0;
  if (blk != nullptr) {
    switch (space) {
      case Space::kVec:
        base = blk->ub;
        capacity = blk->ub_bytes;
        break;
      case Space::kMat:
        base = blk->l1;
        capacity = blk->l1_bytes;
        break;
      case Space::kLeft:
        base = blk->l0a;
        capacity = blk->l0a_bytes;
        break;
      case Space::kRight:
        base = blk->l0b;
        capacity = blk->l0b_bytes;
        break;
      default:
        base = blk->l0c;
        capacity = blk->l0c_bytes;
        break;
    }
  }
  const int idx = static_cast<int>(space);
  if (base == nullptr) {
    if (optional) return LocalTensor<T>();
    Fail(where, std::string("make_tile: this core has no ") + kNames[idx] +
                    (space == Space::kVec ? " (a vector tile needs an AIV kernel)"
                                          : " (a cube tile needs pl.section_cube())"));
  }
  const size_t bytes = size_t{elements} * sizeof(T);
  if (addr + bytes > capacity) {
    Fail(where, std::string("make_tile: tile at ") + kNames[idx] + " address " +
                    std::to_string(addr) + " of " + std::to_string(bytes) + " bytes exceeds the " +
                    kNames[idx] + " capacity of " + std::to_string(capacity) + " bytes");
  }
  return LocalTensor<T>(reinterpret_cast<T*>(base + addr), elements, kPos[idx], blk->checked,
                        nullptr, 0);
}

template <class T>
CubeTile<T> MakeCubeTile(Space space, size_t addr, int64_t rows, int64_t cols, bool optional,
                         const char* where) {
  CubeTile<T> tile;
  tile.t = ArenaTile<T>(space, addr, static_cast<uint32_t>(rows * cols), optional, where);
  tile.rows = rows;
  tile.cols = cols;
  return tile;
}

// make_tile_group: N tiles used in turn (next/current/previous, or by index).
template <class Tile, size_t N>
struct TileGroup {
  std::array<Tile, N> slots{};
  int64_t cur = -1;
  Tile* Next() {
    cur = (cur + 1) % static_cast<int64_t>(N);
    return &slots[cur];
  }
  Tile* Current(const char* where) {
    if (cur < 0) Fail(where, "tile group: current() before the first next()");
    return &slots[cur];
  }
  Tile* Previous(const char* where) {
    if (cur < 0) Fail(where, "tile group: previous() before the first next()");
    return &slots[(cur + static_cast<int64_t>(N) - 1) % static_cast<int64_t>(N)];
  }
  Tile* At(int64_t i, const char* where) {
    if (i < 0 || i >= static_cast<int64_t>(N)) {
      Fail(where, "tile group: index " + std::to_string(i) + " out of range for " +
                      std::to_string(N) + " tiles");
    }
    return &slots[i];
  }
};

template <class Tile>
Tile& Deref(Tile* tile, const char* where) {
  if (tile == nullptr) Fail(where, "tile used before it was taken from its tile group");
  return *tile;
}

// GM (ND) -> L1 (Nz): the tile's rows padded to fractals of 16, columns in C0 blocks.
template <class T, size_t R>
void LoadMat(CubeTile<T>& tile, const Tensor<T, R>& src, const std::array<int64_t, R>& off,
             const char* where) {
  int64_t rv, cv, base, pitch, cs;
  Region(src, off, tile.rows, tile.cols, rv, cv, base, pitch, cs, "load", where);
  if (cs != 1) Fail(where, "load: a Mat tile needs a tensor with unit column stride");
  tile.vr = rv;
  tile.vc = cv;
  if (rv == 0 || cv == 0) return;
  GlobalTensor<T> g;
  g.SetGlobalBuffer(src.data + base, static_cast<uint64_t>((rv - 1) * pitch + cv));
  DataCopy(tile.t, g, Nd2NzParams{1, rv, cv, 0, pitch, tile.rows, 1, 0});
}

// L1 (Nz) -> L0A (Zz) or L0B (Zn), as many fractals as the valid extent needs (Mmad derives
// its fractal strides from m, n and k).
template <class T>
void MoveToL0(CubeTile<T>& dst, const CubeTile<T>& src, bool right) {
  dst.vr = src.vr;
  dst.vc = src.vc;
  constexpr int64_t c0 = 32 / static_cast<int64_t>(sizeof(T));
  constexpr int64_t frac = 16 * c0;
  const int64_t src_row_blocks = src.rows / 16;
  if (!right) {
    const int64_t m1 = (src.vr + 15) / 16, k1 = (src.vc + c0 - 1) / c0;
    for (int64_t i = 0; i < m1; ++i)
      LoadData(dst.t[static_cast<uint32_t>(i * k1 * frac)], src.t[static_cast<uint32_t>(i * frac)],
               LoadData2DParams{0, k1, src_row_blocks, 0, 0, false, 0});
  } else {
    const int64_t k1 = (src.vr + c0 - 1) / c0, n1 = (src.vc + 15) / 16;
    for (int64_t i = 0; i < k1; ++i)
      LoadData(dst.t[static_cast<uint32_t>(i * n1 * frac)], src.t[static_cast<uint32_t>(i * frac)],
               LoadData2DParams{0, n1, src_row_blocks, 0, 0, true, 0});
  }
}

// acc = a x b (init) or acc += a x b. m is rounded up to whole fractals: rows past the valid
// ones are computed and never stored (and m == 1 would select the GEMV layout).
template <class C, class T>
void Matmul(CubeTile<C>& acc, const CubeTile<T>& a, const CubeTile<T>& b, bool init,
            const char* where) {
  const char* api = init ? "matmul" : "matmul_acc";
  if (a.vc != b.vr) {
    Fail(where, std::string(api) + ": the left tile holds " + std::to_string(a.vc) +
                    " valid columns (K) but the right tile " + std::to_string(b.vr) + " rows");
  }
  if (!init && (acc.vr != a.vr || acc.vc != b.vc)) {
    Fail(where, std::string(api) + ": the accumulator holds " + std::to_string(acc.vr) + " x " +
                    std::to_string(acc.vc) + " valid elements, the product is " +
                    std::to_string(a.vr) + " x " + std::to_string(b.vc));
  }
  acc.vr = a.vr;
  acc.vc = b.vc;
  Mmad(acc.t, a.t, b.t, MmadParams{RoundUp16(a.vr), b.vc, a.vc, 0, false, init});
}

// L0C (Nz, fp32) -> GM (ND) through Fixpipe, cast to the tensor's dtype.
template <class O, class C, size_t R>
void StoreAcc(const Tensor<O, R>& dst, const CubeTile<C>& acc, const std::array<int64_t, R>& off,
              const char* where) {
  int64_t rv, cv, base, pitch, cs;
  Region(dst, off, acc.rows, acc.cols, rv, cv, base, pitch, cs, "store", where);
  if (cs != 1) Fail(where, "store: an Acc tile needs a tensor with unit column stride");
  rv = std::min(rv, acc.vr);
  cv = std::min(cv, acc.vc);
  if (rv == 0 || cv == 0) return;
  GlobalTensor<O> g;
  g.SetGlobalBuffer(dst.data + base, static_cast<uint64_t>((rv - 1) * pitch + cv));
  QuantMode_t quant = QuantMode_t::NoQuant;
  if constexpr (std::is_same_v<O, half>) quant = QuantMode_t::F322F16;
  if constexpr (std::is_same_v<O, bfloat16>) quant = QuantMode_t::F322BF16;
  Fixpipe<O, C, CFG_ROW_MAJOR>(
      g, acc.t, FixpipeParamsV220{cv, rv, RoundUp16(acc.vr), pitch, false, quant, 0, 1, 0, 0, 0});
}

// MIX kernels: the cube section's results reach the vector sections through GM, after a flag;
// the vector sections answer, and the AIC waits for that answer before its next cube section
// (so it runs at most one section ahead and a flag counter never holds more than one count).
inline bool IsCube() {
  return tessera::device::GetCoreType() == tessera::device::CoreType::kAic;
}
inline void CubeStart(bool& pending) {
  if (pending) CrossCoreWaitFlag(1);
  pending = false;
}
inline void CubeDone(bool& pending) {
  CrossCoreSetFlag<2, PIPE_FIX>(0);
  pending = true;
}
inline void VectorStart() {
  CrossCoreWaitFlag(0);
}
inline void VectorDone() {
  CrossCoreSetFlag<2, PIPE_MTE3>(1);
}

template <class T>
void Neg(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t n) {
  Muls(dst, src, static_cast<T>(-1.0f), n);
}
template <class T, class S>
void SubScalar(const LocalTensor<T>& dst, const LocalTensor<T>& src, S s, int32_t n) {
  Adds(dst, src, static_cast<T>(-static_cast<double>(s)), n);
}
template <class T, class S>
void DivScalar(const LocalTensor<T>& dst, const LocalTensor<T>& src, S s, int32_t n) {
  Muls(dst, src, static_cast<T>(1.0 / static_cast<double>(s)), n);
}
}  // namespace tsr_jit

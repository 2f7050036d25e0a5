// The block engine (see engine.h), compiled for every Highway target and dispatched once per block.
//
// Registers are micro-tiles of 32-bit lanes. Every op runs over whole vectors (the register
// capacity is a multiple of the vector length, so lanes past `len` are scratch); only sinks and
// loads from global memory touch exactly `len` elements, so no tensor is read or written past its
// end.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "engine.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "tessera/elewise/detail/engine.h"
#include "tessera/elewise/detail/rounded-inl.h"
#include "tessera/kernel/detail/math-inl.h"

#ifndef TESSERA_SRC_ELEWISE_ENGINE_ONCE_
#define TESSERA_SRC_ELEWISE_ENGINE_ONCE_
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "tessera/core/float16.h"
#include "tessera/device/block.h"
#include "tessera/device/gm_access.h"
#include "tessera/kernel/detail/pipe_phase.h"
#include "tessera/kernel/vector_types.h"
#endif

HWY_BEFORE_NAMESPACE();
namespace tessera::elewise::block {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
namespace km = ::tessera::kernel::math::HWY_NAMESPACE;
using tile::Instr;
using tile::Lane;
using tile::OpCode;
using tile::ReduceKind;
using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;
using DU = hn::RebindToUnsigned<DF>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;
using VU = hn::Vec<DU>;

// ---- scalar conversions (tails and broadcasts) ----------------------------------------------

float LoadScalarF(const void* p, DataType t) {
  switch (t) {
    case DataType::kFloat16:
      return HalfBitsToFloat(*static_cast<const uint16_t*>(p));
    case DataType::kBfloat16:
      return Bfloat16BitsToFloat(*static_cast<const uint16_t*>(p));
    default:
      return *static_cast<const float*>(p);
  }
}

void StoreScalar(void* p, DataType t, uint32_t bits) {
  switch (t) {
    case DataType::kFloat16:
      *static_cast<uint16_t*>(p) = FloatToHalfBits(std::bit_cast<float>(bits));
      return;
    case DataType::kBfloat16:
      *static_cast<uint16_t*>(p) = FloatToBfloat16Bits(std::bit_cast<float>(bits));
      return;
    default:
      std::memcpy(p, &bits, 4);
  }
}

// ---- vector conversions ---------------------------------------------------------------------

HWY_INLINE VF Bf16ToF32(DF df, const uint16_t* p) {
  const hn::Rebind<uint16_t, DF> d16;
  return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(DU(), hn::LoadU(d16, p))));
}

HWY_INLINE VF HalfToF32(DF df, const uint16_t* p) {
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
}

HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> F32ToBf16(VF v) {
  return km::NarrowU16(hn::Rebind<uint16_t, DF>(), km::Bf16Bits(DF(), v));
}

HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> F32ToHalf(VF v) {
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::BitCast(hn::Rebind<uint16_t, DF>(), hn::DemoteTo(dh, v));
}

// ---- math: the kernel layer's library (accuracy in docs/kernel_vector.md) ------------------

// x^y = exp(y log|x|), with the sign of x for odd integer y, NaN for negative x and non-integer y,
// and pow(x, 0) = 1.
HWY_INLINE VF PowF(DF d, VF x, VF y) {
  const VF r = km::Exp(d, hn::Mul(y, km::Ln(d, hn::Abs(x))));
  const auto neg = hn::Lt(x, hn::Zero(d));
  const auto integral = hn::Eq(hn::Round(y), y);
  const VF halfy = hn::Mul(y, hn::Set(d, 0.5f));
  const auto odd = hn::And(integral, hn::Ne(hn::Round(halfy), halfy));
  VF out = hn::IfThenElse(hn::And(neg, odd), hn::Neg(r), r);
  out = hn::IfThenElse(hn::AndNot(integral, neg),
                       hn::Set(d, std::numeric_limits<float>::quiet_NaN()), out);
  return hn::IfThenElse(hn::Eq(y, hn::Zero(d)), hn::Set(d, 1.0f), out);
}

template <class D, class V>
HWY_INLINE hn::Mask<D> Compare(OpCode op, V a, V b) {
  switch (op) {
    case OpCode::kEq:
      return hn::Eq(a, b);
    case OpCode::kNe:
      return hn::Ne(a, b);
    case OpCode::kLt:
      return hn::Lt(a, b);
    case OpCode::kGt:
      return hn::Gt(a, b);
    default:
      break;
  }
  // Highway 1.0 has no integer Le/Ge; without NaN they are the negated Gt/Lt.
  if constexpr (std::is_same_v<hn::TFromD<D>, float>) {
    return op == OpCode::kLe ? hn::Le(a, b) : hn::Ge(a, b);
  } else {
    return op == OpCode::kLe ? hn::Not(hn::Gt(a, b)) : hn::Not(hn::Lt(a, b));
  }
}

// fp32 -> int32 with a RoundMode; out-of-range values saturate.
HWY_INLINE VI CastToInt(DF d, VF x, ::tessera::kernel::RoundMode mode) {
  const DI di;
  switch (mode) {
    case ::tessera::kernel::RoundMode::CAST_FLOOR:
      return hn::ConvertTo(di, hn::Floor(x));
    case ::tessera::kernel::RoundMode::CAST_CEIL:
      return hn::ConvertTo(di, hn::Ceil(x));
    case ::tessera::kernel::RoundMode::CAST_TRUNC:
      return hn::ConvertTo(di, hn::Trunc(x));
    case ::tessera::kernel::RoundMode::CAST_ROUND: {
      // Half away from zero; |x - trunc(x)| is exact, so the tie test is exact.
      const VF t = hn::Trunc(x);
      const VF away = hn::Add(t, hn::CopySign(hn::Set(d, 1.0f), x));
      return hn::ConvertTo(
          di, hn::IfThenElse(hn::Ge(hn::Abs(hn::Sub(x, t)), hn::Set(d, 0.5f)), away, t));
    }
    default:
      return hn::NearestInt(x);
  }
}

// ---- the interpreter ------------------------------------------------------------------------

// Vector length in fp32 lanes; a constant on fixed-width targets, so loops keep it in a register.
HWY_INLINE size_t Lanes() {
  return hn::Lanes(DF());
}

struct AlignedSink {
  template <class D, class V, class T>
  HWY_INLINE void operator()(D d, V v, T* p) const {
    hn::Store(v, d, p);
  }
};
struct UnalignedSink {
  template <class D, class V, class T>
  HWY_INLINE void operator()(D d, V v, T* p) const {
    hn::StoreU(v, d, p);
  }
};
struct StreamSink {
  template <class D, class V, class T>
  HWY_INLINE void operator()(D d, V v, T* p) const {
    hn::Stream(v, d, p);
  }
};

class Engine {
 public:
  Engine(const BlockParams& p, std::byte* ub, size_t ub_bytes, std::byte* spill_gm, bool checked)
      : p_(p), prog_(p.program), tile_(p.tile_elems), checked_(checked) {
    const size_t reg_bytes = size_t{tile_} * 4;
    std::byte* cursor = ub;
    regs_.assign(prog_.num_regs, nullptr);
    scratch_.assign(prog_.num_regs, nullptr);
    uniform_.assign(prog_.num_regs, 0);
    for (uint32_t i = 0; i < prog_.num_regs; ++i, cursor += reg_bytes)
      scratch_[i] = cursor;
    if (p.traversal == Traversal::kColumns) {
      // Each RA reduction keeps a value and a Kahan compensation row in UB.
      for (size_t i = 0; i < prog_.reduced.size(); ++i, cursor += 2 * reg_bytes) {
        racc_.push_back(reinterpret_cast<uint32_t*>(cursor));
      }
    }
    if (prog_.num_spills > 0) {
      spill_ = p.spill_in_ub ? cursor : spill_gm;
      if (p.spill_in_ub) cursor += prog_.num_spills * p.spill_elems * 4;
    }
    if (static_cast<size_t>(cursor - ub) > ub_bytes) {
      device::FailBlock(StatusCode::kOutOfRange,
                        "elewise: the tile program needs " + std::to_string(cursor - ub) +
                            " bytes of UB, the block has " + std::to_string(ub_bytes));
    }
    // A half/bfloat16 operand shared by every row (gamma [N]) is widened once per block into the
    // UB left over, instead of once per row, when it fits.
    widened_.assign(p.operands.size(), nullptr);
    if (p.traversal == Traversal::kRows) {
      const size_t row_bytes = (static_cast<size_t>(p.cols) + 63) / 64 * 64 * 4;
      for (size_t i = 0; i < p.operands.size(); ++i) {
        const Operand& o = p.operands[i];
        if (!prog_.params[i].is_tensor || ElemSize(o.dtype) != 2 || o.row_stride != 0 ||
            p.row_rank != 0 || o.col_stride != 1 ||
            static_cast<size_t>(cursor - ub) + row_bytes > ub_bytes) {
          continue;
        }
        auto* dst = reinterpret_cast<float*>(cursor);
        cursor += row_bytes;
        const auto* src = static_cast<const uint16_t*>(o.ptr);
        for (int64_t k = 0; k < p.cols; ++k)
          dst[k] = LoadScalarF(src + k, o.dtype);
        std::fill(dst + p.cols, reinterpret_cast<float*>(cursor), 0.0f);
        widened_[i] = dst;
      }
    }
    acc_.assign(prog_.reduced.size(), 0.0);
    iacc_.assign(prog_.reduced.size(), 0);
    fin_.assign(prog_.reduced.size(), 0u);
  }

  void Run(int64_t begin, int64_t count) {
    const int64_t end = begin + count;
    switch (p_.traversal) {
      case Traversal::kFlat:
        for (int64_t c = begin; c < end; c += tile_) {
          const auto len = static_cast<uint32_t>(std::min<int64_t>(tile_, end - c));
          Prefetch(prog_.passes[0], 0, c + int64_t{tile_} * p_.prefetch_tiles, end);
          Exec(prog_.passes[0], 0, c, len, false);
        }
        return;
      case Traversal::kRows:
        for (int64_t r = begin; r < end; ++r) {
          for (const tile::PassInfo& pass : prog_.passes) {
            // Later passes re-read the row from cache; the last one fetches the start of the
            // next row for the first pass, so row changes do not stall on memory.
            const bool last = &pass == &prog_.passes.back() && r + 1 < end;
            BeginReductions(pass);
            for (int64_t c = 0; c < p_.cols; c += tile_) {
              const auto len = static_cast<uint32_t>(std::min<int64_t>(tile_, p_.cols - c));
              const int64_t ahead = c + int64_t{tile_} * p_.prefetch_tiles;
              if (&pass == &prog_.passes.front()) Prefetch(pass, r, ahead, p_.cols);
              if (last && ahead >= p_.cols) {
                Prefetch(prog_.passes.front(), r + 1, ahead - p_.cols, p_.cols);
              }
              Exec(pass, r, c, len, c == 0);
            }
            FinishRowReductions(pass, r);
          }
        }
        return;
      case Traversal::kColumns:
        for (int64_t c = begin; c < end; c += tile_) {
          const auto len = static_cast<uint32_t>(std::min<int64_t>(tile_, end - c));
          for (const tile::PassInfo& pass : prog_.passes) {
            for (int64_t r = 0; r < p_.rows; ++r)
              Exec(pass, r, c, len, r == 0);
            FinishColumnReductions(pass, c, len);
          }
        }
        return;
    }
  }

 private:
  static size_t ElemSize(DataType t) {
    return t == DataType::kFloat16 || t == DataType::kBfloat16 ? 2 : 4;
  }
  size_t Rounded(uint32_t len) const { return (len + Lanes() - 1) / Lanes() * Lanes(); }
  // Element offset of row r of `o` (see Operand).
  int64_t RowOffset(const Operand& o, int64_t r) const {
    if (p_.row_rank == 0) return r * o.row_stride;
    int64_t off = 0;
    for (int k = static_cast<int>(p_.row_rank) - 1; k >= 0; --k) {
      off += r % p_.row_dims[k] * o.row_strides[k];
      r /= p_.row_dims[k];
    }
    return off;
  }
  float* F(uint8_t reg) { return static_cast<float*>(scratch_[reg]); }
  const float* RF(uint8_t reg) const { return static_cast<const float*>(regs_[reg]); }
  const int32_t* RI(uint8_t reg) const { return static_cast<const int32_t*>(regs_[reg]); }

  // The software form of the NPU's asynchronous copy-in: lines of a later tile are requested
  // while this one computes, across page boundaries the hardware prefetcher does not cross.
  void Prefetch(const tile::PassInfo& pass, int64_t r, int64_t c, int64_t end) const {
    if (p_.prefetch_tiles == 0 || c >= end) return;
    const int64_t n = std::min<int64_t>(tile_, end - c);
    for (uint32_t i = pass.first; i < pass.first + pass.count; ++i) {
      const Instr& in = prog_.instrs[i];
      if (in.op != OpCode::kLoad) continue;
      const Operand& o = p_.operands[in.index];
      if (o.col_stride != 1) continue;
      const size_t es = ElemSize(o.dtype);
      const auto* base =
          static_cast<const char*>(o.ptr) + static_cast<size_t>(RowOffset(o, r) + c) * es;
      for (size_t off = 0; off < static_cast<size_t>(n) * es; off += 64) {
        __builtin_prefetch(base + off, 0, 3);
      }
    }
  }

  void Fill(uint8_t dst, uint32_t bits) {
    const DU du;
    const VU v = hn::Set(du, bits);
    auto* out = static_cast<uint32_t*>(scratch_[dst]);
    hn::Store(v, du, out);
    regs_[dst] = out;
    uniform_[dst] = 1;
  }

  void Load(const Instr& in, int64_t r, int64_t c, uint32_t len) {
    const Operand& o = p_.operands[in.index];
    const char* base = static_cast<const char*>(o.ptr);
    const size_t es = ElemSize(o.dtype);
    if (o.col_stride == 0) {
      const void* src = base + static_cast<size_t>(RowOffset(o, r)) * es;
      uint32_t bits;
      if (o.dtype == DataType::kInt32) {
        std::memcpy(&bits, src, 4);
      } else {
        bits = std::bit_cast<uint32_t>(LoadScalarF(src, o.dtype));
      }
      return Fill(in.dst, bits);
    }
    if (o.col_stride != 1)
      return Gather(in, base + static_cast<size_t>(RowOffset(o, r)) * es, c, len);
    const char* src = base + static_cast<size_t>(RowOffset(o, r) + c) * es;
    uniform_[in.dst] = 0;
    if (widened_[in.index] != nullptr) {
      // Zero-padded to whole vectors when it was widened, so any tile may point into it.
      regs_[in.dst] = widened_[in.index] + c;
      return;
    }
    if (es == 4 && len % Lanes() == 0) {
      regs_[in.dst] = src;  // read in place: no copy of fp32/int32 inputs
      return;
    }
    const DF df;
    float* out = F(in.dst);
    size_t i = 0;
    if (es == 4) {
      std::memcpy(out, src, size_t{len} * 4);
      i = len;
    } else {
      const auto* s16 = reinterpret_cast<const uint16_t*>(src);
      const bool half = o.dtype == DataType::kFloat16;
      for (; i + Lanes() <= len; i += Lanes()) {
        hn::Store(half ? HalfToF32(df, s16 + i) : Bf16ToF32(df, s16 + i), df, out + i);
      }
      for (; i < len; ++i)
        out[i] = LoadScalarF(s16 + i, o.dtype);
    }
    for (const size_t n = Rounded(len); i < n; ++i)
      out[i] = 0.0f;  // defined lanes past the tail
    regs_[in.dst] = out;
    uniform_[in.dst] = 0;
  }

  // A strided input's tile, element by element into the register (a strided view's columns are
  // rarely adjacent enough for vector gathers to pay); lanes past the tail are zeroed.
  void Gather(const Instr& in, const char* row, int64_t c, uint32_t len) {
    const Operand& o = p_.operands[in.index];
    const size_t es = ElemSize(o.dtype);
    const size_t step = static_cast<size_t>(o.col_stride) * es;
    const char* src = row + static_cast<size_t>(c * o.col_stride) * es;
    float* out = F(in.dst);
    if (es == 4) {
      auto* o32 = reinterpret_cast<uint32_t*>(out);
      for (uint32_t i = 0; i < len; ++i, src += step)
        std::memcpy(o32 + i, src, 4);
    } else {
      for (uint32_t i = 0; i < len; ++i, src += step)
        out[i] = LoadScalarF(src, o.dtype);
    }
    for (size_t i = len, n = Rounded(len); i < n; ++i)
      out[i] = 0.0f;
    regs_[in.dst] = out;
    uniform_[in.dst] = 0;
  }

  void Store(const Instr& in, int64_t r, int64_t c, uint32_t len) {
    const Operand& o = p_.operands[in.index];
    const size_t es = ElemSize(o.dtype);
    char* dst = static_cast<char*>(o.ptr) + static_cast<size_t>(RowOffset(o, r) + c) * es;
    const auto* src = static_cast<const uint32_t*>(regs_[in.a]);
    const bool stream = p_.stream_outputs && !prog_.params[in.index].read_after_write;
    const DU du;
    const size_t vbytes = Lanes() * 4;
    size_t i = 0;
    if (es == 4) {
      auto* d32 = reinterpret_cast<uint32_t*>(dst);
      if (stream) {
        for (; i < len && reinterpret_cast<uintptr_t>(d32 + i) % vbytes != 0; ++i)
          d32[i] = src[i];
        for (; i + Lanes() <= len; i += Lanes())
          hn::Stream(hn::LoadU(du, src + i), du, d32 + i);
      } else {
        for (; i + Lanes() <= len; i += Lanes())
          hn::StoreU(hn::LoadU(du, src + i), du, d32 + i);
      }
      for (; i < len; ++i)
        d32[i] = src[i];
      return;
    }
    auto* d16 = reinterpret_cast<uint16_t*>(dst);
    const DF df;
    const bool half = o.dtype == DataType::kFloat16;
    const auto narrow = [&](size_t at) {
      const VF v = hn::LoadU(df, reinterpret_cast<const float*>(src + at));
      return half ? F32ToHalf(v) : F32ToBf16(v);
    };
#if HWY_TARGET != HWY_SCALAR
    if (stream) {
      const hn::Repartition<uint16_t, DF> d16full;
      for (; i < len && reinterpret_cast<uintptr_t>(d16 + i) % vbytes != 0; ++i) {
        StoreScalar(d16 + i, o.dtype, src[i]);
      }
      for (; i + 2 * Lanes() <= len; i += 2 * Lanes()) {
        hn::Stream(hn::Combine(d16full, narrow(i + Lanes()), narrow(i)), d16full, d16 + i);
      }
    }
#endif
    const hn::Rebind<uint16_t, DF> d16half;
    for (; i + Lanes() <= len; i += Lanes())
      hn::StoreU(narrow(i), d16half, d16 + i);
    for (; i < len; ++i)
      StoreScalar(d16 + i, o.dtype, src[i]);
  }

  uint32_t* SpillAddress(uint32_t slot, int64_t r, int64_t c) const {
    auto* base = reinterpret_cast<uint32_t*>(spill_) + slot * p_.spill_elems;
    return p_.traversal == Traversal::kColumns ? base + static_cast<size_t>(r) * tile_ : base + c;
  }

  void BeginReductions(const tile::PassInfo& pass) {
    for (uint32_t i = pass.first; i < pass.first + pass.count; ++i) {
      const Instr& in = prog_.instrs[i];
      if (in.op != OpCode::kReduce) continue;
      const auto kind = static_cast<ReduceKind>(in.mode & tile::kReduceKindMask);
      const double init = kind == ReduceKind::kMax   ? -HUGE_VAL
                          : kind == ReduceKind::kMin ? HUGE_VAL
                                                     : 0.0;
      acc_[in.index] = init;
      iacc_[in.index] = kind == ReduceKind::kMax   ? std::numeric_limits<int32_t>::min()
                        : kind == ReduceKind::kMin ? std::numeric_limits<int32_t>::max()
                                                   : 0;
    }
  }

  // AR: reduce `len` lanes of one tile and fold them into the row's accumulator.
  void ReduceRowTile(const Instr& in, uint32_t len) {
    const auto kind = static_cast<ReduceKind>(in.mode & tile::kReduceKindMask);
    if (in.lane == Lane::kI32) {
      const DI di;
      const int32_t* s = RI(in.a);
      const int32_t neutral = kind == ReduceKind::kMax   ? std::numeric_limits<int32_t>::min()
                              : kind == ReduceKind::kMin ? std::numeric_limits<int32_t>::max()
                                                         : 0;
      VI a = hn::Set(di, neutral);
      for (size_t i = 0; i < len; i += Lanes()) {
        const VI v =
            hn::IfThenElse(hn::FirstN(di, len - i), hn::LoadU(di, s + i), hn::Set(di, neutral));
        a = kind == ReduceKind::kMax   ? hn::Max(a, v)
            : kind == ReduceKind::kMin ? hn::Min(a, v)
                                       : hn::Add(a, v);
      }
      const int32_t part = kind == ReduceKind::kMax   ? hn::GetLane(hn::MaxOfLanes(di, a))
                           : kind == ReduceKind::kMin ? hn::GetLane(hn::MinOfLanes(di, a))
                                                      : hn::GetLane(hn::SumOfLanes(di, a));
      int64_t& acc = iacc_[in.index];
      acc = kind == ReduceKind::kMax   ? std::max<int64_t>(acc, part)
            : kind == ReduceKind::kMin ? std::min<int64_t>(acc, part)
                                       : acc + part;
      return;
    }
    const DF df;
    const float neutral = kind == ReduceKind::kMax   ? -HUGE_VALF
                          : kind == ReduceKind::kMin ? HUGE_VALF
                                                     : 0.0f;
    const bool product = (in.mode & tile::kReduceOfProduct) != 0;
    VF a;
    if (kind == ReduceKind::kMax) {
      a = FoldRow(in, len, product, neutral, [](VF x, VF v) HWY_ATTR { return hn::Max(x, v); });
    } else if (kind == ReduceKind::kMin) {
      a = FoldRow(in, len, product, neutral, [](VF x, VF v) HWY_ATTR { return hn::Min(x, v); });
    } else {
      a = FoldRow(in, len, product, neutral, [](VF x, VF v) HWY_ATTR { return hn::Add(x, v); });
    }
    double& acc = acc_[in.index];
    if (kind == ReduceKind::kMax) {
      acc = std::max<double>(acc, hn::GetLane(hn::MaxOfLanes(df, a)));
    } else if (kind == ReduceKind::kMin) {
      acc = std::min<double>(acc, hn::GetLane(hn::MinOfLanes(df, a)));
    } else {
      acc += hn::GetLane(hn::SumOfLanes(df, a));
    }
  }

  // Folds `len` lanes of register a (or of a * b for a fused product) into one vector with four
  // independent accumulators, which hide the fold latency. The product is rounded before it is
  // folded, as a product register would be: the compiler may not contract it into an FMA.
  template <class F>
  HWY_INLINE VF FoldRow(const Instr& in, uint32_t len, bool product, float neutral, F fold) {
    const DF df;
    const float* s = RF(in.a);
    const float* t = product ? RF(in.b) : nullptr;
    const VF vn = hn::Set(df, neutral);
    const auto load = [&](size_t i) HWY_ATTR {
      return product ? rounding::HWY_NAMESPACE::Rounded(
                           hn::Mul(hn::LoadU(df, s + i), hn::LoadU(df, t + i)))
                     : hn::LoadU(df, s + i);
    };
    VF a0 = vn, a1 = vn, a2 = vn, a3 = vn;
    size_t i = 0;
    for (; i + 4 * Lanes() <= len; i += 4 * Lanes()) {
      a0 = fold(a0, load(i));
      a1 = fold(a1, load(i + Lanes()));
      a2 = fold(a2, load(i + 2 * Lanes()));
      a3 = fold(a3, load(i + 3 * Lanes()));
    }
    for (; i < len; i += Lanes())
      a0 = fold(a0, hn::IfThenElse(hn::FirstN(df, len - i), load(i), vn));
    return fold(fold(a0, a1), fold(a2, a3));
  }

  // RA: fold one row's tile into the column accumulators (Kahan-compensated sums).
  void ReduceColumnTile(const Instr& in, uint32_t len, bool first) {
    uint32_t* acc = racc_[in.index];
    uint32_t* comp = acc + tile_;
    const auto kind = static_cast<ReduceKind>(in.mode & tile::kReduceKindMask);
    const size_t n = Rounded(len);
    if (first) {
      std::memcpy(acc, regs_[in.a], n * 4);
      std::memset(comp, 0, n * 4);
      return;
    }
    if (in.lane == Lane::kI32) {
      const DI di;
      auto* ai = reinterpret_cast<int32_t*>(acc);
      for (size_t i = 0; i < n; i += Lanes()) {
        const VI v = hn::LoadU(di, RI(in.a) + i);
        const VI a = hn::Load(di, ai + i);
        hn::Store(kind == ReduceKind::kMax   ? hn::Max(a, v)
                  : kind == ReduceKind::kMin ? hn::Min(a, v)
                                             : hn::Add(a, v),
                  di, ai + i);
      }
      return;
    }
    const DF df;
    auto* af = reinterpret_cast<float*>(acc);
    auto* cf = reinterpret_cast<float*>(comp);
    for (size_t i = 0; i < n; i += Lanes()) {
      const VF v = hn::LoadU(df, RF(in.a) + i);
      const VF a = hn::Load(df, af + i);
      if (kind == ReduceKind::kMax) {
        hn::Store(hn::Max(a, v), df, af + i);
      } else if (kind == ReduceKind::kMin) {
        hn::Store(hn::Min(a, v), df, af + i);
      } else {
        const VF y = hn::Sub(v, hn::Load(df, cf + i));
        const VF t = hn::Add(a, y);
        hn::Store(hn::Sub(hn::Sub(t, a), y), df, cf + i);
        hn::Store(t, df, af + i);
      }
    }
  }

  void FinishRowReductions(const tile::PassInfo& pass, int64_t r) {
    for (uint32_t i = pass.first; i < pass.first + pass.count; ++i) {
      const Instr& in = prog_.instrs[i];
      if (in.op != OpCode::kReduce) continue;
      const tile::ReducedInfo& info = prog_.reduced[in.index];
      uint32_t bits;
      if (in.lane == Lane::kI32) {
        bits = static_cast<uint32_t>(static_cast<int32_t>(iacc_[in.index]));
      } else {
        double v = acc_[in.index];
        if (info.kind == ReduceKind::kMean) v /= static_cast<double>(p_.cols);
        bits = std::bit_cast<uint32_t>(static_cast<float>(v));
      }
      fin_[in.index] = bits;
      if (info.target_param >= 0) {
        const Operand& o = p_.operands[static_cast<size_t>(info.target_param)];
        StoreScalar(static_cast<char*>(o.ptr) + static_cast<size_t>(r) * ElemSize(o.dtype), o.dtype,
                    bits);
      }
    }
  }

  void FinishColumnReductions(const tile::PassInfo& pass, int64_t c, uint32_t len) {
    for (uint32_t i = pass.first; i < pass.first + pass.count; ++i) {
      const Instr& in = prog_.instrs[i];
      if (in.op != OpCode::kReduce) continue;
      const tile::ReducedInfo& info = prog_.reduced[in.index];
      auto* acc = reinterpret_cast<float*>(racc_[in.index]);
      if (info.kind == ReduceKind::kMean) {
        const DF df;
        const VF scale = hn::Set(df, static_cast<float>(1.0 / static_cast<double>(p_.rows)));
        for (size_t k = 0; k < Rounded(len); k += Lanes()) {
          hn::Store(hn::Mul(hn::Load(df, acc + k), scale), df, acc + k);
        }
      }
      if (info.target_param >= 0) {
        const Operand& o = p_.operands[static_cast<size_t>(info.target_param)];
        char* dst = static_cast<char*>(o.ptr) + static_cast<size_t>(c) * ElemSize(o.dtype);
        for (uint32_t k = 0; k < len; ++k) {
          StoreScalar(dst + k * ElemSize(o.dtype), o.dtype, racc_[in.index][k]);
        }
      }
    }
  }

  bool Uniform(uint8_t reg) const {
    return uniform_[reg];
  }

  // A uniform register holds only its first vector; readers that need every lane (sinks,
  // compares, selects, casts) replicate it first.
  void Materialize(uint8_t reg, size_t n) {
    if (!uniform_[reg]) return;
    const DU du;
    auto* p = static_cast<uint32_t*>(scratch_[reg]);
    const VU v = hn::LoadU(du, static_cast<const uint32_t*>(regs_[reg]));
    for (size_t i = 0; i < n; i += Lanes())
      hn::Store(v, du, p + i);
    regs_[reg] = p;
    uniform_[reg] = 0;
  }

  // out[i] = f(a[i]) (and b, c) over n lanes; one loop per op so the op is not re-decoded per
  // vector.
  // A uniform operand is read once (its first vector) and reused for every vector.
  template <class D, class F, class Sink>
  HWY_INLINE void Map1(D d, const Instr& in, void* out_ptr, size_t n, F f, Sink sink) {
    using T = hn::TFromD<D>;
    const T* a = static_cast<const T*>(regs_[in.a]);
    T* out = static_cast<T*>(out_ptr);
    for (size_t i = 0; i < n; i += Lanes())
      sink(d, f(d, hn::LoadU(d, a + i)), out + i);
  }
  template <class D, class F>
  HWY_INLINE void Map1(D d, const Instr& in, size_t n, F f) {
    Map1(d, in, scratch_[in.dst], n, f, AlignedSink());
  }
  // out[i] = f(a[i], b[i]) written through `sink` (aligned store into a register, or unaligned /
  // non-temporal store into an output tensor).
  template <class D, class F, class Sink>
  HWY_INLINE void Map2(D d, const Instr& in, void* out_ptr, size_t n, F f, Sink sink) {
    using T = hn::TFromD<D>;
    const T* a = static_cast<const T*>(regs_[in.a]);
    const T* b = static_cast<const T*>(regs_[in.b]);
    T* out = static_cast<T*>(out_ptr);
    if (uniform_[in.b] && !uniform_[in.a]) {
      const auto vb = hn::LoadU(d, b);
      for (size_t i = 0; i < n; i += Lanes())
        sink(d, f(d, hn::LoadU(d, a + i), vb), out + i);
    } else if (uniform_[in.a] && !uniform_[in.b]) {
      const auto va = hn::LoadU(d, a);
      for (size_t i = 0; i < n; i += Lanes())
        sink(d, f(d, va, hn::LoadU(d, b + i)), out + i);
    } else {
      for (size_t i = 0; i < n; i += Lanes()) {
        sink(d, f(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i)), out + i);
      }
    }
  }
  template <class D, class F>
  HWY_INLINE void Map2(D d, const Instr& in, size_t n, F f) {
    Map2(d, in, scratch_[in.dst], n, f, AlignedSink());
  }

  // The binary ops that may write straight to an output tensor (see TryFusedStore).
  template <class Sink>
  void BinaryTo(const Instr& in, void* out, size_t n, Sink sink) {
    const DF df;
    const DI di;
#define TESSERA_ELEWISE_BT(OP, EXPR)                                           \
  case OpCode::OP:                                                             \
    if (in.lane == Lane::kI32) {                                               \
      return Map2(                                                             \
          di, in, out, n, [](DI, VI x, VI y) HWY_ATTR { return EXPR; }, sink); \
    }                                                                          \
    return Map2(                                                               \
        df, in, out, n, [](DF, VF x, VF y) HWY_ATTR { return EXPR; }, sink)
    switch (in.op) {
      TESSERA_ELEWISE_BT(kAdd, hn::Add(x, y));
      TESSERA_ELEWISE_BT(kSub, hn::Sub(x, y));
      TESSERA_ELEWISE_BT(kMul, hn::Mul(x, y));
      TESSERA_ELEWISE_BT(kMax, hn::Max(x, y));
      TESSERA_ELEWISE_BT(kMin, hn::Min(x, y));
      default:
        return;
    }
#undef TESSERA_ELEWISE_BT
  }

  // A binary op whose result only feeds the next instruction, a Store to a 4-byte tensor, writes
  // the tensor directly (streamed when the stores stream), saving a pass through the register.
  // Only whole-vector tiles at suitable alignment qualify; the rest take the ordinary path.
  bool TryFusedStore(const Instr& op, const Instr& store, int64_t r, int64_t c, uint32_t len) {
    const Operand& o = p_.operands[store.index];
    if (ElemSize(o.dtype) != 4 || len % Lanes() != 0) return false;
    const bool unary = op.op >= OpCode::kNeg && op.op <= OpCode::kSilu;
    if (unary ? uniform_[op.a] : uniform_[op.a] && uniform_[op.b]) return false;
    auto* dst = static_cast<uint32_t*>(o.ptr) + (RowOffset(o, r) + c);
    const bool stream = p_.stream_outputs && !prog_.params[store.index].read_after_write;
    if (stream && reinterpret_cast<uintptr_t>(dst) % (Lanes() * 4) != 0) return false;
    if (unary) {
      stream ? UnaryTo(op, dst, len, StreamSink()) : UnaryTo(op, dst, len, UnalignedSink());
    } else {
      stream ? BinaryTo(op, dst, len, StreamSink()) : BinaryTo(op, dst, len, UnalignedSink());
    }
    return true;
  }

  // The fp32 unary ops that may write straight to an output tensor.
  template <class Sink>
  void UnaryTo(const Instr& in, void* out, size_t n, Sink sink) {
    const DF df;
#define TESSERA_ELEWISE_UT(OP, EXPR) \
  case OpCode::OP:                   \
    return Map1(                     \
        df, in, out, n,              \
        [](DF d, VF x) HWY_ATTR {    \
          (void)d;                   \
          return EXPR;               \
        },                           \
        sink)
    switch (in.op) {
      TESSERA_ELEWISE_UT(kNeg, hn::Neg(x));
      TESSERA_ELEWISE_UT(kAbs, hn::Abs(x));
      TESSERA_ELEWISE_UT(kExp, km::Exp(d, x));
      TESSERA_ELEWISE_UT(kLog, km::Ln(d, x));
      TESSERA_ELEWISE_UT(kSqrt, hn::Sqrt(x));
      TESSERA_ELEWISE_UT(kRsqrt, km::Rsqrt(d, x));
      TESSERA_ELEWISE_UT(kReciprocal, km::Reciprocal(d, x));
      TESSERA_ELEWISE_UT(kRelu, hn::Max(x, hn::Zero(d)));
      TESSERA_ELEWISE_UT(kSigmoid, km::Sigmoid(d, x));
      TESSERA_ELEWISE_UT(kTanh, km::Tanh(d, x));
      TESSERA_ELEWISE_UT(kGeluTanh, km::GeluTanh(d, x));
      TESSERA_ELEWISE_UT(kGeluErf, km::GeluErf(d, x));
      TESSERA_ELEWISE_UT(kSilu, km::Silu(d, x));
      default:
        return;
    }
#undef TESSERA_ELEWISE_UT
  }

  template <class D>
  HWY_INLINE void CompareLoop(D d, const Instr& in, size_t n) {
    using T = hn::TFromD<D>;
    const DU du;
    const T* a = static_cast<const T*>(regs_[in.a]);
    const T* b = static_cast<const T*>(regs_[in.b]);
    auto* out = static_cast<uint32_t*>(scratch_[in.dst]);
    for (size_t i = 0; i < n; i += Lanes()) {
      const auto m = Compare<D>(in.op, hn::LoadU(d, a + i), hn::LoadU(d, b + i));
      hn::Store(hn::BitCast(du, hn::VecFromMask(d, m)), du, out + i);
    }
  }

  void Compute(const Instr& in, size_t n) {
    const DF df;
    const DI di;
    const DU du;
    if (in.lane == Lane::kI32 && in.op >= OpCode::kNeg && in.op <= OpCode::kSilu) {
      switch (in.op) {
        case OpCode::kNeg:
          return Map1(di, in, n, [](DI, VI x) HWY_ATTR { return hn::Neg(x); });
        case OpCode::kAbs:
          return Map1(di, in, n, [](DI, VI x) HWY_ATTR { return hn::Abs(x); });
        default:
          return Map1(di, in, n, [](DI d, VI x) HWY_ATTR { return hn::Max(x, hn::Zero(d)); });
      }
    }
    if (in.op >= OpCode::kNeg && in.op <= OpCode::kSilu) {
      return UnaryTo(in, scratch_[in.dst], n, AlignedSink());
    }
    switch (in.op) {
      case OpCode::kAdd:
      case OpCode::kSub:
      case OpCode::kMul:
      case OpCode::kMax:
      case OpCode::kMin:
        return BinaryTo(in, scratch_[in.dst], n, AlignedSink());
      case OpCode::kDiv:
        return Map2(df, in, n, [](DF d, VF x, VF y) HWY_ATTR { return km::Div(d, x, y); });
      case OpCode::kPow:
        return Map2(df, in, n, [](DF d, VF x, VF y) HWY_ATTR { return PowF(d, x, y); });
      case OpCode::kEq:
      case OpCode::kNe:
      case OpCode::kLt:
      case OpCode::kLe:
      case OpCode::kGt:
      case OpCode::kGe:
        return in.lane == Lane::kI32 ? CompareLoop(di, in, n) : CompareLoop(df, in, n);
      case OpCode::kSelect: {
        const auto* m = static_cast<const uint32_t*>(regs_[in.a]);
        const auto* t = static_cast<const uint32_t*>(regs_[in.b]);
        const auto* f = static_cast<const uint32_t*>(regs_[in.c]);
        auto* out = static_cast<uint32_t*>(scratch_[in.dst]);
        for (size_t i = 0; i < n; i += Lanes()) {
          hn::Store(hn::IfThenElse(hn::MaskFromVec(hn::LoadU(du, m + i)), hn::LoadU(du, t + i),
                                   hn::LoadU(du, f + i)),
                    du, out + i);
        }
        return;
      }
      case OpCode::kCastToInt: {
        const auto mode = static_cast<::tessera::kernel::RoundMode>(in.mode);
        const auto* a = static_cast<const float*>(regs_[in.a]);
        auto* out = static_cast<int32_t*>(scratch_[in.dst]);
        for (size_t i = 0; i < n; i += Lanes()) {
          hn::Store(CastToInt(df, hn::LoadU(df, a + i), mode), di, out + i);
        }
        return;
      }
      case OpCode::kCastToFloat: {
        const auto* a = static_cast<const int32_t*>(regs_[in.a]);
        auto* out = static_cast<float*>(scratch_[in.dst]);
        for (size_t i = 0; i < n; i += Lanes()) {
          hn::Store(hn::ConvertTo(df, hn::LoadU(di, a + i)), df, out + i);
        }
        return;
      }
      case OpCode::kRoundToHalf:
      case OpCode::kRoundToBf16: {
        alignas(64) uint16_t tmp[hn::MaxLanes(DF())];
        const hn::Rebind<uint16_t, DF> d16;
        const auto* a = static_cast<const float*>(regs_[in.a]);
        auto* out = static_cast<float*>(scratch_[in.dst]);
        const bool to_half = in.op == OpCode::kRoundToHalf;
        for (size_t i = 0; i < n; i += Lanes()) {
          const VF v = hn::LoadU(df, a + i);
          hn::StoreU(to_half ? F32ToHalf(v) : F32ToBf16(v), d16, tmp);
          hn::Store(to_half ? HalfToF32(df, tmp) : Bf16ToF32(df, tmp), df, out + i);
        }
        return;
      }
      default:
        return;
    }
  }

  void Exec(const tile::PassInfo& pass, int64_t r, int64_t c, uint32_t len, bool first) {
    const DU du;
    const size_t n = Rounded(len);
    for (uint32_t k = pass.first; k < pass.first + pass.count; ++k) {
      const Instr& in = prog_.instrs[k];
      // Checked-mode traces show the engine's loads, stores and compute as the pipes an Ascend C
      // kernel would use for them.
      const kernel::detail::PipeScope phase(checked_, PipeOf(in.op));
      switch (in.op) {
        case OpCode::kLoad:
          Load(in, r, c, len);
          continue;
        case OpCode::kScalar:
          Fill(in.dst, p_.operands[in.index].scalar_bits);
          continue;
        case OpCode::kAttr:
          Fill(in.dst, p_.attr_bits[in.index]);
          continue;
        case OpCode::kConst:
          Fill(in.dst, in.lane == Lane::kI32 ? in.index : std::bit_cast<uint32_t>(in.imm));
          continue;
        case OpCode::kLoadSpill:
          regs_[in.dst] = SpillAddress(in.index, r, c);
          uniform_[in.dst] = 0;
          continue;
        case OpCode::kLoadReduced:
          if (p_.traversal == Traversal::kColumns) {
            regs_[in.dst] = racc_[in.index];
            uniform_[in.dst] = 0;
          } else {
            Fill(in.dst, fin_[in.index]);
          }
          continue;
        case OpCode::kStore:
          Materialize(in.a, n);
          Store(in, r, c, len);
          continue;
        case OpCode::kSpill: {
          Materialize(in.a, n);
          uint32_t* dst = SpillAddress(in.index, r, c);
          const auto* src = static_cast<const uint32_t*>(regs_[in.a]);
          for (size_t i = 0; i < n; i += Lanes())
            hn::StoreU(hn::LoadU(du, src + i), du, dst + i);
          continue;
        }
        case OpCode::kReduce:
          Materialize(in.a, n);
          if (in.mode & tile::kReduceOfProduct) Materialize(in.b, n);
          if (p_.traversal == Traversal::kColumns) {
            ReduceColumnTile(in, len, first);
          } else {
            ReduceRowTile(in, len);
          }
          continue;
        default:
          break;
      }
      // Computing ops write their own scratch register. An op whose inputs are all uniform
      // (broadcast scalars, reduced row values) computes one vector and replicates it, so e.g.
      // rsqrt(mean + eps) costs one vector per tile instead of one per lane group.
      const bool binary = in.op >= OpCode::kAdd && in.op <= OpCode::kPow;
      if (k + 1 < pass.first + pass.count && prog_.instrs[k + 1].op == OpCode::kStore &&
          prog_.instrs[k + 1].mode == tile::kStoreFused &&
          TryFusedStore(in, prog_.instrs[k + 1], r, c, len)) {
        ++k;  // the store is done
        continue;
      }
      const bool uniform = Uniform(in.a) && (in.op < OpCode::kAdd || Uniform(in.b)) &&
                           (in.op != OpCode::kSelect || Uniform(in.c));
      if (!uniform && !binary) {
        Materialize(in.a, n);
        if (in.op >= OpCode::kEq) Materialize(in.b, n);
        if (in.op == OpCode::kSelect) Materialize(in.c, n);
      }
      Compute(in, uniform ? Lanes() : n);
      uniform_[in.dst] = uniform;
      regs_[in.dst] = scratch_[in.dst];
    }
  }

  static device::TracePipe PipeOf(OpCode op) {
    if (op == OpCode::kLoad) return device::TracePipe::kMte2;
    if (op == OpCode::kStore) return device::TracePipe::kMte3;
    return device::TracePipe::kV;
  }

  const BlockParams& p_;
  const tile::ProgramView& prog_;
  const uint32_t tile_;
  const bool checked_;
  // Per-block tables, in place for typical programs (a block allocates nothing).
  static constexpr size_t kInlineRegs = 64;
  static constexpr size_t kInlineReduced = 8;
  InlineVector<const void*, kInlineRegs> regs_;    // current value of each register (UB or GM)
  InlineVector<void*, kInlineRegs> scratch_;       // each register's own micro-tile in UB
  InlineVector<uint8_t, kInlineRegs> uniform_;     // register holds one value in every lane
  InlineVector<uint32_t*, kInlineReduced> racc_;   // RA accumulators (value, then compensation row)
  InlineVector<float*, kInlineOperands> widened_;  // per operand: its row widened to fp32, or null
  std::byte* spill_ = nullptr;
  InlineVector<double, kInlineReduced> acc_;    // AR fp32 accumulators of the current row
  InlineVector<int64_t, kInlineReduced> iacc_;  // AR int32 accumulators of the current row
  InlineVector<uint32_t, kInlineReduced> fin_;  // finished AR results of the current row (bits)
};

}  // namespace

void RunBlockImpl(const BlockParams& p, int64_t begin, int64_t count) {
  const device::BlockContext* ctx = device::CurrentBlock();
  if (ctx == nullptr) {
    device::FailBlock(StatusCode::kFailedPrecondition, "elewise: RunBlock outside a kernel");
  }
  // Registers are aligned to 64 bytes so aligned vector loads and stores work on every target.
  auto* ub =
      reinterpret_cast<std::byte*>((reinterpret_cast<uintptr_t>(ctx->ub) + 63) & ~uintptr_t{63});
  const size_t ub_bytes = ctx->ub_bytes - static_cast<size_t>(ub - ctx->ub);
  auto* gm = static_cast<std::byte*>(p.workspace) + p.workspace_bytes_per_core * ctx->block_idx;
  Engine engine(p, ub, ub_bytes, gm, ctx->checked);
  engine.Run(begin, count);
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::elewise::block
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::elewise::block {

HWY_EXPORT(RunBlockImpl);

uint64_t RegisterBytes(const tile::ProgramView& program, uint32_t tile_elems) {
  return (program.num_regs + 2 * program.reduced.size()) * uint64_t{tile_elems} * 4 + 64;
}

namespace {

// Checked mode: the output bytes that units [begin, begin + count) write (stores and reduction
// results), for the device's race and unwritten-output checks.
void NoteWrites(const BlockParams& p, int64_t begin, int64_t count) {
  const auto note = [](const Operand& o, int64_t offset, int64_t elems) {
    const size_t es = DataTypeSize(o.dtype);
    device::NoteGmAccess(device::GmAccess::kWrite,
                         static_cast<const char*>(o.ptr) + static_cast<size_t>(offset) * es,
                         static_cast<size_t>(elems) * es, "elewise store");
  };
  for (const tile::Instr& in : p.program.instrs) {
    if (in.op != tile::OpCode::kStore) continue;
    const Operand& o = p.operands[in.index];
    switch (p.traversal) {
      case Traversal::kRows:
        for (int64_t r = begin; r < begin + count; ++r)
          note(o, r * o.row_stride, p.cols);
        break;
      case Traversal::kColumns:
        for (int64_t r = 0; r < p.rows; ++r)
          note(o, r * o.row_stride + begin, count);
        break;
      default:
        note(o, begin, count);
        break;
    }
  }
  // A reduction's result: one element per row (AR) or column (RA).
  for (const tile::ReducedInfo& info : p.program.reduced) {
    if (info.target_param >= 0)
      note(p.operands[static_cast<size_t>(info.target_param)], begin, count);
  }
}

}  // namespace

void RunBlock(const BlockParams& params, int64_t begin, int64_t count) {
  if (count <= 0) return;
  if (device::RecordingGmAccess()) NoteWrites(params, begin, count);
  HWY_DYNAMIC_DISPATCH(RunBlockImpl)(params, begin, count);
}

}  // namespace tessera::elewise::block
#endif

// The compiled block engine: the tile program of one Compute turned into register-fused code in
// the including translation unit (Highway static dispatch: the TU's -march decides the target).
//
// Every SIMD vector runs through the whole statement chain of a pass in registers - one loop per
// pass instead of one sweep per instruction - with the interpreter's (engine.cc) tile structure,
// prefetching, tails, reduction order and math library, so results are bit-identical to the
// interpreter built for the same vector width. Programs the compiled engine does not cover (RA
// reductions), checked mode and recorded GM accesses go to the interpreter (block::RunBlock).
#pragma once

// The ISA levels (-march=x86-64-v2..v4) do not include AES and PCLMUL, without which Highway
// 1.0 would not pick SSE4 or better as the static target; elewise uses neither.
#ifndef HWY_DISABLE_PCLMUL_AES
#define HWY_DISABLE_PCLMUL_AES
#endif
#include <hwy/highway.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "tessera/core/float16.h"
#include "tessera/device/block.h"
#include "tessera/device/gm_access.h"
#include "tessera/elewise/detail/engine.h"
#include "tessera/kernel/vector_types.h"
// The math library's code, compiled for this TU's static target (its own warnings are not the
// user's concern).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "tessera/kernel/detail/math-inl.h"
#pragma GCC diagnostic pop
#include "tessera/elewise/detail/rounded-inl.h"

namespace tessera::elewise::compiled {

// Whether the compiled engine runs `program` (the rest goes to the interpreter).
constexpr bool Covers(const tile::ProgramView& program) {
  return !(program.has_reduction && program.pattern == ReducePattern::RA);
}

// TESSERA_ELEWISE_BACKEND=interpreter sends every compiled operator to the interpreter (read once
// per process; any other value keeps the compiled engine).
inline bool InterpreterForced() {
  static const bool forced = [] {
    const char* v = std::getenv("TESSERA_ELEWISE_BACKEND");
    return v != nullptr && std::string_view(v) == "interpreter";
  }();
  return forced;
}

}  // namespace tessera::elewise::compiled

HWY_BEFORE_NAMESPACE();
namespace tessera::elewise::compiled {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;
namespace km = ::tessera::kernel::math::HWY_NAMESPACE;
// Every instruction's result passes through it: no FMA contraction across statements
// (rounded-inl.h).
using ::tessera::elewise::rounding::HWY_NAMESPACE::Rounded;

// Vector bytes of a Highway target bit (x86: the width classes; elsewhere only the static target
// counts as "as wide").
constexpr int VectorBytesOf(int64_t target) {
  if ((target & (HWY_SCALAR | HWY_EMU128)) != 0) return 0;  // emulated: never the widest
#if HWY_ARCH_X86
  if ((target & (HWY_AVX3 | HWY_AVX3_DL)) != 0) return 64;
  if ((target & HWY_AVX2) != 0) return 32;
  return 16;
#else
  return target == HWY_STATIC_TARGET ? 1 : 0;
#endif
}

// Vector bytes of the widest Highway x86 target this CPU runs (CPUID through the compiler's
// builtins, so the header needs no Highway library).
inline int WidestVectorBytes() {
#if HWY_ARCH_X86 && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw")) {
    return 64;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 32;
  return 16;
#else
  return VectorBytesOf(HWY_STATIC_TARGET);
#endif
}

// The compiled code is used when no target the CPU supports is wider than the one it was built
// for: a narrower build (a TU without -march) would lose to the interpreter's dynamic dispatch.
inline bool StaticTargetIsWidest() {
  static const bool widest = WidestVectorBytes() <= VectorBytesOf(HWY_STATIC_TARGET);
  return widest;
}

template <class Prog>
class Engine {
  using DF = hn::ScalableTag<float>;
  using DI = hn::RebindToSigned<DF>;
  using DU = hn::RebindToUnsigned<DF>;
  using D16 = hn::Rebind<uint16_t, DF>;
  using VF = hn::Vec<DF>;
  using VI = hn::Vec<DI>;
  using VU = hn::Vec<DU>;
  using Instr = tile::Instr;
  using OpCode = tile::OpCode;
  using Lane = tile::Lane;
  using ReduceKind = tile::ReduceKind;

  static constexpr const auto& kData = Prog::kData;
  static constexpr size_t kRegs = kData.num_regs > 0 ? kData.num_regs : 1;
  static constexpr size_t kParams = kData.params.size() > 0 ? kData.params.size() : 1;
  static constexpr size_t kReduced = kData.reduced.size() > 0 ? kData.reduced.size() : 1;
  static constexpr size_t kMaxLanes = hn::MaxLanes(DF());
  // A half-width 16-bit vector is a whole x86 register from 128 bits up: only then may it stream.
  static constexpr bool kCanStream16 =
      hn::MaxLanes(DF()) * 2 >= 16 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128;

  using Acc = VF[kReduced][4];

  // Instructions whose value is the same in every lane (scalars, attributes, constants, reduced
  // row values and what is computed from them only): computed once per micro-tile, not per vector
  // (as the interpreter's uniform registers).
  static constexpr size_t kInstrs = kData.instrs.size();
  static constexpr auto kUniform = [] {
    std::array<bool, kInstrs + 1> u{};
    std::array<bool, kRegs> reg{};
    for (size_t i = 0; i < kInstrs; ++i) {
      const Instr in = kData.instrs[i];
      bool v = false;
      switch (in.op) {
        case OpCode::kScalar:
        case OpCode::kAttr:
        case OpCode::kConst:
        case OpCode::kLoadReduced:
          v = true;
          break;
        case OpCode::kLoad:
        case OpCode::kLoadSpill:
        case OpCode::kStore:
        case OpCode::kSpill:
        case OpCode::kReduce:
          v = false;
          break;
        case OpCode::kSelect:
          v = reg[in.a] && reg[in.b] && reg[in.c];
          break;
        default:
          v = reg[in.a] && (in.op < OpCode::kAdd || in.op > OpCode::kGe || reg[in.b]);
          break;
      }
      const bool sink =
          in.op == OpCode::kStore || in.op == OpCode::kSpill || in.op == OpCode::kReduce;
      if (!sink) reg[in.dst] = v;
      u[i] = v;
    }
    return u;
  }();
  // Index of uniform instruction I among the uniform ones.
  static constexpr size_t UniformSlot(size_t i) {
    size_t k = 0;
    for (size_t j = 0; j < i; ++j)
      k += kUniform[j];
    return k;
  }
  static constexpr size_t kUniforms = UniformSlot(kInstrs) > 0 ? UniformSlot(kInstrs) : 1;
  using Uniforms = VF[kUniforms];

 public:
  Engine(const block::BlockParams& p, std::byte* spill)
      : p_(p), tile_(p.tile_elems), spill_(spill), dense_inputs_(DenseInputs(p)) {
    for (size_t i = 0; i < kData.params.size(); ++i)
      stream_[i] = p.stream_outputs && !kData.params[i].read_after_write;
  }

  // Whether every tensor input has unit column stride.
  static bool DenseInputs(const block::BlockParams& p) {
    for (size_t i = 0; i < kData.params.size(); ++i) {
      if (kData.params[i].is_tensor && kData.params[i].usage != ParamUsage::OUT &&
          p.operands[i].col_stride != 1) {
        return false;
      }
    }
    return true;
  }

  void Run(int64_t begin, int64_t count) {
    const int64_t end = begin + count;
    if (p_.traversal == block::Traversal::kFlat) {
      SetRow(0);
      for (int64_t c = begin; c < end; c += tile_) {
        const auto len = static_cast<uint32_t>(std::min<int64_t>(tile_, end - c));
        Prefetch<0>(0, c + int64_t{tile_} * p_.prefetch_tiles, end);
        Tile<0>(c, len);
      }
      return;
    }
    for (int64_t r = begin; r < end; ++r) {
      SetRow(r);
      RunPasses(r, end, std::make_index_sequence<kData.passes.size()>{});
    }
  }

 private:
  static constexpr size_t ElemSize(DataType t) {
    return t == DataType::kFloat16 || t == DataType::kBfloat16 ? 2 : 4;
  }
  static HWY_INLINE size_t Lanes() { return hn::Lanes(DF()); }

  int64_t RowOffset(const block::Operand& o, int64_t r) const {
    if (p_.row_rank == 0) return r * o.row_stride;
    int64_t off = 0;
    for (int k = static_cast<int>(p_.row_rank) - 1; k >= 0; --k) {
      off += r % p_.row_dims[k] * o.row_strides[k];
      r /= p_.row_dims[k];
    }
    return off;
  }

  // Row pointers and broadcast values of row r, once per row.
  void SetRow(int64_t r) {
    for (size_t i = 0; i < kData.params.size(); ++i) {
      if (!kData.params[i].is_tensor) continue;
      const block::Operand& o = p_.operands[i];
      const size_t es = ElemSize(o.dtype);
      row_[i] = static_cast<char*>(o.ptr) + static_cast<size_t>(RowOffset(o, r)) * es;
      if (o.col_stride == 0) {
        if (o.dtype == DataType::kInt32) {
          std::memcpy(&bcast_[i], row_[i], 4);
        } else {
          bcast_[i] = std::bit_cast<uint32_t>(LoadScalarF(row_[i], o.dtype));
        }
      }
    }
  }

  template <size_t... P>
  HWY_INLINE void RunPasses(int64_t r, int64_t end, std::index_sequence<P...>) {
    (RowPass<P>(r, end), ...);
  }

  template <size_t P>
  HWY_INLINE void RowPass(int64_t r, int64_t end) {
    constexpr bool kFirst = P == 0;
    constexpr bool kLast = P + 1 == kData.passes.size();
    BeginReductions<P>();
    for (int64_t c = 0; c < p_.cols; c += tile_) {
      const auto len = static_cast<uint32_t>(std::min<int64_t>(tile_, p_.cols - c));
      const int64_t ahead = c + int64_t{tile_} * p_.prefetch_tiles;
      if constexpr (kFirst) Prefetch<P>(r, ahead, p_.cols);
      if constexpr (kLast) {
        if (r + 1 < end && ahead >= p_.cols) Prefetch<0>(r + 1, ahead - p_.cols, p_.cols);
      }
      Tile<P>(c, len);
    }
    FinishRowReductions<P>(r);
  }

  template <size_t P>
  void Prefetch(int64_t r, int64_t c, int64_t end) const {
    if (p_.prefetch_tiles == 0 || c >= end) return;
    const int64_t n = std::min<int64_t>(tile_, end - c);
    constexpr tile::PassInfo pass = kData.passes[P];
    for (uint32_t i = pass.first; i < pass.first + pass.count; ++i) {
      const Instr& in = kData.instrs[i];
      if (in.op != OpCode::kLoad) continue;
      const block::Operand& o = p_.operands[in.index];
      if (o.col_stride != 1) continue;
      const size_t es = ElemSize(o.dtype);
      const auto* base =
          static_cast<const char*>(o.ptr) + static_cast<size_t>(RowOffset(o, r) + c) * es;
      for (size_t off = 0; off < static_cast<size_t>(n) * es; off += 64) {
        __builtin_prefetch(base + off, 0, 3);
      }
    }
  }

  // ---- reductions (AR): the interpreter's order, so sums agree bit for bit --------------------

  static constexpr bool PassReduces(size_t P) {
    const tile::PassInfo pass = kData.passes[P];
    for (uint32_t i = pass.first; i < pass.first + pass.count; ++i) {
      if (kData.instrs[i].op == OpCode::kReduce) return true;
    }
    return false;
  }
  static constexpr ReduceKind KindOf(const Instr& in) {
    return static_cast<ReduceKind>(in.mode & tile::kReduceKindMask);
  }
  static HWY_INLINE VF Neutral(const Instr& in) {
    const ReduceKind kind = KindOf(in);
    if (in.lane == Lane::kI32) {
      const int32_t v = kind == ReduceKind::kMax   ? std::numeric_limits<int32_t>::min()
                        : kind == ReduceKind::kMin ? std::numeric_limits<int32_t>::max()
                                                   : 0;
      return hn::BitCast(DF(), hn::Set(DI(), v));
    }
    return hn::Set(DF(), kind == ReduceKind::kMax   ? -HUGE_VALF
                         : kind == ReduceKind::kMin ? HUGE_VALF
                                                    : 0.0f);
  }
  static HWY_INLINE VF Fold(const Instr& in, VF a, VF v) {
    const ReduceKind kind = KindOf(in);
    if (in.lane == Lane::kI32) {
      const VI x = hn::BitCast(DI(), a), y = hn::BitCast(DI(), v);
      return hn::BitCast(DF(), kind == ReduceKind::kMax   ? hn::Max(x, y)
                               : kind == ReduceKind::kMin ? hn::Min(x, y)
                                                          : hn::Add(x, y));
    }
    return kind == ReduceKind::kMax   ? hn::Max(a, v)
           : kind == ReduceKind::kMin ? hn::Min(a, v)
                                      : hn::Add(a, v);
  }

  template <size_t P>
  void BeginReductions() {
    constexpr tile::PassInfo pass = kData.passes[P];
    for (uint32_t i = pass.first; i < pass.first + pass.count; ++i) {
      const Instr& in = kData.instrs[i];
      if (in.op != OpCode::kReduce) continue;
      const ReduceKind kind = KindOf(in);
      acc_[in.index] = kind == ReduceKind::kMax   ? -HUGE_VAL
                       : kind == ReduceKind::kMin ? HUGE_VAL
                                                  : 0.0;
      iacc_[in.index] = kind == ReduceKind::kMax   ? std::numeric_limits<int32_t>::min()
                        : kind == ReduceKind::kMin ? std::numeric_limits<int32_t>::max()
                                                   : 0;
    }
  }

  // Folds a tile's four accumulators into the row's (fp32 lanes per tile, fp64 across tiles).
  template <size_t P>
  HWY_INLINE void FoldTile(const Acc& acc) {
    constexpr tile::PassInfo pass = kData.passes[P];
    for (uint32_t i = pass.first; i < pass.first + pass.count; ++i) {
      const Instr& in = kData.instrs[i];
      if (in.op != OpCode::kReduce) continue;
      const VF* a = acc[in.index];
      const VF v = Fold(in, Fold(in, a[0], a[1]), Fold(in, a[2], a[3]));
      const ReduceKind kind = KindOf(in);
      if (in.lane == Lane::kI32) {
        const DI di;
        const VI x = hn::BitCast(di, v);
        const int32_t part = kind == ReduceKind::kMax   ? hn::GetLane(hn::MaxOfLanes(di, x))
                             : kind == ReduceKind::kMin ? hn::GetLane(hn::MinOfLanes(di, x))
                                                        : hn::GetLane(hn::SumOfLanes(di, x));
        int64_t& s = iacc_[in.index];
        s = kind == ReduceKind::kMax   ? std::max<int64_t>(s, part)
            : kind == ReduceKind::kMin ? std::min<int64_t>(s, part)
                                       : s + part;
        continue;
      }
      const DF df;
      double& s = acc_[in.index];
      if (kind == ReduceKind::kMax) {
        s = std::max<double>(s, hn::GetLane(hn::MaxOfLanes(df, v)));
      } else if (kind == ReduceKind::kMin) {
        s = std::min<double>(s, hn::GetLane(hn::MinOfLanes(df, v)));
      } else {
        s += hn::GetLane(hn::SumOfLanes(df, v));
      }
    }
  }

  template <size_t P>
  void FinishRowReductions(int64_t r) {
    constexpr tile::PassInfo pass = kData.passes[P];
    for (uint32_t i = pass.first; i < pass.first + pass.count; ++i) {
      const Instr& in = kData.instrs[i];
      if (in.op != OpCode::kReduce) continue;
      const tile::ReducedInfo& info = kData.reduced[in.index];
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
        const block::Operand& o = p_.operands[static_cast<size_t>(info.target_param)];
        StoreScalar(static_cast<char*>(o.ptr) + static_cast<size_t>(r) * ElemSize(o.dtype), o.dtype,
                    bits);
      }
    }
  }

  // ---- one micro-tile of one pass ---------------------------------------------------------------

  // Programs with reductions are compiled for dense inputs only (RunBlock checks), which halves
  // their code.
  template <size_t P>
  HWY_INLINE void Tile(int64_t c, uint32_t len) {
    if constexpr (kData.has_reduction) {
      TileOf<P, true>(c, len);
    } else {
      if (dense_inputs_) return TileOf<P, true>(c, len);
      TileOf<P, false>(c, len);
    }
  }

  template <size_t P, bool kDense>
  HWY_INLINE void TileOf(int64_t c, uint32_t len) {
    const size_t n = Lanes();
    Acc acc;
    Uniforms uni;
    ComputeUniforms<P>(uni, acc);
    size_t i = 0;
    if constexpr (PassReduces(P)) {
      constexpr tile::PassInfo pass = kData.passes[P];
      for (uint32_t k = pass.first; k < pass.first + pass.count; ++k) {
        const Instr& in = kData.instrs[k];
        if (in.op != OpCode::kReduce) continue;
        const VF v = Neutral(in);
        acc[in.index][0] = acc[in.index][1] = acc[in.index][2] = acc[in.index][3] = v;
      }
      for (; i + 4 * n <= len; i += 4 * n) {
        Vector<P, 0, kDense, false>(c + static_cast<int64_t>(i), n, acc, uni);
        Vector<P, 1, kDense, false>(c + static_cast<int64_t>(i + n), n, acc, uni);
        Vector<P, 2, kDense, false>(c + static_cast<int64_t>(i + 2 * n), n, acc, uni);
        Vector<P, 3, kDense, false>(c + static_cast<int64_t>(i + 3 * n), n, acc, uni);
      }
    }
    // As the interpreter, vectors after the groups of four fold into slot 0 through a lane mask.
    constexpr bool kMask = PassReduces(P);
    for (; i + n <= len; i += n)
      Vector<P, 0, kDense, false, kMask>(c + static_cast<int64_t>(i), n, acc, uni);
    if (i < len) Vector<P, 0, kDense, true, true>(c + static_cast<int64_t>(i), len - i, acc, uni);
    if constexpr (PassReduces(P)) FoldTile<P>(acc);
  }

  // Lanes [c, c + n) through every statement of pass P, in registers. kTail: n < Lanes().
  // kMask: reductions fold through FirstN(n) (tails, and the interpreter's ungrouped vectors).
  template <size_t P, int kSlot, bool kDense, bool kTail, bool kMask = kTail>
  HWY_INLINE void Vector(int64_t c, size_t n, Acc& acc, const Uniforms& uni) {
    VF reg[kRegs];
    constexpr tile::PassInfo pass = kData.passes[P];
    [&]<size_t... K>(std::index_sequence<K...>) HWY_ATTR {
      (Step<pass.first + K, kSlot, kDense, kTail, kMask>(reg, acc, c, n, uni), ...);
    }
    (std::make_index_sequence<pass.count>{});
  }

  // The uniform instructions of pass P, once per micro-tile.
  template <size_t P>
  HWY_INLINE void ComputeUniforms(Uniforms& uni, Acc& acc) {
    VF reg[kRegs];
    constexpr tile::PassInfo pass = kData.passes[P];
    [&]<size_t... K>(std::index_sequence<K...>) HWY_ATTR {
      (ComputeUniform<pass.first + K>(reg, uni, acc), ...);
    }
    (std::make_index_sequence<pass.count>{});
  }
  template <uint32_t I>
  HWY_INLINE void ComputeUniform(VF* reg, Uniforms& uni, Acc& acc) {
    if constexpr (kUniform[I]) {
      Step<I, 0, true, false, false, true>(reg, acc, 0, 0, uni);
      uni[UniformSlot(I)] = reg[kData.instrs[I].dst];
    }
  }

  // One instruction on one vector. Uniform instructions read their value computed for the tile
  // (kComputeUniform: this is that computation).
  template <uint32_t I, int kSlot, bool kDense, bool kTail, bool kMask,
            bool kComputeUniform = false>
  HWY_INLINE void Step(VF* reg, Acc& acc, int64_t c, size_t n, const Uniforms& uni) {
    constexpr Instr in = kData.instrs[I];
    if constexpr (kUniform[I] && !kComputeUniform) {
      reg[in.dst] = uni[UniformSlot(I)];
      return;
    }
    const DF df;
    const DI di;
    const DU du;
    constexpr bool kInt = in.lane == Lane::kI32;
    if constexpr (in.op == OpCode::kLoad) {
      reg[in.dst] = Load<in.index, kDense, kTail>(c, n);
    } else if constexpr (in.op == OpCode::kScalar) {
      reg[in.dst] = hn::BitCast(df, hn::Set(du, p_.operands[in.index].scalar_bits));
    } else if constexpr (in.op == OpCode::kAttr) {
      reg[in.dst] = hn::BitCast(df, hn::Set(du, p_.attr_bits[in.index]));
    } else if constexpr (in.op == OpCode::kConst) {
      constexpr uint32_t bits = kInt ? in.index : std::bit_cast<uint32_t>(in.imm);
      reg[in.dst] = hn::BitCast(df, hn::Set(du, bits));
    } else if constexpr (in.op == OpCode::kLoadSpill) {
      reg[in.dst] = hn::LoadU(df, SpillAddress(in.index, c));
    } else if constexpr (in.op == OpCode::kLoadReduced) {
      reg[in.dst] = hn::BitCast(df, hn::Set(du, fin_[in.index]));
    } else if constexpr (in.op == OpCode::kStore) {
      Store<in.index, kTail>(reg[in.a], c, n);
    } else if constexpr (in.op == OpCode::kSpill) {
      hn::StoreU(reg[in.a], df, SpillAddress(in.index, c));
    } else if constexpr (in.op == OpCode::kReduce) {
      VF v = reg[in.a];
      if constexpr ((in.mode & tile::kReduceOfProduct) != 0) v = Rounded(hn::Mul(v, reg[in.b]));
      if constexpr (kMask) v = hn::IfThenElse(hn::FirstN(df, n), v, Neutral(in));
      acc[in.index][kSlot] = Fold(in, acc[in.index][kSlot], v);
    } else if constexpr (in.op >= OpCode::kNeg && in.op <= OpCode::kSilu) {
      reg[in.dst] = Rounded(Unary<in.op, kInt>(reg[in.a]));
    } else if constexpr (in.op >= OpCode::kAdd && in.op <= OpCode::kPow) {
      reg[in.dst] = Rounded(Binary<in.op, kInt>(reg[in.a], reg[in.b]));
    } else if constexpr (in.op >= OpCode::kEq && in.op <= OpCode::kGe) {
      if constexpr (kInt) {
        const auto m = Compare<in.op>(hn::BitCast(di, reg[in.a]), hn::BitCast(di, reg[in.b]));
        reg[in.dst] = hn::BitCast(df, hn::VecFromMask(di, m));
      } else {
        reg[in.dst] = hn::BitCast(df, hn::VecFromMask(df, Compare<in.op>(reg[in.a], reg[in.b])));
      }
    } else if constexpr (in.op == OpCode::kSelect) {
      const auto m = hn::MaskFromVec(hn::BitCast(du, reg[in.a]));
      reg[in.dst] = hn::BitCast(
          df, hn::IfThenElse(m, hn::BitCast(du, reg[in.b]), hn::BitCast(du, reg[in.c])));
    } else if constexpr (in.op == OpCode::kCastToInt) {
      reg[in.dst] =
          hn::BitCast(df, CastToInt(reg[in.a], static_cast<::tessera::kernel::RoundMode>(in.mode)));
    } else if constexpr (in.op == OpCode::kCastToFloat) {
      reg[in.dst] = hn::ConvertTo(df, hn::BitCast(di, reg[in.a]));
    } else if constexpr (in.op == OpCode::kRoundToHalf) {
      const hn::Rebind<hwy::float16_t, DF> dh;
      reg[in.dst] = hn::PromoteTo(df, hn::DemoteTo(dh, reg[in.a]));
    } else if constexpr (in.op == OpCode::kRoundToBf16) {
      reg[in.dst] = hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du, F32ToBf16(reg[in.a]))));
    } else {
      static_assert(in.op == OpCode::kLoad, "compiled elewise engine: an opcode it does not know");
    }
  }

  template <OpCode kOp, bool kInt>
  static HWY_INLINE VF Unary(VF x) {
    const DF d;
    if constexpr (kInt) {
      const DI di;
      const VI v = hn::BitCast(di, x);
      if constexpr (kOp == OpCode::kNeg) return hn::BitCast(d, hn::Neg(v));
      if constexpr (kOp == OpCode::kAbs) return hn::BitCast(d, hn::Abs(v));
      if constexpr (kOp == OpCode::kRelu) return hn::BitCast(d, hn::Max(v, hn::Zero(di)));
      static_assert(kOp == OpCode::kNeg || kOp == OpCode::kAbs || kOp == OpCode::kRelu,
                    "compiled elewise engine: int32 unary op");
    } else {
      if constexpr (kOp == OpCode::kNeg) return hn::Neg(x);
      if constexpr (kOp == OpCode::kAbs) return hn::Abs(x);
      if constexpr (kOp == OpCode::kExp) return km::Exp(d, x);
      if constexpr (kOp == OpCode::kLog) return km::Ln(d, x);
      if constexpr (kOp == OpCode::kSqrt) return hn::Sqrt(x);
      if constexpr (kOp == OpCode::kRsqrt) return km::Rsqrt(d, x);
      if constexpr (kOp == OpCode::kReciprocal) return km::Reciprocal(d, x);
      if constexpr (kOp == OpCode::kRelu) return hn::Max(x, hn::Zero(d));
      if constexpr (kOp == OpCode::kSigmoid) return km::Sigmoid(d, x);
      if constexpr (kOp == OpCode::kTanh) return km::Tanh(d, x);
      if constexpr (kOp == OpCode::kGeluTanh) return km::GeluTanh(d, x);
      if constexpr (kOp == OpCode::kGeluErf) return km::GeluErf(d, x);
      if constexpr (kOp == OpCode::kSilu) return km::Silu(d, x);
    }
  }

  template <OpCode kOp, bool kInt>
  static HWY_INLINE VF Binary(VF x, VF y) {
    const DF d;
    if constexpr (kInt) {
      const DI di;
      const VI a = hn::BitCast(di, x), b = hn::BitCast(di, y);
      if constexpr (kOp == OpCode::kAdd) return hn::BitCast(d, hn::Add(a, b));
      if constexpr (kOp == OpCode::kSub) return hn::BitCast(d, hn::Sub(a, b));
      if constexpr (kOp == OpCode::kMul) return hn::BitCast(d, hn::Mul(a, b));
      if constexpr (kOp == OpCode::kMax) return hn::BitCast(d, hn::Max(a, b));
      if constexpr (kOp == OpCode::kMin) return hn::BitCast(d, hn::Min(a, b));
      static_assert(kOp != OpCode::kDiv && kOp != OpCode::kPow,
                    "compiled elewise engine: int32 division and power do not exist");
    } else {
      if constexpr (kOp == OpCode::kAdd) return hn::Add(x, y);
      if constexpr (kOp == OpCode::kSub) return hn::Sub(x, y);
      if constexpr (kOp == OpCode::kMul) return hn::Mul(x, y);
      if constexpr (kOp == OpCode::kMax) return hn::Max(x, y);
      if constexpr (kOp == OpCode::kMin) return hn::Min(x, y);
      if constexpr (kOp == OpCode::kDiv) return km::Div(d, x, y);
      if constexpr (kOp == OpCode::kPow) return Pow(x, y);
    }
  }

  // x^y = exp(y log|x|), with the sign of x for odd integer y, NaN for negative x and non-integer
  // y, and pow(x, 0) = 1 (as the interpreter).
  static HWY_INLINE VF Pow(VF x, VF y) {
    const DF d;
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

  template <OpCode kOp, class V>
  static HWY_INLINE auto Compare(V a, V b) {
    if constexpr (kOp == OpCode::kEq) return hn::Eq(a, b);
    if constexpr (kOp == OpCode::kNe) return hn::Ne(a, b);
    if constexpr (kOp == OpCode::kLt) return hn::Lt(a, b);
    if constexpr (kOp == OpCode::kGt) return hn::Gt(a, b);
    // Highway 1.0 has no integer Le/Ge; without NaN they are the negated Gt/Lt.
    if constexpr (std::is_same_v<V, VF>) {
      if constexpr (kOp == OpCode::kLe) return hn::Le(a, b);
      if constexpr (kOp == OpCode::kGe) return hn::Ge(a, b);
    } else {
      if constexpr (kOp == OpCode::kLe) return hn::Not(hn::Gt(a, b));
      if constexpr (kOp == OpCode::kGe) return hn::Not(hn::Lt(a, b));
    }
  }

  // fp32 -> int32 with a RoundMode; out-of-range values saturate.
  static HWY_INLINE VI CastToInt(VF x, ::tessera::kernel::RoundMode mode) {
    const DF d;
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

  // ---- loads and stores -------------------------------------------------------------------------

  static float LoadScalarF(const void* p, DataType t) {
    switch (t) {
      case DataType::kFloat16:
        return HalfBitsToFloat(*static_cast<const uint16_t*>(p));
      case DataType::kBfloat16:
        return Bfloat16BitsToFloat(*static_cast<const uint16_t*>(p));
      default:
        return *static_cast<const float*>(p);
    }
  }
  static void StoreScalar(void* p, DataType t, uint32_t bits) {
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

  static HWY_INLINE hn::Vec<D16> F32ToBf16(VF v) {
    return km::NarrowU16(D16(), km::Bf16Bits(DF(), v));
  }
  static HWY_INLINE hn::Vec<D16> F32ToHalf(VF v) {
    return hn::BitCast(D16(), hn::DemoteTo(hn::Rebind<hwy::float16_t, DF>(), v));
  }
  static HWY_INLINE VF Widen(const uint16_t* p, DataType t) {
    const DF df;
    if (t == DataType::kFloat16) {
      return hn::PromoteTo(df, hn::LoadU(hn::Rebind<hwy::float16_t, DF>(),
                                         reinterpret_cast<const hwy::float16_t*>(p)));
    }
    return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(DU(), hn::LoadU(D16(), p))));
  }

  // Lanes [c, c + n) of parameter kIdx in fp32/int32 lanes; lanes past n are zero.
  template <uint32_t kIdx, bool kDense, bool kTail>
  HWY_INLINE VF Load(int64_t c, size_t n) const {
    constexpr DataType kType = kData.params[kIdx].dtype;
    constexpr size_t es = ElemSize(kType);
    const DF df;
    const block::Operand& o = p_.operands[kIdx];
    if (!kDense && o.col_stride != 1) {
      if (o.col_stride == 0) return hn::BitCast(df, hn::Set(DU(), bcast_[kIdx]));
      // A strided view: element by element, as the interpreter gathers it.
      alignas(64) uint32_t buf[kMaxLanes] = {};
      const char* src = row_[kIdx] + static_cast<size_t>(c * o.col_stride) * es;
      const size_t step = static_cast<size_t>(o.col_stride) * es;
      for (size_t i = 0; i < n && i < kMaxLanes; ++i, src += step) {
        if constexpr (es == 4) {
          std::memcpy(buf + i, src, 4);
        } else {
          buf[i] = std::bit_cast<uint32_t>(LoadScalarF(src, kType));
        }
      }
      return hn::BitCast(df, hn::Load(DU(), buf));
    }
    const char* src = row_[kIdx] + static_cast<size_t>(c) * es;
    if constexpr (es == 4) {
      if constexpr (!kTail) return hn::LoadU(df, reinterpret_cast<const float*>(src));
      alignas(64) float buf[kMaxLanes] = {};
      std::memcpy(buf, src, n * 4);
      return hn::Load(df, buf);
    } else {
      const auto* s16 = reinterpret_cast<const uint16_t*>(src);
      if constexpr (!kTail) return Widen(s16, kType);
      alignas(64) float buf[kMaxLanes] = {};
      for (size_t i = 0; i < n; ++i)
        buf[i] = LoadScalarF(s16 + i, kType);
      return hn::Load(df, buf);
    }
  }

  template <uint32_t kIdx, bool kTail>
  HWY_INLINE void Store(VF v, int64_t c, size_t n) {
    constexpr DataType kType = kData.params[kIdx].dtype;
    constexpr size_t es = ElemSize(kType);
    char* dst = row_[kIdx] + static_cast<size_t>(c) * es;
    if constexpr (kTail) {
      alignas(64) uint32_t buf[kMaxLanes];
      hn::Store(hn::BitCast(DU(), v), DU(), buf);
      for (size_t i = 0; i < n; ++i)
        StoreScalar(dst + i * es, kType, buf[i]);
    } else if constexpr (es == 4) {
      auto* d = reinterpret_cast<float*>(dst);
      if (stream_[kIdx] && reinterpret_cast<uintptr_t>(d) % (Lanes() * 4) == 0) {
        hn::Stream(v, DF(), d);
      } else {
        hn::StoreU(v, DF(), d);
      }
    } else {
      const auto narrow = kType == DataType::kFloat16 ? F32ToHalf(v) : F32ToBf16(v);
      auto* d = reinterpret_cast<uint16_t*>(dst);
      if constexpr (kCanStream16) {
        if (stream_[kIdx] && reinterpret_cast<uintptr_t>(d) % (Lanes() * 2) == 0) {
          return hn::Stream(narrow, D16(), d);
        }
      }
      hn::StoreU(narrow, D16(), d);
    }
  }

  float* SpillAddress(uint32_t slot, int64_t c) const {
    return reinterpret_cast<float*>(spill_) + slot * p_.spill_elems + c;
  }

  const block::BlockParams& p_;
  const uint32_t tile_;
  std::byte* const spill_;
  const bool dense_inputs_;       // every tensor input has unit column stride
  char* row_[kParams] = {};       // each tensor's current row
  uint32_t bcast_[kParams] = {};  // a column-broadcast tensor's value in the current row
  bool stream_[kParams] = {};     // non-temporal stores for this output
  double acc_[kReduced] = {};     // AR fp32 accumulators of the current row
  int64_t iacc_[kReduced] = {};   // AR int32 accumulators of the current row
  uint32_t fin_[kReduced] = {};   // finished AR results of the current row (lane bits)
};

// Units [begin, begin + count) of the problem on the calling kernel block, compiled when the
// program, the mode and the target allow (UsesCompiled), else interpreted.
template <class Prog>
bool UsesCompiled() {
  return Covers(Prog::View()) && !InterpreterForced() && StaticTargetIsWidest();
}

template <class Prog>
void RunBlock(const block::BlockParams& p, int64_t begin, int64_t count) {
  if (count <= 0) return;
  const device::BlockContext* ctx = device::CurrentBlock();
  if (!UsesCompiled<Prog>() || ctx == nullptr || ctx->checked || device::RecordingGmAccess() ||
      (Prog::kData.has_reduction && !Engine<Prog>::DenseInputs(p))) {
    return block::RunBlock(p, begin, count);
  }
  std::byte* spill = nullptr;
  if constexpr (Prog::kData.num_spills > 0) {
    if (p.spill_in_ub) {
      spill = reinterpret_cast<std::byte*>((reinterpret_cast<uintptr_t>(ctx->ub) + 63) &
                                           ~uintptr_t{63});
      const uint64_t need = uint64_t{Prog::kData.num_spills} * p.spill_elems * 4;
      if (static_cast<uint64_t>(spill - ctx->ub) + need > ctx->ub_bytes) {
        device::FailBlock(StatusCode::kOutOfRange,
                          "elewise: the tile program's spills need " + std::to_string(need) +
                              " bytes of UB, the block has " + std::to_string(ctx->ub_bytes));
      }
    } else {
      spill = static_cast<std::byte*>(p.workspace) + p.workspace_bytes_per_core * ctx->block_idx;
    }
  }
  Engine<Prog> engine(p, spill);
  engine.Run(begin, count);
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::elewise::compiled
HWY_AFTER_NAMESPACE();

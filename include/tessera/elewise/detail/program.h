// The tile program: what an elewise expression lowers to at compile time, and what the block
// engine interprets over micro-tiles at run time.
//
// A program is a list of instructions on virtual registers. Each register is one micro-tile of
// 32-bit lanes (fp32, int32 or a compare mask) carved out of the block's UB; a Load may instead
// point the register straight at global memory, so fp32/int32 inputs are not copied (except in a
// tile that is not a whole number of vectors). Sinks (Store, Spill, Reduce) end a statement.
// Instructions are grouped into passes: a pass may read only reductions finished by earlier
// passes, so a row program runs one sweep over the row per pass (multi-pass over rows wider than
// UB) and an elementwise program is a single pass.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "tessera/core/data_type.h"

namespace tessera::elewise {

// How a PlaceHolder parameter is used by the Compute: read, written, or both.
enum class ParamUsage : uint8_t { IN = 0, OUT = 1, IN_OUT = 2 };

// Reduction axis of a 2-D view [A, R]: AR reduces the last axis, RA the first.
enum class ReducePattern : uint8_t { AR = 0, RA = 1 };
// Broadcast of a reduced value back to [a0, a1]: AB from {a0, 1}, BA from {1, a1}.
enum class BroadcastPattern : uint8_t { AB = 0, BA = 1 };

namespace tile {

// Lane type of a register.
enum class Lane : uint8_t { kF32 = 0, kI32 = 1, kMask = 2 };

enum class OpCode : uint8_t {
  // sources: index = parameter, attribute, spill slot or reduced slot; kConst uses imm
  kLoad,
  kScalar,
  kAttr,
  kConst,
  kLoadSpill,
  kLoadReduced,
  // unary (a)
  kNeg,
  kAbs,
  kExp,
  kLog,
  kSqrt,
  kRsqrt,
  kReciprocal,
  kRelu,
  kSigmoid,
  kTanh,
  kGeluTanh,
  kGeluErf,
  kSilu,
  // binary (a, b)
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMax,
  kMin,
  kPow,
  // compare (a, b) -> mask; lane = the operands' lane
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  // select (mask a, b, c) -> a ? b : c
  kSelect,
  // conversions (a); mode = kernel::RoundMode
  kCastToInt,
  kCastToFloat,
  kRoundToHalf,
  kRoundToBf16,
  // sinks (a): index = parameter, spill slot or reduced slot
  kStore,
  kSpill,
  kReduce,
};

enum class ReduceKind : uint8_t { kSum = 0, kMax = 1, kMin = 2, kMean = 3 };

// Instr::mode flags set by peephole fusion at lowering.
// kStore: the value is produced by the instruction just before and read by nothing else, so that
// instruction may write the tensor directly.
inline constexpr uint8_t kStoreFused = 1;
// kReduce (AR, fp32): reduce the product of registers a and b (a removed Mul), e.g. sum(x * x).
inline constexpr uint8_t kReduceOfProduct = 0x80;
inline constexpr uint8_t kReduceKindMask = 0x7F;

struct Instr {
  OpCode op = OpCode::kConst;
  Lane lane = Lane::kF32;
  uint8_t dst = 0;
  uint8_t a = 0;
  uint8_t b = 0;
  uint8_t c = 0;
  uint8_t mode = 0;  // RoundMode of casts, ReduceKind (+ flags) of kReduce, flags of kStore
  uint32_t index = 0;
  float imm = 0.0f;
};

struct PassInfo {
  uint32_t first = 0;  // first instruction
  uint32_t count = 0;
};

struct ParamInfo {
  bool is_tensor = true;
  DataType dtype = DataType::kFloat32;  // element type of a tensor, or the scalar's type
  ParamUsage usage = ParamUsage::IN;
  bool reduced_output = false;    // written from a reduction: shape [A] (AR) or [R] (RA)
  bool read_after_write = false;  // an output read back later: keep it in cache (no streaming)
};

// An operator attribute a Compute reads (Attr<"name">): looked up by name at Run; a call that does
// not set it gets default_value when has_default, else fails.
struct AttrInfo {
  std::string_view name;
  DataType dtype = DataType::kFloat32;  // float or int32
  bool has_default = false;
  double default_value = 0.0;  // exact for every float and int32 value
};

struct ReducedInfo {
  ReduceKind kind = ReduceKind::kSum;
  Lane lane = Lane::kF32;
  int32_t target_param = -1;  // tensor written with the result, or -1 for a temporary
};

// What the engine needs; points into a Program's constexpr arrays.
struct ProgramView {
  std::span<const Instr> instrs;
  std::span<const PassInfo> passes;
  std::span<const ParamInfo> params;
  std::span<const ReducedInfo> reduced;
  std::span<const AttrInfo> attrs;
  uint32_t num_regs = 0;
  uint32_t num_spills = 0;
  bool has_reduction = false;
  ReducePattern pattern = ReducePattern::AR;
};

}  // namespace tile
}  // namespace tessera::elewise

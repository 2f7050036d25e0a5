// Compile-time lowering of a Compute's statements to a tile program (program.h).
//
// Two walks over the statements: the first assigns each statement its pass (a statement that
// reads a reduction runs in a pass after the one that finishes it) and finds which temporaries
// cross passes (those are spilled); the second emits instructions with reference-counted
// registers, so a register is reused as soon as its last reader has run. Errors in a Compute
// that types cannot catch (a temporary read before it is written, PlaceHolder numbers with gaps)
// stop compilation at a `throw` whose message says what is wrong.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "tessera/elewise/detail/program.h"
#include "tessera/elewise/expr.h"

namespace tessera::elewise::expr {

// Stops constant evaluation with `why` in the diagnostic.
constexpr void Require(bool ok, const char* why) {
  if (!ok) throw why;
}

struct Val {
  int32_t reg = -1;
};

struct ProgramSizes {
  size_t instrs = 0;
  size_t passes = 0;
  size_t params = 0;
  size_t reduced = 0;
  size_t attrs = 0;
};

template <size_t NI, size_t NPass, size_t NP, size_t NR, size_t NA>
struct ProgramData {
  std::array<tile::AttrInfo, NA> attrs{};
  std::array<tile::Instr, NI> instrs{};
  std::array<tile::PassInfo, NPass> passes{};
  std::array<tile::ParamInfo, NP> params{};
  std::array<tile::ReducedInfo, NR> reduced{};
  uint32_t num_regs = 0;
  uint32_t num_spills = 0;
  bool has_reduction = false;
  ReducePattern pattern = ReducePattern::AR;
};

class Lowerer {
 public:
  template <class... S>
  constexpr void Run(const Statements<S...>& stmts) {
    emit_ = false;
    Walk(stmts);
    // Reset emission state; keep what the scan learned about passes and temporaries.
    for (TempState& t : temps_) {
      t.reg = -1;
      t.defined = false;
    }
    for (ParamState& p : params_)
      p.written = false;
    cur_pass_ = 0;
    emit_ = true;
    Walk(stmts);
    ClosePass();
    for (size_t i = 0; i < params_.size(); ++i) {
      Require(params_[i].declared,
              "elewise: PlaceHolder numbers must run from 1 to n without gaps");
    }
  }

  constexpr ProgramSizes Sizes() const {
    return {instrs_.size(), passes_.size(), params_.size(), reduced_.size(), attrs_.size()};
  }

  template <ProgramSizes Z>
  constexpr auto Export() const {
    ProgramData<Z.instrs, Z.passes, Z.params, Z.reduced, Z.attrs> d;
    for (size_t i = 0; i < Z.attrs; ++i)
      d.attrs[i] = attrs_[i];
    for (size_t i = 0; i < Z.instrs; ++i)
      d.instrs[i] = instrs_[i];
    for (size_t i = 0; i < Z.passes; ++i)
      d.passes[i] = passes_[i];
    for (size_t i = 0; i < Z.params; ++i) {
      const ParamState& p = params_[i];
      d.params[i] = {p.is_tensor, p.dtype, p.usage, p.reduced_output, p.read_after_write};
    }
    for (size_t i = 0; i < Z.reduced; ++i)
      d.reduced[i] = reduced_[i];
    d.num_regs = max_regs_;
    d.num_spills = spills_;
    d.has_reduction = has_reduction_;
    d.pattern = pattern_;
    return d;
  }

  // ---- the node interface (see expr.h) ----

  constexpr Val Load(uint32_t idx, DataType dtype, ParamUsage usage) {
    DeclareTensor(idx, dtype, usage);
    ParamState& p = params_[idx];
    if (!emit_) {
      if (p.written) p.read_after_write = true;
      tensor_reads_.push_back({stmt_, idx});
      return {};
    }
    // A tensor read twice in one statement (x * x) is loaded once: the statement keeps a
    // reference until it ends. A statement's own store comes after all its loads, so the value
    // cannot go stale. Tensors read once are not held, so their registers are reused at once.
    int reads = 0;
    for (const auto& [stmt, param] : tensor_reads_)
      reads += stmt == stmt_ && param == idx;
    if (reads < 2) return Emit(tile::OpCode::kLoad, LaneOfType(dtype), idx);
    for (const auto& [param, reg] : loaded_) {
      if (param == idx) {
        ++refs_[static_cast<size_t>(reg)];
        return {reg};
      }
    }
    const Val v = Emit(tile::OpCode::kLoad, LaneOfType(dtype), idx);
    ++refs_[static_cast<size_t>(v.reg)];
    loaded_.push_back({idx, v.reg});
    return v;
  }
  constexpr Val Scalar(uint32_t idx, DataType dtype) {
    DeclareScalar(idx, dtype);
    return emit_ ? Emit(tile::OpCode::kScalar, LaneOfType(dtype), idx) : Val{};
  }
  constexpr Val Attribute(std::string_view name, DataType dtype, bool has_default,
                          double default_value) {
    uint32_t index = 0;
    while (index < attrs_.size() && attrs_[index].name != name)
      ++index;
    if (index == attrs_.size()) attrs_.push_back({name, dtype, has_default, default_value});
    Require(attrs_[index].dtype == dtype, "elewise: one Attr name is read as two different types");
    Require(
        attrs_[index].has_default == has_default && attrs_[index].default_value == default_value,
        "elewise: one Attr name is read with two different defaults");
    return emit_ ? Emit(tile::OpCode::kAttr, LaneOfType(dtype), index) : Val{};
  }
  constexpr Val Constant(tile::Lane lane, float value, int32_t ivalue) {
    if (!emit_) return {};
    Val v = Emit(tile::OpCode::kConst, lane, static_cast<uint32_t>(ivalue));
    instrs_.back().imm = value;
    return v;
  }
  constexpr Val ReadTemp(uint32_t key, tile::Lane lane) {
    TempState& t = Temp(key, lane);
    Require(t.defined, "elewise: a PlaceHolderTmp is read before it is assigned");
    if (t.reduced) {
      if (broadcast_depth_ > 0) {
        Require((expected_broadcast_ == BroadcastPattern::AB) == (t.pattern == ReducePattern::AR),
                "elewise: Broadcast<AB> expands an AR reduction, Broadcast<BA> an RA one");
      }
      if (!emit_) {
        required_pass_ = std::max(required_pass_, t.def_pass + 1);
        return {};
      }
      return Emit(tile::OpCode::kLoadReduced, lane, static_cast<uint32_t>(t.reduced_index));
    }
    if (!emit_) {
      reads_.push_back(key);
      t.last_read_stmt = stmt_;
      return {};
    }
    if (t.reg >= 0) {
      ++refs_[static_cast<size_t>(t.reg)];
      return {t.reg};
    }
    return Emit(tile::OpCode::kLoadSpill, lane, static_cast<uint32_t>(t.spill_slot));
  }
  constexpr Val Op1(tile::OpCode op, tile::Lane lane, Val a, uint8_t mode = 0) {
    if (!emit_) return {};
    const int32_t dst = refs_[static_cast<size_t>(a.reg)] == 1 ? a.reg : Alloc();
    instrs_.push_back({op, lane, Reg(dst), Reg(a.reg), 0, 0, mode, 0, 0.0f});
    if (dst != a.reg) Release(a.reg);
    return {dst};
  }
  constexpr Val Op2(tile::OpCode op, tile::Lane lane, Val a, Val b) {
    if (!emit_) return {};
    int32_t dst = refs_[static_cast<size_t>(a.reg)] == 1   ? a.reg
                  : refs_[static_cast<size_t>(b.reg)] == 1 ? b.reg
                                                           : Alloc();
    instrs_.push_back({op, lane, Reg(dst), Reg(a.reg), Reg(b.reg), 0, 0, 0, 0.0f});
    if (dst != a.reg) Release(a.reg);
    if (dst != b.reg) Release(b.reg);
    return {dst};
  }
  constexpr Val Select(tile::Lane lane, Val m, Val a, Val b) {
    if (!emit_) return {};
    const int32_t dst = refs_[static_cast<size_t>(m.reg)] == 1 ? m.reg : Alloc();
    instrs_.push_back(
        {tile::OpCode::kSelect, lane, Reg(dst), Reg(m.reg), Reg(a.reg), Reg(b.reg), 0, 0, 0.0f});
    if (dst != m.reg) Release(m.reg);
    Release(a.reg);
    Release(b.reg);
    return {dst};
  }
  constexpr void ExpectBroadcast(BroadcastPattern p) {
    ++broadcast_depth_;
    expected_broadcast_ = p;
  }
  constexpr void EndBroadcast() { --broadcast_depth_; }
  constexpr void DeclareTensor(uint32_t idx, DataType dtype, ParamUsage usage) {
    ParamState& p = Param(idx);
    Require(!p.declared || (p.is_tensor && p.dtype == dtype && p.usage == usage),
            "elewise: one PlaceHolder number is declared with two different types or usages");
    p.declared = true;
    p.is_tensor = true;
    p.dtype = dtype;
    p.usage = usage;
  }
  constexpr void DeclareScalar(uint32_t idx, DataType dtype) {
    ParamState& p = Param(idx);
    Require(!p.declared || (!p.is_tensor && p.dtype == dtype),
            "elewise: one PlaceHolder number is declared with two different types");
    p.declared = true;
    p.is_tensor = false;
    p.dtype = dtype;
    p.usage = ParamUsage::IN;
  }

 private:
  struct TempState {
    uint32_t key = 0;
    tile::Lane lane = tile::Lane::kF32;
    bool defined = false;
    bool reduced = false;
    ReducePattern pattern = ReducePattern::AR;
    int32_t reduced_index = -1;
    int32_t def_pass = 0;
    int32_t last_read_stmt = -1;
    bool spilled = false;
    int32_t spill_slot = -1;
    int32_t reg = -1;
  };
  struct ParamState {
    bool declared = false;
    bool is_tensor = true;
    DataType dtype = DataType::kFloat32;
    ParamUsage usage = ParamUsage::IN;
    bool written = false;
    bool reduced_output = false;
    bool read_after_write = false;
  };

  static constexpr tile::Lane LaneOfType(DataType t) {
    return t == DataType::kInt32 ? tile::Lane::kI32 : tile::Lane::kF32;
  }
  static constexpr uint8_t Reg(int32_t r) { return static_cast<uint8_t>(r); }

  constexpr ParamState& Param(uint32_t idx) {
    if (params_.size() <= idx) params_.resize(idx + 1);
    return params_[idx];
  }
  constexpr TempState& Temp(uint32_t key, tile::Lane lane) {
    for (TempState& t : temps_) {
      if (t.key == key) {
        Require(t.lane == lane, "elewise: one PlaceHolderTmp number is used with two types");
        return t;
      }
    }
    temps_.push_back(TempState{key, lane});
    return temps_.back();
  }

  constexpr int32_t Alloc() {
    for (size_t i = 0; i < refs_.size(); ++i) {
      if (refs_[i] == 0) {
        refs_[i] = 1;
        return static_cast<int32_t>(i);
      }
    }
    Require(refs_.size() < 255, "elewise: expression needs more than 255 live registers");
    refs_.push_back(1);
    max_regs_ = std::max<uint32_t>(max_regs_, static_cast<uint32_t>(refs_.size()));
    return static_cast<int32_t>(refs_.size() - 1);
  }
  constexpr void Release(int32_t reg) { --refs_[static_cast<size_t>(reg)]; }
  constexpr Val Emit(tile::OpCode op, tile::Lane lane, uint32_t index) {
    const int32_t dst = Alloc();
    instrs_.push_back({op, lane, Reg(dst), 0, 0, 0, 0, index, 0.0f});
    return {dst};
  }

  constexpr void ClosePass() {
    const auto first = passes_.empty() ? 0u : passes_.back().first + passes_.back().count;
    passes_.push_back({first, static_cast<uint32_t>(instrs_.size()) - first});
    for (int32_t& r : refs_)
      r = 0;
    for (TempState& t : temps_)
      t.reg = -1;
  }

  template <class... S>
  constexpr void Walk(const Statements<S...>& stmts) {
    stmt_ = 0;
    std::apply([&](const auto&... s) { (Statement(s), ...); }, stmts.list);
  }

  template <class Target, class Rhs>
  constexpr void Statement(const Assign<Target, Rhs>& s) {
    int32_t pass = 0;
    if (!emit_) {
      required_pass_ = stmt_pass_.empty() ? 0 : stmt_pass_.back();
      reads_.clear();
    } else {
      pass = stmt_pass_[static_cast<size_t>(stmt_)];
      if (pass != cur_pass_) {
        ClosePass();
        cur_pass_ = pass;
      }
    }
    Val v;
    if constexpr (kIsReduce<Rhs>) {
      v = s.rhs.a.Lower(*this);
    } else {
      v = s.rhs.Lower(*this);
    }
    if (!emit_) {
      stmt_pass_.push_back(required_pass_);
      pass = required_pass_;
      for (uint32_t key : reads_) {
        TempState& t = Temp(key, LaneOfKey(key));
        if (t.def_pass < pass) t.spilled = true;
      }
    }
    if constexpr (kIsReduce<Rhs>) {
      if (has_reduction_) {
        Require(pattern_ == Rhs::kPattern,
                "elewise: one Compute cannot mix AR and RA reductions; split it in two operators");
      }
      has_reduction_ = true;
      pattern_ = Rhs::kPattern;
    }
    Define(s.target, v, s.rhs, pass);
    if (emit_) {
      for (const auto& [param, reg] : loaded_)
        Release(reg);
      loaded_.clear();
      ReleaseDeadTemps();
    }
    ++stmt_;
  }

  constexpr tile::Lane LaneOfKey(uint32_t key) const {
    for (const TempState& t : temps_) {
      if (t.key == key) return t.lane;
    }
    return tile::Lane::kF32;
  }

  // Temporaries not read again in this pass give their register back.
  constexpr void ReleaseDeadTemps() {
    for (TempState& t : temps_) {
      if (t.reg < 0) continue;
      const bool read_later_here = t.last_read_stmt > stmt_ &&
                                   stmt_pass_[static_cast<size_t>(t.last_read_stmt)] == cur_pass_;
      if (!read_later_here) {
        Release(t.reg);
        t.reg = -1;
      }
    }
  }

  // True when the last instruction computed v and nothing else holds its register.
  constexpr bool ProducedLast(Val v, tile::OpCode op) const {
    return !instrs_.empty() && instrs_.back().op == op && instrs_.back().dst == v.reg &&
           refs_[static_cast<size_t>(v.reg)] == 1;
  }

  template <class Rhs>
  constexpr void DefineReduce(int32_t target_param, Val v, const Rhs&) {
    if (!emit_) return;
    const auto index = static_cast<uint32_t>(reduced_.size());
    reduced_.push_back({Rhs::kKind, Rhs::kLane, target_param});
    tile::Instr r{tile::OpCode::kReduce,
                  Rhs::kLane,
                  0,
                  Reg(v.reg),
                  0,
                  0,
                  static_cast<uint8_t>(Rhs::kKind),
                  index,
                  0.0f};
    // Reduce(a * b) along rows reads a and b directly; the Mul's inputs are still intact.
    if (Rhs::kPattern == ReducePattern::AR && Rhs::kLane == tile::Lane::kF32 &&
        ProducedLast(v, tile::OpCode::kMul)) {
      r.a = instrs_.back().a;
      r.b = instrs_.back().b;
      r.mode |= tile::kReduceOfProduct;
      instrs_.pop_back();
    }
    instrs_.push_back(r);
    Release(v.reg);
  }

  template <uint32_t N, class E, ParamUsage U, class Rhs>
  constexpr void Define(const PlaceHolder<N, Tensor<E>, U>& t, Val v, const Rhs& rhs, int32_t) {
    t.Declare(*this);
    ParamState& p = params_[N - 1];
    if constexpr (kIsReduce<Rhs>) {
      p.reduced_output = true;
      DefineReduce(static_cast<int32_t>(N - 1), v, rhs);
    } else if (emit_) {
      Require(!p.reduced_output,
              "elewise: a tensor is written both from a reduction and elementwise");
      bool fused = false;
      for (tile::OpCode op : {tile::OpCode::kAdd, tile::OpCode::kSub, tile::OpCode::kMul,
                              tile::OpCode::kMax, tile::OpCode::kMin}) {
        fused = fused || ProducedLast(v, op);
      }
      if (!instrs_.empty() && instrs_.back().lane == tile::Lane::kF32 &&
          instrs_.back().op >= tile::OpCode::kNeg && instrs_.back().op <= tile::OpCode::kSilu) {
        fused = fused || ProducedLast(v, instrs_.back().op);
      }
      instrs_.push_back({tile::OpCode::kStore, PlaceHolder<N, Tensor<E>, U>::kLane, 0, Reg(v.reg),
                         0, 0, fused ? tile::kStoreFused : uint8_t{0}, N - 1, 0.0f});
      Release(v.reg);
    }
    p.written = true;
  }

  template <uint32_t K, class T, class Rhs>
  constexpr void Define(const PlaceHolderTmp<K, T>&, Val v, const Rhs& rhs, int32_t pass) {
    TempState& t = Temp(K, PlaceHolderTmp<K, T>::kLane);
    t.defined = true;
    t.reduced = kIsReduce<Rhs>;
    if constexpr (kIsReduce<Rhs>) {
      t.pattern = Rhs::kPattern;
      if (emit_) t.reduced_index = static_cast<int32_t>(reduced_.size());
      DefineReduce(-1, v, rhs);
    }
    if (!emit_) {
      t.def_pass = pass;
      return;
    }
    if constexpr (!kIsReduce<Rhs>) {
      if (t.reg >= 0) Release(t.reg);
      t.reg = v.reg;
      if (t.spilled) {
        if (t.spill_slot < 0) t.spill_slot = static_cast<int32_t>(spills_++);
        instrs_.push_back({tile::OpCode::kSpill, t.lane, 0, Reg(v.reg), 0, 0, 0,
                           static_cast<uint32_t>(t.spill_slot), 0.0f});
      }
    }
  }

  bool emit_ = false;
  int32_t stmt_ = 0;
  int32_t cur_pass_ = 0;
  int32_t required_pass_ = 0;
  int32_t broadcast_depth_ = 0;
  BroadcastPattern expected_broadcast_ = BroadcastPattern::AB;
  bool has_reduction_ = false;
  ReducePattern pattern_ = ReducePattern::AR;
  std::vector<int32_t> stmt_pass_;
  std::vector<uint32_t> reads_;
  std::vector<TempState> temps_;
  std::vector<ParamState> params_;
  std::vector<tile::Instr> instrs_;
  std::vector<tile::PassInfo> passes_;
  std::vector<tile::ReducedInfo> reduced_;
  std::vector<tile::AttrInfo> attrs_;
  std::vector<int32_t> refs_;
  std::vector<std::pair<uint32_t, int32_t>> loaded_;  // tensors loaded by the current statement
  std::vector<std::pair<int32_t, uint32_t>> tensor_reads_;  // (statement, parameter), from the scan
  uint32_t max_regs_ = 0;
  uint32_t spills_ = 0;
};

// The lowered program of a Compute struct (one with `template <template <class> class Tensor>
// constexpr auto Compute() const`).
template <class ComputeT>
struct ProgramFor {
  static constexpr auto kStatements = AsStatements(ComputeT{}.template Compute<expr::Tensor>());
  static constexpr ProgramSizes kSizes = [] {
    Lowerer l;
    l.Run(kStatements);
    return l.Sizes();
  }();
  static constexpr auto kData = [] {
    Lowerer l;
    l.Run(kStatements);
    return l.template Export<kSizes>();
  }();

  static constexpr tile::ProgramView View() {
    return {kData.instrs,   kData.passes,     kData.params,        kData.reduced, kData.attrs,
            kData.num_regs, kData.num_spills, kData.has_reduction, kData.pattern};
  }
};

}  // namespace tessera::elewise::expr

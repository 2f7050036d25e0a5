// Expressions of the elewise layer: placeholders, operators and statements, written inside a
// Compute struct and lowered at compile time to a tile program (program.h).
//
//   auto x = PlaceHolder<1, Tensor<float>, ParamUsage::IN>();
//   auto s = PlaceHolder<2, float>();                       // runtime scalar
//   auto y = PlaceHolder<3, Tensor<float>, ParamUsage::OUT>();
//   auto t = PlaceHolderTmp<1>();                           // named temporary (fp32)
//   return (t = Exp(x - s), y = t * t + 1.0f);
//
// Values have a lane type fixed at compile time: fp32 (tensors of float, half, bfloat16 and
// float scalars; half/bfloat16 are widened on load and rounded to nearest even on store), int32,
// or a comparison mask. Mixing lanes is a compile error that names the fix (Cast).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tessera/core/data_type.h"
#include "tessera/elewise/detail/program.h"
#include "tessera/kernel/vector_types.h"

namespace tessera::elewise {

using ::tessera::kernel::RoundMode;

namespace expr {

using tile::Lane;
using tile::OpCode;
using tile::ReduceKind;

// The tensor template a Compute is instantiated with: Tensor<T> names a tensor of element type T.
template <class T>
struct Tensor {
  using Element = T;
};

template <class T>
inline constexpr bool kIsElement = std::is_same_v<T, float> || std::is_same_v<T, half> ||
                                   std::is_same_v<T, bfloat16> || std::is_same_v<T, int32_t>;

template <class T>
constexpr DataType DataTypeOf() {
  if constexpr (std::is_same_v<T, float>) return DataType::kFloat32;
  if constexpr (std::is_same_v<T, half>) return DataType::kFloat16;
  if constexpr (std::is_same_v<T, bfloat16>) return DataType::kBfloat16;
  return DataType::kInt32;
}

template <class T>
inline constexpr Lane kLaneOf = std::is_same_v<T, int32_t> ? Lane::kI32 : Lane::kF32;

// Every expression node derives from NodeBase; kLane is its lane type.
struct NodeBase {};
template <class T>
concept Node = std::is_base_of_v<NodeBase, T>;

// A statement: `target = value`, or several chained with `,`.
struct StatementBase {};
template <class T>
concept Statement = std::is_base_of_v<StatementBase, T>;

template <class Target, class Rhs>
struct Assign;

// ---- leaves --------------------------------------------------------------------------------

template <uint32_t N, class T, ParamUsage Usage = ParamUsage::IN>
struct PlaceHolder;

// Tensor parameter N (1-based, the position in ArgumentsBuilder::inputOutput).
template <uint32_t N, class E, ParamUsage Usage>
struct PlaceHolder<N, Tensor<E>, Usage> : NodeBase {
  static_assert(N >= 1, "PlaceHolder: parameters are numbered from 1");
  static_assert(kIsElement<E>, "PlaceHolder: Tensor<T> needs T = float, half, bfloat16 or int32_t");
  static constexpr Lane kLane = kLaneOf<E>;
  template <class W>
  constexpr auto Lower(W& w) const {
    return w.Load(N - 1, DataTypeOf<E>(), Usage);
  }
  template <class W>
  constexpr void Declare(W& w) const {
    w.DeclareTensor(N - 1, DataTypeOf<E>(), Usage);
  }
  constexpr PlaceHolder() = default;
  constexpr PlaceHolder(const PlaceHolder&) = default;
  template <class R>
  constexpr auto operator=(const R& rhs) const;
  constexpr auto operator=(const PlaceHolder& rhs) const;
};

// Runtime scalar parameter N: float (fp32 lanes) or int32_t (int32 lanes).
template <uint32_t N, class S, ParamUsage Usage>
requires(std::is_same_v<S, float> || std::is_same_v<S, int32_t>) struct PlaceHolder<N, S, Usage>
    : NodeBase {
  static_assert(N >= 1, "PlaceHolder: parameters are numbered from 1");
  static_assert(Usage == ParamUsage::IN, "PlaceHolder: a scalar parameter can only be an input");
  static constexpr Lane kLane = kLaneOf<S>;
  template <class W>
  constexpr auto Lower(W& w) const {
    return w.Scalar(N - 1, DataTypeOf<S>());
  }
  template <class W>
  constexpr void Declare(W& w) const {
    w.DeclareScalar(N - 1, DataTypeOf<S>());
  }
};

// Named temporary K of element type T (float or int32_t). It lives in a UB register while its
// statements run; when a later pass reads it, it is kept for the row in UB (or the workspace).
template <uint32_t K, class T = float>
struct PlaceHolderTmp : NodeBase {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, int32_t>,
                "PlaceHolderTmp: temporaries are float or int32_t (computation lanes)");
  static constexpr Lane kLane = kLaneOf<T>;
  template <class W>
  constexpr auto Lower(W& w) const {
    return w.ReadTemp(K, kLane);
  }
  constexpr PlaceHolderTmp() = default;
  constexpr PlaceHolderTmp(const PlaceHolderTmp&) = default;
  template <class R>
  constexpr auto operator=(const R& rhs) const;
  constexpr auto operator=(const PlaceHolderTmp& rhs) const;
};

// An operator attribute, set at run time with ArgumentsBuilder::attr(name, value):
// `Attr<"epsilon">()` (fp32 lanes) or `Attr<"shift", int32_t>()`, required by every call; or with
// a default, `Attr<"alpha">(1.0f)`, used when a call does not set it (and the default of the op
// attribute TESSERA_ELEWISE_OP declares). Every read of one name must give the same default.
template <size_t L>
struct AttrName {
  char chars[L] = {};
  constexpr AttrName(const char (&s)[L]) {  // NOLINT: implicit from a string literal by design
    for (size_t i = 0; i < L; ++i)
      chars[i] = s[i];
  }
  constexpr std::string_view view() const { return {chars, L - 1}; }
};

template <AttrName Name, class T = float>
struct Attr : NodeBase {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, int32_t>,
                "Attr: attributes are read as float or int32_t");
  static constexpr Lane kLane = kLaneOf<T>;
  constexpr Attr() = default;
  constexpr explicit Attr(T default_value) : has_default(true), default_value(default_value) {}
  template <class W>
  constexpr auto Lower(W& w) const {
    return w.Attribute(Name.view(), DataTypeOf<T>(), has_default,
                       static_cast<double>(default_value));
  }
  bool has_default = false;
  T default_value{};
};

// A literal in an expression; its lane is the other operand's.
template <Lane L>
struct Const : NodeBase {
  static constexpr Lane kLane = L;
  float value = 0;
  int32_t ivalue = 0;
  template <class W>
  constexpr auto Lower(W& w) const {
    return w.Constant(L, value, ivalue);
  }
};

template <Lane L, class T>
constexpr auto Lift(const T& v) {
  if constexpr (Node<T>) {
    return v;
  } else {
    static_assert(std::is_arithmetic_v<T>, "elewise: operands are expressions or numbers");
    Const<L> c;
    c.value = static_cast<float>(v);
    c.ivalue = static_cast<int32_t>(v);
    return c;
  }
}

// ---- interior nodes ------------------------------------------------------------------------

template <OpCode Op, class A>
struct Unary : NodeBase {
  static constexpr Lane kLane = A::kLane;
  A a;
  template <class W>
  constexpr auto Lower(W& w) const {
    return w.Op1(Op, kLane, a.Lower(w));
  }
};

template <OpCode Op, class A, class B>
struct Binary : NodeBase {
  static_assert(A::kLane == B::kLane,
                "elewise: operands have different lane types (fp32 vs int32); use Cast<>");
  static_assert(A::kLane != Lane::kMask, "elewise: a comparison result is only valid in Select");
  static constexpr Lane kLane = A::kLane;
  A a;
  B b;
  template <class W>
  constexpr auto Lower(W& w) const {
    auto va = a.Lower(w);
    auto vb = b.Lower(w);
    return w.Op2(Op, kLane, va, vb);
  }
};

template <OpCode Op, class A, class B>
struct Compare : NodeBase {
  static_assert(A::kLane == B::kLane && A::kLane != Lane::kMask,
                "elewise: compare operands must have the same lane type; use Cast<>");
  static constexpr Lane kLane = Lane::kMask;
  A a;
  B b;
  template <class W>
  constexpr auto Lower(W& w) const {
    auto va = a.Lower(w);
    auto vb = b.Lower(w);
    return w.Op2(Op, A::kLane, va, vb);
  }
};

template <class M, class A, class B>
struct SelectNode : NodeBase {
  static_assert(M::kLane == Lane::kMask, "Select: the first operand must be a comparison");
  static_assert(A::kLane == B::kLane, "Select: both branches need the same lane type");
  static constexpr Lane kLane = A::kLane;
  M m;
  A a;
  B b;
  template <class W>
  constexpr auto Lower(W& w) const {
    auto vm = m.Lower(w);
    auto va = a.Lower(w);
    auto vb = b.Lower(w);
    return w.Select(kLane, vm, va, vb);
  }
};

template <class To, RoundMode Mode, class A>
struct CastNode : NodeBase {
  static constexpr Lane kLane = kLaneOf<To>;
  A a;
  template <class W>
  constexpr auto Lower(W& w) const {
    auto va = a.Lower(w);
    if constexpr (A::kLane == kLane && std::is_same_v<To, half>) {
      return w.Op1(OpCode::kRoundToHalf, kLane, va, static_cast<uint8_t>(Mode));
    } else if constexpr (A::kLane == kLane && std::is_same_v<To, bfloat16>) {
      return w.Op1(OpCode::kRoundToBf16, kLane, va, static_cast<uint8_t>(Mode));
    } else if constexpr (A::kLane == kLane) {
      return va;
    } else if constexpr (kLane == Lane::kI32) {
      return w.Op1(OpCode::kCastToInt, kLane, va, static_cast<uint8_t>(Mode));
    } else {
      return w.Op1(OpCode::kCastToFloat, kLane, va, static_cast<uint8_t>(Mode));
    }
  }
};

// A reduction along one axis; only valid as the whole right-hand side of a statement.
template <ReduceKind Kind, ReducePattern P, class A>
struct ReduceNode : NodeBase {
  static constexpr Lane kLane = A::kLane;
  static constexpr ReduceKind kKind = Kind;
  static constexpr ReducePattern kPattern = P;
  A a;
};

// Broadcast of a reduced temporary back over the reduced axis (AB after AR, BA after RA).
// Reduced temporaries also broadcast implicitly; this node states the intent and is checked.
template <BroadcastPattern P, class A>
struct BroadcastNode : NodeBase {
  static constexpr Lane kLane = A::kLane;
  A a;
  template <class W>
  constexpr auto Lower(W& w) const {
    w.ExpectBroadcast(P);
    auto v = a.Lower(w);
    w.EndBroadcast();
    return v;
  }
};

template <class T>
inline constexpr bool kIsReduce = false;
template <ReduceKind K, ReducePattern P, class A>
inline constexpr bool kIsReduce<ReduceNode<K, P, A>> = true;

template <class T>
concept Operand = Node<T> || std::is_arithmetic_v<T>;

template <class A, class B>
constexpr Lane PairLane() {
  if constexpr (Node<A>) {
    return A::kLane;
  } else {
    static_assert(Node<B>, "elewise: at least one operand must be an expression");
    return B::kLane;
  }
}

template <OpCode Op, class A, class B>
constexpr auto MakeBinary(const A& a, const B& b) {
  constexpr Lane l = PairLane<A, B>();
  auto la = Lift<l>(a);
  auto lb = Lift<l>(b);
  using LA = decltype(la);
  using LB = decltype(lb);
  static_assert(!kIsReduce<LA> && !kIsReduce<LB>,
                "elewise: a reduction must be the whole right-hand side of a statement; assign it "
                "to a PlaceHolderTmp first");
  if constexpr (Op == OpCode::kDiv || Op == OpCode::kPow) {
    static_assert(l == Lane::kF32, "elewise: Div and Pow need fp32 lanes; Cast<float> first");
  }
  if constexpr (Op >= OpCode::kEq && Op <= OpCode::kGe) {
    return Compare<Op, LA, LB>{{}, la, lb};
  } else {
    return Binary<Op, LA, LB>{{}, la, lb};
  }
}

template <OpCode Op, Node A>
constexpr auto MakeUnary(const A& a) {
  static_assert(!kIsReduce<A>,
                "elewise: a reduction must be the whole right-hand side of a statement; assign it "
                "to a PlaceHolderTmp first");
  static_assert(A::kLane != Lane::kMask, "elewise: a comparison result is only valid in Select");
  if constexpr (Op != OpCode::kNeg && Op != OpCode::kAbs && Op != OpCode::kRelu) {
    static_assert(A::kLane == Lane::kF32, "elewise: this math function needs fp32 lanes");
  }
  return Unary<Op, A>{{}, a};
}

// ---- statements ----------------------------------------------------------------------------

template <class Target, class Rhs>
struct Assign : StatementBase {
  Target target;
  Rhs rhs;
};

template <class... S>
struct Statements : StatementBase {
  std::tuple<S...> list;
};

template <Statement A>
constexpr auto AsStatements(const A& a) {
  if constexpr (requires { a.list; }) {
    return a;
  } else {
    return Statements<A>{{}, std::tuple<A>(a)};
  }
}

template <Statement A, Statement B>
constexpr auto operator,(const A& a, const B& b) {
  const auto la = AsStatements(a);
  const auto lb = AsStatements(b);
  return std::apply(
      [&](const auto&... x) {
        return std::apply(
            [&](const auto&... y) {
              return Statements<std::decay_t<decltype(x)>..., std::decay_t<decltype(y)>...>{
                  {}, {x..., y...}};
            },
            lb.list);
      },
      la.list);
}

template <class Target, class R>
constexpr auto MakeAssign(const Target& t, const R& rhs) {
  auto v = Lift<Target::kLane>(rhs);
  using V = decltype(v);
  static_assert(V::kLane == Target::kLane,
                "elewise: the value's lane type differs from the target's; use Cast<>");
  return Assign<Target, V>{{}, t, v};
}

template <uint32_t N, class E, ParamUsage U>
template <class R>
constexpr auto PlaceHolder<N, Tensor<E>, U>::operator=(const R& rhs) const {
  static_assert(U != ParamUsage::IN,
                "elewise: assigning to an IN PlaceHolder; make it OUT or IN_OUT");
  return MakeAssign(*this, rhs);
}
template <uint32_t N, class E, ParamUsage U>
constexpr auto PlaceHolder<N, Tensor<E>, U>::operator=(const PlaceHolder& rhs) const {
  static_assert(U != ParamUsage::IN,
                "elewise: assigning to an IN PlaceHolder; make it OUT or IN_OUT");
  return MakeAssign(*this, rhs);
}
template <uint32_t K, class T>
template <class R>
constexpr auto PlaceHolderTmp<K, T>::operator=(const R& rhs) const {
  return MakeAssign(*this, rhs);
}
template <uint32_t K, class T>
constexpr auto PlaceHolderTmp<K, T>::operator=(const PlaceHolderTmp& rhs) const {
  return MakeAssign(*this, rhs);
}

// ---- operators and functions ---------------------------------------------------------------

template <Operand A, Operand B>
requires(Node<A> || Node<B>) constexpr auto operator+(const A& a, const B& b) {
  return MakeBinary<OpCode::kAdd>(a, b);
}
template <Operand A, Operand B>
requires(Node<A> || Node<B>) constexpr auto operator-(const A& a, const B& b) {
  return MakeBinary<OpCode::kSub>(a, b);
}
template <Operand A, Operand B>
requires(Node<A> || Node<B>) constexpr auto operator*(const A& a, const B& b) {
  return MakeBinary<OpCode::kMul>(a, b);
}
template <Operand A, Operand B>
requires(Node<A> || Node<B>) constexpr auto operator/(const A& a, const B& b) {
  return MakeBinary<OpCode::kDiv>(a, b);
}
template <Operand A, Operand B>
requires(Node<A> || Node<B>) constexpr auto operator==(const A& a, const B& b) {
  return MakeBinary<OpCode::kEq>(a, b);
}
template <Operand A, Operand B>
requires(Node<A> || Node<B>) constexpr auto operator!=(const A& a, const B& b) {
  return MakeBinary<OpCode::kNe>(a, b);
}
template <Operand A, Operand B>
requires(Node<A> || Node<B>) constexpr auto operator<(const A& a, const B& b) {
  return MakeBinary<OpCode::kLt>(a, b);
}
template <Operand A, Operand B>
requires(Node<A> || Node<B>) constexpr auto operator<=(const A& a, const B& b) {
  return MakeBinary<OpCode::kLe>(a, b);
}
template <Operand A, Operand B>
requires(Node<A> || Node<B>) constexpr auto operator>(const A& a, const B& b) {
  return MakeBinary<OpCode::kGt>(a, b);
}
template <Operand A, Operand B>
requires(Node<A> || Node<B>) constexpr auto operator>=(const A& a, const B& b) {
  return MakeBinary<OpCode::kGe>(a, b);
}
template <Node A>
constexpr auto operator-(const A& a) {
  return MakeUnary<OpCode::kNeg>(a);
}

// Math on fp32 lanes; accuracy and ranges are listed in docs/elewise.md.
template <Node A>
constexpr auto Abs(const A& a) {
  return MakeUnary<OpCode::kAbs>(a);
}
template <Node A>
constexpr auto Exp(const A& a) {
  return MakeUnary<OpCode::kExp>(a);
}
template <Node A>
constexpr auto Log(const A& a) {
  return MakeUnary<OpCode::kLog>(a);
}
template <Node A>
constexpr auto Sqrt(const A& a) {
  return MakeUnary<OpCode::kSqrt>(a);
}
template <Node A>
constexpr auto Rsqrt(const A& a) {
  return MakeUnary<OpCode::kRsqrt>(a);
}
template <Node A>
constexpr auto Reciprocal(const A& a) {
  return MakeUnary<OpCode::kReciprocal>(a);
}
template <Node A>
constexpr auto Relu(const A& a) {
  return MakeUnary<OpCode::kRelu>(a);
}
template <Node A>
constexpr auto Sigmoid(const A& a) {
  return MakeUnary<OpCode::kSigmoid>(a);
}
template <Node A>
constexpr auto Tanh(const A& a) {
  return MakeUnary<OpCode::kTanh>(a);
}
// GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
template <Node A>
constexpr auto Gelu(const A& a) {
  return MakeUnary<OpCode::kGeluTanh>(a);
}
// GELU, exact form: 0.5 x (1 + erf(x / sqrt 2)).
template <Node A>
constexpr auto GeluErf(const A& a) {
  return MakeUnary<OpCode::kGeluErf>(a);
}
template <Node A>
constexpr auto Silu(const A& a) {
  return MakeUnary<OpCode::kSilu>(a);
}
// x^y with a runtime (or per-element) exponent.
template <Operand A, Operand B>
requires(Node<A> || Node<B>) constexpr auto Pow(const A& x, const B& y) {
  return MakeBinary<OpCode::kPow>(x, y);
}
template <Operand A, Operand B>
requires(Node<A> || Node<B>) constexpr auto Max(const A& a, const B& b) {
  return MakeBinary<OpCode::kMax>(a, b);
}
template <Operand A, Operand B>
requires(Node<A> || Node<B>) constexpr auto Min(const A& a, const B& b) {
  return MakeBinary<OpCode::kMin>(a, b);
}

// mask ? a : b, with mask a comparison.
template <Node M, Operand A, Operand B>
constexpr auto Select(const M& mask, const A& a, const B& b) {
  constexpr Lane l = PairLane<A, B>();
  auto la = Lift<l>(a);
  auto lb = Lift<l>(b);
  return SelectNode<M, decltype(la), decltype(lb)>{{}, mask, la, lb};
}
template <Node M, Operand A, Operand B>
constexpr auto Where(const M& mask, const A& a, const B& b) {
  return Select(mask, a, b);
}

// Conversion. To int32_t: Mode picks the rounding (NONE/RINT = nearest even, FLOOR, CEIL, ROUND =
// half away from zero, TRUNC). To float from int32: nearest even. To half/bfloat16: the fp32
// value rounded to that type (nearest even) and kept in fp32 lanes.
template <class To, RoundMode Mode = RoundMode::CAST_NONE, Node A>
constexpr auto Cast(const A& a) {
  static_assert(kIsElement<To>, "Cast: target must be float, half, bfloat16 or int32_t");
  static_assert(A::kLane != Lane::kMask, "Cast: a comparison result is only valid in Select");
  static_assert(Mode != RoundMode::CAST_ODD, "Cast: CAST_ODD is not supported by elewise");
  if constexpr (std::is_same_v<To, half> || std::is_same_v<To, bfloat16>) {
    static_assert(Mode == RoundMode::CAST_NONE || Mode == RoundMode::CAST_RINT,
                  "Cast<half|bfloat16>: only nearest-even rounding (NONE or RINT)");
    static_assert(A::kLane == Lane::kF32, "Cast<half|bfloat16>: Cast<float> the int32 value first");
  }
  return CastNode<To, Mode, A>{{}, a};
}

template <ReducePattern P, Node A>
constexpr auto ReduceSum(const A& a) {
  return ReduceNode<ReduceKind::kSum, P, A>{{}, a};
}
template <ReducePattern P, Node A>
constexpr auto ReduceMax(const A& a) {
  return ReduceNode<ReduceKind::kMax, P, A>{{}, a};
}
template <ReducePattern P, Node A>
constexpr auto ReduceMin(const A& a) {
  return ReduceNode<ReduceKind::kMin, P, A>{{}, a};
}
// Mean over the reduced axis (fp32 only).
template <ReducePattern P, Node A>
constexpr auto ReduceMean(const A& a) {
  static_assert(A::kLane == Lane::kF32, "ReduceMean: needs fp32 lanes; Cast<float> first");
  return ReduceNode<ReduceKind::kMean, P, A>{{}, a};
}
template <BroadcastPattern P, Node A>
constexpr auto Broadcast(const A& a) {
  return BroadcastNode<P, A>{{}, a};
}

}  // namespace expr

// The user-facing names live in tessera::elewise.
using expr::Abs;
using expr::Attr;
using expr::Broadcast;
using expr::Cast;
using expr::Exp;
using expr::Gelu;
using expr::GeluErf;
using expr::Log;
using expr::Max;
using expr::Min;
using expr::PlaceHolder;
using expr::PlaceHolderTmp;
using expr::Pow;
using expr::Reciprocal;
using expr::ReduceMax;
using expr::ReduceMean;
using expr::ReduceMin;
using expr::ReduceSum;
using expr::Relu;
using expr::Rsqrt;
using expr::Select;
using expr::Sigmoid;
using expr::Silu;
using expr::Sqrt;
using expr::Tanh;
using expr::Tensor;
using expr::Where;

}  // namespace tessera::elewise

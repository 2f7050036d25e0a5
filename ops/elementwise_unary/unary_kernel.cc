// Kernels of the unary elementwise ops: one entry per (op, dtype). Each core streams its slice of
// elements through UB (CopyIn -> instruction -> CopyOut over double-buffered queues), as
// add_custom does; the last tile of the last core moves with DataCopyPad.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "../common/kernel_common.h"
#include "unary_tiling.h"

namespace tessera::ops {
namespace {

#define TESSERA_UNARY_FUNCTOR(Name, Instruction)                                                \
  struct Name {                                                                                 \
    template <class T>                                                                          \
    static void Apply(const LocalTensor<T>& y, const LocalTensor<T>& x, const UnaryTilingData&, \
                      int32_t n) {                                                              \
      Instruction(y, x, n);                                                                     \
    }                                                                                           \
  };
TESSERA_UNARY_FUNCTOR(AbsFn, Abs)
TESSERA_UNARY_FUNCTOR(ExpFn, Exp)
TESSERA_UNARY_FUNCTOR(LogFn, Ln)
TESSERA_UNARY_FUNCTOR(SqrtFn, Sqrt)
TESSERA_UNARY_FUNCTOR(RsqrtFn, Rsqrt)
TESSERA_UNARY_FUNCTOR(ReluFn, Relu)
TESSERA_UNARY_FUNCTOR(SigmoidFn, Sigmoid)
#undef TESSERA_UNARY_FUNCTOR

// As Ascend C's Adds/Muls, the scalar has the tensor's type: for half and bfloat16 the attribute
// is rounded to that type first.
template <class T>
T ScalarOf(const UnaryTilingData& t) {
  if constexpr (std::is_same_v<T, int32_t>) {
    return static_cast<int32_t>(t.intValue);
  } else {
    return T(t.value);
  }
}

struct AddsFn {
  template <class T>
  static void Apply(const LocalTensor<T>& y, const LocalTensor<T>& x, const UnaryTilingData& t,
                    int32_t n) {
    Adds(y, x, ScalarOf<T>(t), n);
  }
};
struct MulsFn {
  template <class T>
  static void Apply(const LocalTensor<T>& y, const LocalTensor<T>& x, const UnaryTilingData& t,
                    int32_t n) {
    Muls(y, x, ScalarOf<T>(t), n);
  }
};

template <class T, class Op>
__global__ __aicore__ void UnaryEntry(GM_ADDR x, GM_ADDR y, GM_ADDR /*workspace*/, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(UnaryTilingData, t, tiling);
  const tiling::UniformSplitConfig split = SplitOf(t);
  const uint64_t offset = split.CoreOffset(GetBlockIdx());
  const uint64_t count = split.CoreElementCount(GetBlockIdx());
  if (count == 0) return;
  GlobalTensor<T> xGm, yGm;
  xGm.SetGlobalBuffer(reinterpret_cast<T*>(x) + offset, count);
  yGm.SetGlobalBuffer(reinterpret_cast<T*>(y) + offset, count);
  TPipe pipe;
  StreamTiles(pipe, xGm, yGm, count, static_cast<uint32_t>(t.tileLength),
              [&](const LocalTensor<T>& out, const LocalTensor<T>& in, uint32_t len) {
                Op::Apply(out, in, t, static_cast<int32_t>(len));
              });
}

#define TESSERA_UNARY_TYPE_ENTRY(kernel, Op, T) \
  TESSERA_KERNEL_ENTRY(kernel, UnaryKey(DataTypeOf<T>::value), AIV, UnaryEntry<T, Op>)
#define TESSERA_UNARY_FLOAT_ENTRIES(kernel, Op) \
  TESSERA_UNARY_TYPE_ENTRY(kernel, Op, float)   \
  TESSERA_UNARY_TYPE_ENTRY(kernel, Op, half)    \
  TESSERA_UNARY_TYPE_ENTRY(kernel, Op, bfloat16_t)
#define TESSERA_UNARY_ALL_ENTRIES(kernel, Op) \
  TESSERA_UNARY_FLOAT_ENTRIES(kernel, Op)     \
  TESSERA_UNARY_TYPE_ENTRY(kernel, Op, int32_t)

TESSERA_UNARY_ALL_ENTRIES(abs, AbsFn)
TESSERA_UNARY_FLOAT_ENTRIES(exp, ExpFn)
TESSERA_UNARY_FLOAT_ENTRIES(log, LogFn)
TESSERA_UNARY_FLOAT_ENTRIES(sqrt, SqrtFn)
TESSERA_UNARY_FLOAT_ENTRIES(rsqrt, RsqrtFn)
TESSERA_UNARY_ALL_ENTRIES(relu, ReluFn)
TESSERA_UNARY_FLOAT_ENTRIES(sigmoid, SigmoidFn)
TESSERA_UNARY_ALL_ENTRIES(adds, AddsFn)
TESSERA_UNARY_ALL_ENTRIES(muls, MulsFn)

}  // namespace
}  // namespace tessera::ops

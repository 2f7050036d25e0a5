// Unary math functions against double-precision host references on random data, for every
// float dtype and the sizes 1, 7, 4097 (and 1000003 for Sigmoid).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tessera/elewise/elewise.h"
#include "test_util.h"

namespace tessera::elewise {
namespace {

using testing::DeviceBuffer;
using testing::ExpectAllNear;
using testing::RelTol;
using testing::RunAndSync;

constexpr auto OUT = ParamUsage::OUT;

template <class C>
using Op = DeviceAdapter<KernelBuilder<BlockBuilder<C>>>;

#define UNARY_COMPUTE(Name, EXPR)              \
  template <class T>                           \
  struct Name {                                \
    template <template <class> class Tn>       \
    constexpr auto Compute() const {           \
      auto x = PlaceHolder<1, Tn<T>>();        \
      auto out = PlaceHolder<2, Tn<T>, OUT>(); \
      return (out = EXPR);                     \
    }                                          \
  }

UNARY_COMPUTE(NegC, -x);
UNARY_COMPUTE(AbsC, Abs(x));
UNARY_COMPUTE(ExpC, Exp(x));
UNARY_COMPUTE(LogC, Log(x));
UNARY_COMPUTE(SqrtC, Sqrt(x));
UNARY_COMPUTE(RsqrtC, Rsqrt(x));
UNARY_COMPUTE(ReciprocalC, Reciprocal(x));
UNARY_COMPUTE(ReluC, Relu(x));
UNARY_COMPUTE(SigmoidC, Sigmoid(x));
UNARY_COMPUTE(TanhC, Tanh(x));
UNARY_COMPUTE(GeluC, Gelu(x));
UNARY_COMPUTE(GeluErfC, GeluErf(x));
UNARY_COMPUTE(SiluC, Silu(x));
UNARY_COMPUTE(LiteralLeftC, 1.0f - x * 0.5f);

template <class T>
class UnaryMathTest : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, half, bfloat16>;
TYPED_TEST_SUITE(UnaryMathTest, FloatTypes);

constexpr int64_t kSizes[] = {1, 7, 4097};

template <class T, template <class> class C, class Ref>
void CheckUnary(int64_t n, Ref ref, double lo, double hi, double abs_tol, double rel_tol,
                const char* name) {
  DeviceBuffer<T> x(n), out(n);
  x.Random(static_cast<uint32_t>(n) + 11, lo, hi);
  out.Random(5);
  Op<C<T>> op;
  ASSERT_TRUE(
      RunAndSync(op.run(ArgumentsBuilder{}.inputOutput(x.Arg({n}), out.Arg({n})).build())).ok());
  ExpectAllNear(
      out, n, [&](int64_t i) { return ref(x.At(i)); }, abs_tol, RelTol<T>(rel_tol),
      std::string(name) + " n=" + std::to_string(n));
}

double GeluTanhRef(double x) {
  return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}
double SigmoidRef(double x) {
  return 1 / (1 + std::exp(-x));
}

TYPED_TEST(UnaryMathTest, UnaryMath) {
  using T = TypeParam;
  for (int64_t n : kSizes) {
    CheckUnary<T, NegC>(
        n, [](double x) { return -x; }, -4, 4, 0, 0, "Neg");
    CheckUnary<T, AbsC>(
        n, [](double x) { return std::fabs(x); }, -4, 4, 0, 0, "Abs");
    CheckUnary<T, ReluC>(
        n, [](double x) { return std::max(x, 0.0); }, -4, 4, 0, 0, "Relu");
    CheckUnary<T, ExpC>(
        n, [](double x) { return std::exp(x); }, -10, 10, 0, 4e-6, "Exp");
    CheckUnary<T, LogC>(
        n, [](double x) { return std::log(x); }, 0.01, 100, 1e-6, 4e-6, "Log");
    CheckUnary<T, SqrtC>(
        n, [](double x) { return std::sqrt(x); }, 0, 100, 0, 1e-6, "Sqrt");
    CheckUnary<T, RsqrtC>(
        n, [](double x) { return 1 / std::sqrt(x); }, 0.01, 100, 0, 2e-6, "Rsqrt");
    CheckUnary<T, ReciprocalC>(
        n, [](double x) { return 1 / x; }, 0.1, 10, 0, 1e-6, "Reciprocal");
    CheckUnary<T, SigmoidC>(n, SigmoidRef, -20, 20, 1e-7, 4e-6, "Sigmoid");
    CheckUnary<T, TanhC>(
        n, [](double x) { return std::tanh(x); }, -10, 10, 1e-6, 4e-6, "Tanh");
    CheckUnary<T, GeluC>(n, GeluTanhRef, -8, 8, 2e-6, 4e-6, "Gelu");
    CheckUnary<T, GeluErfC>(
        n, [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }, -8, 8, 2e-6, 4e-6,
        "GeluErf");
    CheckUnary<T, SiluC>(
        n, [](double x) { return x * SigmoidRef(x); }, -20, 20, 2e-6, 4e-6, "Silu");
    CheckUnary<T, LiteralLeftC>(
        n, [](double x) { return 1 - x * 0.5; }, -4, 4, 1e-7, 1e-6, "1 - x * 0.5");
  }
}

TYPED_TEST(UnaryMathTest, LargeSigmoidCoversAllBlocks) {
  CheckUnary<TypeParam, SigmoidC>(1000003, SigmoidRef, -20, 20, 1e-7, 4e-6, "Sigmoid");
}

}  // namespace
}  // namespace tessera::elewise

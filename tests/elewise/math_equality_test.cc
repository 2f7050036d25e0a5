// One math library: the kernel API's vector instruction and the elewise op of the same function
// give bit-identical results (both call tessera/kernel/detail/math-inl.h), for every float dtype,
// on random data of the awkward sizes 1, 7, 31, 4097 and 1000003: half of it uniform in [-20, 20]
// (where the functions are not saturated), half random finite bit patterns (tails, subnormals,
// huge values, negative inputs to Ln and Rsqrt).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tessera/elewise/elewise.h"
#include "tessera/kernel/vector.h"
#include "test_util.h"

namespace tessera::elewise {
namespace {

using testing::DeviceBuffer;
using testing::RunAndSync;

constexpr auto OUT = ParamUsage::OUT;

template <class C>
using Op = DeviceAdapter<KernelBuilder<BlockBuilder<C>>>;

#define MATH_UNARY_COMPUTE(Name, EXPR)         \
  template <class T>                           \
  struct Name {                                \
    template <template <class> class Tn>       \
    constexpr auto Compute() const {           \
      auto x = PlaceHolder<1, Tn<T>>();        \
      auto out = PlaceHolder<2, Tn<T>, OUT>(); \
      return (out = EXPR);                     \
    }                                          \
  }
MATH_UNARY_COMPUTE(ExpC, Exp(x));
MATH_UNARY_COMPUTE(LogC, Log(x));
MATH_UNARY_COMPUTE(SigmoidC, Sigmoid(x));
MATH_UNARY_COMPUTE(TanhC, Tanh(x));
MATH_UNARY_COMPUTE(GeluC, Gelu(x));
MATH_UNARY_COMPUTE(GeluErfC, GeluErf(x));
MATH_UNARY_COMPUTE(SiluC, Silu(x));
MATH_UNARY_COMPUTE(RsqrtC, Rsqrt(x));
MATH_UNARY_COMPUTE(ReciprocalC, Reciprocal(x));
#undef MATH_UNARY_COMPUTE

template <class T>
struct DivC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tn<T>>();
    auto y = PlaceHolder<2, Tn<T>>();
    auto out = PlaceHolder<3, Tn<T>, OUT>();
    return (out = x / y);
  }
};

constexpr int64_t kSizes[] = {1, 7, 31, 4097, 1000003};

template <class T>
uint32_t Bits(T v) {
  if constexpr (sizeof(T) == 2) {
    return std::bit_cast<uint16_t>(v);
  } else {
    return std::bit_cast<uint32_t>(v);
  }
}

template <class T>
void FillAwkward(DeviceBuffer<T>& b, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> mid(-20.0f, 20.0f);
  for (size_t i = 0; i < b.host.size(); ++i) {
    float v = mid(rng);
    if (i % 2 == 1) {
      do {
        v = std::bit_cast<float>(static_cast<uint32_t>(rng()));
      } while (!std::isfinite(v) || !std::isfinite(static_cast<float>(T(v))));
    }
    b.host[i] = T(v);
  }
  b.Upload();
}

template <class T>
kernel::LocalTensor<T> Local(std::vector<T>& v) {
  return kernel::LocalTensor<T>(v.data(), static_cast<uint32_t>(v.size()),
                                kernel::TPosition::VECCALC, false, nullptr, 0);
}

template <class T>
void ExpectBitIdentical(const std::vector<T>& kernel_out, DeviceBuffer<T>& elewise_out,
                        const std::string& what) {
  elewise_out.Download();
  int failures = 0;
  for (size_t i = 0; i < kernel_out.size() && failures < 5; ++i) {
    if (Bits(kernel_out[i]) != Bits(elewise_out.host[i])) {
      ADD_FAILURE() << what << ": element " << i << ": kernel API "
                    << static_cast<float>(kernel_out[i]) << " (bits 0x" << std::hex
                    << Bits(kernel_out[i]) << "), elewise "
                    << static_cast<float>(elewise_out.host[i]) << " (bits 0x"
                    << Bits(elewise_out.host[i]) << std::dec << ")";
      ++failures;
    }
  }
}

template <class T, template <class> class C>
void CheckUnary(void (*instr)(const kernel::LocalTensor<T>&, const kernel::LocalTensor<T>&,
                              int32_t),
                const char* name) {
  for (int64_t n : kSizes) {
    DeviceBuffer<T> x(n), out(n);
    FillAwkward(x, static_cast<uint32_t>(n) * 31 + 7);
    Op<C<T>> op;
    ASSERT_TRUE(
        RunAndSync(op.run(ArgumentsBuilder{}.inputOutput(x.Arg({n}), out.Arg({n})).build())).ok());
    std::vector<T> src = x.host, dst(static_cast<size_t>(n));
    instr(Local(dst), Local(src), static_cast<int32_t>(n));
    ExpectBitIdentical(dst, out, std::string(name) + " n=" + std::to_string(n));
  }
}

template <class T>
class MathEqualityTest : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, half, bfloat16>;
TYPED_TEST_SUITE(MathEqualityTest, FloatTypes);

TYPED_TEST(MathEqualityTest, KernelInstructionAndElewiseOpAgreeBitForBit) {
  using T = TypeParam;
  CheckUnary<T, ExpC>(&kernel::Exp<T>, "Exp");
  CheckUnary<T, LogC>(&kernel::Ln<T>, "Ln / Log");
  CheckUnary<T, SigmoidC>(&kernel::Sigmoid<T>, "Sigmoid");
  CheckUnary<T, TanhC>(&kernel::Tanh<T>, "Tanh");
  CheckUnary<T, GeluC>(&kernel::Gelu<T>, "Gelu");
  CheckUnary<T, GeluErfC>(&kernel::GeluErf<T>, "GeluErf");
  CheckUnary<T, SiluC>(&kernel::Silu<T>, "Silu");
  CheckUnary<T, RsqrtC>(&kernel::Rsqrt<T>, "Rsqrt");
  CheckUnary<T, ReciprocalC>(&kernel::Reciprocal<T>, "Reciprocal");
}

TYPED_TEST(MathEqualityTest, DivAgreesBitForBit) {
  using T = TypeParam;
  for (int64_t n : kSizes) {
    DeviceBuffer<T> x(n), y(n), out(n);
    FillAwkward(x, static_cast<uint32_t>(n) + 1);
    FillAwkward(y, static_cast<uint32_t>(n) + 2);
    Op<DivC<T>> op;
    ASSERT_TRUE(
        RunAndSync(
            op.run(ArgumentsBuilder{}.inputOutput(x.Arg({n}), y.Arg({n}), out.Arg({n})).build()))
            .ok());
    std::vector<T> a = x.host, b = y.host, dst(static_cast<size_t>(n));
    kernel::Div(Local(dst), Local(a), Local(b), static_cast<int32_t>(n));
    ExpectBitIdentical(dst, out, "Div n=" + std::to_string(n));
  }
}

}  // namespace
}  // namespace tessera::elewise

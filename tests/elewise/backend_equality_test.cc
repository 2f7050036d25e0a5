// The compiled back end (compiled.h) against the interpreter, elementwise programs: every op and
// dtype, int32 lanes and casts, chains with scalars and attributes, on random data of awkward
// sizes and on broadcast and strided inputs, and streamed outputs. Both back ends must write the
// same bytes (outputs and the guard bytes after them).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backend_test_util.h"

namespace tessera::elewise::backend_test {
namespace {

const std::vector<int64_t> kSizes = {1, 7, 31, 4097, 1000003};

// ---- every unary fp op, one output each ------------------------------------------------------

template <class T>
struct UnaryAll {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tensor<T>>();
    auto o1 = PlaceHolder<2, Tensor<T>, ParamUsage::OUT>();
    auto o2 = PlaceHolder<3, Tensor<T>, ParamUsage::OUT>();
    auto o3 = PlaceHolder<4, Tensor<T>, ParamUsage::OUT>();
    auto o4 = PlaceHolder<5, Tensor<T>, ParamUsage::OUT>();
    auto o5 = PlaceHolder<6, Tensor<T>, ParamUsage::OUT>();
    auto o6 = PlaceHolder<7, Tensor<T>, ParamUsage::OUT>();
    auto o7 = PlaceHolder<8, Tensor<T>, ParamUsage::OUT>();
    auto o8 = PlaceHolder<9, Tensor<T>, ParamUsage::OUT>();
    auto o9 = PlaceHolder<10, Tensor<T>, ParamUsage::OUT>();
    auto o10 = PlaceHolder<11, Tensor<T>, ParamUsage::OUT>();
    auto o11 = PlaceHolder<12, Tensor<T>, ParamUsage::OUT>();
    auto o12 = PlaceHolder<13, Tensor<T>, ParamUsage::OUT>();
    auto o13 = PlaceHolder<14, Tensor<T>, ParamUsage::OUT>();
    return (o1 = -x, o2 = Abs(x), o3 = Exp(x), o4 = Log(x), o5 = Sqrt(x), o6 = Rsqrt(x),
            o7 = Reciprocal(x), o8 = Relu(x), o9 = Sigmoid(x), o10 = Tanh(x), o11 = Gelu(x),
            o12 = GeluErf(x), o13 = Silu(x));
  }
};

template <class T>
void UnaryAllCase(int64_t n) {
  Call call;
  call.In(kType<T>, {n});
  for (int k = 0; k < 13; ++k)
    call.Out(kType<T>, {n});
  ExpectBackendsAgree<UnaryAll<T>>(call);
}

TEST(ElewiseBackends, UnaryOpsF32) {
  for (int64_t n : kSizes)
    UnaryAllCase<float>(n);
}
TEST(ElewiseBackends, UnaryOpsF16) {
  for (int64_t n : kSizes)
    UnaryAllCase<half>(n);
}
TEST(ElewiseBackends, UnaryOpsBf16) {
  for (int64_t n : kSizes)
    UnaryAllCase<bfloat16>(n);
}

// One op per program: the interpreter's fused-store path (an op writing its output directly).
struct SigmoidOnly {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tensor<float>>();
    auto y = PlaceHolder<2, Tensor<float>, ParamUsage::OUT>();
    return (y = Sigmoid(x));
  }
};
TEST(ElewiseBackends, SingleOpF32) {
  for (int64_t n : kSizes) {
    Call call;
    call.In(DataType::kFloat32, {n}).Out(DataType::kFloat32, {n});
    ExpectBackendsAgree<SigmoidOnly>(call);
  }
}

// ---- binary fp ops, compares and selects --------------------------------------------------------

template <class T>
struct BinaryAll {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto a = PlaceHolder<1, Tensor<T>>();
    auto b = PlaceHolder<2, Tensor<T>>();
    auto o1 = PlaceHolder<3, Tensor<T>, ParamUsage::OUT>();
    auto o2 = PlaceHolder<4, Tensor<T>, ParamUsage::OUT>();
    auto o3 = PlaceHolder<5, Tensor<T>, ParamUsage::OUT>();
    auto o4 = PlaceHolder<6, Tensor<T>, ParamUsage::OUT>();
    auto o5 = PlaceHolder<7, Tensor<T>, ParamUsage::OUT>();
    auto o6 = PlaceHolder<8, Tensor<T>, ParamUsage::OUT>();
    auto o7 = PlaceHolder<9, Tensor<T>, ParamUsage::OUT>();
    auto o8 = PlaceHolder<10, Tensor<T>, ParamUsage::OUT>();
    auto o9 = PlaceHolder<11, Tensor<T>, ParamUsage::OUT>();
    return (o1 = a + b, o2 = a - b, o3 = a * b, o4 = a / b, o5 = Max(a, b), o6 = Min(a, b),
            o7 = Pow(a, b), o8 = Select(a < b, a, b * 2.0f) + Select(a >= b, 1.0f, b),
            o9 = Select(a == b, a, Select(a != b, b, 0.5f)) + Select(a <= b, a, 0.0f) +
                 Select(a > b, 3.0f, a));
  }
};

template <class T>
void BinaryAllCase(std::vector<int64_t> a_shape, std::vector<int64_t> b_shape,
                   std::vector<int64_t> out_shape, std::vector<int64_t> a_strides = {}) {
  Call call;
  call.In(kType<T>, a_shape, a_strides).In(kType<T>, b_shape);
  for (int k = 0; k < 9; ++k)
    call.Out(kType<T>, out_shape);
  ExpectBackendsAgree<BinaryAll<T>>(call);
}

template <class T>
void BinaryAllShapes() {
  for (int64_t n : kSizes)
    BinaryAllCase<T>({n}, {n}, {n});
  BinaryAllCase<T>({33, 31}, {1, 31}, {33, 31});            // row broadcast
  BinaryAllCase<T>({33, 31}, {33, 1}, {33, 31});            // column broadcast
  BinaryAllCase<T>({4097}, {1}, {4097});                    // scalar broadcast
  BinaryAllCase<T>({7, 3, 9}, {7, 1, 9}, {7, 3, 9});        // middle axis broadcast (N-D rows)
  BinaryAllCase<T>({31, 37}, {31, 37}, {31, 37}, {1, 31});  // transposed view
  BinaryAllCase<T>({9, 41}, {9, 41}, {9, 41}, {100, 2});    // every other element
}

TEST(ElewiseBackends, BinaryOpsF32) {
  BinaryAllShapes<float>();
}
TEST(ElewiseBackends, BinaryOpsF16) {
  BinaryAllShapes<half>();
}
TEST(ElewiseBackends, BinaryOpsBf16) {
  BinaryAllShapes<bfloat16>();
}

// ---- int32 lanes and casts
// -----------------------------------------------------------------------

struct IntOps {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto a = PlaceHolder<1, Tensor<int32_t>>();
    auto b = PlaceHolder<2, Tensor<int32_t>>();
    auto f = PlaceHolder<3, Tensor<float>>();
    auto o1 = PlaceHolder<4, Tensor<int32_t>, ParamUsage::OUT>();
    auto o2 = PlaceHolder<5, Tensor<int32_t>, ParamUsage::OUT>();
    auto o3 = PlaceHolder<6, Tensor<int32_t>, ParamUsage::OUT>();
    auto o4 = PlaceHolder<7, Tensor<float>, ParamUsage::OUT>();
    auto o5 = PlaceHolder<8, Tensor<int32_t>, ParamUsage::OUT>();
    auto o6 = PlaceHolder<9, Tensor<int32_t>, ParamUsage::OUT>();
    auto o7 = PlaceHolder<10, Tensor<half>, ParamUsage::OUT>();
    auto o8 = PlaceHolder<11, Tensor<bfloat16>, ParamUsage::OUT>();
    return (o1 = (a + b) * (a - b) + Abs(-a) + Relu(b), o2 = Max(a, b) - Min(a, b) + 7,
            o3 = Select(a < b, a, b) + Select(a >= b, 1, b) + Select(a == b, a, 4) +
                 Select(a != b, 5, a) + Select(a <= b, b, 8) + Select(a > b, 9, a),
            o4 = Cast<float>(a) * f + Cast<half>(f * 3.3f) + Cast<bfloat16>(f * 1.7f),
            o5 = Cast<int32_t, RoundMode::CAST_FLOOR>(f * 10.5f) +
                 Cast<int32_t, RoundMode::CAST_CEIL>(f * 9.5f) +
                 Cast<int32_t, RoundMode::CAST_TRUNC>(f * 8.5f),
            o6 = Cast<int32_t, RoundMode::CAST_ROUND>(f * 2.5f) +
                 Cast<int32_t, RoundMode::CAST_RINT>(f * 4.5f) + Cast<int32_t>(f * 1000.5f),
            o7 = f * 1000.0f, o8 = f * 3.0f);
  }
};

TEST(ElewiseBackends, Int32AndCasts) {
  for (int64_t n : kSizes) {
    Call call;
    call.In(DataType::kInt32, {n}).In(DataType::kInt32, {n}).In(DataType::kFloat32, {n});
    call.Out(DataType::kInt32, {n}).Out(DataType::kInt32, {n}).Out(DataType::kInt32, {n});
    call.Out(DataType::kFloat32, {n}).Out(DataType::kInt32, {n}).Out(DataType::kInt32, {n});
    call.Out(DataType::kFloat16, {n}).Out(DataType::kBfloat16, {n});
    ExpectBackendsAgree<IntOps>(call);
  }
}

// ---- chains with temporaries, runtime scalars and attributes ---------------------------------

struct Chain {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto in1 = PlaceHolder<1, Tensor<float>>();
    auto in2 = PlaceHolder<2, Tensor<bfloat16>>();
    auto in3 = PlaceHolder<3, Tensor<float>>();
    auto s = PlaceHolder<4, float>();
    auto out = PlaceHolder<5, Tensor<float>, ParamUsage::OUT>();
    auto out2 = PlaceHolder<6, Tensor<bfloat16>, ParamUsage::OUT>();
    auto t = PlaceHolderTmp<1>();
    return (t = Exp(in1 - s), out = (t + in2) * t - Attr<"shift">(), t = t * in3 + in1,
            out2 = Gelu(t) * Attr<"scale">(0.5f) + Sigmoid(out));
  }
};

TEST(ElewiseBackends, ChainsScalarsAttributes) {
  for (int64_t n : kSizes) {
    Call call;
    call.In(DataType::kFloat32, {n}).In(DataType::kBfloat16, {n}).In(DataType::kFloat32, {n});
    call.Scalar(0.25f).Out(DataType::kFloat32, {n}).Out(DataType::kBfloat16, {n});
    call.Attr("shift", 1.5);
    ExpectBackendsAgree<Chain>(call);
  }
}

// Large outputs stream (non-temporal stores) on both back ends: 16 MiB and more.
TEST(ElewiseBackends, StreamedOutputs) {
  const int64_t n = (int64_t{16} << 20) / 2 + 33;
  Call call;
  call.In(DataType::kFloat32, {n}).In(DataType::kBfloat16, {n}).In(DataType::kFloat32, {n});
  call.Scalar(0.5f).Out(DataType::kFloat32, {n}).Out(DataType::kBfloat16, {n});
  call.Attr("shift", 1.0);
  ExpectBackendsAgree<Chain>(call);
}

}  // namespace
}  // namespace tessera::elewise::backend_test

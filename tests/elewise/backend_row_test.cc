// The compiled back end against the interpreter, row programs: AR reductions into tensors and
// the five row operators (fp32, fp16, bf16) on rows of width 1 to 1000003 (spilled to the
// workspace). Both back ends must write the same bytes.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "backend_test_util.h"

namespace tessera::elewise::backend_test {
namespace {

// ---- AR reductions into tensors
// ------------------------------------------------------------------

struct Reductions {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tensor<float>>();
    auto k = PlaceHolder<2, Tensor<int32_t>>();
    auto sum = PlaceHolder<3, Tensor<float>, ParamUsage::OUT>();
    auto mx = PlaceHolder<4, Tensor<float>, ParamUsage::OUT>();
    auto mn = PlaceHolder<5, Tensor<float>, ParamUsage::OUT>();
    auto isum = PlaceHolder<6, Tensor<int32_t>, ParamUsage::OUT>();
    auto imax = PlaceHolder<7, Tensor<int32_t>, ParamUsage::OUT>();
    auto imin = PlaceHolder<8, Tensor<int32_t>, ParamUsage::OUT>();
    auto y = PlaceHolder<9, Tensor<float>, ParamUsage::OUT>();
    auto m = PlaceHolderTmp<1>();
    return (sum = ReduceSum<AR>(Exp(x) * x), mx = ReduceMax<AR>(x), mn = ReduceMin<AR>(x * 2.0f),
            isum = ReduceSum<AR>(k), imax = ReduceMax<AR>(k), imin = ReduceMin<AR>(k - 1),
            m = ReduceMean<AR>(x), y = x - m);
  }
};

TEST(ElewiseBackends, RowReductions) {
  for (const auto& [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{
           {1, 1}, {7, 7}, {31, 31}, {5, 4097}, {2, 1000003}}) {
    Call call;
    call.In(DataType::kFloat32, {rows, cols}).In(DataType::kInt32, {rows, cols});
    call.Out(DataType::kFloat32, {rows}).Out(DataType::kFloat32, {rows});
    call.Out(DataType::kFloat32, {rows}).Out(DataType::kInt32, {rows});
    call.Out(DataType::kInt32, {rows}).Out(DataType::kInt32, {rows});
    call.Out(DataType::kFloat32, {rows, cols});
    ExpectBackendsAgree<Reductions>(call);
  }
}

// ---- a fused product is rounded before it is summed
// ---------------------------------------------------------

// ReduceSum<AR>(x * y) reads x and y instead of a product register (the lowering's peephole), yet
// sums the rounded products, as that register would hold: the compiler may not contract the
// product with the sum into an FMA on either back end. Checked against the sum of a tensor holding
// the products (computed on the host), on the same back end, for widths whose vectors fall in the
// groups of four, the ungrouped full vectors and the masked tail on 4, 8 and 16 lanes.
struct SumOfProduct {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tensor<float>>();
    auto y = PlaceHolder<2, Tensor<float>>();
    auto s = PlaceHolder<3, Tensor<float>, ParamUsage::OUT>();
    return (s = ReduceSum<AR>(x * y));
  }
};
struct SumOf {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto p = PlaceHolder<1, Tensor<float>>();
    auto s = PlaceHolder<2, Tensor<float>, ParamUsage::OUT>();
    return (s = ReduceSum<AR>(p));
  }
};

template <template <class> class Builder>
void ExpectProductRounded(int64_t rows, int64_t cols) {
  using Fused = DeviceAdapter<KernelBuilder<Builder<SumOfProduct>>>;
  using Plain = DeviceAdapter<KernelBuilder<Builder<SumOf>>>;
  const auto n = static_cast<size_t>(rows * cols);
  struct Buffer {
    explicit Buffer(size_t elems) : data(static_cast<float*>(*device::Malloc(elems * 4))) {}
    ~Buffer() { (void)device::Free(data); }
    float* data;
  };
  const Buffer x(n), y(n), p(n), fused(rows), plain(rows);
  std::mt19937 rng(static_cast<uint32_t>(cols));
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (size_t i = 0; i < n; ++i) {
    x.data[i] = dist(rng);
    y.data[i] = dist(rng);
    p.data[i] = x.data[i] * y.data[i];
  }
  const Shape matrix = *Shape::Make({rows, cols});
  const Shape column = *Shape::Make({rows});
  const std::vector<Argument> fused_args = {TensorArg{x.data, DataType::kFloat32, matrix},
                                            TensorArg{y.data, DataType::kFloat32, matrix},
                                            TensorArg{fused.data, DataType::kFloat32, column}};
  const std::vector<Argument> plain_args = {TensorArg{p.data, DataType::kFloat32, matrix},
                                            TensorArg{plain.data, DataType::kFloat32, column}};
  const Result<device::Stream> stream = device::Stream::Create();
  ASSERT_TRUE(stream.ok());
  Fused fused_op;
  Plain plain_op;
  const Status a = fused_op.run(Arguments{fused_args, {}}, *stream);
  ASSERT_TRUE(a.ok()) << a.ToString();
  const Status b = plain_op.run(Arguments{plain_args, {}}, *stream);
  ASSERT_TRUE(b.ok()) << b.ToString();
  ASSERT_TRUE(stream->Synchronize().ok());
  for (int64_t r = 0; r < rows; ++r) {
    uint32_t f = 0;
    uint32_t q = 0;
    std::memcpy(&f, fused.data + r, 4);
    std::memcpy(&q, plain.data + r, 4);
    EXPECT_EQ(f, q) << "row " << r << " of " << cols << " columns: sum of x * y " << fused.data[r]
                    << ", sum of the products " << plain.data[r];
  }
}

TEST(ElewiseBackends, FusedProductSumRoundsTheProducts) {
  if (device::CheckedMode()) GTEST_SKIP() << "checked mode runs the interpreter for both back ends";
  ASSERT_TRUE(CompiledBlockBuilder<SumOfProduct>::UsesCompiledCode());
  for (const int64_t cols : {7, 31, 85, 4097}) {
    ExpectProductRounded<BlockBuilder>(5, cols);
    ExpectProductRounded<CompiledBlockBuilder>(5, cols);
  }
}

// ---- the row operators
// ---------------------------------------------------------------------------

const std::vector<std::pair<int64_t, int64_t>> kRowShapes = {
    {1, 1}, {7, 7}, {3, 31}, {9, 4097}, {2, 1000003}};

template <class T>
void RowOperators() {
  const DataType t = kType<T>;
  for (const auto& [rows, cols] : kRowShapes) {
    SCOPED_TRACE("rows " + std::to_string(rows) + " cols " + std::to_string(cols));
    {
      Call call;
      call.In(t, {rows, cols}).In(t, {cols}).Out(t, {rows, cols}).Attr("epsilon", 1e-6);
      ExpectBackendsAgree<fused::RmsNormCompute<T>>(call);
    }
    {
      Call call;
      call.In(t, {rows, cols}).In(t, {rows, cols}).In(t, {cols});
      call.Out(t, {rows, cols}).Out(t, {rows, cols}).Attr("epsilon", 1e-6);
      ExpectBackendsAgree<fused::AddRmsNormCompute<T>>(call);
    }
    {
      Call call;
      call.In(t, {rows, cols}).In(t, {cols}).In(t, {cols}).Out(t, {rows, cols});
      call.Attr("epsilon", 1e-5);
      ExpectBackendsAgree<fused::LayerNormCompute<T>>(call);
    }
    {
      Call call;
      call.In(t, {rows, cols}).Out(t, {rows, cols});
      ExpectBackendsAgree<fused::SoftmaxCompute<T>>(call);
    }
    {
      // gate and up as the halves of [rows, 2 cols] rows (SwiGluArgs' layout).
      Call call;
      call.In(t, {rows, cols}, {}, 2 * cols).In(t, {rows, cols}, {}, 2 * cols);
      call.Out(t, {rows, cols});
      ExpectBackendsAgree<fused::SwiGluCompute<T>>(call);
    }
  }
}

TEST(ElewiseBackends, RowOperatorsF32) {
  RowOperators<float>();
}
TEST(ElewiseBackends, RowOperatorsF16) {
  RowOperators<half>();
}
TEST(ElewiseBackends, RowOperatorsBf16) {
  RowOperators<bfloat16>();
}

}  // namespace
}  // namespace tessera::elewise::backend_test

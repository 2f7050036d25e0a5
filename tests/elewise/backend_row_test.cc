// The compiled back end against the interpreter, row programs: AR reductions into tensors and
// the five row operators (fp32, fp16, bf16) on rows of width 1 to 1000003 (spilled to the
// workspace). Both back ends must write the same bytes.
#include <cstdint>
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

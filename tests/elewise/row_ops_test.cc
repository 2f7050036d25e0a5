// Row operators (RMSNorm, AddRmsNorm, LayerNorm, Softmax, SwiGLU), reductions along either axis
// and numpy-style broadcasting, against double-precision references on random data. Row widths
// 1, 33, 4096 and 70000 (wider than one UB: multi-pass rows and workspace spills).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tessera/elewise/elewise.h"
#include "tessera/elewise/fused.h"
#include "test_util.h"

namespace tessera::elewise {
namespace {

using testing::DeviceBuffer;
using testing::ExpectAllNear;
using testing::RelTol;
using testing::RunAndSync;

constexpr auto AR = ReducePattern::AR;
constexpr auto RA = ReducePattern::RA;
constexpr auto OUT = ParamUsage::OUT;

template <class C>
using Op = DeviceAdapter<KernelBuilder<BlockBuilder<C>>>;

struct RowShape {
  int64_t rows;
  int64_t cols;
};
constexpr RowShape kShapes[] = {{1000, 1}, {257, 33}, {37, 4096}, {5, 70000}};

template <class T>
class RowOpsTest : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, half, bfloat16>;
TYPED_TEST_SUITE(RowOpsTest, FloatTypes);

// Per-op tolerance (relative, on top of the output rounding of T; absolute 1e-5).
constexpr double kNormTol = 2e-5;

TYPED_TEST(RowOpsTest, RmsNorm) {
  using T = TypeParam;
  for (const RowShape s : kShapes) {
    const int64_t n = s.rows * s.cols;
    DeviceBuffer<T> x(n), gamma(s.cols), out(n);
    x.Random(1);
    gamma.Random(2, 0.5, 1.5);
    fused::RmsNorm<T> op;
    const double eps = 1e-5;
    ASSERT_TRUE(RunAndSync(op.run(ArgumentsBuilder{}
                                      .inputOutput(x.Arg({s.rows, s.cols}), gamma.Arg({s.cols}),
                                                   out.Arg({s.rows, s.cols}))
                                      .attr("epsilon", eps)
                                      .build()))
                    .ok());
    std::vector<double> inv(static_cast<size_t>(s.rows));
    for (int64_t r = 0; r < s.rows; ++r) {
      double ss = 0;
      for (int64_t c = 0; c < s.cols; ++c)
        ss += x.At(r * s.cols + c) * x.At(r * s.cols + c);
      inv[static_cast<size_t>(r)] = 1 / std::sqrt(ss / static_cast<double>(s.cols) + eps);
    }
    ExpectAllNear(
        out, n,
        [&](int64_t i) {
          return x.At(i) * inv[static_cast<size_t>(i / s.cols)] * gamma.At(i % s.cols);
        },
        1e-5, RelTol<T>(kNormTol), "rmsnorm width " + std::to_string(s.cols));
  }
}

TYPED_TEST(RowOpsTest, AddRmsNormWritesBothOutputs) {
  using T = TypeParam;
  for (const RowShape s : kShapes) {
    const int64_t n = s.rows * s.cols;
    DeviceBuffer<T> x1(n), x2(n), gamma(s.cols), y(n), out(n);
    x1.Random(3);
    x2.Random(4);
    gamma.Random(5, 0.5, 1.5);
    fused::AddRmsNorm<T> op;
    const double eps = 1e-6;
    ASSERT_TRUE(
        RunAndSync(op.run(ArgumentsBuilder{}
                              .inputOutput(x1.Arg({s.rows, s.cols}), x2.Arg({s.rows, s.cols}),
                                           gamma.Arg({s.cols}), y.Arg({s.rows, s.cols}),
                                           out.Arg({s.rows, s.cols}))
                              .attr("epsilon", eps)
                              .build()))
            .ok());
    std::vector<double> inv(static_cast<size_t>(s.rows));
    const auto h = [&](int64_t i) { return x1.At(i) + x2.At(i); };
    for (int64_t r = 0; r < s.rows; ++r) {
      double ss = 0;
      for (int64_t c = 0; c < s.cols; ++c)
        ss += h(r * s.cols + c) * h(r * s.cols + c);
      inv[static_cast<size_t>(r)] = 1 / std::sqrt(ss / static_cast<double>(s.cols) + eps);
    }
    ExpectAllNear(y, n, h, 1e-6, RelTol<T>(1e-7), "residual");
    ExpectAllNear(
        out, n,
        [&](int64_t i) {
          return h(i) * inv[static_cast<size_t>(i / s.cols)] * gamma.At(i % s.cols);
        },
        1e-5, RelTol<T>(kNormTol), "addrmsnorm width " + std::to_string(s.cols));
  }
}

TYPED_TEST(RowOpsTest, LayerNorm) {
  using T = TypeParam;
  for (const RowShape s : kShapes) {
    const int64_t n = s.rows * s.cols;
    DeviceBuffer<T> x(n), gamma(s.cols), beta(s.cols), out(n);
    x.Random(6, 1, 3);  // an offset mean: the centred variance must not cancel
    gamma.Random(7, 0.5, 1.5);
    beta.Random(8);
    fused::LayerNorm<T> op;
    const double eps = 1e-5;
    ASSERT_TRUE(RunAndSync(op.run(ArgumentsBuilder{}
                                      .inputOutput(x.Arg({s.rows, s.cols}), gamma.Arg({s.cols}),
                                                   beta.Arg({s.cols}), out.Arg({s.rows, s.cols}))
                                      .attr("epsilon", eps)
                                      .build()))
                    .ok());
    std::vector<double> mu(static_cast<size_t>(s.rows)), inv(static_cast<size_t>(s.rows));
    for (int64_t r = 0; r < s.rows; ++r) {
      double m = 0, v = 0;
      for (int64_t c = 0; c < s.cols; ++c)
        m += x.At(r * s.cols + c);
      m /= static_cast<double>(s.cols);
      for (int64_t c = 0; c < s.cols; ++c) {
        v += (x.At(r * s.cols + c) - m) * (x.At(r * s.cols + c) - m);
      }
      mu[static_cast<size_t>(r)] = m;
      inv[static_cast<size_t>(r)] = 1 / std::sqrt(v / static_cast<double>(s.cols) + eps);
    }
    ExpectAllNear(
        out, n,
        [&](int64_t i) {
          const auto r = static_cast<size_t>(i / s.cols);
          return (x.At(i) - mu[r]) * inv[r] * gamma.At(i % s.cols) + beta.At(i % s.cols);
        },
        // width 1: (x - mean) is 0 and the result is beta; larger widths amplify by 1/std.
        1e-4, RelTol<T>(1e-4), "layernorm width " + std::to_string(s.cols));
  }
}

TYPED_TEST(RowOpsTest, SoftmaxIsStable) {
  using T = TypeParam;
  for (const RowShape s : kShapes) {
    const int64_t n = s.rows * s.cols;
    DeviceBuffer<T> x(n), out(n);
    // Large logits: a naive exp overflows in fp32 above 88.
    x.Random(9, std::is_same_v<T, half> ? 100 : 500, std::is_same_v<T, half> ? 140 : 600);
    fused::Softmax<T> op;
    ASSERT_TRUE(
        RunAndSync(op.run(ArgumentsBuilder{}
                              .inputOutput(x.Arg({s.rows, s.cols}), out.Arg({s.rows, s.cols}))
                              .build()))
            .ok());
    std::vector<double> mx(static_cast<size_t>(s.rows)), sum(static_cast<size_t>(s.rows));
    for (int64_t r = 0; r < s.rows; ++r) {
      double m = -std::numeric_limits<double>::infinity(), z = 0;
      for (int64_t c = 0; c < s.cols; ++c)
        m = std::max(m, x.At(r * s.cols + c));
      for (int64_t c = 0; c < s.cols; ++c)
        z += std::exp(x.At(r * s.cols + c) - m);
      mx[static_cast<size_t>(r)] = m;
      sum[static_cast<size_t>(r)] = z;
    }
    ExpectAllNear(
        out, n,
        [&](int64_t i) {
          const auto r = static_cast<size_t>(i / s.cols);
          return std::exp(x.At(i) - mx[r]) / sum[r];
        },
        // half flushes results below its smallest subnormal (6e-8) to 0.
        std::is_same_v<T, half> ? 6e-8 : 1e-9, RelTol<T>(2e-5),
        "softmax width " + std::to_string(s.cols));
  }
}

TYPED_TEST(RowOpsTest, SwiGluOnHalvesOfOneTensor) {
  using T = TypeParam;
  for (const RowShape s : kShapes) {
    const int64_t width = 2 * s.cols;
    DeviceBuffer<T> x(s.rows * width), out(s.rows * s.cols);
    x.Random(10, -6, 6);
    auto args = fused::SwiGluArgs(x.Arg({s.rows, width}), out.Arg({s.rows, s.cols}));
    ASSERT_TRUE(args.ok()) << args.status().ToString();
    fused::SwiGlu<T> op;
    ASSERT_TRUE(RunAndSync(op.run(*args)).ok());
    ExpectAllNear(
        out, s.rows * s.cols,
        [&](int64_t i) {
          const int64_t r = i / s.cols, c = i % s.cols;
          const double g = x.At(r * width + c), u = x.At(r * width + s.cols + c);
          return g / (1 + std::exp(-g)) * u;
        },
        2e-6, RelTol<T>(4e-6), "swiglu width " + std::to_string(s.cols));
  }
}

TEST(RowOpsArgs, SwiGluRejectsOddWidthAndWrongOutput) {
  DeviceBuffer<float> x(6), out(3);
  EXPECT_EQ(fused::SwiGluArgs(x.Arg({2, 3}), out.Arg({2, 1})).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(fused::SwiGluArgs(x.Arg({3, 2}), out.Arg({3, 2})).status().code(),
            StatusCode::kInvalidArgument);
}

// All four reductions along the last axis, written to [rows] outputs.
template <class T>
struct ReduceArC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tn<T>>();
    auto sum = PlaceHolder<2, Tn<float>, OUT>();
    auto mx = PlaceHolder<3, Tn<T>, OUT>();
    auto mn = PlaceHolder<4, Tn<T>, OUT>();
    auto mean = PlaceHolder<5, Tn<float>, OUT>();
    return (sum = ReduceSum<AR>(x), mx = ReduceMax<AR>(x), mn = ReduceMin<AR>(x),
            mean = ReduceMean<AR>(x));
  }
};

TEST(Reductions, AlongTheLastAxisForEveryWidth) {
  for (const RowShape s : kShapes) {
    const int64_t n = s.rows * s.cols;
    DeviceBuffer<float> x(n), sum(s.rows), mx(s.rows), mn(s.rows), mean(s.rows);
    x.Random(11);
    Op<ReduceArC<float>> op;
    ASSERT_TRUE(RunAndSync(op.run(ArgumentsBuilder{}
                                      .inputOutput(x.Arg({s.rows, s.cols}), sum.Arg({s.rows}),
                                                   mx.Arg({s.rows, 1}), mn.Arg({s.rows}),
                                                   mean.Arg({s.rows}))
                                      .build()))
                    .ok());
    const auto row = [&](int64_t r, auto fold, double init) {
      double a = init;
      for (int64_t c = 0; c < s.cols; ++c)
        a = fold(a, x.At(r * s.cols + c));
      return a;
    };
    const auto add = [](double a, double b) { return a + b; };
    const auto vmax = [](double a, double b) { return std::max(a, b); };
    const auto vmin = [](double a, double b) { return std::min(a, b); };
    const double tol = 1e-6 * std::sqrt(static_cast<double>(s.cols));
    ExpectAllNear(
        sum, s.rows, [&](int64_t r) { return row(r, add, 0.0); }, tol, 1e-6, "sum");
    ExpectAllNear(
        mx, s.rows, [&](int64_t r) { return row(r, vmax, -1e30); }, 0, 0, "max");
    ExpectAllNear(
        mn, s.rows, [&](int64_t r) { return row(r, vmin, 1e30); }, 0, 0, "min");
    ExpectAllNear(
        mean, s.rows, [&](int64_t r) { return row(r, add, 0.0) / static_cast<double>(s.cols); },
        1e-6, 1e-6, "mean");
  }
}

struct ReduceIntC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tn<int32_t>>();
    auto sum = PlaceHolder<2, Tn<int32_t>, OUT>();
    auto mx = PlaceHolder<3, Tn<int32_t>, OUT>();
    return (sum = ReduceSum<AR>(x), mx = ReduceMax<AR>(x));
  }
};

TEST(Reductions, Int32AlongTheLastAxis) {
  const RowShape s{57, 4097};
  const int64_t n = s.rows * s.cols;
  DeviceBuffer<int32_t> x(n), sum(s.rows), mx(s.rows);
  x.Random(12, -1000, 1000);
  Op<ReduceIntC> op;
  ASSERT_TRUE(RunAndSync(op.run(ArgumentsBuilder{}
                                    .inputOutput(x.Arg({s.rows, s.cols}), sum.Arg({s.rows}),
                                                 mx.Arg({s.rows}))
                                    .build()))
                  .ok());
  ExpectAllNear(
      sum, s.rows,
      [&](int64_t r) {
        double a = 0;
        for (int64_t c = 0; c < s.cols; ++c)
          a += x.At(r * s.cols + c);
        return a;
      },
      0, 0, "int sum");
  ExpectAllNear(
      mx, s.rows,
      [&](int64_t r) {
        double a = -1e30;
        for (int64_t c = 0; c < s.cols; ++c)
          a = std::max(a, x.At(r * s.cols + c));
        return a;
      },
      0, 0, "int max");
}

// Column standardisation along the first axis: mean (RA), centred values kept across passes
// (a spilled temporary: rows x tile does not fit in UB, so it lives in the workspace), variance,
// and the reductions written out too.
struct ColumnNormC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tn<float>>();
    auto out = PlaceHolder<2, Tn<float>, OUT>();
    auto colmax = PlaceHolder<3, Tn<float>, OUT>();
    auto mu = PlaceHolderTmp<1>();
    auto d = PlaceHolderTmp<2>();
    auto var = PlaceHolderTmp<3>();
    return (mu = ReduceMean<RA>(x), colmax = ReduceMax<RA>(x),
            d = x - Broadcast<BroadcastPattern::BA>(mu), var = ReduceMean<RA>(d * d),
            out = d * Rsqrt(var + 1e-6f));
  }
};

TEST(Reductions, AlongTheFirstAxisWithWorkspaceSpill) {
  for (const RowShape s :
       {RowShape{1, 7}, RowShape{33, 1}, RowShape{1000, 70}, RowShape{70, 4097}}) {
    const int64_t n = s.rows * s.cols;
    DeviceBuffer<float> x(n), out(n), colmax(s.cols);
    x.Random(13, 1, 3);
    Op<ColumnNormC> op;
    const auto args =
        ArgumentsBuilder{}
            .inputOutput(x.Arg({s.rows, s.cols}), out.Arg({s.rows, s.cols}), colmax.Arg({s.cols}))
            .build();
    ASSERT_TRUE(RunAndSync(op.run(args)).ok());
    if (s.rows == 1000) {
      EXPECT_GT(*Op<ColumnNormC>::get_workspace_size(args), 0u) << "spill expected in workspace";
    }
    std::vector<double> mu(static_cast<size_t>(s.cols)), inv(static_cast<size_t>(s.cols)),
        mx(static_cast<size_t>(s.cols), -1e30);
    for (int64_t c = 0; c < s.cols; ++c) {
      double m = 0, v = 0;
      for (int64_t r = 0; r < s.rows; ++r) {
        m += x.At(r * s.cols + c);
        mx[static_cast<size_t>(c)] = std::max(mx[static_cast<size_t>(c)], x.At(r * s.cols + c));
      }
      m /= static_cast<double>(s.rows);
      for (int64_t r = 0; r < s.rows; ++r) {
        v += (x.At(r * s.cols + c) - m) * (x.At(r * s.cols + c) - m);
      }
      mu[static_cast<size_t>(c)] = m;
      inv[static_cast<size_t>(c)] = 1 / std::sqrt(v / static_cast<double>(s.rows) + 1e-6);
    }
    ExpectAllNear(
        out, n,
        [&](int64_t i) {
          const auto c = static_cast<size_t>(i % s.cols);
          return (x.At(i) - mu[c]) * inv[c];
        },
        2e-3, 1e-4, "column norm " + std::to_string(s.rows) + "x" + std::to_string(s.cols));
    ExpectAllNear(
        colmax, s.cols, [&](int64_t c) { return mx[static_cast<size_t>(c)]; }, 0, 0, "col max");
  }
}

// numpy-style broadcasting between inputs: [M, N] * [M, 1] + [N] - [1].
struct BroadcastC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tn<float>>();
    auto row_scale = PlaceHolder<2, Tn<half>>();
    auto bias = PlaceHolder<3, Tn<bfloat16>>();
    auto one = PlaceHolder<4, Tn<float>>();
    auto out = PlaceHolder<5, Tn<float>, OUT>();
    return (out = x * row_scale + bias - one);
  }
};

TEST(Broadcasting, NumpyStyleBetweenInputs) {
  for (const RowShape s : {RowShape{1, 1}, RowShape{257, 33}, RowShape{3, 70000}}) {
    const int64_t n = s.rows * s.cols;
    DeviceBuffer<float> x(n), out(n), one(1);
    DeviceBuffer<half> scale(s.rows);
    DeviceBuffer<bfloat16> bias(s.cols);
    x.Random(14);
    scale.Random(15);
    bias.Random(16);
    one.Random(17);
    Op<BroadcastC> op;
    ASSERT_TRUE(RunAndSync(op.run(ArgumentsBuilder{}
                                      .inputOutput(x.Arg({s.rows, s.cols}), scale.Arg({s.rows, 1}),
                                                   bias.Arg({s.cols}), one.Arg({1}),
                                                   out.Arg({s.rows, s.cols}))
                                      .build()))
                    .ok());
    ExpectAllNear(
        out, n,
        [&](int64_t i) { return x.At(i) * scale.At(i / s.cols) + bias.At(i % s.cols) - one.At(0); },
        1e-6, 1e-6, "broadcast");
  }
}

// The same row program on the emulated NPU profile (48 vector cores, NPU-sized UB).
TEST(Profiles, RmsNormOnTheEmulatedNpuProfile) {
  ASSERT_TRUE(tessera::device::SetProfile("ascend910b").ok());
  const RowShape s{100, 4096};
  const int64_t n = s.rows * s.cols;
  DeviceBuffer<float> x(n), gamma(s.cols), out(n);
  x.Random(18);
  gamma.Random(19);
  fused::RmsNorm<float> op;
  const Status st = RunAndSync(op.run(
      ArgumentsBuilder{}
          .inputOutput(x.Arg({s.rows, s.cols}), gamma.Arg({s.cols}), out.Arg({s.rows, s.cols}))
          .attr("epsilon", 1e-6)
          .build()));
  ASSERT_TRUE(tessera::device::SetProfile("native").ok());
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::vector<double> inv(static_cast<size_t>(s.rows));
  for (int64_t r = 0; r < s.rows; ++r) {
    double ss = 0;
    for (int64_t c = 0; c < s.cols; ++c)
      ss += x.At(r * s.cols + c) * x.At(r * s.cols + c);
    inv[static_cast<size_t>(r)] = 1 / std::sqrt(ss / static_cast<double>(s.cols) + 1e-6);
  }
  ExpectAllNear(
      out, n,
      [&](int64_t i) {
        return x.At(i) * inv[static_cast<size_t>(i / s.cols)] * gamma.At(i % s.cols);
      },
      1e-5, 2e-5, "rmsnorm on ascend910b");
}

}  // namespace
}  // namespace tessera::elewise

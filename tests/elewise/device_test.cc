// DeviceAdapter: every rejection of Run (with nothing launched), attributes read by computes and
// schedules, a user schedule, the streaming-store path, and the tile planner's limits.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "../../examples/elewise/strided_schedule.h"
#include "tessera/elewise/elewise.h"
#include "test_util.h"

namespace tessera::elewise {
namespace {

using testing::DeviceBuffer;
using testing::ExpectAllNear;
using testing::RunAndSync;

constexpr auto OUT = ParamUsage::OUT;

// out = x * y + Attr("bias").
struct AxpyC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tn<float>>();
    auto y = PlaceHolder<2, Tn<float>>();
    auto out = PlaceHolder<3, Tn<float>, OUT>();
    return (out = x * y + Attr<"bias">());
  }
};
using Axpy = DeviceAdapter<KernelBuilder<BlockBuilder<AxpyC>>>;

struct RowSumC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tn<float>>();
    auto s = PlaceHolder<2, float>();
    auto out = PlaceHolder<3, Tn<float>, OUT>();
    return (out = ReduceSum<ReducePattern::AR>(x * s));
  }
};
using RowSum = DeviceAdapter<KernelBuilder<BlockBuilder<RowSumC>>>;

class DeviceAdapterErrors : public ::testing::Test {
 protected:
  // Runs `args`, expects `code` with `fragment` in the message, and checks nothing ran: the
  // output still holds its initial data and the stream has no error.
  template <class Adapter>
  void ExpectRejected(const Arguments& args, StatusCode code, const std::string& fragment) {
    Adapter op;
    const Status st = op.run(args);
    EXPECT_EQ(st.code(), code) << st.ToString();
    EXPECT_NE(std::string(st.message()).find(fragment), std::string::npos) << st.ToString();
    EXPECT_EQ(Adapter::can_implement(args).code(), code);
    EXPECT_TRUE(::tessera::device::Stream().Synchronize().ok());
    const std::vector<float> before = out_.host;
    out_.Download();
    EXPECT_EQ(before, out_.host) << "a rejected call must not launch";
  }
  void SetUp() override {
    x_.Random(1);
    y_.Random(2);
    out_.Random(3);
  }
  Arguments Good() const {
    return ArgumentsBuilder{}
        .inputOutput(x_.Arg({4, 16}), y_.Arg({4, 16}), out_.Arg({4, 16}))
        .attr("bias", 1.0)
        .build();
  }
  DeviceBuffer<float> x_{64}, y_{64}, out_{64};
};

TEST_F(DeviceAdapterErrors, GoodArgumentsRun) {
  Axpy op;
  ASSERT_TRUE(RunAndSync(op.run(Good())).ok());
  ExpectAllNear(
      out_, 64, [&](int64_t i) { return x_.At(i) * y_.At(i) + 1; }, 1e-6, 1e-6, "axpy");
}

TEST_F(DeviceAdapterErrors, TooManyOrTooFewParameters) {
  Arguments more = Good();
  more.params.push_back(x_.Arg({4, 16}));
  ExpectRejected<Axpy>(more, StatusCode::kInvalidArgument, "takes 3 parameters");
  Arguments fewer = Good();
  fewer.params.pop_back();
  ExpectRejected<Axpy>(fewer, StatusCode::kInvalidArgument, "got 2");
}

TEST_F(DeviceAdapterErrors, WrongKindOrDtype) {
  Arguments scalar = Good();
  scalar.params[1] = ScalarArg{DataType::kFloat32, 1.0f, 0};
  ExpectRejected<Axpy>(scalar, StatusCode::kInvalidArgument, "parameter 2 must be a tensor");
  Arguments dtype = Good();
  std::get<TensorArg>(dtype.params[0]).dtype = DataType::kFloat16;
  ExpectRejected<Axpy>(dtype, StatusCode::kInvalidArgument, "dtype float16, expected float32");

  DeviceBuffer<float> rows(4);
  const auto tensor_for_scalar =
      ArgumentsBuilder{}.inputOutput(x_.Arg({4, 16}), x_.Arg({1}), out_.Arg({4})).build();
  ExpectRejected<RowSum>(tensor_for_scalar, StatusCode::kInvalidArgument, "must be a scalar");
  const auto int_scalar =
      ArgumentsBuilder{}.inputOutput(x_.Arg({4, 16}), int32_t{2}, out_.Arg({4})).build();
  ExpectRejected<RowSum>(int_scalar, StatusCode::kInvalidArgument, "int32 scalar");
}

TEST_F(DeviceAdapterErrors, NullEmptyAndZeroShapes) {
  Arguments null_data = Good();
  std::get<TensorArg>(null_data.params[1]).data = nullptr;
  ExpectRejected<Axpy>(null_data, StatusCode::kInvalidArgument, "null data");
  Arguments empty = Good();
  std::get<TensorArg>(empty.params[0]).shape = Shape();
  ExpectRejected<Axpy>(empty, StatusCode::kInvalidArgument, "empty shape");
  Arguments zero = Good();
  std::get<TensorArg>(zero.params[2]).shape = *Shape::Make({4, 0});
  ExpectRejected<Axpy>(zero, StatusCode::kInvalidArgument, "zero-sized");
}

TEST_F(DeviceAdapterErrors, MismatchedShapes) {
  Arguments mismatch = Good();
  std::get<TensorArg>(mismatch.params[1]).shape = *Shape::Make({4, 8});
  ExpectRejected<Axpy>(mismatch, StatusCode::kInvalidArgument, "does not broadcast");
  Arguments small_out = Good();
  std::get<TensorArg>(small_out.params[2]).shape = *Shape::Make({16});
  ExpectRejected<Axpy>(small_out, StatusCode::kInvalidArgument, "expected [4, 16]");
  Arguments out_strides = Good();
  std::get<TensorArg>(out_strides.params[2]).strides = {1, 4};
  ExpectRejected<Axpy>(out_strides, StatusCode::kInvalidArgument, "outputs are dense");
  Arguments rank = Good();
  std::get<TensorArg>(rank.params[0]).strides = {16};
  ExpectRejected<Axpy>(rank, StatusCode::kInvalidArgument, "1 strides for rank 2");
  const auto strided_row =
      ArgumentsBuilder{}
          .inputOutput(
              TensorArg{x_.Arg({4, 8}).data, DataType::kFloat32, *Shape::Make({4, 8}), 0, {16, 2}},
              1.0f, out_.Arg({4}))
          .build();
  ExpectRejected<RowSum>(strided_row, StatusCode::kUnimplemented, "strided view");
  Arguments stride = Good();
  std::get<TensorArg>(stride.params[0]).row_stride = 8;
  ExpectRejected<Axpy>(stride, StatusCode::kInvalidArgument, "row_stride 8");
  const auto reduced = ArgumentsBuilder{}.inputOutput(x_.Arg({4, 16}), 1.0f, out_.Arg({5})).build();
  ExpectRejected<RowSum>(reduced, StatusCode::kInvalidArgument, "needs 4 elements");
}

TEST_F(DeviceAdapterErrors, MissingAttribute) {
  Arguments no_attr = Good();
  no_attr.attrs = Attributes();
  ExpectRejected<Axpy>(no_attr, StatusCode::kInvalidArgument, "attribute 'bias'");
  Arguments text_attr = Good();
  text_attr.attrs.Set("bias", std::string("one"));
  ExpectRejected<Axpy>(text_attr, StatusCode::kInvalidArgument, "not a number");
}

using StridedAxpy = DeviceAdapter<KernelBuilder<BlockBuilder<AxpyC>, policy::DoubleBuffer,
                                                example::StridedConfig, example::StridedSchedule>>;

TEST_F(DeviceAdapterErrors, ScheduleRejection) {
  Arguments bad = Good();
  bad.attrs.Set("blocks", int64_t{0});
  ExpectRejected<StridedAxpy>(bad, StatusCode::kInvalidArgument, "'blocks' and 'chunk'");
}

// Twelve tensor parameters (ATVOSS's device adapter stopped at six).
struct TwelveC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto a = PlaceHolder<1, Tn<float>>();
    auto b = PlaceHolder<2, Tn<float>>();
    auto c = PlaceHolder<3, Tn<float>>();
    auto d = PlaceHolder<4, Tn<float>>();
    auto e = PlaceHolder<5, Tn<float>>();
    auto f = PlaceHolder<6, Tn<float>>();
    auto g = PlaceHolder<7, Tn<float>>();
    auto h = PlaceHolder<8, Tn<float>>();
    auto i = PlaceHolder<9, Tn<float>>();
    auto j = PlaceHolder<10, Tn<float>>();
    auto o1 = PlaceHolder<11, Tn<float>, OUT>();
    auto o2 = PlaceHolder<12, Tn<float>, OUT>();
    return (o1 = ((a + b) * (c - d) + (e * f - g)) / (Abs(h) + 1.0f) + i * j, o2 = a - j);
  }
};

TEST(ManyParameters, TwelveTensors) {
  const int64_t n = 4097;
  std::vector<std::unique_ptr<DeviceBuffer<float>>> in;
  ArgumentsBuilder builder;
  for (uint32_t k = 0; k < 10; ++k) {
    in.push_back(std::make_unique<DeviceBuffer<float>>(n));
    in.back()->Random(20 + k);
    builder.inputOutput(in.back()->Arg({n}));
  }
  DeviceBuffer<float> o1(n), o2(n);
  builder.inputOutput(o1.Arg({n}), o2.Arg({n}));
  DeviceAdapter<KernelBuilder<BlockBuilder<TwelveC>>> op;
  ASSERT_TRUE(RunAndSync(op.run(builder.build())).ok());
  const auto v = [&](size_t k, int64_t i) { return in[k]->At(i); };
  ExpectAllNear(
      o1, n,
      [&](int64_t i) {
        return ((v(0, i) + v(1, i)) * (v(2, i) - v(3, i)) + (v(4, i) * v(5, i) - v(6, i))) /
                   (std::fabs(v(7, i)) + 1) +
               v(8, i) * v(9, i);
      },
      1e-5, 1e-5, "twelve");
  ExpectAllNear(
      o2, n, [&](int64_t i) { return v(0, i) - v(9, i); }, 1e-6, 1e-6, "twelve o2");
}

TEST(CustomSchedule, StridedChunksMatchTheReference) {
  for (const int64_t n : {int64_t{1}, int64_t{7}, int64_t{4097}, int64_t{1000003}}) {
    DeviceBuffer<float> x(n), y(n), out(n);
    x.Random(4);
    y.Random(5);
    StridedAxpy op;
    ASSERT_TRUE(RunAndSync(op.run(ArgumentsBuilder{}
                                      .inputOutput(x.Arg({n}), y.Arg({n}), out.Arg({n}))
                                      .attr("bias", -0.5)
                                      .attr("blocks", 5)
                                      .attr("chunk", 1000)
                                      .build()))
                    .ok());
    ExpectAllNear(
        out, n, [&](int64_t i) { return x.At(i) * y.At(i) - 0.5; }, 1e-6, 1e-6, "strided");
  }
}

// A policy with streaming stores for any size, so the non-temporal path (alignment head,
// streamed body, tail) is covered for 4- and 2-byte outputs.
template <class T>
struct CopyScaleC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tn<T>>();
    auto out = PlaceHolder<2, Tn<T>, OUT>();
    auto out2 = PlaceHolder<3, Tn<T>, OUT>();
    return (out = x * 3.0f, out2 = Abs(x));  // a binary and a unary op feeding a store
  }
};
template <class T>
using Streaming =
    DeviceAdapter<KernelBuilder<BlockBuilder<CopyScaleC<T>, policy::Pipeline<3, 256, 0>>>>;

template <class T>
void CheckStreaming() {
  for (const int64_t n : {int64_t{1}, int64_t{7}, int64_t{4097}, int64_t{100003}}) {
    // Offset 0: aligned outputs (the op streams straight into the tensor); offset 1: misaligned
    // outputs, exercising the alignment head of the store.
    for (const int64_t offset : {int64_t{0}, int64_t{1}}) {
      DeviceBuffer<T> x(n + 1), out(n + 1), out2(n + 1);
      x.Random(6);
      out.Random(7);
      out2.Random(8);
      const std::vector<T> before = out.host;
      const std::vector<T> before2 = out2.host;
      TensorArg xa = x.Arg({n});
      TensorArg oa = out.Arg({n});
      TensorArg oa2 = out2.Arg({n});
      xa.data = x.data() + offset;
      oa.data = out.data() + offset;
      oa2.data = out2.data() + offset;
      Streaming<T> op;
      ASSERT_TRUE(RunAndSync(op.run(ArgumentsBuilder{}.inputOutput(xa, oa, oa2).build())).ok());
      const auto expect = [&](DeviceBuffer<T>& buf, const std::vector<T>& old, auto f) {
        ExpectAllNear(
            buf, n + 1,
            [&](int64_t i) {
              const bool written = i >= offset && i < offset + n;
              return written ? f(x.At(i)) : testing::ToDouble(old[static_cast<size_t>(i)]);
            },
            0, testing::RelTol<T>(1e-7), "streamed, offset " + std::to_string(offset));
      };
      expect(out, before, [](double v) { return v * 3; });
      expect(out2, before2, [](double v) { return std::fabs(v); });
    }
  }
}

TEST(StreamingStores, AllSizesAndMisalignedOutputs) {
  CheckStreaming<float>();
  CheckStreaming<half>();
  CheckStreaming<bfloat16>();
}

TEST(TilePlanner, SizesTilesFromUbAndRejectsTooSmallUb) {
  const tile::ProgramView p = Axpy::Program();
  Problem problem;
  problem.cols = 1 << 20;
  auto plan = PlanTiles(p, problem, 192 << 10, 1024);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->tile_elems, 1024u);
  plan = PlanTiles(p, problem, 4096, 1024);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->tile_elems % 64, 0u);
  EXPECT_LE(uint64_t{plan->tile_elems} * 4 * p.num_regs, 4096u);
  EXPECT_EQ(PlanTiles(p, problem, 256, 1024).status().code(), StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace tessera::elewise

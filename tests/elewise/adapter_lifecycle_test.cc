// DeviceAdapter's lifecycle: initialize plans once, run launches the plan any number of times;
// and the op path (MakeOpTiling / RunOpBlock) plans on the host only, never per block. Planning
// is counted by a block op and a schedule that wrap the defaults.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "tessera/device/launch.h"
#include "tessera/elewise/elewise.h"
#include "tessera/elewise/fused.h"
#include "tessera/elewise/op_kernel.h"
#include "test_util.h"

namespace tessera::elewise {
namespace {

using testing::DeviceBuffer;
using testing::ExpectAllNear;

std::atomic<int> g_tile_plans{0};
std::atomic<int> g_schedule_plans{0};

// out = x * alpha + y.
struct ScaleAddC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tn<float>>();
    auto y = PlaceHolder<2, Tn<float>>();
    auto out = PlaceHolder<3, Tn<float>, ParamUsage::OUT>();
    return (out = x * Attr<"alpha">() + y);
  }
};

// The default block op and schedule, counting their host planning steps.
struct CountingBlock : BlockBuilder<ScaleAddC> {
  static Result<TilePlan> plan(const Arguments& args) {
    ++g_tile_plans;
    return BlockBuilder<ScaleAddC>::plan(args);
  }
};
template <class B, class P, class C>
struct CountingSchedule : DefaultKernelSchedule<B, P, C> {
  static Status MakeScheduleConfig(const grid::ScheduleArguments& a, C& cfg) {
    ++g_schedule_plans;
    return DefaultKernelSchedule<B, P, C>::MakeScheduleConfig(a, cfg);
  }
};
using Kernel =
    KernelBuilder<CountingBlock, policy::DoubleBuffer, DefaultKernelConfig, CountingSchedule>;
using Op = DeviceAdapter<Kernel>;

class AdapterLifecycle : public ::testing::Test {
 protected:
  void SetUp() override {
    g_tile_plans = 0;
    g_schedule_plans = 0;
    x_.Random(1);
    y_.Random(2);
  }
  Arguments Args(double alpha) const {
    return ArgumentsBuilder{}
        .inputOutput(x_.Arg({kN}), y_.Arg({kN}), out_.Arg({kN}))
        .attr("alpha", alpha)
        .build();
  }
  static constexpr int64_t kN = (int64_t{1} << 20) + 7;  // several blocks and a tail
  DeviceBuffer<float> x_{kN}, y_{kN}, out_{kN};
};

TEST_F(AdapterLifecycle, InitializeOnceRunMany) {
  Op op;
  EXPECT_EQ(op.params(), nullptr);
  ASSERT_EQ(*Op::get_workspace_size(Args(0.5)), 0u);
  g_tile_plans = 0;
  g_schedule_plans = 0;
  ASSERT_TRUE(op.initialize(Args(0.5), nullptr).ok());
  EXPECT_EQ(g_tile_plans, 1);
  EXPECT_EQ(g_schedule_plans, 1);
  const auto* params = op.params();
  ASSERT_NE(params, nullptr);
  EXPECT_GT(params->schedule.blockNum, 1u);
  // New input data between runs: run binds the same buffers and reads them afresh.
  for (uint32_t round = 0; round < 4; ++round) {
    x_.Random(10 + round);
    ASSERT_TRUE(op.run().ok());
    ASSERT_TRUE(::tessera::device::Stream().Synchronize().ok());
    ExpectAllNear(
        out_, kN, [&](int64_t i) { return x_.At(i) * 0.5 + y_.At(i); }, 1e-6, 1e-6, "run");
  }
  EXPECT_EQ(g_tile_plans, 1) << "run(stream) planned the tiles again";
  EXPECT_EQ(g_schedule_plans, 1) << "run(stream) ran the schedule's host half again";
  EXPECT_EQ(op.params(), params) << "run(stream) replaced the plan";
}

TEST_F(AdapterLifecycle, InitializeReplacesThePlan) {
  Op op;
  ASSERT_TRUE(op.initialize(Args(0.5), nullptr).ok());
  ASSERT_TRUE(op.initialize(Args(-3.0), nullptr).ok());
  ASSERT_TRUE(op.run().ok());
  ASSERT_TRUE(::tessera::device::Stream().Synchronize().ok());
  ExpectAllNear(
      out_, kN, [&](int64_t i) { return x_.At(i) * -3.0 + y_.At(i); }, 1e-6, 1e-6, "replaced");
  EXPECT_EQ(g_tile_plans, 2);
}

TEST_F(AdapterLifecycle, RunNeedsASuccessfulInitialize) {
  Op op;
  EXPECT_EQ(op.run().code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(op.initialize(Args(0.5), nullptr).ok());
  Arguments bad = Args(0.5);
  bad.params.pop_back();
  EXPECT_EQ(op.initialize(bad, nullptr).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(op.params(), nullptr) << "a failed initialize must not leave the old plan";
  EXPECT_EQ(op.run().code(), StatusCode::kFailedPrecondition);
}

TEST_F(AdapterLifecycle, OneOffRunPlansEachCall) {
  Op op;
  ASSERT_TRUE(op.run(Args(2.0)).ok());
  ASSERT_TRUE(op.run(Args(2.0)).ok());
  ASSERT_TRUE(::tessera::device::Stream().Synchronize().ok());
  EXPECT_EQ(g_tile_plans, 2);
  ExpectAllNear(
      out_, kN, [&](int64_t i) { return x_.At(i) * 2.0 + y_.At(i); }, 1e-6, 1e-6, "one-off");
}

TEST(AdapterWorkspace, InitializeTakesTheCallersWorkspace) {
  // Softmax rows wider than the UB keep exp(x - max) in the workspace.
  using Softmax = fused::Softmax<float>;
  const int64_t rows = 3, cols = 70000;
  DeviceBuffer<float> x(rows * cols), out(rows * cols);
  x.Random(5);
  const Arguments args =
      ArgumentsBuilder{}.inputOutput(x.Arg({rows, cols}), out.Arg({rows, cols})).build();
  const Result<uint64_t> ws = Softmax::get_workspace_size(args);
  ASSERT_TRUE(ws.ok());
  ASSERT_GT(*ws, 0u) << "expected a spill to the workspace";
  Softmax op;
  const Status missing = op.initialize(args, nullptr);
  EXPECT_EQ(missing.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(missing.message()).find("workspace"), std::string::npos);
  void* workspace = *::tessera::device::Malloc(*ws);
  ASSERT_TRUE(op.initialize(args, workspace).ok());
  ASSERT_TRUE(op.run().ok());
  ASSERT_TRUE(::tessera::device::Stream().Synchronize().ok());
  out.Download();
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      sum += out.At(r * cols + c);
    EXPECT_NEAR(sum, 1.0, 1e-3) << "row " << r;
  }
  EXPECT_TRUE(::tessera::device::Free(workspace).ok());
}

// The op path: the kernel entry of every block binds the host's plan.
void OpKernel(op_kernel::ElewiseTilingData t, uint8_t* x, uint8_t* y, uint8_t* out) {
  uint8_t* const gm[] = {x, y, out};
  op_kernel::RunOpBlock<Kernel>(t, gm, nullptr);
}

TEST_F(AdapterLifecycle, OpKernelBlocksDoNotPlan) {
  op_kernel::OpArguments args;
  const Shape shape = *Shape::Make({kN});
  args.params = {op_kernel::OpTensor{0, 0, DataType::kFloat32, shape},
                 op_kernel::OpTensor{1, 0, DataType::kFloat32, shape},
                 op_kernel::OpTensor{2, 0, DataType::kFloat32, shape}};
  args.attrs.Set("alpha", 1.5);
  const auto& arch = ::tessera::device::CurrentArch();
  const Result<op_kernel::OpTiling> t =
      op_kernel::MakeOpTiling<Kernel>(args, 3, arch.ub_bytes, /*cores=*/4);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->block_dim, 4u);
  EXPECT_EQ(g_tile_plans, 1);
  EXPECT_EQ(g_schedule_plans, 1);
  ASSERT_TRUE(::tessera::device::Launch(&OpKernel, t->block_dim, ::tessera::device::Stream(),
                                        t->data, reinterpret_cast<uint8_t*>(x_.data()),
                                        reinterpret_cast<uint8_t*>(y_.data()),
                                        reinterpret_cast<uint8_t*>(out_.data()))
                  .ok());
  ASSERT_TRUE(::tessera::device::Stream().Synchronize().ok());
  ExpectAllNear(
      out_, kN, [&](int64_t i) { return x_.At(i) * 1.5 + y_.At(i); }, 1e-6, 1e-6, "op kernel");
  EXPECT_EQ(g_tile_plans, 1) << "a kernel block planned the tiles";
  EXPECT_EQ(g_schedule_plans, 1);
}

}  // namespace
}  // namespace tessera::elewise

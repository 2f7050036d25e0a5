// elewise/op_kernel.h on its own (the path the row ops take, without the runtime): MakeOpTiling
// on the host, the tiling struct through its serialised bytes, RunOpBlock on every block of a
// launch - a Compute with a runtime scalar and an attribute, two parameters at offsets into one
// GM buffer, a user schedule whose config travels in the tiling data, empty outputs and errors.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "examples/elewise/strided_schedule.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tessera/elewise/elewise.h"
#include "tessera/elewise/op_kernel.h"

namespace {

namespace ew = tessera::elewise;
namespace td = tessera::device;
using ew::op_kernel::ElewiseTilingData;
using ew::op_kernel::OpArguments;
using ew::op_kernel::OpTensor;
using tessera::DataType;
using tessera::Shape;

// out = (a * scale + s) * b
struct ScaleCompute {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto a = ew::PlaceHolder<1, Tensor<float>>();
    auto s = ew::PlaceHolder<2, float>();
    auto b = ew::PlaceHolder<3, Tensor<float>>();
    auto out = ew::PlaceHolder<4, Tensor<float>, ew::ParamUsage::OUT>();
    return (out = (a * ew::Attr<"scale">() + s) * b);
  }
};

// out = x * rsqrt(mean(x^2) + epsilon) per row
struct RowNormCompute {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto x = ew::PlaceHolder<1, Tensor<float>>();
    auto out = ew::PlaceHolder<2, Tensor<float>, ew::ParamUsage::OUT>();
    auto ms = ew::PlaceHolderTmp<1>();
    return (ms = ew::ReduceMean<ew::ReducePattern::AR>(x * x),
            out = x * ew::Rsqrt(ms + ew::Attr<"epsilon">()));
  }
};

using ScaleKernel = ew::KernelBuilder<ew::BlockBuilder<ScaleCompute>>;
using UniformRowKernel = ew::KernelBuilder<ew::BlockBuilder<RowNormCompute>>;
using StridedRowKernel =
    ew::KernelBuilder<ew::BlockBuilder<RowNormCompute>, ew::policy::DoubleBuffer,
                      example::StridedConfig, example::StridedSchedule>;

// What a kernel entry does: read the tiling bytes, bind GM addresses, run this block's share.
template <class KernelOp>
void Entry(const uint8_t* tiling, std::array<uint8_t*, 2> gm, void* workspace) {
  const ElewiseTilingData t = tessera::tiling::GetTilingData<ElewiseTilingData>(tiling);
  ew::op_kernel::RunOpBlock<KernelOp>(t, gm, workspace);
}

// Plans `args` for `gm_count` GM addresses, then launches Entry<KernelOp> over the two GM buffers
// `in` and `out`.
template <class KernelOp>
tessera::Result<ew::op_kernel::OpTiling> PlanAndRun(const OpArguments& args, float* in, float* out,
                                             uint32_t gm_count = 2) {
  const td::ArchSpec& arch = td::CurrentArch();
  TESSERA_ASSIGN_OR_RETURN(ew::op_kernel::OpTiling t, ew::op_kernel::MakeOpTiling<KernelOp>(
                                                   args, gm_count, arch.ub_bytes, arch.aiv_cores));
  const std::vector<uint8_t> bytes = tessera::tiling::SerializeTiling(t.data);
  TESSERA_ASSIGN_OR_RETURN(void* tiling, td::Malloc(bytes.size()));
  TESSERA_RETURN_IF_ERROR(
      td::Memcpy(tiling, bytes.size(), bytes.data(), bytes.size(), td::MemcpyKind::kHostToDevice));
  void* workspace = nullptr;
  if (t.workspace_bytes > 0) {
    TESSERA_ASSIGN_OR_RETURN(workspace, td::Malloc(t.workspace_bytes));
  }
  const std::array<uint8_t*, 2> gm = {reinterpret_cast<uint8_t*>(in),
                                      reinterpret_cast<uint8_t*>(out)};
  // An own stream: a kernel failure is sticky on its stream and must not leak into other tests.
  TESSERA_ASSIGN_OR_RETURN(td::Stream stream, td::Stream::Create());
  tessera::Status st =
      td::Launch(td::LaunchConfig{t.block_dim, td::KernelType::kAiv, "test"}, &Entry<KernelOp>,
                 stream, static_cast<const uint8_t*>(tiling), gm, workspace);
  if (st.ok()) st = stream.Synchronize();
  TESSERA_RETURN_IF_ERROR(td::Free(tiling));
  if (workspace != nullptr) TESSERA_RETURN_IF_ERROR(td::Free(workspace));
  TESSERA_RETURN_IF_ERROR(st);
  return t;
}

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<float> v(n);
  for (float& x : v)
    x = dist(rng);
  return v;
}

struct Buffers {
  float* in = nullptr;
  float* out = nullptr;
  size_t n_in, n_out;
  Buffers(size_t a, size_t b) : n_in(a), n_out(b) {
    in = static_cast<float*>(*td::Malloc(std::max<size_t>(1, a) * 4));
    out = static_cast<float*>(*td::Malloc(std::max<size_t>(1, b) * 4));
  }
  ~Buffers() {
    (void)td::Free(in);
    (void)td::Free(out);
  }
  void Upload(const std::vector<float>& v) {
    ASSERT_TRUE(
        td::Memcpy(in, n_in * 4, v.data(), v.size() * 4, td::MemcpyKind::kHostToDevice).ok());
  }
  std::vector<float> Download() const {
    std::vector<float> v(n_out);
    EXPECT_TRUE(
        td::Memcpy(v.data(), n_out * 4, out, n_out * 4, td::MemcpyKind::kDeviceToHost).ok());
    return v;
  }
};

// a and b are the two halves of each row of one [rows, 2w] input (offsets 0 and w, row stride
// 2w); the scalar and the attribute reach every block.
TEST(ElewiseOpKernelTest, ScalarAttributeAndOffsetsIntoOneBuffer) {
  const int64_t rows = 301, w = 1000;
  Buffers buf(static_cast<size_t>(rows * 2 * w), static_cast<size_t>(rows * w));
  const std::vector<float> x = Random(buf.n_in, 1);
  buf.Upload(x);
  const Shape half = *Shape::Make({rows, w});
  OpArguments args;
  args.params = {
      OpTensor{0, 0, DataType::kFloat32, half, 2 * w}, ew::ScalarArg{DataType::kFloat32, 0.25f, 0},
      OpTensor{0, w, DataType::kFloat32, half, 2 * w}, OpTensor{1, 0, DataType::kFloat32, half, 0}};
  args.attrs.Set("scale", 1.5);
  auto t = PlanAndRun<ScaleKernel>(args, buf.in, buf.out);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_GT(t->block_dim, 0u);
  EXPECT_EQ(t->data.numOperands, 4);
  EXPECT_EQ(t->data.operandArg[1], -1);
  EXPECT_EQ(t->data.operandOffset[2], w);
  const std::vector<float> y = buf.Download();
  size_t wrong = 0;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < w; ++k) {
      const float a = x[r * 2 * w + k], b = x[r * 2 * w + w + k];
      const float want = (a * 1.5f + 0.25f) * b;
      wrong += std::fabs(y[r * w + k] - want) > 1e-6f * (1 + std::fabs(want));
    }
  }
  EXPECT_EQ(wrong, 0u);
}

// The user schedule's config (blocks, units, chunk) travels as bytes and gives the same result
// as the uniform split.
TEST(ElewiseOpKernelTest, UserScheduleConfigTravelsInTheTilingData) {
  const int64_t rows = 999, cols = 300;
  Buffers uniform(static_cast<size_t>(rows * cols), static_cast<size_t>(rows * cols));
  Buffers strided(uniform.n_in, uniform.n_out);
  const std::vector<float> x = Random(uniform.n_in, 2);
  uniform.Upload(x);
  strided.Upload(x);
  const Shape shape = *Shape::Make({rows, cols});
  OpArguments args;
  args.params = {OpTensor{0, 0, DataType::kFloat32, shape, 0},
                 OpTensor{1, 0, DataType::kFloat32, shape, 0}};
  args.attrs.Set("epsilon", 1e-5);
  args.attrs.Set("blocks", int64_t{3});
  args.attrs.Set("chunk", int64_t{16});
  auto a = PlanAndRun<UniformRowKernel>(args, uniform.in, uniform.out);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto b = PlanAndRun<StridedRowKernel>(args, strided.in, strided.out);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->block_dim, 3u);
  example::StridedConfig cfg;
  std::memcpy(&cfg, b->data.schedule, sizeof(cfg));
  EXPECT_EQ(cfg.blockNum, 3u);
  EXPECT_EQ(cfg.units, rows);
  EXPECT_EQ(cfg.chunk, 16);
  const std::vector<float> ya = uniform.Download(), yb = strided.Download();
  size_t wrong = 0;
  for (int64_t r = 0; r < rows; ++r) {
    long double ss = 0;
    for (int64_t k = 0; k < cols; ++k)
      ss += static_cast<long double>(x[r * cols + k]) * x[r * cols + k];
    const long double rstd = 1.0L / std::sqrt(ss / cols + 1e-5L);
    for (int64_t k = 0; k < cols; ++k) {
      const size_t i = static_cast<size_t>(r * cols + k);
      const long double want = x[i] * rstd;
      wrong += std::fabs(ya[i] - want) > 1e-5L * (1 + std::fabs(want));
      wrong += ya[i] != yb[i];
    }
  }
  EXPECT_EQ(wrong, 0u);
}

TEST(ElewiseOpKernelTest, AnEntryPassingOtherGmAddressesThanPlannedFailsTheLaunch) {
  const Shape shape = *Shape::Make({5, 9});
  Buffers buf(45, 45);
  buf.Upload(Random(45, 3));
  OpArguments args;
  args.params = {OpTensor{0, 0, DataType::kFloat32, shape, 0},
                 OpTensor{1, 0, DataType::kFloat32, shape, 0}};
  args.attrs.Set("epsilon", 1e-5);
  auto r = PlanAndRun<UniformRowKernel>(args, buf.in, buf.out, 3);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find(
                "the entry passes 2 GM addresses, the tiling data was planned for 3"),
            std::string::npos)
      << r.status().ToString();
}

TEST(ElewiseOpKernelTest, EmptyOutputsPlanNothingToDo) {
  const Shape empty = *Shape::Make({0, 7});
  OpArguments args;
  args.params = {OpTensor{0, 0, DataType::kFloat32, empty, 0},
                 OpTensor{1, 0, DataType::kFloat32, empty, 0}};
  args.attrs.Set("epsilon", 1e-5);
  auto t = ew::op_kernel::MakeOpTiling<UniformRowKernel>(args, 2, 1 << 16, 4);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE(t->data.empty);
  EXPECT_EQ(t->block_dim, 1u);
  EXPECT_EQ(t->workspace_bytes, 0u);
  Buffers buf(0, 0);
  const auto run = PlanAndRun<UniformRowKernel>(args, buf.in, buf.out);
  EXPECT_TRUE(run.ok()) << run.status().ToString();
}

TEST(ElewiseOpKernelTest, ErrorsAreTheAdaptersOnes) {
  const Shape shape = *Shape::Make({4, 7});
  OpArguments args;
  args.params = {OpTensor{0, 0, DataType::kFloat32, shape, 0},
                 OpTensor{1, 0, DataType::kFloat16, shape, 0}};
  args.attrs.Set("epsilon", 1e-5);
  auto t = ew::op_kernel::MakeOpTiling<UniformRowKernel>(args, 2, 1 << 16, 4);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().ToString().find("parameter 2 has dtype float16, expected float32"),
            std::string::npos)
      << t.status().ToString();

  args.params[1] = OpTensor{1, 0, DataType::kFloat32, shape, 0};
  args.attrs = {};
  t = ew::op_kernel::MakeOpTiling<UniformRowKernel>(args, 2, 1 << 16, 4);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().ToString().find("attribute 'epsilon' is missing"), std::string::npos)
      << t.status().ToString();

  args.attrs.Set("epsilon", 1e-5);
  args.params[0] = OpTensor{-1, 0, DataType::kFloat32, shape, 0};
  t = ew::op_kernel::MakeOpTiling<UniformRowKernel>(args, 2, 1 << 16, 4);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().ToString().find("parameter 1 has a negative GM address index -1"),
            std::string::npos)
      << t.status().ToString();

  args.params[0] = OpTensor{2, 0, DataType::kFloat32, shape, 0};
  t = ew::op_kernel::MakeOpTiling<UniformRowKernel>(args, 2, 1 << 16, 4);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().ToString().find("parameter 1 names GM address 2, but the kernel entry "
                                       "passes 2 (the op's inputs then outputs)"),
            std::string::npos)
      << t.status().ToString();

  args.params = std::vector<std::variant<OpTensor, ew::ScalarArg>>(
      17, OpTensor{0, 0, DataType::kFloat32, shape, 0});
  t = ew::op_kernel::MakeOpTiling<UniformRowKernel>(args, 2, 1 << 16, 4);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().ToString().find("17 parameters; an op kernel takes at most 16"),
            std::string::npos)
      << t.status().ToString();
}

}  // namespace

// TESSERA_ELEWISE_OP: the tutorial's package (examples/first_package, Axpy: y = alpha * x1 + x2)
// called through the two-stage C API on random data of awkward sizes and both dtypes against a
// scalar reference; the attribute and its default; the OpDef the macro declares; Attr defaults in
// the DeviceAdapter path; the Ascend C names of kernel_operator.h.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "../../examples/first_package/axpy.h"
#include "first_package_nn.h"
#include "tessera/elewise/elewise.h"
#include "tessera/kernel/kernel_operator.h"
#include "tessera/tessera_nn.h"
#include "test_util.h"

namespace tessera::elewise {
namespace {

// A tensor of n elements of dtype T on the device, with a host copy in float.
template <class T>
struct CTensor {
  explicit CTensor(int64_t n) : n(n), host(static_cast<size_t>(n)) {
    EXPECT_EQ(tsrMalloc(&dev, static_cast<size_t>(n) * sizeof(T)), TSR_SUCCESS);
    const tsrDataType dtype = std::is_same_v<T, float> ? TSR_FLOAT : TSR_BF16;
    tensor = tsrCreateTensor(&this->n, 1, nullptr, dtype, TSR_FORMAT_ND, dev);
    EXPECT_NE(tensor, nullptr);
  }
  ~CTensor() {
    tsrDestroyTensor(tensor);
    tsrFree(dev);
  }
  void Random(uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
    std::vector<T> v(host.size());
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] = T(dist(rng));
      host[i] = static_cast<float>(v[i]);
    }
    ASSERT_EQ(tsrMemcpy(dev, v.size() * sizeof(T), v.data(), v.size() * sizeof(T),
                        TSR_MEMCPY_HOST_TO_DEVICE),
              TSR_SUCCESS);
  }
  void Download() {
    std::vector<T> v(host.size());
    ASSERT_EQ(tsrMemcpy(v.data(), v.size() * sizeof(T), dev, v.size() * sizeof(T),
                        TSR_MEMCPY_DEVICE_TO_HOST),
              TSR_SUCCESS);
    for (size_t i = 0; i < v.size(); ++i)
      host[i] = static_cast<float>(v[i]);
  }
  int64_t n;
  std::vector<float> host;
  void* dev = nullptr;
  tsrTensor* tensor = nullptr;
};

// Runs stage 2 of a prepared call and waits.
void Execute(uint64_t ws_size, tsrOpExecutor* exec) {
  void* ws = nullptr;
  if (ws_size > 0) ASSERT_EQ(tsrMalloc(&ws, ws_size), TSR_SUCCESS);
  ASSERT_EQ(tsr_first_package_Axpy(ws, ws_size, exec, nullptr), TSR_SUCCESS)
      << tsrGetLastErrorMessage();
  ASSERT_EQ(tsrSynchronizeStream(nullptr), TSR_SUCCESS) << tsrGetLastErrorMessage();
  if (ws != nullptr) tsrFree(ws);
}

// y against alpha * x1 + x2 in double, rounded to T.
template <class T>
void ExpectAxpy(CTensor<T>& x1, CTensor<T>& x2, CTensor<T>& y, double alpha) {
  y.Download();
  int failures = 0;
  for (size_t i = 0; i < y.host.size() && failures < 5; ++i) {
    const double want = static_cast<float>(T(static_cast<float>(alpha * x1.host[i] + x2.host[i])));
    // float32: the fp32 products and sums; bfloat16: one rounding of the result (2^-8).
    const double tol =
        (std::is_same_v<T, float> ? 1e-6 : 1.0 / 256) * std::fmax(1.0, std::fabs(want));
    if (std::fabs(y.host[i] - want) > tol) {
      ADD_FAILURE() << "n " << y.n << ", element " << i << ": got " << y.host[i] << ", want "
                    << want << " (alpha " << alpha << ")";
      ++failures;
    }
  }
}

template <class T>
class ElewiseOpCApi : public ::testing::Test {};
using Dtypes = ::testing::Types<float, bfloat16>;
TYPED_TEST_SUITE(ElewiseOpCApi, Dtypes);

TYPED_TEST(ElewiseOpCApi, MatchesTheScalarReference) {
  for (const int64_t n : {1, 7, 31, 4097}) {
    CTensor<TypeParam> x1(n), x2(n), y(n);
    x1.Random(static_cast<uint32_t>(n));
    x2.Random(static_cast<uint32_t>(n + 1));
    for (const double alpha : {0.75, -2.5}) {
      uint64_t ws = 0;
      tsrOpExecutor* exec = nullptr;
      ASSERT_EQ(
          tsr_first_package_AxpyGetWorkspaceSize(x1.tensor, x2.tensor, alpha, y.tensor, &ws, &exec),
          TSR_SUCCESS)
          << tsrGetLastErrorMessage();
      Execute(ws, exec);
      ExpectAxpy(x1, x2, y, alpha);
    }
  }
}

TYPED_TEST(ElewiseOpCApi, AlphaDefaultsToOne) {
  const int64_t n = 4097;
  CTensor<TypeParam> x1(n), x2(n), y(n);
  x1.Random(3);
  x2.Random(4);
  const tsrTensor* ins[] = {x1.tensor, x2.tensor};
  const tsrTensor* outs[] = {y.tensor};
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  ASSERT_EQ(tsrOpGetWorkspaceSizeInPackage(TESSERA_FIRST_PACKAGE_DIR, "Axpy", ins, 2, outs, 1,
                                           nullptr, 0, &ws, &exec),
            TSR_SUCCESS)
      << tsrGetLastErrorMessage();
  Execute(ws, exec);
  ExpectAxpy(x1, x2, y, 1.0);
}

TEST(ElewiseOpErrors, ShapesAndDtypesAreChecked) {
  CTensor<float> x1(8), x2(9), y(8);
  CTensor<bfloat16> yb(8);
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  EXPECT_NE(tsr_first_package_AxpyGetWorkspaceSize(x1.tensor, x2.tensor, 1.0, y.tensor, &ws, &exec),
            TSR_SUCCESS);
  EXPECT_NE(std::string(tsrGetLastErrorMessage()).find("Axpy: "), std::string::npos)
      << tsrGetLastErrorMessage();
  // Mixed dtypes match no column of the OpDef.
  EXPECT_NE(
      tsr_first_package_AxpyGetWorkspaceSize(x1.tensor, x1.tensor, 1.0, yb.tensor, &ws, &exec),
      TSR_SUCCESS);
  EXPECT_NE(std::string(tsrGetLastErrorMessage()).find("Supported dtype and format list"),
            std::string::npos)
      << tsrGetLastErrorMessage();
}

TEST(ElewiseOpDef, DeclaresWhatTheComputeReads) {
  op::ElewiseOpDef<first_package::Axpy> def;
  EXPECT_TRUE(def.Validate().ok()) << def.Validate().ToString();
  EXPECT_EQ(def.type(), "Axpy");
  EXPECT_EQ(def.KernelName(), first_package::Axpy::kKernelName.view());
  ASSERT_EQ(def.inputs().size(), 2u);
  EXPECT_EQ(def.inputs()[0].name(), "x1");
  EXPECT_EQ(def.inputs()[1].name(), "x2");
  ASSERT_EQ(def.outputs().size(), 1u);
  EXPECT_EQ(def.outputs()[0].name(), "y");
  EXPECT_EQ(def.outputs()[0].dtypes(),
            (std::vector<DataType>{DataType::kFloat32, DataType::kBfloat16}));
  ASSERT_EQ(def.attrs().size(), 1u);
  EXPECT_EQ(def.attrs()[0].name(), "alpha");
  EXPECT_EQ(def.attrs()[0].requirement(), runtime::OPTIONAL);
  EXPECT_EQ(std::get<float>(def.attrs()[0].default_value()), 1.0f);
  static_assert(op::KernelName<16>("RMSNorm").view() == "rms_norm");
  static_assert(op::KernelName<16>("AddRmsNorm2D").view() == "add_rms_norm2_d");
}

// An attribute without a default is required; the kernel keys are the dtype codes.
template <class T>
struct ShiftCompute {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tensor<T>>();
    auto y = PlaceHolder<2, Tensor<T>, ParamUsage::OUT>();
    return (y = x + Attr<"shift">());
  }
};
TESSERA_ELEWISE_OP(Shift, ShiftCompute, float, half);

TEST(ElewiseOpDef, AnAttributeWithoutDefaultIsRequired) {
  op::ElewiseOpDef<Shift> def;
  EXPECT_TRUE(def.Validate().ok());
  ASSERT_EQ(def.inputs().size(), 1u);
  EXPECT_EQ(def.inputs()[0].name(), "x");
  ASSERT_EQ(def.attrs().size(), 1u);
  EXPECT_EQ(def.attrs()[0].requirement(), runtime::REQUIRED);
  EXPECT_EQ(Shift::kKey<float>, 0u);
  EXPECT_EQ(Shift::kKey<half>, 1u);
}

// Attr defaults in the DeviceAdapter path: used when the call does not set the attribute.
struct DefaultedC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tn<float>>();
    auto out = PlaceHolder<2, Tn<float>, ParamUsage::OUT>();
    return (out = x * Attr<"scale">(3.0f) + Attr<"bias">());
  }
};

TEST(AttrDefault, AppliesWhenTheCallDoesNotSetIt) {
  DeviceAdapter<KernelBuilder<BlockBuilder<DefaultedC>>> op;
  testing::DeviceBuffer<float> x(100), out(100);
  x.Random(7);
  auto args = [&](bool scale) {
    ArgumentsBuilder b;
    b.inputOutput(x.Arg({100}), out.Arg({100})).attr("bias", 1.0);
    if (scale) b.attr("scale", -1.0);
    return b.build();
  };
  ASSERT_TRUE(testing::RunAndSync(op.run(args(false))).ok());
  testing::ExpectAllNear(
      out, 100, [&](int64_t i) { return x.At(i) * 3 + 1; }, 1e-6, 1e-6, "default");
  ASSERT_TRUE(testing::RunAndSync(op.run(args(true))).ok());
  testing::ExpectAllNear(
      out, 100, [&](int64_t i) { return -x.At(i) + 1; }, 1e-6, 1e-6, "set");
  // "bias" has no default: a call without it is refused.
  const Arguments no_bias = ArgumentsBuilder{}.inputOutput(x.Arg({100}), out.Arg({100})).build();
  EXPECT_EQ(op.run(no_bias).code(), StatusCode::kInvalidArgument);
  constexpr tile::ProgramView p = BlockBuilder<DefaultedC>::Program();
  static_assert(p.attrs.size() == 2 && p.attrs[0].has_default && !p.attrs[1].has_default);
}

// The names an Ascend C kernel types first.
static_assert(std::is_same_v<AscendC::QuePosition, AscendC::TPosition>);
static_assert(PIPE_ALL == tessera::kernel::pipe_t::PIPE_ALL);
static_assert(EVENT_ID1 == tessera::kernel::EVENT_ID1);

}  // namespace
}  // namespace tessera::elewise

// The sample kernels of examples/kernels against scalar references: sizes 1, 31, 4097, 1000003 on
// the native and the emulated profile, in fast and checked mode.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "../../examples/kernels/add_custom/add_custom_tiling.h"
#include "../../examples/kernels/leaky_relu_custom/leaky_relu_custom_kernel.h"
#include "../../examples/kernels/softmax_custom/softmax_custom_kernel.h"
#include "kernel_test_util.h"

namespace tessera::kernel {
namespace {

using testing::DeviceBuffer;

struct Mode {
  const char* profile;
  bool checked;
};

class SampleTest : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(device::SetProfile(GetParam().profile).ok());
    device::SetCheckedMode(GetParam().checked);
  }
  void TearDown() override {
    device::SetCheckedMode(false);
    ASSERT_TRUE(device::SetProfile("native").ok());
  }
};

std::vector<float> Random(size_t n, float lo, float hi, unsigned seed) {
  std::vector<float> v(n);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (float& x : v)
    x = dist(rng);
  return v;
}

template <class T>
DeviceBuffer<uint8_t> TilingBuffer(const T& tiling) {
  return DeviceBuffer<uint8_t>(tessera::tiling::SerializeTiling(tiling));
}

TEST_P(SampleTest, AddCustom) {
  for (int64_t n : {int64_t{1}, int64_t{31}, int64_t{4097}, int64_t{1000003}}) {
    auto plan = add_custom_op::AddCustomTiling(n, 4, device::CurrentArch());
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    const auto hx = Random(static_cast<size_t>(n), -100, 100, 1);
    const auto hy = Random(static_cast<size_t>(n), -100, 100, 2);
    DeviceBuffer<float> x(hx), y(hy), z(static_cast<size_t>(n), -1.0f);
    auto t = TilingBuffer(plan->tiling);
    Status st = testing::RunKernel(
        "add_custom", plan->blockDim, add_custom, reinterpret_cast<uint8_t*>(x.get()),
        reinterpret_cast<uint8_t*>(y.get()), reinterpret_cast<uint8_t*>(z.get()), t.get());
    ASSERT_TRUE(st.ok()) << st.ToString();
    const auto hz = z.ToHost();
    for (size_t i = 0; i < hz.size(); ++i)
      ASSERT_EQ(hz[i], hx[i] + hy[i]) << "n=" << n << " i=" << i;
  }
}

TEST_P(SampleTest, LeakyReluCustom) {
  for (int64_t n : {int64_t{1}, int64_t{31}, int64_t{4097}, int64_t{1000003}}) {
    uint32_t blocks = 0;
    const auto tiling = leaky_relu_op::MakeTiling(n, 0.2f, device::CurrentArch().aiv_cores,
                                                  device::CurrentArch().ub_bytes, &blocks);
    const auto hx = Random(static_cast<size_t>(n), -10, 10, 3);
    DeviceBuffer<float> x(hx), y(static_cast<size_t>(n), -1.0f);
    auto t = TilingBuffer(tiling);
    Status st = testing::RunKernel("leaky_relu_custom", blocks, leaky_relu_custom,
                                   reinterpret_cast<uint8_t*>(x.get()),
                                   reinterpret_cast<uint8_t*>(y.get()), t.get());
    ASSERT_TRUE(st.ok()) << st.ToString();
    const auto hy = y.ToHost();
    for (size_t i = 0; i < hy.size(); ++i) {
      ASSERT_EQ(hy[i], hx[i] >= 0 ? hx[i] : 0.2f * hx[i]) << "n=" << n << " i=" << i;
    }
  }
}

TEST_P(SampleTest, SoftmaxCustom) {
  struct Shape2 {
    int64_t rows, cols;
  };
  for (Shape2 s : {Shape2{1, 1}, Shape2{31, 7}, Shape2{3, 4097}, Shape2{977, 1024}}) {
    SoftmaxTilingData tiling;
    uint32_t blocks = 0;
    ASSERT_TRUE(softmax_op::MakeTiling(s.rows, s.cols, device::CurrentArch().aiv_cores,
                                       device::CurrentArch().ub_bytes, &tiling, &blocks));
    const auto hx = Random(static_cast<size_t>(s.rows * s.cols), -30, 30, 4);
    DeviceBuffer<float> x(hx), y(hx.size(), -1.0f);
    auto t = TilingBuffer(tiling);
    Status st = testing::RunKernel("softmax_custom", blocks, softmax_custom,
                                   reinterpret_cast<uint8_t*>(x.get()),
                                   reinterpret_cast<uint8_t*>(y.get()), t.get());
    ASSERT_TRUE(st.ok()) << st.ToString();
    const auto hy = y.ToHost();
    for (int64_t r = 0; r < s.rows; ++r) {
      long double mx = -INFINITY, sum = 0;
      for (int64_t c = 0; c < s.cols; ++c)
        mx = std::max<long double>(mx, hx[r * s.cols + c]);
      for (int64_t c = 0; c < s.cols; ++c)
        sum += std::exp(static_cast<long double>(hx[r * s.cols + c]) - mx);
      for (int64_t c = 0; c < s.cols; ++c) {
        const long double want = std::exp(static_cast<long double>(hx[r * s.cols + c]) - mx) / sum;
        // x - max is rounded in float (|x - max| <= 60 here): ~2e-6 relative error is inherent.
        ASSERT_NEAR(static_cast<double>(hy[r * s.cols + c] / want), 1.0, 1e-5)
            << s.rows << "x" << s.cols << " at " << r << "," << c;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, SampleTest,
                         ::testing::Values(Mode{"native", false}, Mode{"native", true},
                                           Mode{"ascend910b", false}, Mode{"ascend910b", true}),
                         [](const auto& info) {
                           return std::string(info.param.profile[0] == 'n' ? "Native"
                                                                           : "Ascend910b") +
                                  (info.param.checked ? "Checked" : "Fast");
                         });

}  // namespace
}  // namespace tessera::kernel

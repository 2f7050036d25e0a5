// Example: a fused operator (out = x * rsqrt(mean(x^2) + eps) * gamma, as a user would write it)
// run with the default uniform split and with a user schedule (strided_schedule.h) that deals
// rows round-robin to 3 blocks. Prints the largest difference between the two (0).
#include <cmath>
#include <cstdio>
#include <vector>

#include "strided_schedule.h"
#include "tessera/device/memory.h"
#include "tessera/elewise/elewise.h"

namespace ew = tessera::elewise;

struct MyRmsNorm {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto x = ew::PlaceHolder<1, Tensor<float>>();
    auto gamma = ew::PlaceHolder<2, Tensor<float>>();
    auto out = ew::PlaceHolder<3, Tensor<float>, ew::ParamUsage::OUT>();
    auto ms = ew::PlaceHolderTmp<1>();
    return (ms = ew::ReduceMean<ew::ReducePattern::AR>(x * x),
            out = x * ew::Rsqrt(ms + ew::Attr<"epsilon">()) * gamma);
  }
};

using Block = ew::BlockBuilder<MyRmsNorm>;
using Uniform = ew::DeviceAdapter<ew::KernelBuilder<Block>>;
using Strided =
    ew::DeviceAdapter<ew::KernelBuilder<Block, ew::policy::DoubleBuffer, example::StridedConfig,
                                        example::StridedSchedule>>;

int main() {
  namespace td = tessera::device;
  const int64_t rows = 999, cols = 300;
  std::vector<float> hx(rows * cols), hg(cols);
  for (size_t i = 0; i < hx.size(); ++i)
    hx[i] = std::sin(0.001f * static_cast<float>(i));
  for (size_t i = 0; i < hg.size(); ++i)
    hg[i] = 1.0f + 0.01f * static_cast<float>(i % 7);
  auto* x = static_cast<float*>(*td::Malloc(hx.size() * 4));
  auto* g = static_cast<float*>(*td::Malloc(hg.size() * 4));
  auto* a = static_cast<float*>(*td::Malloc(hx.size() * 4));
  auto* b = static_cast<float*>(*td::Malloc(hx.size() * 4));
  (void)td::Memcpy(x, hx.size() * 4, hx.data(), hx.size() * 4, td::MemcpyKind::kHostToDevice);
  (void)td::Memcpy(g, hg.size() * 4, hg.data(), hg.size() * 4, td::MemcpyKind::kHostToDevice);

  const auto shape = *tessera::Shape::Make({rows, cols});
  const auto gshape = *tessera::Shape::Make({cols});
  const auto args = [&](float* out) {
    return ew::ArgumentsBuilder{}
        .inputOutput(ew::TensorArg{x, tessera::DataType::kFloat32, shape},
                     ew::TensorArg{g, tessera::DataType::kFloat32, gshape},
                     ew::TensorArg{out, tessera::DataType::kFloat32, shape})
        .attr("epsilon", 1e-6)
        .attr("blocks", 3)
        .attr("chunk", 16)
        .build();
  };
  Uniform uniform;
  Strided strided;
  tessera::Status st = uniform.run(args(a));
  if (st.ok()) st = strided.run(args(b));
  if (st.ok()) st = td::Stream().Synchronize();
  if (!st.ok()) {
    std::printf("failed: %s\n", st.ToString().c_str());
    return 1;
  }
  std::vector<float> ha(hx.size()), hb(hx.size());
  (void)td::Memcpy(ha.data(), ha.size() * 4, a, ha.size() * 4, td::MemcpyKind::kDeviceToHost);
  (void)td::Memcpy(hb.data(), hb.size() * 4, b, hb.size() * 4, td::MemcpyKind::kDeviceToHost);
  float diff = 0;
  for (size_t i = 0; i < ha.size(); ++i)
    diff = std::max(diff, std::fabs(ha[i] - hb[i]));
  std::printf("uniform vs strided schedule: max difference %g\n", diff);
  for (void* p : {static_cast<void*>(x), static_cast<void*>(g), static_cast<void*>(a),
                  static_cast<void*>(b)}) {
    (void)td::Free(p);
  }
  return diff == 0 ? 0 : 1;
}

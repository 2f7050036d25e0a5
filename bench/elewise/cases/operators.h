// The elewise operators the benchmark cases time, on either back end: the interpreter
// (BlockBuilder, operators.cc) or the compiled engine (CompiledBlockBuilder, compiled_operators.cc,
// built for the build machine's SoC and used only on a CPU that runs it).
#pragma once

#include <memory>

#include "tessera/core/float16.h"
#include "tessera/core/status.h"
#include "tessera/device/stream.h"
#include "tessera/elewise/elewise.h"
#include "tessera/elewise/fused.h"

namespace tessera::bench {

enum class BenchOp { kFma, kSigmoid, kGelu, kRmsNormF32, kRmsNormBf16, kSoftmaxF32 };

// One operator's device adapter: Run plans and launches `args` asynchronously on `stream`.
class OperatorRunner {
 public:
  virtual ~OperatorRunner() = default;
  virtual Status Run(const elewise::Arguments& args, const device::Stream& stream) = 0;
};

std::unique_ptr<OperatorRunner> MakeInterpretedOperator(BenchOp op);
// Null when the compiled operators were not built (non-x86 hosts).
std::unique_ptr<OperatorRunner> MakeCompiledOperator(BenchOp op);

namespace ops {

struct FmaCompute {
  template <template <class> class T>
  constexpr auto Compute() const {
    using namespace elewise;
    auto a = PlaceHolder<1, T<float>>();
    auto b = PlaceHolder<2, T<float>>();
    auto c = PlaceHolder<3, T<float>>();
    auto out = PlaceHolder<4, T<float>, ParamUsage::OUT>();
    return (out = a * b + c);
  }
};

struct SigmoidCompute {
  template <template <class> class T>
  constexpr auto Compute() const {
    using namespace elewise;
    auto x = PlaceHolder<1, T<float>>();
    auto out = PlaceHolder<2, T<float>, ParamUsage::OUT>();
    return (out = Sigmoid(x));
  }
};

struct GeluCompute {
  template <template <class> class T>
  constexpr auto Compute() const {
    using namespace elewise;
    auto x = PlaceHolder<1, T<float>>();
    auto out = PlaceHolder<2, T<float>, ParamUsage::OUT>();
    return (out = Gelu(x));
  }
};

template <class Adapter>
class AdapterRunner final : public OperatorRunner {
 public:
  Status Run(const elewise::Arguments& args, const device::Stream& stream) override {
    return op_.run(args, stream);
  }

 private:
  Adapter op_;
};

// The runner of `op` with blocks Block<Compute> (BlockBuilder or CompiledBlockBuilder).
template <template <class> class Block>
std::unique_ptr<OperatorRunner> MakeRunner(BenchOp op) {
  using elewise::DeviceAdapter;
  using elewise::KernelBuilder;
  namespace fused = elewise::fused;
  const auto make = []<class C>(C) -> std::unique_ptr<OperatorRunner> {
    return std::make_unique<AdapterRunner<DeviceAdapter<KernelBuilder<Block<C>>>>>();
  };
  switch (op) {
    case BenchOp::kFma:
      return make(FmaCompute{});
    case BenchOp::kSigmoid:
      return make(SigmoidCompute{});
    case BenchOp::kGelu:
      return make(GeluCompute{});
    case BenchOp::kRmsNormF32:
      return make(fused::RmsNormCompute<float>{});
    case BenchOp::kRmsNormBf16:
      return make(fused::RmsNormCompute<bfloat16>{});
    case BenchOp::kSoftmaxF32:
      return make(fused::SoftmaxCompute<float>{});
  }
  return nullptr;
}

}  // namespace ops
}  // namespace tessera::bench

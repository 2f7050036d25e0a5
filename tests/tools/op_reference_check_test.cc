// The check `tessera run` applies (tools/tessera/op_reference.cc) with the built-in ops'
// definitions: a result equal to the op's Reference() passes, one perturbed past the op's
// tolerance is caught at that element - for an exact op, a transcendental one, a row op whose
// reference sets its own scale (LayerNorm) and a matmul op (CATLASS tolerance).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../ops/builtin_op_factories.h"
#include "op_reference.h"
#include "tessera/runtime/op_registration.h"

namespace {

using namespace tessera;
using ops::testing::MakeOp;
using tessera::cli::HostTensor;

TensorDesc Desc(DataType d, std::vector<int64_t> shape) {
  return TensorDesc{d, *Shape::Make(shape), Format::kND, {}};
}

struct Checked {
  cli::CheckResult exact;      // the outputs are the reference's own
  cli::CheckResult perturbed;  // output 0 element `at` moved by `delta`
};

// Random inputs as `tessera run` draws them, the op's reference as the "kernel" result, then
// element `at` of output 0 moved by `delta` times max(|value|, `floor`).
Checked Check(const std::string& type, const std::vector<TensorDesc>& ins, const TensorDesc& out,
              int64_t at, double delta, double floor,
              const std::map<std::string, runtime::AttrValue>& attrs = {}) {
  const std::unique_ptr<runtime::OpDef> op = MakeOp(type);
  EXPECT_NE(op, nullptr);
  if (op == nullptr) return {};
  runtime::OpCall call;
  call.op_type = type;
  call.attrs = attrs;
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < ins.size(); ++i) {
    call.inputs.push_back(runtime::TensorArg{ins[i]});
    cli::FillRandom(&op->inputs()[i], i, 2024, inputs.emplace_back(ins[i]));
  }
  call.outputs.push_back(runtime::TensorArg{out});
  // The "kernel" result: the reference's own output.
  std::vector<HostTensor> outputs{HostTensor(out)};
  runtime::ReferenceArgs args;
  for (const HostTensor& t : inputs)
    args.inputs.push_back(
        runtime::ReferenceTensor{t.desc(), const_cast<uint8_t*>(t.bytes().data())});
  args.inputs.resize(op->inputs().size());
  args.outputs.push_back(runtime::ReferenceTensor{outputs[0].desc(), outputs[0].bytes().data()});
  args.attrs = *op->ResolveAttrs(attrs);
  EXPECT_TRUE(op->reference()(args).ok());
  Checked c;
  const Result<cli::CheckResult> exact = cli::CheckAgainstOpReference(*op, call, inputs, outputs);
  EXPECT_TRUE(exact.ok()) << exact.status().ToString();
  if (exact.ok()) c.exact = *exact;
  const double v = outputs[0].Get(at);
  outputs[0].Set(at, v + delta * std::max(std::fabs(v), floor));
  const Result<cli::CheckResult> perturbed =
      cli::CheckAgainstOpReference(*op, call, inputs, outputs);
  EXPECT_TRUE(perturbed.ok()) << perturbed.status().ToString();
  if (perturbed.ok()) c.perturbed = *perturbed;
  return c;
}

void ExpectCaughtAt(const Checked& c, int64_t at) {
  EXPECT_TRUE(c.exact.ok);
  EXPECT_EQ(c.exact.mismatches, 0);
  EXPECT_EQ(c.exact.reference, "op definition");
  EXPECT_FALSE(c.perturbed.ok);
  EXPECT_EQ(c.perturbed.mismatches, 1);
  EXPECT_EQ(c.perturbed.first_mismatch, at);
}

TEST(OpReferenceCheckTest, BrokenResultsOfBuiltinOpsAreCaught) {
  constexpr DataType kF32 = DataType::kFloat32;
  // Add: 1 ulp; 4 ulps off fails.
  ExpectCaughtAt(Check("Add", {Desc(kF32, {3, 50}), Desc(kF32, {50})}, Desc(kF32, {3, 50}), 77,
                       4 * 0x1p-23, 0),
                 77);
  // Exp: 2 ulps; 1 ulp off passes, 4 off fails.
  const Checked exp1 = Check("Exp", {Desc(kF32, {100})}, Desc(kF32, {100}), 5, 0x1p-23, 0);
  EXPECT_TRUE(exp1.perturbed.ok);
  EXPECT_EQ(exp1.perturbed.ulps, 2);
  ExpectCaughtAt(Check("Exp", {Desc(kF32, {100})}, Desc(kF32, {100}), 5, 4 * 0x1p-23, 0), 5);
  // LayerNorm float32: 128 ulps (2^-16) of its scale; 2^-12 of max(|y|, 1) off fails.
  ExpectCaughtAt(Check("LayerNorm", {Desc(kF32, {4, 64}), Desc(kF32, {64}), Desc(kF32, {64})},
                       Desc(kF32, {4, 64}), 130, 0x1p-12, 1),
                 130);
  // MatMul float32: rtol 1/256 of max(1, |ref|); 1/64 of that off fails, 1/1024 passes.
  const std::vector<TensorDesc> mm = {Desc(kF32, {8, 32}), Desc(kF32, {32, 6}), Desc(kF32, {6})};
  ExpectCaughtAt(Check("MatMul", mm, Desc(kF32, {8, 6}), 11, 1.0 / 64, 1), 11);
  EXPECT_TRUE(Check("MatMul", mm, Desc(kF32, {8, 6}), 11, 1.0 / 1024, 1).perturbed.ok);
}

}  // namespace

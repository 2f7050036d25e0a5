// The Reference() every built-in op declares (what `tessera run` checks the kernels against): each
// op has one with a valid declaration, and on small inputs it gives the hand-computed results,
// honouring attributes (epsilon, value, alpha/beta, transposes, act), broadcasting and the
// per-call tolerance (row ops by dtype, the matmul ops' CATLASS tolerance).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "builtin_op_factories.h"
#include "ops/builtin_ops.h"
#include "tessera/runtime/op_def.h"
#include "tessera/runtime/op_registration.h"

namespace {

using namespace tessera;
using ops::testing::MakeOp;
using runtime::AttrValue;

struct Tensor {
  DataType dtype;
  std::vector<int64_t> shape;
  std::vector<double> values;  // empty for outputs
};

struct RefRun {
  std::vector<std::vector<double>> outputs;
  double ulps = 0;
  std::vector<std::vector<double>> magnitudes;
};

// Runs the Reference() of built-in op `type` on `inputs` (nullopt: absent) into `outputs`.
RefRun RunReference(const std::string& type, const std::vector<std::optional<Tensor>>& inputs,
                    const std::vector<Tensor>& outputs,
                    const std::map<std::string, AttrValue>& attrs = {}) {
  const std::unique_ptr<runtime::OpDef> op = MakeOp(type);
  EXPECT_NE(op, nullptr) << type;
  if (op == nullptr || !op->reference()) return {};
  std::vector<std::vector<uint8_t>> storage;
  const auto make = [&](const Tensor& t) {
    const TensorDesc desc{t.dtype, *Shape::Make(t.shape), Format::kND, {}};
    std::vector<uint8_t>& bytes = storage.emplace_back(
        static_cast<size_t>(*desc.shape.NumElements()) * DataTypeSize(t.dtype) + 8);
    runtime::ReferenceTensor r{desc, bytes.data()};
    for (size_t i = 0; i < t.values.size(); ++i)
      r.Set(static_cast<int64_t>(i), t.values[i]);
    return r;
  };
  storage.reserve(inputs.size() + outputs.size());
  runtime::ReferenceArgs args;
  for (const auto& in : inputs)
    args.inputs.push_back(in ? std::optional(make(*in)) : std::nullopt);
  for (const Tensor& out : outputs)
    args.outputs.push_back(make(out));
  const Result<std::map<std::string, AttrValue>> resolved = op->ResolveAttrs(attrs);
  EXPECT_TRUE(resolved.ok()) << resolved.status().ToString();
  args.attrs = *resolved;
  args.ulps = op->reference_ulps();
  const Status st = op->reference()(args);
  EXPECT_TRUE(st.ok()) << st.ToString();
  RefRun run;
  for (const runtime::ReferenceTensor& out : args.outputs) {
    std::vector<double>& v = run.outputs.emplace_back();
    for (int64_t i = 0; i < out.size(); ++i)
      v.push_back(out.Get(i));
  }
  run.ulps = args.ulps;
  run.magnitudes = args.magnitudes;
  return run;
}

constexpr DataType kF32 = DataType::kFloat32;
constexpr DataType kF16 = DataType::kFloat16;

TEST(OpReferenceTest, EveryBuiltinOpDeclaresAValidReference) {
#define TESSERA_OP_NAME(Op) #Op,
  const std::set<std::string> listed = {TESSERA_BUILTIN_OPS(TESSERA_OP_NAME)};
#undef TESSERA_OP_NAME
  std::set<std::string> with_reference;
  for (const std::unique_ptr<runtime::OpDef>& op : ops::testing::AllOps()) {
    SCOPED_TRACE(op->type());
    EXPECT_TRUE(op->reference());
    EXPECT_TRUE(op->Validate().ok()) << op->Validate().ToString();
    if (op->reference()) with_reference.insert(op->type());
  }
  EXPECT_EQ(with_reference, listed);
}

TEST(OpReferenceTest, TolerancesAndInputDomainsAreDeclared) {
  EXPECT_EQ(MakeOp("Add")->reference_ulps(), 1);
  EXPECT_EQ(MakeOp("Cast")->reference_ulps(), 1);
  for (const char* op : {"Exp", "Log", "Rsqrt", "Sigmoid"})
    EXPECT_EQ(MakeOp(op)->reference_ulps(), 2) << op;
  const auto range = [](const char* op, size_t input) {
    return MakeOp(op)->inputs().at(input).value_range();
  };
  EXPECT_EQ(range("Log", 0).lo, 1e-3);
  EXPECT_EQ(range("Rsqrt", 0).lo, 1e-3);
  EXPECT_EQ(range("Div", 0).lo, -100);
  EXPECT_FALSE(range("Div", 0).random_sign);
  EXPECT_EQ(range("Div", 1).lo, 0.5);
  EXPECT_TRUE(range("Div", 1).random_sign);
  EXPECT_EQ(range("AddRmsNorm", 2).lo, 0.5);  // gamma
  EXPECT_EQ(range("LayerNorm", 0).lo, 1);
  EXPECT_EQ(range("LayerNorm", 2).lo, -1);  // beta
  EXPECT_EQ(range("MatMul", 2).hi, 1);      // bias
}

TEST(OpReferenceTest, ElementwiseOpsBroadcastAndRoundToTheOutputDtype) {
  const RefRun add = RunReference(
      "Add", {Tensor{kF32, {2, 3}, {1, 2, 3, 4, 5, 6}}, Tensor{kF32, {3}, {10, 20, 30}}},
      {Tensor{kF32, {2, 3}, {}}});
  EXPECT_EQ(add.outputs[0], (std::vector<double>{11, 22, 33, 14, 25, 36}));
  EXPECT_TRUE(add.magnitudes.empty());
  const RefRun div = RunReference("Div", {Tensor{kF16, {1}, {1}}, Tensor{kF16, {1}, {3}}},
                                  {Tensor{kF16, {1}, {}}});
  EXPECT_EQ(div.outputs[0][0], 0.333251953125);  // 1/3 in float16
  // value 0.1 is held as float16 0.0999755859375 first: 3 * that is a tie, to even 0.2998046875
  // (3 * 0.1 would give 0.300048828125).
  const RefRun muls =
      RunReference("Muls", {Tensor{kF16, {1}, {3}}}, {Tensor{kF16, {1}, {}}}, {{"value", 0.1f}});
  EXPECT_EQ(muls.outputs[0][0], 0.2998046875);
  const RefRun sigmoid =
      RunReference("Sigmoid", {Tensor{kF32, {2}, {0, 1}}}, {Tensor{kF32, {2}, {}}});
  EXPECT_EQ(sigmoid.outputs[0][0], 0.5);
  EXPECT_EQ(sigmoid.outputs[0][1], static_cast<float>(1 / (1 + std::exp(-1.0))));
  const RefRun cast = RunReference("Cast", {Tensor{kF32, {3}, {-2.7, 2.7, 1e10}}},
                                   {Tensor{DataType::kInt32, {3}, {}}},
                                   {{"dst_type", int64_t{static_cast<int>(DataType::kInt32)}}});
  EXPECT_EQ(cast.outputs[0], (std::vector<double>{-2, 2, 2147483647}));
}

TEST(OpReferenceTest, RowOpsHonourEpsilonAndSetTheirToleranceByDtype) {
  const RefRun rms =
      RunReference("RmsNorm", {Tensor{kF32, {1, 2}, {3, 4}}, Tensor{kF32, {2}, {1, 2}}},
                   {Tensor{kF32, {1, 2}, {}}}, {{"epsilon", 0.0f}});
  const double rstd = 1 / std::sqrt(12.5);
  EXPECT_FLOAT_EQ(rms.outputs[0][0], 3 * rstd);
  EXPECT_FLOAT_EQ(rms.outputs[0][1], 8 * rstd);
  EXPECT_EQ(rms.ulps, 128);
  const RefRun rms_eps =
      RunReference("RmsNorm", {Tensor{kF16, {1, 2}, {3, 4}}, Tensor{kF16, {2}, {1, 1}}},
                   {Tensor{kF16, {1, 2}, {}}}, {{"epsilon", 87.5f}});  // mean(x^2) + eps = 100
  EXPECT_EQ(rms_eps.outputs[0][0], 0.300048828125);                    // 0.3 in float16
  EXPECT_EQ(rms_eps.ulps, 1);

  const RefRun add_rms = RunReference(
      "AddRmsNorm",
      {Tensor{kF32, {1, 2}, {1, 2}}, Tensor{kF32, {1, 2}, {2, 2}}, Tensor{kF32, {2}, {1, 1}}},
      {Tensor{kF32, {1, 2}, {}}, Tensor{kF32, {1, 2}, {}}}, {{"epsilon", 0.0f}});
  EXPECT_FLOAT_EQ(add_rms.outputs[0][1], 4 * rstd);
  EXPECT_EQ(add_rms.outputs[1], (std::vector<double>{3, 4}));

  // mean 2, var 1: normalised [-2, 2] (gamma 2) + beta [1, 0].
  const RefRun ln = RunReference(
      "LayerNorm",
      {Tensor{kF32, {1, 2}, {1, 3}}, Tensor{kF32, {2}, {2, 2}}, Tensor{kF32, {2}, {1, 0}}},
      {Tensor{kF32, {1, 2}, {}}}, {{"epsilon", 0.0f}});
  EXPECT_EQ(ln.outputs[0], (std::vector<double>{-1, 2}));
  ASSERT_EQ(ln.magnitudes.size(), 1u);
  EXPECT_DOUBLE_EQ(ln.magnitudes[0][0], 2 + 1 + 2.0 / 256);
  EXPECT_DOUBLE_EQ(ln.magnitudes[0][1], 2 + 0 + 6.0 / 256);

  const RefRun softmax = RunReference("Softmax", {Tensor{kF32, {2, 2}, {0, std::log(2.0), 5, 5}}},
                                      {Tensor{kF32, {2, 2}, {}}});
  EXPECT_FLOAT_EQ(softmax.outputs[0][0], 1.0 / 3);
  EXPECT_FLOAT_EQ(softmax.outputs[0][1], 2.0 / 3);
  EXPECT_EQ(softmax.outputs[0][2], 0.5);

  const RefRun swiglu =
      RunReference("SwiGlu", {Tensor{kF32, {1, 4}, {1, 2, 3, 4}}}, {Tensor{kF32, {1, 2}, {}}});
  EXPECT_FLOAT_EQ(swiglu.outputs[0][0], 3 / (1 + std::exp(-1.0)));
  EXPECT_FLOAT_EQ(swiglu.outputs[0][1], 2 * 4 / (1 + std::exp(-2.0)));
}

TEST(OpReferenceTest, MatmulOpsHonourTransposesEpiloguesAndBroadcasting) {
  // [[1,2,3],[4,5,6]] x [[1,0,1],[0,1,0]]^T + [10, 20].
  const RefRun mm =
      RunReference("MatMul",
                   {Tensor{kF32, {2, 3}, {1, 2, 3, 4, 5, 6}},
                    Tensor{kF32, {2, 3}, {1, 0, 1, 0, 1, 0}}, Tensor{kF32, {2}, {10, 20}}},
                   {Tensor{kF32, {2, 2}, {}}}, {{"transpose_x2", true}});
  EXPECT_EQ(mm.outputs[0], (std::vector<double>{14, 22, 20, 25}));
  EXPECT_EQ(mm.ulps, 0x1p23 / 256);  // rtol 1/256 (K < 2048) in float32 ulps
  ASSERT_EQ(mm.magnitudes.size(), 1u);
  EXPECT_EQ(mm.magnitudes[0], (std::vector<double>{14, 22, 20, 25}));
  const RefRun small = RunReference(
      "MatMul", {Tensor{kF16, {1, 1}, {0.25}}, Tensor{kF16, {1, 1}, {0.5}}, std::nullopt},
      {Tensor{kF16, {1, 1}, {}}});
  EXPECT_EQ(small.outputs[0][0], 0.125);
  EXPECT_EQ(small.magnitudes[0][0], 1);                   // max(1, |ref|)
  EXPECT_EQ(small.ulps, (1.0 / 256 + 0x1p-8) / 0x1p-10);  // plus float16 output rounding

  // y = beta * self + alpha * mat1 mat2, self [2] broadcast to [1, 2].
  const RefRun addmm = RunReference("Addmm",
                                    {Tensor{kF32, {2}, {1, -1}}, Tensor{kF32, {1, 2}, {1, 2}},
                                     Tensor{kF32, {2, 2}, {1, 0, 0, 1}}},
                                    {Tensor{kF32, {1, 2}, {}}}, {{"alpha", 2.0f}, {"beta", 3.0f}});
  EXPECT_EQ(addmm.outputs[0], (std::vector<double>{5, 1}));

  const RefRun act = RunReference(
      "MatMulAct", {Tensor{kF32, {1, 1}, {-2}}, Tensor{kF32, {1, 1}, {3}}, std::nullopt},
      {Tensor{kF32, {1, 1}, {}}}, {{"act", std::string("leaky_relu")}, {"negative_slope", 0.5f}});
  EXPECT_EQ(act.outputs[0][0], -3);
  const RefRun relu = RunReference(
      "MatMulAct", {Tensor{kF32, {1, 1}, {-2}}, Tensor{kF32, {1, 1}, {3}}, std::nullopt},
      {Tensor{kF32, {1, 1}, {}}});
  EXPECT_EQ(relu.outputs[0][0], 0);  // act defaults to relu

  // Batch dims [2, 1] x [1, 1] broadcast to [2]; int8 in, int32 out, exact.
  const RefRun bmm = RunReference(
      "BatchMatMul",
      {Tensor{DataType::kInt8, {2, 1, 1}, {2, 3}}, Tensor{DataType::kInt8, {1, 1, 2}, {1, 10}}},
      {Tensor{DataType::kInt32, {2, 1, 2}, {}}});
  EXPECT_EQ(bmm.outputs[0], (std::vector<double>{2, 20, 3, 30}));
  EXPECT_EQ(bmm.ulps, 0);
  const RefRun adj = RunReference(
      "BatchMatMul", {Tensor{kF32, {1, 2, 1}, {1, 2}}, Tensor{kF32, {1, 1, 2}, {3, 4}}},
      {Tensor{kF32, {1, 1, 1}, {}}}, {{"adj_x1", true}, {"adj_x2", true}});
  EXPECT_EQ(adj.outputs[0][0], 1 * 3 + 2 * 4);
}

}  // namespace

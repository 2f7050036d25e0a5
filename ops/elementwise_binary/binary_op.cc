// Op definitions and the tiling function of the binary elementwise ops, with numpy broadcasting
// between x1 and x2.
#include <algorithm>
#include <string>
#include <vector>

#include "../common/host_common.h"
#include "../common/op_keys.h"
#include "../common/reference_common.h"
#include "binary_tiling.h"
#include "tessera/runtime/op_registration.h"

namespace tessera::ops {
namespace {

using runtime::TilingContext;

// numpy rule: dimensions are aligned from the right; each pair must be equal or contain a 1.
Result<Shape> BroadcastShapes(const std::string& op, const Shape& a, const Shape& b) {
  const int rank = std::max(a.rank(), b.rank());
  int64_t dims[Shape::kMaxRank];
  for (int i = 0; i < rank; ++i) {
    const int ia = i - (rank - a.rank()), ib = i - (rank - b.rank());
    const int64_t da = ia < 0 ? 1 : a.dim(ia), db = ib < 0 ? 1 : b.dim(ib);
    if (da != db && da != 1 && db != 1) {
      return InvalidArgument(op + ": shapes x1 " + a.ToString() + " and x2 " + b.ToString() +
                             " cannot be broadcast: dimension " + std::to_string(i - rank) +
                             " is " + std::to_string(da) + " in x1 and " + std::to_string(db) +
                             " in x2 (numpy rule: equal, or one of them 1)");
    }
    dims[i] = da == 1 ? db : da;
  }
  return Shape::Make(std::span<const int64_t>(dims, static_cast<size_t>(rank)));
}

// Element strides of `in` broadcast to `out` (right-aligned, 0 along broadcast dims).
void BroadcastStrides(const Shape& in, const Shape& out, int64_t* strides) {
  int64_t acc = 1;
  for (int i = out.rank() - 1; i >= 0; --i) {
    const int j = i - (out.rank() - in.rank());
    const int64_t d = j < 0 ? 1 : in.dim(j);
    strides[i] = d == 1 ? 0 : acc;
    acc *= d;
  }
}

// Drops size-1 output dims and merges neighbours that both inputs walk contiguously (or both
// broadcast), so e.g. [2,3,4] + [1,1,4] becomes rows of 4 with x1 dense and x2 repeated. Writes
// rank, outDims and strides. Precondition: the output has at least 2 elements.
void Coalesce(const Shape& a, const Shape& b, const Shape& out, BinaryTilingData& t) {
  int64_t s1[Shape::kMaxRank], s2[Shape::kMaxRank];
  BroadcastStrides(a, out, s1);
  BroadcastStrides(b, out, s2);
  int64_t dims[Shape::kMaxRank], m1[Shape::kMaxRank], m2[Shape::kMaxRank];
  int n = 0;  // merged dims, innermost first
  for (int i = out.rank() - 1; i >= 0; --i) {
    if (out.dim(i) == 1) continue;
    if (n > 0 && s1[i] == m1[n - 1] * dims[n - 1] && s2[i] == m2[n - 1] * dims[n - 1]) {
      dims[n - 1] *= out.dim(i);
      continue;
    }
    dims[n] = out.dim(i), m1[n] = s1[i], m2[n] = s2[i];
    ++n;
  }
  t.rank = n;
  for (int k = 0; k < n; ++k) {
    t.outDims[k] = dims[n - 1 - k];
    t.x1Strides[k] = m1[n - 1 - k];
    t.x2Strides[k] = m2[n - 1 - k];
  }
}

Status BinaryTiling(TilingContext& ctx, const std::vector<DataType>& dtypes) {
  const std::string& op = ctx.GetOpType();
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* x1, RequiredDesc(ctx, false, 0, "x1"));
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* x2, RequiredDesc(ctx, false, 1, "x2"));
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* y, RequiredDesc(ctx, true, 0, "y"));
  const DataType dtype = x1->dtype;
  if (x2->dtype != dtype || y->dtype != dtype) {
    return InvalidArgument(op + ": x1, x2 and y must have one dtype, got " + DtypeText(dtype) +
                           ", " + DtypeText(x2->dtype) + " and " + DtypeText(y->dtype));
  }
  if (std::find(dtypes.begin(), dtypes.end(), dtype) == dtypes.end()) {
    return InvalidArgument(op + ": dtype " + DtypeText(dtype) + " is not supported");
  }
  TESSERA_ASSIGN_OR_RETURN(const Shape out, BroadcastShapes(op, x1->shape, x2->shape));
  if (!(y->shape == out)) {
    return InvalidArgument(op + ": output y has shape " + y->shape.ToString() +
                           ", but broadcasting x1 " + x1->shape.ToString() + " and x2 " +
                           x2->shape.ToString() + " gives " + out.ToString());
  }

  BinaryTilingData t;
  TESSERA_ASSIGN_OR_RETURN(t.x1Numel, x1->shape.NumElements());
  TESSERA_ASSIGN_OR_RETURN(t.x2Numel, x2->shape.NumElements());
  TESSERA_ASSIGN_OR_RETURN(t.yNumel, out.NumElements());
  const auto elem = static_cast<int64_t>(DataTypeSize(dtype));
  const int64_t block_elems = 32 / elem;
  // Three double-buffered queues (x1, x2, y); the scalar modes replace one by a single buffer.
  TESSERA_ASSIGN_OR_RETURN(t.tileLength, TileLength(ctx, 3 * kBufferNum * elem, block_elems));
  const uint32_t cores = ctx.GetPlatformInfo().aiv_cores;

  BroadcastMode mode = BroadcastMode::kGeneral;
  if (t.yNumel == 0 || (t.x1Numel == t.yNumel && t.x2Numel == t.yNumel)) {
    mode = BroadcastMode::kSame;
  } else if (t.x2Numel == 1) {
    mode = BroadcastMode::kScalarX2;
  } else if (t.x1Numel == 1) {
    mode = BroadcastMode::kScalarX1;
  }
  tiling::UniformSplitConfig split;
  if (mode == BroadcastMode::kGeneral) {
    Coalesce(x1->shape, x2->shape, out, t);
    t.rowLength = t.outDims[t.rank - 1];
    const int64_t pitch = (t.rowLength + block_elems - 1) / block_elems * block_elems;
    // blockCount of DataCopyPad is 16-bit.
    t.rowsPerTile =
        t.rowLength <= t.tileLength ? std::min<int64_t>(t.tileLength / pitch, 65535) : 1;
    TESSERA_ASSIGN_OR_RETURN(
        split, SplitOverCores(t.yNumel / t.rowLength, 1,
                              std::max<int64_t>(1, kMinElementsPerCore / t.rowLength), cores));
  } else {
    TESSERA_ASSIGN_OR_RETURN(split,
                             SplitOverCores(t.yNumel, block_elems, kMinElementsPerCore, cores));
  }
  StoreSplit(split, t);
  ctx.SetBlockDim(split.blockNum);
  ctx.SetTilingKey(BinaryKey(dtype, mode));
  ctx.SetTilingData(t);
  return OkStatus();
}

Status BinaryInferShape(runtime::InferShapeContext& ctx) {
  const auto& in = ctx.inputs();
  if (in.size() != 2 || ctx.outputs().size() != 1) {
    return InvalidArgument("binary op InferShape: expected 2 inputs and 1 output");
  }
  TESSERA_ASSIGN_OR_RETURN(Shape out, BroadcastShapes("InferShape", in[0].shape, in[1].shape));
  ctx.outputs()[0] = TensorDesc{in[0].dtype, out, in[0].format, {}};
  return OkStatus();
}

const std::vector<DataType> kFloatTypes = {DataType::kFloat32, DataType::kFloat16,
                                           DataType::kBfloat16};
const std::vector<DataType> kFloatAndInt32 = {DataType::kFloat32, DataType::kFloat16,
                                              DataType::kBfloat16, DataType::kInt32};

using BinaryFn = double (*)(double, double);

// y = x1 <op> x2, both inputs of y's dtype. The reference computes `fn` in double with numpy
// broadcasting and rounds once to y's dtype: 1 ulp.
class BinaryOpDef : public runtime::OpDef {
 public:
  BinaryOpDef(const char* type, const std::vector<DataType>& dtypes, BinaryFn fn) : OpDef(type) {
    const std::vector<Format> nd(dtypes.size(), Format::kND);
    Input("x1").ParamType(runtime::REQUIRED).DataType(dtypes).Format(nd);
    Input("x2").ParamType(runtime::REQUIRED).DataType(dtypes).Format(nd);
    Output("y").ParamType(runtime::REQUIRED).DataType(dtypes).Format(nd);
    SetTiling([dtypes](TilingContext& ctx) { return BinaryTiling(ctx, dtypes); });
    SetInferShape(BinaryInferShape);
    TilingDataType<BinaryTilingData>();
    Reference(
        [fn](const runtime::ReferenceArgs& args) { return ElementwiseReference(args, 0, fn); }, 1);
    for (const char* soc : kBuiltinSocs)
      AddConfig(soc);
  }
};

#define TESSERA_BINARY_OP(Name, dtypes, fn)        \
  class Name##Op : public BinaryOpDef {            \
   public:                                         \
    Name##Op() : BinaryOpDef(#Name, dtypes, fn) {} \
  };                                               \
  TESSERA_OP_ADD(Name##Op)

TESSERA_BINARY_OP(Add, kFloatAndInt32, [](double a, double b) { return a + b; });
TESSERA_BINARY_OP(Sub, kFloatAndInt32, [](double a, double b) { return a - b; });
TESSERA_BINARY_OP(Mul, kFloatAndInt32, [](double a, double b) { return a * b; });
TESSERA_BINARY_OP(Maximum, kFloatAndInt32, [](double a, double b) { return std::max(a, b); });
TESSERA_BINARY_OP(Minimum, kFloatAndInt32, [](double a, double b) { return std::min(a, b); });

// Divisors drawn away from 0: |x2| in [0.5, 100], either sign.
class DivOp : public BinaryOpDef {
 public:
  DivOp() : BinaryOpDef("Div", kFloatTypes, [](double a, double b) { return a / b; }) {
    Input("x2").ValueRange(0.5, 100, /*random_sign=*/true);
  }
};
TESSERA_OP_ADD(DivOp);

}  // namespace
}  // namespace tessera::ops

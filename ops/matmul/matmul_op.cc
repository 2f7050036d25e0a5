// Op definitions and tiling functions of the matmul operators (tessera/gemm templates):
//   MatMul(x1, x2, bias?; transpose_x1, transpose_x2) -> y           [M, K] x [K, N] (+ bias [N])
//   BatchMatMul(x1, x2; adj_x1, adj_x2) -> y                          [..., M, K] x [..., K, N],
//                                                                      batch dims broadcast (numpy)
//   Addmm(self, mat1, mat2; beta, alpha) -> y = beta*self + alpha*mat1 mat2, self broadcast to
//                                                                      [M, N] ([M, N], [N], [1, N],
//                                                                      [M, 1], [1], [])
//   MatMulAct(x1, x2, bias?; act, negative_slope) -> y = act(x1 x2 + bias), act in none, relu,
//                                                                      gelu, silu, leaky_relu
// dtypes: x1/x2 float32, float16, bfloat16 (fp32 accumulation, y in the input dtype) or int8
// (y int32, exact); bias and self have y's dtype. MatMul without bias and BatchMatMul are cube
// launches; MatMul with bias, Addmm and MatMulAct are MIX launches whose AIVs run the epilogue.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "../common/host_common.h"
#include "../common/reference_common.h"
#include "matmul_tiling.h"
#include "matmul_types.h"
#include "tessera/device/device.h"
#include "tessera/runtime/op_registration.h"

namespace tessera::ops {
namespace {

using runtime::TilingContext;
using ActKind = gemm::epilogue::Activation;
using Broadcast = gemm::epilogue::Broadcast;

const std::vector<DataType> kInTypes = {DataType::kFloat32, DataType::kFloat16, DataType::kBfloat16,
                                        DataType::kInt8};
const std::vector<DataType> kOutTypes = {DataType::kFloat32, DataType::kFloat16,
                                         DataType::kBfloat16, DataType::kInt32};

DataType OutputType(DataType in) {
  return in == DataType::kInt8 ? DataType::kInt32 : in;
}

std::string Dims(const Shape& s) {
  return s.ToString();
}

// Calls fn(T{}) for the input type.
template <class Fn>
Status DispatchInput(DataType d, Fn&& fn) {
  switch (d) {
    case DataType::kFloat32:
      return fn(float{});
    case DataType::kFloat16:
      return fn(half{});
    case DataType::kBfloat16:
      return fn(bfloat16{});
    case DataType::kInt8:
      return fn(int8_t{});
    default:
      return InvalidArgument("dtype " + DtypeText(d) +
                             " is not supported; expected float32, float16, bfloat16 or int8");
  }
}

// x1 and x2 of one supported dtype, y of the matching output dtype.
Status CheckTypes(const std::string& op, const char* a_name, const TensorDesc& a,
                  const char* b_name, const TensorDesc& b, const TensorDesc& y) {
  if (std::find(kInTypes.begin(), kInTypes.end(), a.dtype) == kInTypes.end()) {
    return InvalidArgument(op + ": " + a_name + " has dtype " + DtypeText(a.dtype) +
                           "; expected float32, float16, bfloat16 or int8");
  }
  if (b.dtype != a.dtype) {
    return InvalidArgument(op + ": " + b_name + " has dtype " + DtypeText(b.dtype) + ", expected " +
                           DtypeText(a.dtype) + " (the dtype of " + a_name + ")");
  }
  if (y.dtype != OutputType(a.dtype)) {
    return InvalidArgument(op + ": y has dtype " + DtypeText(y.dtype) + ", expected " +
                           DtypeText(OutputType(a.dtype)) + " for " + DtypeText(a.dtype) +
                           " inputs (unsupported dtype pair)");
  }
  return OkStatus();
}

Status CheckUnder(const std::string& op, const char* what, int64_t v, int64_t limit) {
  if (v <= limit) return OkStatus();
  return InvalidArgument(op + ": " + what + " " + std::to_string(v) + " exceeds " +
                         std::to_string(limit));
}

// M, N, K of a [M, K] x [K, N] product given the stored matrices (last two dims of a and b).
struct Mnk {
  int64_t m = 0, n = 0, k = 0;
};
Result<Mnk> ProductShape(const std::string& op, const char* a_name, const Shape& a, bool ta,
                         const char* b_name, const Shape& b, bool tb) {
  const int ra = a.rank(), rb = b.rank();
  const int64_t a0 = a.dim(ra - 2), a1 = a.dim(ra - 1), b0 = b.dim(rb - 2), b1 = b.dim(rb - 1);
  Mnk s{ta ? a1 : a0, tb ? b0 : b1, ta ? a0 : a1};
  const int64_t kb = tb ? b1 : b0;
  if (s.k != kb) {
    return InvalidArgument(op + ": K mismatch: " + a_name + " " + Dims(a) +
                           (ta ? " (transposed)" : "") + " has K " + std::to_string(s.k) + " but " +
                           b_name + " " + Dims(b) + (tb ? " (transposed)" : "") + " has K " +
                           std::to_string(kb));
  }
  if (s.m == 0 || s.n == 0 || s.k == 0) {
    return InvalidArgument(op + ": empty product (M " + std::to_string(s.m) + ", N " +
                           std::to_string(s.n) + ", K " + std::to_string(s.k) +
                           "); every dimension must be >= 1");
  }
  TESSERA_RETURN_IF_ERROR(CheckUnder(op, "M", s.m, UINT32_MAX / 2));
  TESSERA_RETURN_IF_ERROR(CheckUnder(op, "N", s.n, UINT32_MAX / 2));
  TESSERA_RETURN_IF_ERROR(CheckUnder(op, "K", s.k, UINT32_MAX / 2));
  return s;
}

Status ShapeIs(const std::string& op, const char* name, const TensorDesc& d, const Shape& want) {
  if (d.shape == want) return OkStatus();
  return InvalidArgument(op + ": " + name + " has shape " + Dims(d.shape) + ", expected " +
                         Dims(want));
}

Status RankIs(const std::string& op, const char* name, const TensorDesc& d, int rank) {
  if (d.shape.rank() == rank) return OkStatus();
  return InvalidArgument(op + ": " + name + " must have rank " + std::to_string(rank) + ", got " +
                         Dims(d.shape));
}

// Stores the common plan: tile, block dim, key, workspace.
template <class T, bool kTA, bool kTB, bool kLarge>
Status PlanTiles(TilingContext& ctx, MatmulTilingData& t, const Mnk& s, uint64_t batches,
                 bool mix) {
  using Mmad = matmul::OpBlockMmad<T, kTA, kTB, gemm::AccumulatorOf<T>, kLarge>;
  const device::ArchSpec& arch = device::CurrentArch();
  if (Status st = Mmad::can_implement(arch); !st.ok()) {
    return Status(st.code(), ctx.GetOpType() + ": " + std::string(st.message()));
  }
  const gemm::GemmCoord problem{static_cast<uint32_t>(s.m), static_cast<uint32_t>(s.n),
                                static_cast<uint32_t>(s.k)};
  const gemm::MatrixCoord tile = gemm::kernel::BlockTileFor(problem, Mmad::kL1M, Mmad::kL1N, kTA);
  t.m = s.m;
  t.n = s.n;
  t.k = s.k;
  t.tileM = tile.row;
  t.tileN = tile.column;
  t.lda = kTA ? s.m : s.k;
  t.ldb = kTB ? s.k : s.n;
  t.ldc = s.n;
  const uint64_t tasks = uint64_t{gemm::CeilDiv(problem.m, tile.row)} *
                         gemm::CeilDiv(problem.n, tile.column) * batches;
  const auto cores = std::max<uint32_t>(1, ctx.GetPlatformInfo().aic_cores);
  const auto blocks = static_cast<uint32_t>(std::min<uint64_t>({tasks, cores, 65535}));
  ctx.SetBlockDim(blocks);
  ctx.SetTilingKey(MatmulKey(DataTypeOf<T>::value, kTA, kTB, mix, kLarge));
  if (mix) {
    using Kernel = matmul::MixKernel<T, kTA, kTB, kLarge>;
    const uint32_t chunk =
        Kernel::BlockEpilogue::ChunkRows(Mmad::kL1N, ctx.GetPlatformInfo().ub_bytes);
    if (chunk == 0) {
      return OutOfRange(ctx.GetOpType() + ": the epilogue's buffers exceed the UB of " +
                        std::to_string(ctx.GetPlatformInfo().ub_bytes) + " bytes");
    }
    t.chunkRows = chunk;
    ctx.SetWorkspaceSizes({Kernel::GetWorkspaceSize(blocks)});
  }
  ctx.SetTilingData(t);
  return OkStatus();
}

// The large tiles (256 x 512 blocks) where the profile's buffers hold them and the product still
// gives every AI core a block; else the 2201 tiles, which every profile holds.
template <class T, bool kTA, bool kTB>
Status Plan(TilingContext& ctx, MatmulTilingData& t, const Mnk& s, uint64_t batches, bool mix) {
  if constexpr (matmul::kHasLargeTiles<T>) {
    using Large = matmul::OpBlockMmad<T, kTA, kTB, gemm::AccumulatorOf<T>, true>;
    const uint64_t tasks = uint64_t{gemm::CeilDiv(static_cast<uint32_t>(s.m), Large::kL1M)} *
                           gemm::CeilDiv(static_cast<uint32_t>(s.n), Large::kL1N) * batches;
    if (Large::can_implement(device::CurrentArch()).ok() &&
        tasks >= std::max<uint32_t>(1, ctx.GetPlatformInfo().aic_cores)) {
      return PlanTiles<T, kTA, kTB, true>(ctx, t, s, batches, mix);
    }
  }
  return PlanTiles<T, kTA, kTB, false>(ctx, t, s, batches, mix);
}

template <class T>
Status PlanAnyLayout(TilingContext& ctx, MatmulTilingData& t, const Mnk& s, uint64_t batches,
                     bool ta, bool tb, bool mix) {
  if (ta && s.m == 1) ta = false;  // a [K, 1] column is the same memory as a [1, K] row
  if (!ta && !tb) return Plan<T, false, false>(ctx, t, s, batches, mix);
  if (!ta && tb) return Plan<T, false, true>(ctx, t, s, batches, mix);
  if (ta && !tb) return Plan<T, true, false>(ctx, t, s, batches, mix);
  return Plan<T, true, true>(ctx, t, s, batches, mix);
}

Result<ActKind> ParseAct(const std::string& op, const std::string& act) {
  if (act == "none") return ActKind::kNone;
  if (act == "relu") return ActKind::kRelu;
  if (act == "gelu") return ActKind::kGelu;
  if (act == "silu") return ActKind::kSilu;
  if (act == "leaky_relu") return ActKind::kLeakyRelu;
  return InvalidArgument(op + ": attribute act \"" + act +
                         "\" is not supported; expected none, relu, gelu, silu or leaky_relu");
}

// The optional bias: [N] of y's dtype.
Status CheckBias(const std::string& op, const TensorDesc* bias, int64_t n, DataType y) {
  if (bias == nullptr) return OkStatus();
  TESSERA_RETURN_IF_ERROR(bias->Validate());
  TESSERA_RETURN_IF_ERROR(CheckContiguous(op, "bias", *bias));
  if (bias->dtype != y) {
    return InvalidArgument(op + ": bias has dtype " + DtypeText(bias->dtype) + ", expected " +
                           DtypeText(y) + " (the dtype of y)");
  }
  return ShapeIs(op, "bias", *bias, *Shape::Make({n}));
}

// MatMul and MatMulAct: x1, x2 rank 2, optional bias at input 2.
Status MatMul2D(TilingContext& ctx, bool ta, bool tb, bool act_op) {
  const std::string& op = ctx.GetOpType();
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* x1, RequiredDesc(ctx, false, 0, "x1"));
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* x2, RequiredDesc(ctx, false, 1, "x2"));
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* y, RequiredDesc(ctx, true, 0, "y"));
  TESSERA_RETURN_IF_ERROR(RankIs(op, "x1", *x1, 2));
  TESSERA_RETURN_IF_ERROR(RankIs(op, "x2", *x2, 2));
  TESSERA_RETURN_IF_ERROR(CheckTypes(op, "x1", *x1, "x2", *x2, *y));
  TESSERA_ASSIGN_OR_RETURN(const Mnk s, ProductShape(op, "x1", x1->shape, ta, "x2", x2->shape, tb));
  TESSERA_RETURN_IF_ERROR(ShapeIs(op, "y", *y, *Shape::Make({s.m, s.n})));
  const TensorDesc* bias = ctx.GetInputDesc(2);
  TESSERA_RETURN_IF_ERROR(CheckBias(op, bias, s.n, y->dtype));
  MatmulTilingData t;
  t.hasBias = bias != nullptr;
  bool mix = bias != nullptr;
  if (act_op) {
    TESSERA_ASSIGN_OR_RETURN(const std::string act_name, ctx.GetStrAttr("act"));
    TESSERA_ASSIGN_OR_RETURN(const ActKind act, ParseAct(op, act_name));
    TESSERA_ASSIGN_OR_RETURN(const float slope, ctx.GetFloatAttr("negative_slope"));
    if (x1->dtype == DataType::kInt8 && act != ActKind::kNone && act != ActKind::kRelu) {
      return InvalidArgument(op + ": act \"" + act_name +
                             "\" is not supported for int8 inputs (int32 output); expected none "
                             "or relu");
    }
    t.act = static_cast<int64_t>(act);
    t.negativeSlope = slope;
    mix = true;
  }
  return DispatchInput(x1->dtype,
                       [&]<class T>(T) { return PlanAnyLayout<T>(ctx, t, s, 1, ta, tb, mix); });
}

Status MatMulTiling(TilingContext& ctx) {
  TESSERA_ASSIGN_OR_RETURN(const bool ta, ctx.GetBoolAttr("transpose_x1"));
  TESSERA_ASSIGN_OR_RETURN(const bool tb, ctx.GetBoolAttr("transpose_x2"));
  return MatMul2D(ctx, ta, tb, false);
}

Status MatMulActTiling(TilingContext& ctx) {
  return MatMul2D(ctx, false, false, true);
}

Status BatchMatMulTiling(TilingContext& ctx) {
  const std::string& op = ctx.GetOpType();
  TESSERA_ASSIGN_OR_RETURN(const bool ta, ctx.GetBoolAttr("adj_x1"));
  TESSERA_ASSIGN_OR_RETURN(const bool tb, ctx.GetBoolAttr("adj_x2"));
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* x1, RequiredDesc(ctx, false, 0, "x1"));
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* x2, RequiredDesc(ctx, false, 1, "x2"));
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* y, RequiredDesc(ctx, true, 0, "y"));
  for (const auto& [name, d] : {std::pair{"x1", x1}, std::pair{"x2", x2}}) {
    if (d->shape.rank() < 2) {
      return InvalidArgument(op + ": " + name + " must have rank >= 2, got " + Dims(d->shape));
    }
  }
  TESSERA_RETURN_IF_ERROR(CheckTypes(op, "x1", *x1, "x2", *x2, *y));
  TESSERA_ASSIGN_OR_RETURN(const Mnk s, ProductShape(op, "x1", x1->shape, ta, "x2", x2->shape, tb));
  // Batch dims: numpy broadcast of x1's and x2's leading dims.
  const int ra = x1->shape.rank() - 2, rb = x2->shape.rank() - 2;
  const int rank = std::max(ra, rb);
  if (rank > static_cast<int>(gemm::kernel::BatchLayout::kMaxBatchDims)) {
    return InvalidArgument(op + ": " + std::to_string(rank) + " batch dimensions exceed " +
                           std::to_string(gemm::kernel::BatchLayout::kMaxBatchDims));
  }
  MatmulTilingData t;
  t.batchRank = rank;
  std::vector<int64_t> out;
  int64_t sa = s.m * s.k, sb = s.k * s.n;
  std::vector<int64_t> dims(static_cast<size_t>(rank)), st_a(dims.size()), st_b(dims.size());
  for (int i = rank - 1; i >= 0; --i) {
    const int ia = i - (rank - ra), ib = i - (rank - rb);
    const int64_t da = ia >= 0 ? x1->shape.dim(ia) : 1, db = ib >= 0 ? x2->shape.dim(ib) : 1;
    if (da != db && da != 1 && db != 1) {
      return InvalidArgument(op + ": batch dimensions of x1 " + Dims(x1->shape) + " and x2 " +
                             Dims(x2->shape) + " cannot be broadcast: " + std::to_string(da) +
                             " vs " + std::to_string(db) +
                             " (numpy rule: equal, or one of them 1)");
    }
    const size_t u = static_cast<size_t>(i);
    dims[u] = std::max(da, db);
    st_a[u] = da == 1 ? 0 : sa;
    st_b[u] = db == 1 ? 0 : sb;
    sa *= da;
    sb *= db;
  }
  uint64_t batches = 1;
  for (int i = 0; i < rank; ++i) {
    const size_t u = static_cast<size_t>(i);
    t.batchDims[u] = dims[u];
    t.batchStrideA[u] = st_a[u];
    t.batchStrideB[u] = st_b[u];
    batches *= static_cast<uint64_t>(dims[u]);
    out.push_back(dims[u]);
  }
  out.push_back(s.m);
  out.push_back(s.n);
  TESSERA_ASSIGN_OR_RETURN(const Shape want, Shape::Make(std::span<const int64_t>(out)));
  TESSERA_RETURN_IF_ERROR(ShapeIs(op, "y", *y, want));
  if (batches == 0) {
    return InvalidArgument(op + ": a batch dimension is 0; every dimension must be >= 1");
  }
  return DispatchInput(
      x1->dtype, [&]<class T>(T) { return PlanAnyLayout<T>(ctx, t, s, batches, ta, tb, false); });
}

Status AddmmTiling(TilingContext& ctx) {
  const std::string& op = ctx.GetOpType();
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* self, RequiredDesc(ctx, false, 0, "self"));
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* m1, RequiredDesc(ctx, false, 1, "mat1"));
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* m2, RequiredDesc(ctx, false, 2, "mat2"));
  TESSERA_ASSIGN_OR_RETURN(const TensorDesc* y, RequiredDesc(ctx, true, 0, "y"));
  TESSERA_RETURN_IF_ERROR(RankIs(op, "mat1", *m1, 2));
  TESSERA_RETURN_IF_ERROR(RankIs(op, "mat2", *m2, 2));
  TESSERA_RETURN_IF_ERROR(CheckTypes(op, "mat1", *m1, "mat2", *m2, *y));
  TESSERA_ASSIGN_OR_RETURN(const Mnk s,
                           ProductShape(op, "mat1", m1->shape, false, "mat2", m2->shape, false));
  TESSERA_RETURN_IF_ERROR(ShapeIs(op, "y", *y, *Shape::Make({s.m, s.n})));
  if (self->dtype != y->dtype) {
    return InvalidArgument(op + ": self has dtype " + DtypeText(self->dtype) + ", expected " +
                           DtypeText(y->dtype) + " (the dtype of y)");
  }
  TESSERA_ASSIGN_OR_RETURN(const float beta, ctx.GetFloatAttr("beta"));
  TESSERA_ASSIGN_OR_RETURN(const float alpha, ctx.GetFloatAttr("alpha"));
  if (m1->dtype == DataType::kInt8 && (alpha != static_cast<float>(static_cast<int32_t>(alpha)) ||
                                       beta != static_cast<float>(static_cast<int32_t>(beta)))) {
    return InvalidArgument(op + ": int8 inputs need integral alpha and beta, got alpha " +
                           std::to_string(alpha) + ", beta " + std::to_string(beta));
  }
  // How self broadcasts onto [M, N].
  const Shape& ss = self->shape;
  const int r = ss.rank();
  const int64_t sm = r >= 2 ? ss.dim(r - 2) : 1, sn = r >= 1 ? ss.dim(r - 1) : 1;
  Broadcast mode;
  if (r > 2 || (sm != 1 && sm != s.m) || (sn != 1 && sn != s.n)) {
    return InvalidArgument(op + ": self " + Dims(ss) + " cannot be broadcast to [" +
                           std::to_string(s.m) + ", " + std::to_string(s.n) +
                           "]; expected [M, N], [N], [1, N], [M, 1], [1] or []");
  }
  if (sm == s.m && sn == s.n && !(s.m == 1 && s.n == 1)) {
    mode = s.m == 1 ? Broadcast::kRow : s.n == 1 ? Broadcast::kColumn : Broadcast::kFull;
  } else if (sn == s.n && s.n != 1) {
    mode = Broadcast::kRow;
  } else if (sm == s.m && s.m != 1) {
    mode = Broadcast::kColumn;
  } else {
    mode = Broadcast::kScalar;
  }
  MatmulTilingData t;
  t.alpha = alpha;
  t.beta = beta;
  t.xMode = static_cast<int64_t>(mode);
  t.ldx = s.n;
  return DispatchInput(m1->dtype,
                       [&]<class T>(T) { return Plan<T, false, false>(ctx, t, s, 1, true); });
}

// y = [M, N] of the matmul of inputs a_index/b_index (their last two dims), out dtype.
Status InferProduct(runtime::InferShapeContext& ctx, size_t a_index, size_t b_index, bool ta,
                    bool tb, bool batched) {
  if (ctx.inputs().size() <= std::max(a_index, b_index) || ctx.outputs().size() != 1) {
    return InvalidArgument("matmul InferShape: expected the two matrix inputs and 1 output");
  }
  const TensorDesc& a = ctx.inputs()[a_index];
  const TensorDesc& b = ctx.inputs()[b_index];
  if (a.shape.rank() < 2 || b.shape.rank() < 2) {
    return InvalidArgument("matmul InferShape: the matrix inputs need rank >= 2");
  }
  const int ra = a.shape.rank(), rb = b.shape.rank();
  std::vector<int64_t> dims;
  if (batched) {
    const int rank = std::max(ra, rb) - 2;
    for (int i = 0; i < rank; ++i) {
      const int ia = i - (rank - (ra - 2)), ib = i - (rank - (rb - 2));
      dims.push_back(std::max(ia >= 0 ? a.shape.dim(ia) : 1, ib >= 0 ? b.shape.dim(ib) : 1));
    }
  }
  dims.push_back(ta ? a.shape.dim(ra - 1) : a.shape.dim(ra - 2));
  dims.push_back(tb ? b.shape.dim(rb - 2) : b.shape.dim(rb - 1));
  TESSERA_ASSIGN_OR_RETURN(Shape out, Shape::Make(std::span<const int64_t>(dims)));
  ctx.outputs()[0] = TensorDesc{OutputType(a.dtype), out, Format::kND, {}};
  return OkStatus();
}

bool BoolAttr(const runtime::InferShapeContext& ctx, const char* name) {
  const auto it = ctx.attrs().find(name);
  return it != ctx.attrs().end() && std::holds_alternative<bool>(it->second) &&
         std::get<bool>(it->second);
}

// Ops with an optional input pick their binary by x1's dtype (simplified-key mode 2): the
// mode-0 key lists only present inputs at run time, so a call without the optional bias would
// not find a binary keyed on every declared input.
Result<std::string> DtypeFragment(const TilingContext& ctx) {
  const TensorDesc* x1 = ctx.GetInputDesc(0);
  if (x1 == nullptr) return InvalidArgument(ctx.GetOpType() + ": input x1 is missing");
  return DtypeText(x1->dtype);
}

void KeyByDtype(runtime::OpDef& def) {
  std::vector<std::string> fragments;
  for (DataType d : kInTypes)
    fragments.push_back(DtypeText(d));
  def.SetGenSimplifiedKey(DtypeFragment);
  def.SimplifiedKeys(fragments);
}

// What the reference of one matmul op reads: which inputs are the product's operands, the
// transpose attributes, and the epilogue's operands.
struct ProductRef {
  size_t a = 0, b = 1;         // the operands' input indices
  const char* ta = nullptr;    // bool attribute transposing a (null: none)
  const char* tb = nullptr;    // bool attribute transposing b
  bool alpha_beta = false;     // Addmm: y = beta * self (input 0) + alpha * a b
  bool act = false;            // MatMulAct: attributes act, negative_slope
  std::optional<size_t> bias;  // an optional [N] bias input
};

// y = act(alpha * a b + bias + beta * self) in double, with numpy broadcasting of the batch dims
// of a and b (BatchMatMul) and of self into [M, N] (Addmm). The tolerance is CATLASS's:
// |got - ref| <= rtol * max(1, |ref|), rtol 1/256 for K < 2048 else 1/128, plus the output
// rounding (2^-8 float16, 2^-7 bfloat16); int32 exact.
Status ProductReference(const runtime::ReferenceArgs& args, const ProductRef& p) {
  const runtime::ReferenceTensor& a = *args.inputs.at(p.a);
  const runtime::ReferenceTensor& b = *args.inputs.at(p.b);
  const runtime::ReferenceTensor& y = args.outputs.at(0);
  const bool ta = p.ta != nullptr && RefAttr<bool>(args, p.ta);
  const bool tb = p.tb != nullptr && RefAttr<bool>(args, p.tb);
  const Shape &as = a.desc.shape, &bs = b.desc.shape, &os = y.desc.shape;
  const int64_t m = as.dim(as.rank() - (ta ? 1 : 2)), k = as.dim(as.rank() - (ta ? 2 : 1));
  const int64_t n = bs.dim(bs.rank() - (tb ? 2 : 1));
  // Batch offsets of a and b for each output batch (numpy broadcasting over the leading dims).
  const std::vector<int64_t> batch_dims(os.dims().begin(), os.dims().end() - 2);
  const auto batch_of = [](const Shape& s) {
    return *Shape::Make(std::span<const int64_t>(s.dims().data(), s.rank() - 2));
  };
  const Shape o_batch = *Shape::Make(std::span<const int64_t>(batch_dims));
  const std::vector<int64_t> sa = RefBroadcastStrides(batch_of(as), o_batch);
  const std::vector<int64_t> sb = RefBroadcastStrides(batch_of(bs), o_batch);
  int64_t batches = 1;
  for (int64_t d : batch_dims)
    batches *= d;
  const double alpha = p.alpha_beta ? RefAttr<float>(args, "alpha") : 1.0;
  const double beta = p.alpha_beta ? RefAttr<float>(args, "beta") : 1.0;
  const std::string act = p.act ? RefAttr<std::string>(args, "act") : "none";
  const double slope = p.act ? RefAttr<float>(args, "negative_slope") : 0;
  const runtime::ReferenceTensor* bias =
      p.bias && args.inputs.at(*p.bias) ? &*args.inputs.at(*p.bias) : nullptr;
  const runtime::ReferenceTensor* self = p.alpha_beta ? &*args.inputs.at(0) : nullptr;
  std::vector<int64_t> self_strides;
  if (self != nullptr) {
    self_strides = RefBroadcastStrides(self->desc.shape, *Shape::Make({m, n}));
  }
  const DataType od = y.desc.dtype;
  const double eps = od == DataType::kFloat32    ? 0x1p-23
                     : od == DataType::kFloat16  ? 0x1p-10
                     : od == DataType::kBfloat16 ? 0x1p-7
                                                 : 0;
  const double rtol = (k < 2048 ? 1.0 / 256 : 1.0 / 128) + (od == DataType::kFloat16    ? 0x1p-8
                                                            : od == DataType::kBfloat16 ? 0x1p-7
                                                                                        : 0);
  args.ulps = eps == 0 ? 0 : rtol / eps;
  std::vector<double>& mag = args.magnitudes.emplace_back(static_cast<size_t>(y.size()));
  std::vector<double> row(static_cast<size_t>(n));
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t oa = 0, ob = 0, rem = bi;
    for (size_t d = batch_dims.size(); d-- > 0;) {
      const int64_t idx = rem % batch_dims[d];
      rem /= batch_dims[d];
      oa += idx * sa[d];
      ob += idx * sb[d];
    }
    oa *= m * k;
    ob *= k * n;
    for (int64_t i = 0; i < m; ++i) {
      std::fill(row.begin(), row.end(), 0.0);
      for (int64_t kk = 0; kk < k; ++kk) {
        const double av = a.Get(oa + (ta ? kk * m + i : i * k + kk));
        for (int64_t j = 0; j < n; ++j)
          row[static_cast<size_t>(j)] += av * b.Get(ob + (tb ? j * k + kk : kk * n + j));
      }
      for (int64_t j = 0; j < n; ++j) {
        double v = alpha * row[static_cast<size_t>(j)];
        if (bias != nullptr) v += bias->Get(j);
        if (self != nullptr) v += beta * self->Get(i * self_strides[0] + j * self_strides[1]);
        if (act == "relu") v = v > 0 ? v : 0;
        if (act == "gelu") {
          v = 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
        }
        if (act == "silu") v = v / (1 + std::exp(-v));
        if (act == "leaky_relu") v = v > 0 ? v : slope * v;
        const int64_t at = (bi * m + i) * n + j;
        y.Set(at, v);
        mag[static_cast<size_t>(at)] = std::max(1.0, std::fabs(v));
      }
    }
  }
  return OkStatus();
}

// Declares the inputs (values in [-1, 1]), output y, the configuration and the reference.
void Declare(runtime::OpDef& def, const std::vector<std::pair<const char*, runtime::Option>>& ins,
             const std::vector<bool>& out_typed, const ProductRef& ref) {
  const std::vector<Format> nd(kInTypes.size(), Format::kND);
  for (size_t i = 0; i < ins.size(); ++i) {
    def.Input(ins[i].first)
        .ParamType(ins[i].second)
        .DataType(out_typed[i] ? kOutTypes : kInTypes)
        .Format(nd)
        .ValueRange(-1, 1);
  }
  def.Reference([ref](const runtime::ReferenceArgs& args) { return ProductReference(args, ref); });
  def.Output("y").ParamType(runtime::REQUIRED).DataType(kOutTypes).Format(nd);
  def.TilingDataType<MatmulTilingData>();
  for (const char* soc : kBuiltinSocs)
    def.AddConfig(soc);
}

class MatMulOp : public runtime::OpDef {
 public:
  MatMulOp() : OpDef("MatMul") {
    Declare(
        *this, {{"x1", runtime::REQUIRED}, {"x2", runtime::REQUIRED}, {"bias", runtime::OPTIONAL}},
        {false, false, true}, ProductRef{.ta = "transpose_x1", .tb = "transpose_x2", .bias = 2});
    Attr("transpose_x1").AttrType(runtime::OPTIONAL).Bool(false);
    Attr("transpose_x2").AttrType(runtime::OPTIONAL).Bool(false);
    SetTiling(MatMulTiling);
    KeyByDtype(*this);
    SetInferShape([](runtime::InferShapeContext& ctx) {
      return InferProduct(ctx, 0, 1, BoolAttr(ctx, "transpose_x1"), BoolAttr(ctx, "transpose_x2"),
                          false);
    });
  }
};
TESSERA_OP_ADD(MatMulOp);

class BatchMatMulOp : public runtime::OpDef {
 public:
  BatchMatMulOp() : OpDef("BatchMatMul") {
    Declare(*this, {{"x1", runtime::REQUIRED}, {"x2", runtime::REQUIRED}}, {false, false},
            ProductRef{.ta = "adj_x1", .tb = "adj_x2"});
    Attr("adj_x1").AttrType(runtime::OPTIONAL).Bool(false);
    Attr("adj_x2").AttrType(runtime::OPTIONAL).Bool(false);
    SetTiling(BatchMatMulTiling);
    SetInferShape([](runtime::InferShapeContext& ctx) {
      return InferProduct(ctx, 0, 1, BoolAttr(ctx, "adj_x1"), BoolAttr(ctx, "adj_x2"), true);
    });
  }
};
TESSERA_OP_ADD(BatchMatMulOp);

class AddmmOp : public runtime::OpDef {
 public:
  AddmmOp() : OpDef("Addmm") {
    Declare(*this,
            {{"self", runtime::REQUIRED}, {"mat1", runtime::REQUIRED}, {"mat2", runtime::REQUIRED}},
            {true, false, false}, ProductRef{.a = 1, .b = 2, .alpha_beta = true});
    Attr("beta").AttrType(runtime::OPTIONAL).Float(1.0f);
    Attr("alpha").AttrType(runtime::OPTIONAL).Float(1.0f);
    SetTiling(AddmmTiling);
    SetInferShape([](runtime::InferShapeContext& ctx) {
      return InferProduct(ctx, 1, 2, false, false, false);
    });
  }
};
TESSERA_OP_ADD(AddmmOp);

class MatMulActOp : public runtime::OpDef {
 public:
  MatMulActOp() : OpDef("MatMulAct") {
    Declare(*this,
            {{"x1", runtime::REQUIRED}, {"x2", runtime::REQUIRED}, {"bias", runtime::OPTIONAL}},
            {false, false, true}, ProductRef{.act = true, .bias = 2});
    Attr("act").AttrType(runtime::OPTIONAL).String("relu");
    Attr("negative_slope").AttrType(runtime::OPTIONAL).Float(0.01f);
    SetTiling(MatMulActTiling);
    KeyByDtype(*this);
    SetInferShape([](runtime::InferShapeContext& ctx) {
      return InferProduct(ctx, 0, 1, false, false, false);
    });
  }
};
TESSERA_OP_ADD(MatMulActOp);

}  // namespace
}  // namespace tessera::ops

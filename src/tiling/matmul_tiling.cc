#include "tessera/tiling/matmul_tiling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace tessera::tiling {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
int64_t RoundUp(int64_t a, int64_t b) {
  return CeilDiv(a, b) * b;
}
std::string S(int64_t v) {
  return std::to_string(v);
}

// K granularity of the base block: C0 when K is the inner (column) axis of both tiles in L1
// (A row-major, B transposed), else a whole fractal height of 16 as well.
int64_t KAlign(int32_t a_bytes, bool a_trans, bool b_trans) {
  const int64_t c0 = 32 / a_bytes;
  return (!a_trans && b_trans) ? c0 : std::max<int64_t>(c0, 16);
}

}  // namespace

namespace matmul_tiling {

int32_t DataTypeBytes(DataType type) {
  switch (type) {
    case DataType::DT_FLOAT:
    case DataType::DT_INT32:
      return 4;
    case DataType::DT_FLOAT16:
    case DataType::DT_BFLOAT16:
    case DataType::DT_INT16:
      return 2;
    case DataType::DT_INT8:
    case DataType::DT_UINT8:
      return 1;
    default:
      return 0;
  }
}

const char* DataTypeName(DataType type) {
  switch (type) {
    case DataType::DT_FLOAT:
      return "DT_FLOAT";
    case DataType::DT_FLOAT16:
      return "DT_FLOAT16";
    case DataType::DT_INT8:
      return "DT_INT8";
    case DataType::DT_INT32:
      return "DT_INT32";
    case DataType::DT_UINT8:
      return "DT_UINT8";
    case DataType::DT_INT16:
      return "DT_INT16";
    case DataType::DT_BFLOAT16:
      return "DT_BFLOAT16";
    case DataType::DT_INT4:
      return "DT_INT4";
    default:
      return "unknown DataType";
  }
}

namespace {

const char* PositionName(TPosition pos) {
  switch (pos) {
    case TPosition::GM:
      return "GM";
    case TPosition::VECIN:
      return "VECIN";
    case TPosition::VECOUT:
      return "VECOUT";
    case TPosition::TSCM:
      return "TSCM";
    case TPosition::CO1:
      return "CO1";
    default:
      return "an on-chip position";
  }
}

bool IsMmadInput(DataType t) {
  return t == DataType::DT_FLOAT16 || t == DataType::DT_BFLOAT16 || t == DataType::DT_FLOAT ||
         t == DataType::DT_INT8;
}

// C types tessera's Matmul writes for an A/B type (Fixpipe casts from the fp32/int32 accumulator).
bool CTypeAllowed(DataType ab, DataType c) {
  switch (ab) {
    case DataType::DT_FLOAT16:
    case DataType::DT_BFLOAT16:
      return c == DataType::DT_FLOAT || c == DataType::DT_FLOAT16 || c == DataType::DT_BFLOAT16;
    case DataType::DT_FLOAT:
      return c == DataType::DT_FLOAT;
    case DataType::DT_INT8:
      return c == DataType::DT_INT32;
    default:
      return false;
  }
}

bool BiasTypeAllowed(DataType ab, DataType bias) {
  switch (ab) {
    case DataType::DT_FLOAT16:
    case DataType::DT_BFLOAT16:
      return bias == DataType::DT_FLOAT || bias == DataType::DT_FLOAT16 ||
             bias == DataType::DT_BFLOAT16;
    case DataType::DT_FLOAT:
      return bias == DataType::DT_FLOAT;
    case DataType::DT_INT8:
      return bias == DataType::DT_INT32;
    default:
      return false;
  }
}

}  // namespace

int32_t MatmulApiTiling::Fail(Status status) {
  error_ = std::string(status.message());
  return -1;
}

int32_t MatmulApiTiling::SetAType(TPosition pos, CubeFormat format, DataType type, bool isTrans) {
  a_ = {pos, format, type, isTrans, true};
  return Ok();
}
int32_t MatmulApiTiling::SetBType(TPosition pos, CubeFormat format, DataType type, bool isTrans) {
  b_ = {pos, format, type, isTrans, true};
  return Ok();
}
int32_t MatmulApiTiling::SetCType(TPosition pos, CubeFormat format, DataType type) {
  c_ = {pos, format, type, false, true};
  return Ok();
}
int32_t MatmulApiTiling::SetBiasType(TPosition pos, CubeFormat format, DataType type) {
  bias_ = {pos, format, type, false, true};
  return Ok();
}

int32_t MatmulApiTiling::SetShape(int32_t m, int32_t n, int32_t k) {
  if (m < 1 || n < 1 || k < 1) {
    return Fail(InvalidArgument("SetShape(" + S(m) + ", " + S(n) + ", " + S(k) +
                                "): m, n and k must be at least 1"));
  }
  m_ = m;
  n_ = n;
  k_ = k;
  return Ok();
}

int32_t MatmulApiTiling::SetOrgShape(int32_t orgM, int32_t orgN, int32_t orgK) {
  return SetOrgShape(orgM, orgN, orgK, orgK);
}

int32_t MatmulApiTiling::SetOrgShape(int32_t orgM, int32_t orgN, int32_t orgKa, int32_t orgKb) {
  if (orgM < 1 || orgN < 1 || orgKa < 1 || orgKb < 1) {
    return Fail(InvalidArgument("SetOrgShape(" + S(orgM) + ", " + S(orgN) + ", " + S(orgKa) + ", " +
                                S(orgKb) + "): every size must be at least 1"));
  }
  orgM_ = orgM;
  orgN_ = orgN;
  orgKa_ = orgKa;
  orgKb_ = orgKb;
  return Ok();
}

int32_t MatmulApiTiling::EnableBias(bool isBiasIn) {
  hasBias_ = isBiasIn;
  return Ok();
}

int32_t MatmulApiTiling::SetFixSplit(int32_t baseMIn, int32_t baseNIn, int32_t baseKIn) {
  const auto bad = [&](const std::string& why) {
    return Fail(InvalidArgument("SetFixSplit(" + S(baseMIn) + ", " + S(baseNIn) + ", " +
                                S(baseKIn) + "): " + why));
  };
  if (baseMIn != -1 && (baseMIn <= 0 || baseMIn % 16 != 0))
    return bad("baseM must be -1 or a positive multiple of 16");
  if (baseNIn != -1 && (baseNIn <= 0 || baseNIn % 16 != 0))
    return bad("baseN must be -1 or a positive multiple of 16");
  if (baseKIn != -1 && baseKIn <= 0) return bad("baseK must be -1 or positive");
  fixBaseM_ = baseMIn;
  fixBaseN_ = baseNIn;
  fixBaseK_ = baseKIn;
  return Ok();
}

int32_t MatmulApiTiling::SetBufferSpace(int32_t l1Size, int32_t l0CSize, int32_t ubSize,
                                        int32_t btSize) {
  const auto check = [&](int32_t v, int64_t cap, const char* what) -> Status {
    if (v == -1) return OkStatus();
    if (v <= 0 || v > cap) {
      return InvalidArgument(std::string("SetBufferSpace: ") + what + " " + S(v) +
                             " bytes is out of range; expected -1 or 1.." + S(cap) +
                             " (the platform's size)");
    }
    return OkStatus();
  };
  for (const Status& st :
       {check(l1Size, platform_.l1_bytes, "l1Size"), check(l0CSize, platform_.l0c_bytes, "l0CSize"),
        check(ubSize, platform_.ub_bytes, "ubSize"), check(btSize, platform_.bt_bytes, "btSize")}) {
    if (!st.ok()) return Fail(st);
  }
  l1Size_ = l1Size;
  l0cSize_ = l0CSize;
  ubSize_ = ubSize;
  btSize_ = btSize;
  return Ok();
}

int32_t MatmulApiTiling::SetTraverse(int32_t iterateOrder) {
  if (iterateOrder != 0 && iterateOrder != 1) {
    return Fail(InvalidArgument("SetTraverse(" + S(iterateOrder) +
                                "): expected 0 (M fastest) or 1 (N fastest)"));
  }
  iterateOrder_ = iterateOrder;
  return Ok();
}

Result<MatmulApiTiling::CoreSplit> MatmulApiTiling::SplitCores() const {
  return CoreSplit{m_, n_, 1};
}

Result<TCubeTiling> MatmulApiTiling::Compute() const {
  // --- operand types ---
  if (!a_.set || !b_.set || !c_.set) {
    return InvalidArgument(std::string("Matmul tiling: ") +
                           (!a_.set   ? "SetAType"
                            : !b_.set ? "SetBType"
                                      : "SetCType") +
                           " was not called");
  }
  if (!IsMmadInput(a_.type)) {
    return InvalidArgument(std::string("Matmul tiling: A type ") + DataTypeName(a_.type) +
                           " is not supported; expected DT_FLOAT16, DT_BFLOAT16, DT_FLOAT or "
                           "DT_INT8");
  }
  if (b_.type != a_.type) {
    return InvalidArgument(std::string("Matmul tiling: A is ") + DataTypeName(a_.type) +
                           " but B is " + DataTypeName(b_.type) + "; A and B must have one type");
  }
  if (!CTypeAllowed(a_.type, c_.type)) {
    return InvalidArgument(std::string("Matmul tiling: C type ") + DataTypeName(c_.type) +
                           " is not supported with A/B " + DataTypeName(a_.type) +
                           " (f16/bf16 -> float/f16/bf16, float -> float, int8 -> int32)");
  }
  if (a_.pos != TPosition::GM || b_.pos != TPosition::GM) {
    return InvalidArgument(std::string("Matmul tiling: ") + (a_.pos != TPosition::GM ? "A" : "B") +
                           " position " + PositionName(a_.pos != TPosition::GM ? a_.pos : b_.pos) +
                           " is not supported; tessera's Matmul reads A and B from GM");
  }
  // A VECTOR A is a single row of K elements (GEMV): the ND layout with M = 1.
  if ((a_.format != CubeFormat::ND && a_.format != CubeFormat::VECTOR) ||
      b_.format != CubeFormat::ND) {
    return InvalidArgument(
        "Matmul tiling: A must be CubeFormat::ND or VECTOR and B CubeFormat::ND (NZ inputs are "
        "not supported)");
  }
  if (a_.format == CubeFormat::VECTOR && (m_ != 1 || a_.isTrans)) {
    return InvalidArgument("Matmul tiling: a VECTOR A needs M = 1 (SetShape m is " + S(m_) +
                           ") and no transpose");
  }
  if (c_.pos != TPosition::GM && c_.pos != TPosition::VECIN) {
    return InvalidArgument(std::string("Matmul tiling: C position ") + PositionName(c_.pos) +
                           " is not supported; expected GM or VECIN");
  }
  // ND_ALIGN: ND with each row padded to 32 bytes (GM only).
  if (c_.format != CubeFormat::ND &&
      !(c_.format == CubeFormat::ND_ALIGN && c_.pos == TPosition::GM)) {
    return InvalidArgument("Matmul tiling: C must be CubeFormat::ND (or ND_ALIGN in GM)");
  }
  int32_t biasBytes = 0;
  if (hasBias_) {
    const DataType bt =
        bias_.set ? bias_.type
                  : (a_.type == DataType::DT_INT8 ? DataType::DT_INT32 : DataType::DT_FLOAT);
    if (!BiasTypeAllowed(a_.type, bt)) {
      return InvalidArgument(std::string("Matmul tiling: bias type ") + DataTypeName(bt) +
                             " is not supported with A/B " + DataTypeName(a_.type));
    }
    if (bias_.set && bias_.pos != TPosition::GM) {
      return InvalidArgument("Matmul tiling: the bias must be in GM");
    }
    biasBytes = DataTypeBytes(bt);
  }
  // --- shapes ---
  if (m_ < 0) return InvalidArgument("Matmul tiling: SetShape (or SetOrgShape) was not called");
  const int64_t orgM = orgM_ > 0 ? orgM_ : m_;
  const int64_t orgN = orgN_ > 0 ? orgN_ : n_;
  const int64_t orgKa = orgKa_ > 0 ? orgKa_ : k_;
  const int64_t orgKb = orgKb_ > 0 ? orgKb_ : k_;
  if (m_ > orgM || n_ > orgN || k_ > orgKa || k_ > orgKb) {
    return InvalidArgument("Matmul tiling: shape (" + S(m_) + ", " + S(n_) + ", " + S(k_) +
                           ") exceeds the original shape (" + S(orgM) + ", " + S(orgN) + ", " +
                           S(orgKa) + ", " + S(orgKb) + ")");
  }
  TESSERA_ASSIGN_OR_RETURN(CoreSplit split, SplitCores());

  // --- base block ---
  const int32_t ab = DataTypeBytes(a_.type);
  const int64_t kAlign = KAlign(ab, a_.isTrans, b_.isTrans);
  const int64_t l1 = l1Size_ > 0 ? l1Size_ : platform_.l1_bytes;
  const int64_t l0c = l0cSize_ > 0 ? l0cSize_ : platform_.l0c_bytes;
  const int64_t ub = ubSize_ > 0 ? ubSize_ : platform_.ub_bytes;
  const int64_t bt = btSize_ > 0 ? btSize_ : platform_.bt_bytes;
  const int64_t sM16 = RoundUp(split.singleM, 16);
  const int64_t sN16 = RoundUp(split.singleN, 16);
  const int64_t kAl = RoundUp(k_, kAlign);
  const int32_t cBytes = DataTypeBytes(c_.type);
  // Biases go to the bias table as 32-bit values.
  const int64_t maxBaseNForBias = hasBias_ ? bt / 4 / 16 * 16 : std::numeric_limits<int32_t>::max();
  const int64_t maxBaseNForC0 = l0c / (4 * 16) / 16 * 16;  // baseM >= 16

  int64_t baseM = fixBaseM_ > 0 ? fixBaseM_ : std::min<int64_t>(128, sM16);
  int64_t baseN = fixBaseN_ > 0 ? fixBaseN_ : std::min<int64_t>(256, sN16);
  if (fixBaseN_ <= 0) baseN = std::min({baseN, maxBaseNForBias, maxBaseNForC0});
  if (fixBaseK_ > 0 && fixBaseK_ % kAlign != 0) {
    return InvalidArgument(
        "Matmul tiling: fixed baseK " + S(fixBaseK_) + " must be a multiple of " + S(kAlign) +
        " for " + DataTypeName(a_.type) +
        (a_.isTrans || !b_.isTrans ? " when K is a row axis of A or B in L1" : ""));
  }
  const auto fail_fixed = [&](const std::string& why) {
    return InvalidArgument("Matmul tiling: the fixed split (baseM " + S(baseM) + ", baseN " +
                           S(baseN) + ") does not fit: " + why);
  };
  // L0C: one fp32/int32 accumulator block.
  while (baseM * baseN * 4 > l0c) {
    if (fixBaseM_ > 0 && fixBaseN_ > 0) {
      return fail_fixed("baseM*baseN*4 = " + S(baseM * baseN * 4) + " bytes exceeds L0C (" +
                        S(l0c) + " bytes)");
    }
    if ((baseN >= baseM || fixBaseM_ > 0) && fixBaseN_ <= 0 && baseN > 16) {
      baseN = RoundUp(baseN / 2, 16);
    } else if (fixBaseM_ <= 0 && baseM > 16) {
      baseM = RoundUp(baseM / 2, 16);
    } else {
      return fail_fixed("baseM*baseN*4 exceeds L0C (" + S(l0c) + " bytes)");
    }
  }
  if (hasBias_ && baseN * 4 > bt) {
    return fail_fixed("baseN*4 = " + S(baseN * 4) + " bytes of bias exceed the bias table (" +
                      S(bt) + " bytes)");
  }
  // C in UB: one base block of C must fit the vector core's buffer.
  if (c_.pos == TPosition::VECIN) {
    while (baseM * baseN * cBytes > ub) {
      if (fixBaseN_ <= 0 && baseN > 16 && (baseN >= baseM || fixBaseM_ > 0)) {
        baseN = RoundUp(baseN / 2, 16);
      } else if (fixBaseM_ <= 0 && baseM > 16) {
        baseM = RoundUp(baseM / 2, 16);
      } else {
        return fail_fixed("a C block of baseM*baseN*" + S(cBytes) + " = " +
                          S(baseM * baseN * cBytes) + " bytes exceeds the UB space (" + S(ub) +
                          " bytes)");
      }
    }
  }
  // baseK: as deep as L0A/L0B allow with double buffering, up to the whole (aligned) K.
  int64_t baseK;
  int64_t dbL0A = 2, dbL0B = 2;
  if (fixBaseK_ > 0) {
    baseK = fixBaseK_;
  } else {
    // Mmad takes k up to 4095: larger L0 buffers (the native profile's) must not exceed it.
    const int64_t byA = std::min<int64_t>(platform_.l0a_bytes / (2 * baseM * ab), 4095);
    const int64_t byB = platform_.l0b_bytes / (2 * baseN * ab);
    baseK = std::min<int64_t>(std::min(byA, byB) / kAlign * kAlign, kAl);
    if (baseK < kAlign) {
      dbL0A = dbL0B = 1;
      baseK = std::min<int64_t>(
          std::min(platform_.l0a_bytes / (baseM * ab), platform_.l0b_bytes / (baseN * ab)) /
              kAlign * kAlign,
          kAl);
    }
  }
  if (baseM * baseK * ab * dbL0A > platform_.l0a_bytes) dbL0A = 1;
  if (baseN * baseK * ab * dbL0B > platform_.l0b_bytes) dbL0B = 1;
  if (baseK < kAlign || baseM * baseK * ab > platform_.l0a_bytes ||
      baseN * baseK * ab > platform_.l0b_bytes) {
    return fail_fixed("baseK " + S(baseK) + " does not fit L0A (" + S(platform_.l0a_bytes) +
                      " bytes) and L0B (" + S(platform_.l0b_bytes) + " bytes)");
  }
  // L1: as many baseK chunks of A and B as fit, double-buffered when possible.
  const int64_t kIters = CeilDiv(kAl, baseK);
  const int64_t biasL1 = hasBias_ ? baseN * biasBytes : 0;
  const auto l1Need = [&](int64_t stepKa, int64_t stepKb, int64_t db) {
    return baseM * baseK * ab * stepKa * db + baseN * baseK * ab * stepKb * db + biasL1;
  };
  int64_t stepKa = kIters, stepKb = kIters, db = 2;
  while (l1Need(stepKa, stepKb, db) > l1) {
    if (db == 2 && stepKa == kIters && stepKb == kIters) {
      db = 1;
      if (l1Need(stepKa, stepKb, db) <= l1) break;
      db = 2;
    }
    if (stepKa == 1 && stepKb == 1) {
      if (db == 2) {
        db = 1;
        continue;
      }
      return fail_fixed("one base block of A and B (" + S(l1Need(1, 1, 1)) +
                        " bytes) exceeds the L1 space (" + S(l1) + " bytes)");
    }
    if (stepKa >= stepKb) {
      stepKa = CeilDiv(stepKa, 2);
    } else {
      stepKb = CeilDiv(stepKb, 2);
    }
  }

  TCubeTiling t{};
  t.usedCoreNum = split.usedCores;
  t.M = static_cast<int32_t>(orgM);
  t.N = static_cast<int32_t>(orgN);
  t.Ka = static_cast<int32_t>(orgKa);
  t.Kb = static_cast<int32_t>(orgKb);
  t.singleCoreM = split.singleM;
  t.singleCoreN = split.singleN;
  t.singleCoreK = k_;
  t.baseM = static_cast<int32_t>(baseM);
  t.baseN = static_cast<int32_t>(baseN);
  t.baseK = static_cast<int32_t>(baseK);
  t.stepM = 1;
  t.stepN = 1;
  t.stepKa = static_cast<int32_t>(stepKa);
  t.stepKb = static_cast<int32_t>(stepKb);
  t.depthA1 = static_cast<int32_t>(stepKa * db);
  t.depthB1 = static_cast<int32_t>(stepKb * db);
  t.isBias = hasBias_ ? 1 : 0;
  t.iterateOrder = iterateOrder_;
  t.shareL1Size = static_cast<int32_t>(l1);
  t.shareL0CSize = static_cast<int32_t>(l0c);
  t.shareUbSize = static_cast<int32_t>(ub);
  t.dbL0A = static_cast<int32_t>(dbL0A);
  t.dbL0B = static_cast<int32_t>(dbL0B);
  t.dbL0C = 1;
  MatmulPlatform limits = platform_;
  limits.l1_bytes = l1;
  limits.l0c_bytes = l0c;
  limits.bt_bytes = bt;
  TESSERA_RETURN_IF_ERROR(CheckCubeTiling(t, limits, ab, a_.isTrans, b_.isTrans, biasBytes));
  return t;
}

int64_t MatmulApiTiling::GetTiling(TCubeTiling& tiling) {
  Result<TCubeTiling> r = Compute();
  if (!r.ok()) return Fail(r.status());
  tiling = *r;
  usedCoreNum_ = tiling.usedCoreNum;
  Ok();
  return 0;
}

int32_t MultiCoreMatmulTiling::SetDim(int32_t dim) {
  if (dim < 1) return Fail(InvalidArgument("SetDim(" + S(dim) + "): expected at least 1 core"));
  dim_ = dim;
  return Ok();
}

int32_t MultiCoreMatmulTiling::SetSingleShape(int32_t singleMIn, int32_t singleNIn,
                                              int32_t singleKIn) {
  if ((singleMIn != -1 && singleMIn < 1) || (singleNIn != -1 && singleNIn < 1) ||
      (singleKIn != -1 && singleKIn < 1)) {
    return Fail(InvalidArgument("SetSingleShape(" + S(singleMIn) + ", " + S(singleNIn) + ", " +
                                S(singleKIn) + "): each size must be -1 or at least 1"));
  }
  if (singleKIn != -1 && k_ > 0 && singleKIn != k_) {
    return Fail(InvalidArgument("SetSingleShape: singleK " + S(singleKIn) + " differs from K " +
                                S(k_) + "; K is not split across cores"));
  }
  singleM_ = singleMIn;
  singleN_ = singleNIn;
  return Ok();
}

namespace {

// Ascend C's choice of mDim x nDim for a large C (its "split MN" case: M >= 128 and M*N above
// 26214 elements per core): over the factor pairs of the core count, the split whose per-core
// base blocks (128 x 256, or the SetFixSplit sizes) have the highest compute per byte loaded, then
// (within 1% of cycles) the one loading less along the other side. Used so kernels that assume
// the vendor's split (a fixed M or N split) read the blocks they expect.
struct SplitScore {
  int32_t mDim, nDim;
  double cycles, intensity, band;
};

// The vendor's ranking of (mDim, nDim) candidates for base blocks baseM x baseN: the highest
// compute per byte loaded first, then (within 1% of cycles) the one loading less along the other
// side, then fewer cycles. Returns false when there is no candidate.
bool BestVendorSplit(const std::vector<std::pair<int32_t, int32_t>>& candidates, int64_t m,
                     int64_t n, int32_t dim, int64_t baseM, int64_t baseN, int32_t elemBytes,
                     bool aTrans, bool bTrans, int32_t* mDimOut, int32_t* nDimOut) {
  const int64_t baseK = 128 / elemBytes;
  const int64_t align = 256 / elemBytes;  // elements of one 256-byte copy unit
  const auto single = [&](bool needAlign, int64_t total, int64_t parts, bool* ok) {
    int64_t s = CeilDiv(total, parts);
    *ok = true;
    if (!needAlign || parts <= 1) return s;
    const int64_t aligned = RoundUp(s, align);
    if (aligned >= CeilDiv(total, parts - 1)) {
      *ok = false;
      return s;
    }
    return aligned;
  };
  const auto cycles = [&](int64_t bm, int64_t bn) {
    return static_cast<double>(bm * bn * baseK) / (16.0 * 16.0 * (32 / elemBytes));
  };
  const auto traffic = [&](int64_t bm, int64_t bn) {
    return static_cast<double>(bm * baseK * elemBytes + bn * baseK * elemBytes);
  };
  std::vector<SplitScore> scores;
  for (const auto& [mDim, nDim] : candidates) {
    bool okA = true, okB = true;
    const int64_t sm = single(aTrans && m % align == 0, m, mDim, &okA);
    const int64_t sn = single(!bTrans && n % align == 0, n, nDim, &okB);
    const double ratio = (okA && okB) ? 1.0 : 2.0;
    const int64_t mainM = sm / baseM, tailM = sm % baseM, mainN = sn / baseN, tailN = sn % baseN;
    double cyc = 0, mem = 0;
    const auto add = [&](int64_t bm, int64_t bn, int64_t count) {
      cyc += cycles(bm, bn) * count;
      mem += ratio * traffic(bm, bn) * count;
    };
    if (mainM > 0 && mainN > 0) add(baseM, baseN, mainM * mainN);
    if (mainM > 0 && tailN > 0) add(baseM, tailN, mainM);
    if (tailM > 0 && mainN > 0) add(tailM, baseN, mainN);
    if (tailM > 0 && tailN > 0) add(tailM, tailN, 1);
    const double band = static_cast<double>((dim - mDim) * baseM + (dim - nDim) * baseN) /
                        static_cast<double>((baseM + baseN) * dim);
    scores.push_back({mDim, nDim, cyc, mem > 0 ? cyc / mem : 0.0, band});
  }
  std::stable_sort(scores.begin(), scores.end(), [](const SplitScore& x, const SplitScore& y) {
    if (std::fabs(x.intensity - y.intensity) > 1e-4) return x.intensity > y.intensity;
    if (std::fabs(x.cycles - y.cycles) < 0.01 * y.cycles) return x.band > y.band;
    return x.cycles < y.cycles;
  });
  if (scores.empty()) return false;
  *mDimOut = scores.front().mDim;
  *nDimOut = scores.front().nDim;
  return true;
}

// The vendor's base block of a multi-core split: 128 x 256 (256 x 128 with both transposed).
std::pair<int64_t, int64_t> VendorBaseBlock(bool aTrans, bool bTrans) {
  return aTrans && bTrans ? std::make_pair<int64_t, int64_t>(256, 128)
                          : std::make_pair<int64_t, int64_t>(128, 256);
}

bool VendorSplitMN(int64_t m, int64_t n, int32_t dim, int32_t elemBytes, bool aTrans, bool bTrans,
                   int32_t* mDimOut, int32_t* nDimOut) {
  constexpr int64_t kMnLimit = 26214;  // 128 * 256 * 0.8
  if (m < 128 || m * n <= kMnLimit * dim || elemBytes <= 0) return false;
  std::vector<std::pair<int32_t, int32_t>> candidates;
  for (int32_t i = 1; i <= dim; ++i) {
    if (dim % i == 0) candidates.emplace_back(i, dim / i);
  }
  const auto [baseM, baseN] = VendorBaseBlock(aTrans, bTrans);
  return BestVendorSplit(candidates, m, n, dim, baseM, baseN, elemBytes, aTrans, bTrans, mDimOut,
                         nDimOut);
}

}  // namespace

Result<MatmulApiTiling::CoreSplit> MultiCoreMatmulTiling::SplitCores() const {
  const int64_t m = m_, n = n_;
  if (singleM_ > m || singleN_ > n) {
    return InvalidArgument("Matmul tiling: single shape (" + S(singleM_) + ", " + S(singleN_) +
                           ") exceeds the shape (" + S(m) + ", " + S(n) + ")");
  }
  const auto blocks = [](int64_t total, int64_t single) { return CeilDiv(total, single); };
  if (singleM_ > 0 && singleN_ > 0) {
    const int64_t used = blocks(m, singleM_) * blocks(n, singleN_);
    if (used > dim_) {
      return InvalidArgument("Matmul tiling: single shape (" + S(singleM_) + ", " + S(singleN_) +
                             ") needs " + S(used) + " cores but SetDim allows " + S(dim_));
    }
    return CoreSplit{singleM_, singleN_, static_cast<int32_t>(used)};
  }
  // Split M x N into at most dim_ blocks with the smallest padded per-core block; blocks are
  // multiples of 16 (the fractal height) except where the whole dimension is smaller.
  const auto single_for = [](int64_t total, int64_t parts) {
    const int64_t s = RoundUp(CeilDiv(total, parts), 16);
    return std::min(s, total);
  };
  int32_t vendorM = 0, vendorN = 0;
  if (nBuffer33_ && singleM_ <= 0 && singleN_ <= 0) {
    const int32_t elem = DataTypeBytes(a_.type);
    auto [baseM, baseN] = VendorBaseBlock(a_.isTrans, b_.isTrans);
    if (fixBaseM_ > 0) baseM = fixBaseM_;
    if (fixBaseN_ > 0) baseN = fixBaseN_;
    const int64_t baseK = 128 / std::max(elem, 1);
    if (CeilDiv(k_, baseK) > 3) {
      return InvalidArgument("Matmul tiling: N_BUFFER_33 needs K <= 3 * baseK (" + S(3 * baseK) +
                             "), K is " + S(k_) + "; tessera does not split K over cores");
    }
    const int32_t mDim = static_cast<int32_t>(CeilDiv(m, baseM * 3));
    if (mDim > dim_) {
      return InvalidArgument("Matmul tiling: N_BUFFER_33 with M " + S(m) + " needs " + S(mDim) +
                             " cores along M, SetDim allows " + S(dim_));
    }
    std::vector<std::pair<int32_t, int32_t>> candidates{{mDim, 1}};
    const int64_t nDimMax = std::min<int64_t>(n / baseN, dim_ / mDim);
    for (int32_t nDim = 2; nDim <= nDimMax + 1 && mDim * nDim <= dim_; ++nDim)
      candidates.emplace_back(mDim, nDim);
    if (BestVendorSplit(candidates, m, n, dim_, baseM, baseN, elem, a_.isTrans, b_.isTrans,
                        &vendorM, &vendorN)) {
      const int64_t sM = single_for(m, vendorM), sN = single_for(n, vendorN);
      return CoreSplit{static_cast<int32_t>(sM), static_cast<int32_t>(sN),
                       static_cast<int32_t>(blocks(m, sM) * blocks(n, sN))};
    }
  }
  // With SetFixSplit the vendor's tiling does not follow this model (its MIX sample splits
  // 512 x 128 with 128 x 64 bases by N), so tessera's own split below is kept then; it pads each
  // core's block to whole fixed base blocks, since a tail block costs a whole one (the vendor's
  // fused sample splits 1024 x 640 with 256 x 128 bases by M, where an N split leaves tails).
  if (singleM_ <= 0 && singleN_ <= 0 && fixBaseM_ <= 0 && fixBaseN_ <= 0 &&
      VendorSplitMN(m, n, dim_, DataTypeBytes(a_.type), a_.isTrans, b_.isTrans, &vendorM,
                    &vendorN)) {
    const int64_t sM = single_for(m, vendorM), sN = single_for(n, vendorN);
    return CoreSplit{static_cast<int32_t>(sM), static_cast<int32_t>(sN),
                     static_cast<int32_t>(blocks(m, sM) * blocks(n, sN))};
  }
  CoreSplit best{};
  int64_t bestCost = std::numeric_limits<int64_t>::max();
  const int64_t mParts = singleM_ > 0 ? 1 : std::min<int64_t>(dim_, CeilDiv(m, 16));
  for (int64_t mDim = 1; mDim <= mParts; ++mDim) {
    const int64_t sM = singleM_ > 0 ? singleM_ : single_for(m, mDim);
    const int64_t mUsed = blocks(m, sM);
    const int64_t nParts = singleN_ > 0 ? 1 : std::min<int64_t>(dim_ / mUsed, CeilDiv(n, 16));
    for (int64_t nDim = 1; nDim <= nParts; ++nDim) {
      const int64_t sN = singleN_ > 0 ? singleN_ : single_for(n, nDim);
      const int64_t used = mUsed * blocks(n, sN);
      if (used > dim_) continue;
      const int64_t cost =
          RoundUp(sM, fixBaseM_ > 0 ? fixBaseM_ : 16) * RoundUp(sN, fixBaseN_ > 0 ? fixBaseN_ : 16);
      // Ties: fewer cores, then the taller block (split N first, as Ascend C's samples do).
      if (cost < bestCost || (cost == bestCost && used < best.usedCores) ||
          (cost == bestCost && used == best.usedCores && sM > best.singleM)) {
        bestCost = cost;
        best = CoreSplit{static_cast<int32_t>(sM), static_cast<int32_t>(sN),
                         static_cast<int32_t>(used)};
      }
    }
  }
  if (best.usedCores == 0) {
    return InvalidArgument("Matmul tiling: single shape (" + S(singleM_) + ", " + S(singleN_) +
                           ") cannot be split over SetDim " + S(dim_) + " cores");
  }
  return best;
}

}  // namespace matmul_tiling

Status CheckCubeTiling(const TCubeTiling& t, const MatmulPlatform& p, int32_t a_bytes, bool a_trans,
                       bool b_trans, int32_t bias_bytes) {
  const auto bad = [](const std::string& why) { return InvalidArgument("TCubeTiling: " + why); };
  if (a_bytes != 1 && a_bytes != 2 && a_bytes != 4) {
    return bad("element size " + S(a_bytes) + " of A/B is not 1, 2 or 4 bytes");
  }
  if (t.M < 1 || t.N < 1 || t.Ka < 1 || t.Kb < 1) {
    return bad("M, N, Ka, Kb = " + S(t.M) + ", " + S(t.N) + ", " + S(t.Ka) + ", " + S(t.Kb) +
               " must be at least 1");
  }
  if (t.singleCoreM < 1 || t.singleCoreN < 1 || t.singleCoreK < 1) {
    return bad("singleCoreM/N/K = " + S(t.singleCoreM) + "/" + S(t.singleCoreN) + "/" +
               S(t.singleCoreK) + " must be at least 1");
  }
  if (t.singleCoreM > t.M || t.singleCoreN > t.N || t.singleCoreK > std::min(t.Ka, t.Kb)) {
    return bad("single-core block " + S(t.singleCoreM) + " x " + S(t.singleCoreN) + " x " +
               S(t.singleCoreK) + " exceeds M x N x K = " + S(t.M) + " x " + S(t.N) + " x " +
               S(std::min(t.Ka, t.Kb)));
  }
  if (t.baseM < 16 || t.baseM % 16 != 0 || t.baseN < 16 || t.baseN % 16 != 0) {
    return bad("baseM " + S(t.baseM) + " and baseN " + S(t.baseN) +
               " must be positive multiples of 16");
  }
  const int64_t kAlign = KAlign(a_bytes, a_trans, b_trans);
  if (t.baseK < 1 || t.baseK % kAlign != 0) {
    return bad("baseK " + S(t.baseK) + " must be a positive multiple of " + S(kAlign));
  }
  if (t.dbL0A < 1 || t.dbL0A > 2 || t.dbL0B < 1 || t.dbL0B > 2 || t.dbL0C < 1 || t.dbL0C > 2) {
    return bad("dbL0A/dbL0B/dbL0C = " + S(t.dbL0A) + "/" + S(t.dbL0B) + "/" + S(t.dbL0C) +
               " must each be 1 or 2");
  }
  const int64_t l0a = int64_t{t.baseM} * t.baseK * a_bytes * t.dbL0A;
  if (l0a > p.l0a_bytes) {
    return bad("baseM*baseK*" + S(a_bytes) + "*dbL0A = " + S(l0a) + " bytes exceeds L0A (" +
               S(p.l0a_bytes) + " bytes)");
  }
  const int64_t l0b = int64_t{t.baseN} * t.baseK * a_bytes * t.dbL0B;
  if (l0b > p.l0b_bytes) {
    return bad("baseN*baseK*" + S(a_bytes) + "*dbL0B = " + S(l0b) + " bytes exceeds L0B (" +
               S(p.l0b_bytes) + " bytes)");
  }
  const int64_t l0c = int64_t{t.baseM} * t.baseN * 4 * t.dbL0C;
  if (l0c > p.l0c_bytes) {
    return bad("baseM*baseN*4*dbL0C = " + S(l0c) + " bytes exceeds L0C (" + S(p.l0c_bytes) +
               " bytes)");
  }
  if (t.isBias != 0 && t.isBias != 1) return bad("isBias " + S(t.isBias) + " must be 0 or 1");
  if (t.isBias && int64_t{t.baseN} * 4 > p.bt_bytes) {
    return bad("baseN*4 = " + S(int64_t{t.baseN} * 4) + " bytes of bias exceed the bias table (" +
               S(p.bt_bytes) + " bytes)");
  }
  if (t.stepM < 1 || t.stepN < 1 || t.stepKa < 1 || t.stepKb < 1) {
    return bad("stepM/stepN/stepKa/stepKb = " + S(t.stepM) + "/" + S(t.stepN) + "/" + S(t.stepKa) +
               "/" + S(t.stepKb) + " must be at least 1");
  }
  if (t.depthA1 < t.stepM * t.stepKa || t.depthB1 < t.stepN * t.stepKb) {
    return bad("depthA1 " + S(t.depthA1) + " / depthB1 " + S(t.depthB1) +
               " must hold stepM*stepKa / stepN*stepKb base blocks");
  }
  const int64_t l1 = int64_t{t.baseM} * t.baseK * a_bytes * t.depthA1 +
                     int64_t{t.baseN} * t.baseK * a_bytes * t.depthB1 +
                     (t.isBias ? int64_t{t.baseN} * std::max(bias_bytes, 1) : 0);
  if (l1 > p.l1_bytes) {
    return bad("L1 use baseM*baseK*depthA1 + baseN*baseK*depthB1 (+bias) = " + S(l1) +
               " bytes exceeds L1 (" + S(p.l1_bytes) + " bytes)");
  }
  if (t.iterateOrder != 0 && t.iterateOrder != 1) {
    return bad("iterateOrder " + S(t.iterateOrder) + " must be 0 or 1");
  }
  const int64_t cores = ((int64_t{t.M} + t.singleCoreM - 1) / t.singleCoreM) *
                        ((int64_t{t.N} + t.singleCoreN - 1) / t.singleCoreN);
  if (t.usedCoreNum < 1 || t.usedCoreNum > cores) {
    return bad("usedCoreNum " + S(t.usedCoreNum) + " must be 1.." + S(cores) +
               " (ceil(M/singleCoreM) * ceil(N/singleCoreN))");
  }
  if (t.batchM > 1 || t.batchN > 1 || t.BatchNum > 1) {
    return bad("batched tilings (batchM/batchN/BatchNum > 1) are not supported");
  }
  return OkStatus();
}

}  // namespace tessera::tiling

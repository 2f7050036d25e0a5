// Matmul tiling: the TCubeTiling struct the high-level Matmul API reads, and the host classes that
// fill it (Ascend C's matmul_tiling::MatmulApiTiling / MultiCoreMatmulTiling).
//
//   matmul_tiling::MultiCoreMatmulTiling t(platform);  // MatmulPlatform{}: the 910B AI core
//   t.SetDim(2);                                                  // cores usable (MIX: AIVs)
//   t.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
//   t.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
//   t.SetCType(TPosition::VECIN, CubeFormat::ND, DataType::DT_FLOAT);
//   t.SetBiasType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
//   t.SetShape(512, 128, 128); t.SetOrgShape(512, 128, 128); t.EnableBias(true);
//   TCubeTiling tiling;
//   if (t.GetTiling(tiling) == -1) puts(t.GetErrorInfo().c_str());
//
// TCubeTiling is a TilingData struct (50 int32 fields in the vendor's order, 200 bytes), so an
// operator's tiling struct embeds it with TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling,
// cubeTilingData).
#pragma once

#include <cstdint>
#include <string>

#include "tessera/core/status.h"
#include "tessera/tiling/matmul_tiling_data.h"

namespace tessera::tiling {

// On-chip sizes the tiling must respect (bytes). Defaults: the ascend910b (2201) AI core.
struct MatmulPlatform {
  int64_t l1_bytes = 512 * 1024;
  int64_t l0a_bytes = 64 * 1024;
  int64_t l0b_bytes = 64 * 1024;
  int64_t l0c_bytes = 128 * 1024;
  int64_t ub_bytes = 192 * 1024;
  int64_t bt_bytes = 1024;  // bias table
};

namespace matmul_tiling {

// Ascend C's names and (GE) values.
enum class DataType : int32_t {
  DT_FLOAT = 0,
  DT_FLOAT16 = 1,
  DT_INT8 = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 6,
  DT_BFLOAT16 = 27,
  DT_INT4 = 29,
};
enum class TPosition : int32_t {
  GM,
  A1,
  A2,
  B1,
  B2,
  C1,
  C2,
  CO1,
  CO2,
  VECIN,
  VECOUT,
  VECCALC,
  TSCM,
};
enum class CubeFormat : int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };

// Bytes of one element; 0 for types tessera's matmul does not handle.
int32_t DataTypeBytes(DataType type);
const char* DataTypeName(DataType type);

// One operand's description (SetAType/SetBType/SetCType/SetBiasType).
struct MatmulOperandType {
  TPosition pos = TPosition::GM;
  CubeFormat format = CubeFormat::ND;
  DataType type = DataType::DT_FLOAT16;
  bool isTrans = false;
  bool set = false;
};

// Single-core tiling: the whole SetShape is one core's block (usedCoreNum = 1). Setters return 0,
// or -1 with GetErrorInfo() saying why; GetTiling returns 0 or -1 (nothing written on failure).
class MatmulApiTiling {
 public:
  MatmulApiTiling() = default;
  explicit MatmulApiTiling(const MatmulPlatform& platform) : platform_(platform) {}
  virtual ~MatmulApiTiling() = default;

  int32_t SetAType(TPosition pos, CubeFormat format, DataType type, bool isTrans = false);
  int32_t SetBType(TPosition pos, CubeFormat format, DataType type, bool isTrans = false);
  int32_t SetCType(TPosition pos, CubeFormat format, DataType type);
  int32_t SetBiasType(TPosition pos, CubeFormat format, DataType type);
  // The product this tiling covers: C[m x n] = A[m x k] * B[k x n] (multi-core: all cores).
  int32_t SetShape(int32_t m, int32_t n, int32_t k);
  // The original matrices (row pitches); default: the SetShape sizes.
  int32_t SetOrgShape(int32_t orgM, int32_t orgN, int32_t orgK);
  int32_t SetOrgShape(int32_t orgM, int32_t orgN, int32_t orgKa, int32_t orgKb);
  int32_t EnableBias(bool isBiasIn = false);
  int32_t SetBias(bool isBiasIn = false) { return EnableBias(isBiasIn); }
  // Fixes baseM/baseN/baseK (-1: chosen). Ascend C documents baseK as -1 only, but its samples
  // pass a value; a positive baseK is honoured when it meets the alignment rules.
  int32_t SetFixSplit(int32_t baseMIn = -1, int32_t baseNIn = -1, int32_t baseKIn = -1);
  // Bytes of L1, L0C, UB and bias table the Matmul may use (-1: all of the platform's).
  int32_t SetBufferSpace(int32_t l1Size = -1, int32_t l0CSize = -1, int32_t ubSize = -1,
                         int32_t btSize = -1);
  // 0 = walk M fastest, 1 = N fastest (default 0).
  int32_t SetTraverse(int32_t iterateOrder);
  // Ascend C's ScheduleType::N_BUFFER_33: the multi-core split it implies (a core takes at most
  // 3 base blocks of M and 3 of K; N split by compute intensity); GetTiling fails when K needs
  // more than 3 base blocks (tessera does not split K).
  int32_t SetNBuffer33(bool enable) {
    nBuffer33_ = enable;
    return Ok();
  }

  // Fills `tiling`; -1 on failure (see GetErrorInfo()), `tiling` untouched then.
  int64_t GetTiling(TCubeTiling& tiling);
  // tessera form: the tiling or the reason it cannot be made.
  Result<TCubeTiling> Compute() const;
  // The reason of the last failed call ("" after a success).
  const std::string& GetErrorInfo() const { return error_; }

 protected:
  // Per-core block before the base split; the multi-core class overrides it.
  struct CoreSplit {
    int32_t singleM = 0, singleN = 0, usedCores = 1;
  };
  virtual Result<CoreSplit> SplitCores() const;
  int32_t Fail(Status status);
  int32_t Ok() {
    error_.clear();
    return 0;
  }

  MatmulPlatform platform_;
  int32_t usedCoreNum_ = 0;
  MatmulOperandType a_, b_, c_, bias_;
  int32_t m_ = -1, n_ = -1, k_ = -1;
  int32_t orgM_ = -1, orgN_ = -1, orgKa_ = -1, orgKb_ = -1;
  bool hasBias_ = false;
  int32_t fixBaseM_ = -1, fixBaseN_ = -1, fixBaseK_ = -1;
  int32_t l1Size_ = -1, l0cSize_ = -1, ubSize_ = -1, btSize_ = -1;
  int32_t iterateOrder_ = 0;
  bool nBuffer33_ = false;
  std::string error_;
};

// Multi-core tiling: splits C over up to SetDim cores (K is never split). In a MIX kernel on 2201
// the cores are the vector cores (each AIV is one Matmul client), as in Ascend C.
class MultiCoreMatmulTiling : public MatmulApiTiling {
 public:
  MultiCoreMatmulTiling() = default;
  explicit MultiCoreMatmulTiling(const MatmulPlatform& platform) : MatmulApiTiling(platform) {}

  int32_t SetDim(int32_t dim);
  // Fixes one core's block (-1: chosen); singleK must be -1 or the whole K.
  int32_t SetSingleShape(int32_t singleMIn = -1, int32_t singleNIn = -1, int32_t singleKIn = -1);
  // The cores the last successful GetTiling used (= tiling.usedCoreNum); 0 before.
  int32_t GetCoreNum() const { return usedCoreNum_; }

 protected:
  Result<CoreSplit> SplitCores() const override;

 private:
  int32_t dim_ = 1;
  int32_t singleM_ = -1, singleN_ = -1;
};

}  // namespace matmul_tiling

// Checks a TCubeTiling against the constraints the Matmul API relies on (sizes positive, base
// shapes aligned and within L0A/L0B/L0C/bias table, L1 depths within L1, the split consistent with
// M/N/K). `a_bytes`, `c_bytes` and `bias_bytes` are the element sizes (A and B share one).
// Fails naming the first broken rule and its values.
Status CheckCubeTiling(const TCubeTiling& tiling, const MatmulPlatform& platform, int32_t a_bytes,
                       bool a_trans, bool b_trans, int32_t bias_bytes);

}  // namespace tessera::tiling

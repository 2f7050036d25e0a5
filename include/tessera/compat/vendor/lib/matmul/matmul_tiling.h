// The vendor's host Matmul tiling classes (namespace matmul_tiling, reached through
// tiling/tiling_api.h) and the host tiling struct optiling::TCubeTiling, over tessera's
// tessera::tiling::matmul_tiling classes.
//
//   auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance();
//   matmul_tiling::MultiCoreMatmulTiling api(*platform);
//   api.SetDim(platform->GetCoreNumAic());
//   api.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
//                matmul_tiling::DataType::DT_FLOAT16);
//   ... SetBType / SetCType / SetBiasType / SetShape / SetOrgShape / EnableBias ...
//   optiling::TCubeTiling tiling;             // or AscendC::tiling::TCubeTiling
//   if (api.GetTiling(tiling) == -1) { ... }  // the reason is printed on stderr
//   tiling.SaveToBuffer(buf, tiling.GetDataSize());
//
// Setters return 0, or -1 for a value tessera's Matmul cannot run (an element type or position it
// lacks); GetTiling returns 0 or -1 and then prints why, as the vendor logs it. tessera computes
// one tiling whatever the schedule hints (SetMatmulConfigParams, SetDoubleBuffer, SetSplitRange);
// the batch, layout, sparse, dequant and split-K settings are not provided (tessera's Matmul
// computes one non-batched product and never splits K).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>  // host tiling code prints with std::cout, as the vendor's headers allow
#include <memory>
#include <string>

#include "kernel_tiling/kernel_tiling.h"
#include "tessera/tiling/matmul_tiling.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {

// The host form of TCubeTiling: the same 50 int32_t fields behind set_<field>() / get_<field>(),
// serialised by SaveToBuffer in the kernel struct's layout.
class TCubeTiling {
 public:
  // Bytes SaveToBuffer writes (sizeof the kernel struct: 200).
  size_t GetDataSize() const { return sizeof(data_); }
  // Copies the fields to `buf`; nothing is written (and an error is printed) when `capacity` is
  // smaller than GetDataSize() or `buf` is null.
  void SaveToBuffer(void* buf, size_t capacity) const {
    if (buf == nullptr || capacity < sizeof(data_)) {
      std::fprintf(stderr, "[ERROR] TCubeTiling::SaveToBuffer: %zu bytes of room, %zu needed\n",
                   buf == nullptr ? size_t{0} : capacity, sizeof(data_));
      return;
    }
    std::memcpy(buf, &data_, sizeof(data_));
  }
  // The kernel struct these fields are.
  const ::tessera::tiling::TCubeTiling& data() const { return data_; }
  ::tessera::tiling::TCubeTiling& data() { return data_; }

#define TESSERA_OPTILING_FIELD_(name) \
  void set_##name(int32_t value) {    \
    data_.name = value;               \
  }                                   \
  int32_t get_##name() const {        \
    return data_.name;                \
  }
  TESSERA_OPTILING_FIELD_(usedCoreNum)
  TESSERA_OPTILING_FIELD_(M)
  TESSERA_OPTILING_FIELD_(N)
  TESSERA_OPTILING_FIELD_(Ka)
  TESSERA_OPTILING_FIELD_(Kb)
  TESSERA_OPTILING_FIELD_(singleCoreM)
  TESSERA_OPTILING_FIELD_(singleCoreN)
  TESSERA_OPTILING_FIELD_(singleCoreK)
  TESSERA_OPTILING_FIELD_(baseM)
  TESSERA_OPTILING_FIELD_(baseN)
  TESSERA_OPTILING_FIELD_(baseK)
  TESSERA_OPTILING_FIELD_(depthA1)
  TESSERA_OPTILING_FIELD_(depthB1)
  TESSERA_OPTILING_FIELD_(stepM)
  TESSERA_OPTILING_FIELD_(stepN)
  TESSERA_OPTILING_FIELD_(isBias)
  TESSERA_OPTILING_FIELD_(transLength)
  TESSERA_OPTILING_FIELD_(iterateOrder)
  TESSERA_OPTILING_FIELD_(shareMode)
  TESSERA_OPTILING_FIELD_(shareL1Size)
  TESSERA_OPTILING_FIELD_(shareL0CSize)
  TESSERA_OPTILING_FIELD_(shareUbSize)
  TESSERA_OPTILING_FIELD_(batchM)
  TESSERA_OPTILING_FIELD_(batchN)
  TESSERA_OPTILING_FIELD_(singleBatchM)
  TESSERA_OPTILING_FIELD_(singleBatchN)
  TESSERA_OPTILING_FIELD_(stepKa)
  TESSERA_OPTILING_FIELD_(stepKb)
  TESSERA_OPTILING_FIELD_(depthAL1CacheUB)
  TESSERA_OPTILING_FIELD_(depthBL1CacheUB)
  TESSERA_OPTILING_FIELD_(dbL0A)
  TESSERA_OPTILING_FIELD_(dbL0B)
  TESSERA_OPTILING_FIELD_(dbL0C)
  TESSERA_OPTILING_FIELD_(ALayoutInfoB)
  TESSERA_OPTILING_FIELD_(ALayoutInfoS)
  TESSERA_OPTILING_FIELD_(ALayoutInfoN)
  TESSERA_OPTILING_FIELD_(ALayoutInfoG)
  TESSERA_OPTILING_FIELD_(ALayoutInfoD)
  TESSERA_OPTILING_FIELD_(BLayoutInfoB)
  TESSERA_OPTILING_FIELD_(BLayoutInfoS)
  TESSERA_OPTILING_FIELD_(BLayoutInfoN)
  TESSERA_OPTILING_FIELD_(BLayoutInfoG)
  TESSERA_OPTILING_FIELD_(BLayoutInfoD)
  TESSERA_OPTILING_FIELD_(CLayoutInfoB)
  TESSERA_OPTILING_FIELD_(CLayoutInfoS1)
  TESSERA_OPTILING_FIELD_(CLayoutInfoN)
  TESSERA_OPTILING_FIELD_(CLayoutInfoG)
  TESSERA_OPTILING_FIELD_(CLayoutInfoS2)
  TESSERA_OPTILING_FIELD_(BatchNum)
  TESSERA_OPTILING_FIELD_(mxTypePara)
#undef TESSERA_OPTILING_FIELD_

 private:
  ::tessera::tiling::TCubeTiling data_{};
};

}  // namespace optiling

namespace matmul_tiling {

// The vendor's (GE) element type values.
enum class DataType : int32_t {
  DT_FLOAT = 0,
  DT_FLOAT16 = 1,
  DT_INT8 = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 6,
  DT_UINT16 = 7,
  DT_UINT32 = 8,
  DT_INT64 = 9,
  DT_UINT64 = 10,
  DT_DOUBLE = 11,
  DT_BOOL = 12,
  DT_STRING = 13,
  DT_DUAL_SUB_INT8 = 14,
  DT_DUAL_SUB_UINT8 = 15,
  DT_COMPLEX64 = 16,
  DT_COMPLEX128 = 17,
  DT_QINT8 = 18,
  DT_QINT16 = 19,
  DT_QINT32 = 20,
  DT_QUINT8 = 21,
  DT_QUINT16 = 22,
  DT_RESOURCE = 23,
  DT_STRING_REF = 24,
  DT_DUAL = 25,
  DT_VARIANT = 26,
  DT_BF16 = 27,
  DT_UNDEFINED = 28,
  DT_INT4 = 29,
  DT_UINT1 = 30,
  DT_INT2 = 31,
  DT_UINT2 = 32,
  DT_BFLOAT16 = 33,
  DT_HIFLOAT8 = 34,
  DT_FLOAT8_E4M3FN = 35,
  DT_FLOAT8_E5M2 = 36,
  DT_FLOAT4_E2M1 = 37,
  DT_FLOAT8_E8M0 = 38,
  DT_FLOAT4_E1M2 = 39,
  DT_MAX = 40,
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
  LCM = VECCALC,
  SPM,
  SHM = SPM,
  TSCM,
  MAX,
};

enum class CubeFormat : int32_t {
  ND = 0,
  NZ,
  ZN,
  ZZ,
  NN,
  ND_ALIGN,
  SCALAR,
  VECTOR,
  ROW_MAJOR = ND,
  COLUMN_MAJOR = 8,
};

enum class MatrixTraverse : int32_t { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };
enum class MatrixMadType : int32_t { NORMAL = 0, HF32 = 1, MXMODE = 2 };
enum class ScheduleType : int32_t { INNER_PRODUCT = 0, OUTER_PRODUCT = 1, N_BUFFER_33 = 2 };

// The on-chip sizes a tiling is computed for (0: the ascend910b profile's).
struct PlatformInfo {
  platform_ascendc::SocVersion socVersion = platform_ascendc::SocVersion::ASCEND910B;
  uint64_t l1Size = 0;
  uint64_t l0CSize = 0;
  uint64_t ubSize = 0;
  uint64_t l0ASize = 0;
  uint64_t l0BSize = 0;
};

struct MatmulConfigParams {
  int32_t mmConfigType;
  bool enableL1CacheUB;
  ScheduleType scheduleType;
  MatrixTraverse traverse;
  bool enVecND2NZ;
  MatmulConfigParams(int32_t mmConfigTypeIn = 1, bool enableL1CacheUBIn = false,
                     ScheduleType scheduleTypeIn = ScheduleType::INNER_PRODUCT,
                     MatrixTraverse traverseIn = MatrixTraverse::NOSET, bool enVecND2NZIn = false)
      : mmConfigType(mmConfigTypeIn),
        enableL1CacheUB(enableL1CacheUBIn),
        scheduleType(scheduleTypeIn),
        traverse(traverseIn),
        enVecND2NZ(enVecND2NZIn) {}
};

namespace detail {

namespace tt = ::tessera::tiling::matmul_tiling;

// The vendor's element type as tessera's, or false for one tessera's Matmul lacks.
inline bool ToTessera(DataType in, tt::DataType& out) {
  switch (in) {
    case DataType::DT_FLOAT:
      out = tt::DataType::DT_FLOAT;
      return true;
    case DataType::DT_FLOAT16:
      out = tt::DataType::DT_FLOAT16;
      return true;
    case DataType::DT_BF16:
    case DataType::DT_BFLOAT16:
      out = tt::DataType::DT_BFLOAT16;
      return true;
    case DataType::DT_INT8:
      out = tt::DataType::DT_INT8;
      return true;
    case DataType::DT_INT32:
      out = tt::DataType::DT_INT32;
      return true;
    default:
      return false;
  }
}

inline bool ToTessera(TPosition in, tt::TPosition& out) {
  switch (in) {
    case TPosition::GM:
      out = tt::TPosition::GM;
      return true;
    case TPosition::A1:
      out = tt::TPosition::A1;
      return true;
    case TPosition::A2:
      out = tt::TPosition::A2;
      return true;
    case TPosition::B1:
      out = tt::TPosition::B1;
      return true;
    case TPosition::B2:
      out = tt::TPosition::B2;
      return true;
    case TPosition::C1:
      out = tt::TPosition::C1;
      return true;
    case TPosition::C2:
      out = tt::TPosition::C2;
      return true;
    case TPosition::CO1:
      out = tt::TPosition::CO1;
      return true;
    case TPosition::CO2:
      out = tt::TPosition::CO2;
      return true;
    case TPosition::VECIN:
      out = tt::TPosition::VECIN;
      return true;
    case TPosition::VECOUT:
      out = tt::TPosition::VECOUT;
      return true;
    case TPosition::VECCALC:
      out = tt::TPosition::VECCALC;
      return true;
    case TPosition::TSCM:
      out = tt::TPosition::TSCM;
      return true;
    default:
      return false;
  }
}

inline bool ToTessera(CubeFormat in, tt::CubeFormat& out) {
  if (in == CubeFormat::COLUMN_MAJOR) return false;
  out = static_cast<tt::CubeFormat>(static_cast<int32_t>(in));
  return true;
}

inline ::tessera::tiling::MatmulPlatform PlatformOf(const platform_ascendc::PlatformAscendC& p) {
  ::tessera::tiling::MatmulPlatform out;
  uint64_t v = 0;
  p.GetCoreMemSize(platform_ascendc::CoreMemType::L1, v);
  out.l1_bytes = static_cast<int64_t>(v);
  p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, v);
  out.l0a_bytes = static_cast<int64_t>(v);
  p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, v);
  out.l0b_bytes = static_cast<int64_t>(v);
  p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, v);
  out.l0c_bytes = static_cast<int64_t>(v);
  p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, v);
  out.ub_bytes = static_cast<int64_t>(v);
  p.GetCoreMemSize(platform_ascendc::CoreMemType::BT, v);
  out.bt_bytes = static_cast<int64_t>(v);
  return out;
}

inline ::tessera::tiling::MatmulPlatform PlatformOf(const PlatformInfo& info) {
  ::tessera::tiling::MatmulPlatform out =
      PlatformOf(*platform_ascendc::PlatformAscendCManager::GetInstance());
  if (info.l1Size > 0) out.l1_bytes = static_cast<int64_t>(info.l1Size);
  if (info.l0CSize > 0) out.l0c_bytes = static_cast<int64_t>(info.l0CSize);
  if (info.ubSize > 0) out.ub_bytes = static_cast<int64_t>(info.ubSize);
  if (info.l0ASize > 0) out.l0a_bytes = static_cast<int64_t>(info.l0ASize);
  if (info.l0BSize > 0) out.l0b_bytes = static_cast<int64_t>(info.l0BSize);
  return out;
}

}  // namespace detail

// Setters and GetTiling shared by the single- and multi-core classes.
class MatmulApiTilingBase {
 public:
  virtual ~MatmulApiTilingBase() = default;

  int32_t SetAType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false) {
    detail::tt::TPosition p;
    detail::tt::CubeFormat f;
    detail::tt::DataType d;
    if (!Convert("SetAType", pos, type, dataType, p, f, d)) return -1;
    return impl_->SetAType(p, f, d, isTrans);
  }
  int32_t SetBType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false) {
    detail::tt::TPosition p;
    detail::tt::CubeFormat f;
    detail::tt::DataType d;
    if (!Convert("SetBType", pos, type, dataType, p, f, d)) return -1;
    return impl_->SetBType(p, f, d, isTrans);
  }
  int32_t SetCType(TPosition pos, CubeFormat type, DataType dataType) {
    detail::tt::TPosition p;
    detail::tt::CubeFormat f;
    detail::tt::DataType d;
    if (!Convert("SetCType", pos, type, dataType, p, f, d)) return -1;
    return impl_->SetCType(p, f, d);
  }
  int32_t SetBiasType(TPosition pos, CubeFormat type, DataType dataType) {
    detail::tt::TPosition p;
    detail::tt::CubeFormat f;
    detail::tt::DataType d;
    if (!Convert("SetBiasType", pos, type, dataType, p, f, d)) return -1;
    return impl_->SetBiasType(p, f, d);
  }
  // -1 for a size means the original shape's (SetOrgShape), resolved by GetTiling.
  virtual int32_t SetShape(int32_t m, int32_t n, int32_t k) {
    pendingShape_ = m == -1 || n == -1 || k == -1;
    shape_[0] = m;
    shape_[1] = n;
    shape_[2] = k;
    return pendingShape_ && m >= -1 && n >= -1 && k >= -1 && m != 0 && n != 0 && k != 0
               ? 0
               : impl_->SetShape(m, n, k);
  }
  int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKIn) {
    return SetOrgShape(orgMIn, orgNIn, orgKIn, orgKIn);
  }
  int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKaIn, int32_t orgKbIn) {
    org_[0] = orgMIn;
    org_[1] = orgNIn;
    org_[2] = orgKaIn;
    return impl_->SetOrgShape(orgMIn, orgNIn, orgKaIn, orgKbIn);
  }
  int32_t SetBias(bool isBiasIn = false) { return impl_->EnableBias(isBiasIn); }
  int32_t EnableBias(bool isBiasIn = false) { return impl_->EnableBias(isBiasIn); }
  int32_t SetFixSplit(int32_t baseMIn = -1, int32_t baseNIn = -1, int32_t baseKIn = -1) {
    return impl_->SetFixSplit(baseMIn, baseNIn, baseKIn);
  }
  int32_t SetBufferSpace(int32_t l1Size = -1, int32_t l0CSize = -1, int32_t ubSize = -1,
                         int32_t btSize = -1) {
    return impl_->SetBufferSpace(l1Size, l0CSize, ubSize, btSize);
  }
  // FIRSTM walks the base blocks M fastest (iterateOrder 0), FIRSTN N fastest (1).
  int32_t SetTraverse(MatrixTraverse traverse) {
    if (traverse == MatrixTraverse::NOSET) return 0;
    return impl_->SetTraverse(traverse == MatrixTraverse::FIRSTN ? 1 : 0);
  }
  // Schedule hints: tessera runs every configuration with one schedule; the traverse order is
  // honoured, and N_BUFFER_33 splits the cores as the vendor does with it.
  void SetMatmulConfigParams(int32_t mmConfigTypeIn = 1, bool enableL1CacheUBIn = false,
                             ScheduleType scheduleTypeIn = ScheduleType::INNER_PRODUCT,
                             MatrixTraverse traverseIn = MatrixTraverse::NOSET,
                             bool enVecND2NZIn = false) {
    SetMatmulConfigParams(MatmulConfigParams(mmConfigTypeIn, enableL1CacheUBIn, scheduleTypeIn,
                                             traverseIn, enVecND2NZIn));
  }
  void SetMatmulConfigParams(const MatmulConfigParams& configParams) {
    SetTraverse(configParams.traverse);
    impl_->SetNBuffer33(configParams.scheduleType == ScheduleType::N_BUFFER_33);
  }

  // Batched matmuls (IterateBatch): the axes of A, B (B, S, N, G, D: S x D matrices) and C
  // (B, S1, N, G, S2) in GM, and the most batches one IterateBatch computes. GetTiling copies
  // them into the tiling's *LayoutInfo* and BatchNum fields.
  int32_t SetALayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
    return SetLayout("SetALayout", layout_[0], b, s, n, g, d);
  }
  int32_t SetBLayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
    return SetLayout("SetBLayout", layout_[1], b, s, n, g, d);
  }
  int32_t SetCLayout(int32_t b, int32_t s1, int32_t n, int32_t g, int32_t s2) {
    return SetLayout("SetCLayout", layout_[2], b, s1, n, g, s2);
  }
  int32_t SetBatchNum(int32_t batch) {
    if (batch <= 0) {
      std::fprintf(stderr, "[ERROR] matmul_tiling: SetBatchNum(%d): expected a count >= 1\n",
                   batch);
      return -1;
    }
    batchNum_ = batch;
    return 0;
  }
  // The NORMAL layout (batch, M, K) x (batch, K, N): batchA A matrices of m x k, batchB B matrices
  // of k x n, max(batchA, batchB) C matrices of m x n.
  int32_t SetBatchInfoForNormal(int32_t batchA, int32_t batchB, int32_t m, int32_t n, int32_t k) {
    if (batchA <= 0 || batchB <= 0 || m <= 0 || n <= 0 || k <= 0 ||
        (batchA % batchB != 0 && batchB % batchA != 0)) {
      std::fprintf(stderr,
                   "[ERROR] matmul_tiling: SetBatchInfoForNormal(%d, %d, %d, %d, %d): expected "
                   "positive sizes and batch counts that divide one another\n",
                   batchA, batchB, m, n, k);
      return -1;
    }
    const int32_t batchC = batchA > batchB ? batchA : batchB;
    SetLayout("SetBatchInfoForNormal", layout_[0], batchA, m, 1, 1, k);
    SetLayout("SetBatchInfoForNormal", layout_[1], batchB, n, 1, 1, k);
    SetLayout("SetBatchInfoForNormal", layout_[2], batchC, m, 1, 1, n);
    if (batchNum_ <= 0) batchNum_ = batchC;
    return 0;
  }

  // The tiling, into the host struct or the kernel struct; -1 (tiling untouched) on failure.
  virtual int64_t GetTiling(optiling::TCubeTiling& tiling) { return GetTiling(tiling.data()); }
  virtual int64_t GetTiling(AscendC::tiling::TCubeTiling& tiling) {
    if (pendingShape_) {
      for (int i = 0; i < 3; ++i) {
        if (shape_[i] == -1 && org_[i] <= 0) {
          std::fprintf(stderr, "[ERROR] matmul_tiling: SetShape(-1, ...) needs SetOrgShape\n");
          return -1;
        }
      }
      if (impl_->SetShape(shape_[0] == -1 ? org_[0] : shape_[0],
                          shape_[1] == -1 ? org_[1] : shape_[1],
                          shape_[2] == -1 ? org_[2] : shape_[2]) != 0) {
        std::fprintf(stderr, "[ERROR] matmul_tiling: %s\n", impl_->GetErrorInfo().c_str());
        return -1;
      }
    }
    ::tessera::tiling::TCubeTiling out;
    if (impl_->GetTiling(out) == -1) {
      std::fprintf(stderr, "[ERROR] matmul_tiling: %s\n", impl_->GetErrorInfo().c_str());
      return -1;
    }
    int32_t* const fields[3][5] = {{&out.ALayoutInfoB, &out.ALayoutInfoS, &out.ALayoutInfoN,
                                    &out.ALayoutInfoG, &out.ALayoutInfoD},
                                   {&out.BLayoutInfoB, &out.BLayoutInfoS, &out.BLayoutInfoN,
                                    &out.BLayoutInfoG, &out.BLayoutInfoD},
                                   {&out.CLayoutInfoB, &out.CLayoutInfoS1, &out.CLayoutInfoN,
                                    &out.CLayoutInfoG, &out.CLayoutInfoS2}};
    for (int t = 0; t < 3; ++t)
      for (int i = 0; i < 5; ++i)
        if (layout_[t][i] > 0) *fields[t][i] = layout_[t][i];
    if (batchNum_ > 0) out.BatchNum = batchNum_;
    tiling = out;
    baseM_ = tiling.baseM;
    baseN_ = tiling.baseN;
    baseK_ = tiling.baseK;
    return 0;
  }
  int32_t GetBaseM() const { return baseM_; }
  int32_t GetBaseN() const { return baseN_; }
  int32_t GetBaseK() const { return baseK_; }
  // Why the last call failed ("" after a success); tessera's addition.
  const std::string& GetErrorInfo() const { return impl_->GetErrorInfo(); }

 protected:
  explicit MatmulApiTilingBase(std::unique_ptr<detail::tt::MatmulApiTiling> impl)
      : impl_(std::move(impl)) {}

  detail::tt::MatmulApiTiling& impl() { return *impl_; }

 private:
  template <class P, class F, class D>
  bool Convert(const char* api, TPosition pos, CubeFormat format, DataType type, P& p, F& f, D& d) {
    if (!detail::ToTessera(pos, p) || !detail::ToTessera(format, f) ||
        !detail::ToTessera(type, d)) {
      std::fprintf(stderr,
                   "[ERROR] matmul_tiling: %s(position %d, format %d, type %d) is not supported "
                   "by tessera's Matmul\n",
                   api, static_cast<int>(pos), static_cast<int>(format), static_cast<int>(type));
      return false;
    }
    return true;
  }

  static int32_t SetLayout(const char* api, int32_t (&axes)[5], int32_t b, int32_t s, int32_t n,
                           int32_t g, int32_t d) {
    if (b <= 0 || s <= 0 || n <= 0 || g <= 0 || d <= 0) {
      std::fprintf(stderr,
                   "[ERROR] matmul_tiling: %s(%d, %d, %d, %d, %d): expected five axes >= 1\n", api,
                   b, s, n, g, d);
      return -1;
    }
    axes[0] = b;
    axes[1] = s;
    axes[2] = n;
    axes[3] = g;
    axes[4] = d;
    return 0;
  }

  std::unique_ptr<detail::tt::MatmulApiTiling> impl_;
  int32_t layout_[3][5] = {};  // A, B, C axes of SetALayout / SetBLayout / SetCLayout (0: unset)
  int32_t batchNum_ = 0;
  int32_t baseM_ = -1, baseN_ = -1, baseK_ = -1;
  bool pendingShape_ = false;  // SetShape had a -1 to take from the original shape
  int32_t shape_[3] = {-1, -1, -1};
  int32_t org_[3] = {-1, -1, -1};
};

// One core computes the whole SetShape (usedCoreNum = 1).
class MatmulApiTiling : public MatmulApiTilingBase {
 public:
  MatmulApiTiling() : MatmulApiTiling(*platform_ascendc::PlatformAscendCManager::GetInstance()) {}
  explicit MatmulApiTiling(const platform_ascendc::PlatformAscendC& ascendcPlatform)
      : MatmulApiTilingBase(
            std::make_unique<detail::tt::MatmulApiTiling>(detail::PlatformOf(ascendcPlatform))) {}
  explicit MatmulApiTiling(const PlatformInfo& platform)
      : MatmulApiTilingBase(
            std::make_unique<detail::tt::MatmulApiTiling>(detail::PlatformOf(platform))) {}
};

// The vendor's host class for batched matmuls: one core computes SetShape for each batch
// (usedCoreNum = 1); the batch axes come from SetALayout/.../SetBatchInfoForNormal.
class BatchMatmulTiling : public MatmulApiTiling {
 public:
  using MatmulApiTiling::MatmulApiTiling;
};

// C split over up to SetDim cores (the AIC count for a cube kernel; the AIV count for a MIX kernel,
// where each AIV is a Matmul client). K is never split.
class MultiCoreMatmulTiling : public MatmulApiTilingBase {
 public:
  MultiCoreMatmulTiling()
      : MultiCoreMatmulTiling(*platform_ascendc::PlatformAscendCManager::GetInstance()) {}
  explicit MultiCoreMatmulTiling(const platform_ascendc::PlatformAscendC& ascendcPlatform)
      : MatmulApiTilingBase(std::make_unique<detail::tt::MultiCoreMatmulTiling>(
            detail::PlatformOf(ascendcPlatform))) {}
  explicit MultiCoreMatmulTiling(const PlatformInfo& platform)
      : MatmulApiTilingBase(
            std::make_unique<detail::tt::MultiCoreMatmulTiling>(detail::PlatformOf(platform))) {}

  int32_t SetDim(int32_t dim) { return Multi().SetDim(dim); }
  // One core's block (-1: chosen); singleK must be -1 or the whole K.
  virtual int32_t SetSingleShape(int32_t singleMIn = -1, int32_t singleNIn = -1,
                                 int32_t singleKIn = -1) {
    return Multi().SetSingleShape(singleMIn, singleNIn, singleKIn);
  }
  // The block of one core and the core counts of the last successful GetTiling.
  int32_t GetSingleShape(int32_t& shapeM, int32_t& shapeN, int32_t& shapeK) {
    if (last_.usedCoreNum == 0) return -1;
    shapeM = last_.singleCoreM;
    shapeN = last_.singleCoreN;
    shapeK = last_.singleCoreK;
    return 0;
  }
  int32_t GetCoreNum(int32_t& dim, int32_t& mDim, int32_t& nDim) {
    if (last_.usedCoreNum == 0) return -1;
    mDim = (last_.M + last_.singleCoreM - 1) / last_.singleCoreM;
    nDim = (last_.N + last_.singleCoreN - 1) / last_.singleCoreN;
    dim = last_.usedCoreNum;
    return 0;
  }
  using MatmulApiTilingBase::GetTiling;
  int64_t GetTiling(AscendC::tiling::TCubeTiling& tiling) override {
    const int64_t r = MatmulApiTilingBase::GetTiling(tiling);
    if (r == 0) last_ = tiling;
    return r;
  }

 private:
  detail::tt::MultiCoreMatmulTiling& Multi() {
    return static_cast<detail::tt::MultiCoreMatmulTiling&>(impl());
  }
  ::tessera::tiling::TCubeTiling last_{};
};

}  // namespace matmul_tiling

// The vendor's sort family on the Atlas A2 layout (dav-2201): Sort32, MrgSort / MrgSort4,
// GetMrgSortResult, Concat, Extract, Sort<T, isFullSort>, GetSortLen / GetSortOffset.
//
// A sorted element ("proposal") takes 8 bytes: the score in the low bytes (a float, or a half
// followed by 2 reserved zero bytes) and its uint32 index in the high 4 bytes. Sorting is by score,
// descending; equal scores keep their input order (within Sort32 the lower position first, in
// MrgSort the lower-numbered queue first), as the vendor documents.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/compat/kernel/adv/detail/adv_common.h"
#include "tessera/compat/vendor/tiling/sort/sort_config.h"

namespace AscendC {

// Up to four sorted queues of proposals for MrgSort.
template <typename T>
struct MrgSortSrcList {
  MrgSortSrcList() {}
  MrgSortSrcList(const LocalTensor<T>& src1In, const LocalTensor<T>& src2In,
                 const LocalTensor<T>& src3In, const LocalTensor<T>& src4In)
      : src1(src1In[0]), src2(src2In[0]), src3(src3In[0]), src4(src4In[0]) {}
  LocalTensor<T> src1;
  LocalTensor<T> src2;
  LocalTensor<T> src3;
  LocalTensor<T> src4;
};

// elementLengths: proposals per queue; validBit: 3, 7 or 15 (the first 2, 3 or 4 queues);
// repeatTimes: merges of four equal contiguous queues, each group following the previous one.
struct MrgSort4Info {
  MrgSort4Info() {}
  MrgSort4Info(const uint16_t elementLengthsIn[4], const bool ifExhaustedSuspensionIn,
               const uint16_t validBitIn, const uint16_t repeatTimesIn)
      : ifExhaustedSuspension(ifExhaustedSuspensionIn),
        validBit(validBitIn),
        repeatTimes(repeatTimesIn) {
    for (int i = 0; i < 4; ++i)
      elementLengths[i] = elementLengthsIn[i];
  }
  uint16_t elementLengths[4] = {0, 0, 0, 0};
  bool ifExhaustedSuspension = false;
  uint16_t validBit = 0;
  uint16_t repeatTimes = 1;
};

namespace adv_api::detail {

struct Proposal {
  float score;
  uint32_t index;
};

template <typename T>
void CheckSortType(const char* api) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, ::tessera::half>,
                "sort APIs: T must be float or half");
  (void)api;
}
// T elements per 8-byte proposal.
template <typename T>
constexpr uint32_t kPerProposal = 8 / sizeof(T);

template <typename T>
Proposal LoadProposal(const T* base, uint64_t k) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(base) + k * 8;
  T score;
  std::memcpy(&score, bytes, sizeof(T));
  Proposal p{static_cast<float>(score), 0};
  std::memcpy(&p.index, bytes + 4, 4);
  return p;
}
// The score is stored as T (exact: it was read from a T), the reserved bytes of a half are zero.
template <typename T>
void StoreProposal(T* base, uint64_t k, const Proposal& p) {
  auto* bytes = reinterpret_cast<uint8_t*>(base) + k * 8;
  std::memset(bytes, 0, 4);
  const T score = static_cast<T>(p.score);
  std::memcpy(bytes, &score, sizeof(T));
  std::memcpy(bytes + 4, &p.index, 4);
}

// Descending by score, stable: what the vendor's sort and merge instructions produce.
inline void StableSortDescending(std::vector<Proposal>& v) {
  std::stable_sort(v.begin(), v.end(),
                   [](const Proposal& a, const Proposal& b) { return a.score > b.score; });
}

// Counts consumed per queue by the last MrgSort (what GetMrgSortResult reads back).
inline uint16_t* MrgSortCounts() {
  thread_local uint16_t counts[4] = {0, 0, 0, 0};
  return counts;
}

}  // namespace adv_api::detail

namespace adv_api {

// Proposals for elemCount elements, and the offset of element elemOffset, in units of T.
template <typename T>
inline uint32_t GetSortLen(const uint32_t elemCount) {
  detail::CheckSortType<T>("GetSortLen");
  return elemCount * detail::kPerProposal<T>;
}
template <typename T>
inline uint32_t GetSortOffset(const uint32_t elemOffset) {
  detail::CheckSortType<T>("GetSortOffset");
  return elemOffset * detail::kPerProposal<T>;
}

// Sorts each group of 32 scores of src0 (with their indices from src1) into 32 proposals of dst.
template <typename T>
void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
            const LocalTensor<uint32_t>& src1, const int32_t repeatTime) {
  using namespace ::tessera::compat::adv;
  detail::CheckSortType<T>("Sort32");
  const char* api = "Sort32";
  Require(repeatTime >= 0 && repeatTime <= 255, api,
          "repeatTime " + std::to_string(repeatTime) + " is outside [0, 255]");
  const uint64_t n = uint64_t{32} * static_cast<uint32_t>(repeatTime);
  if (n == 0) return;
  CheckRead(src0, n, api, "src0");
  CheckRead(src1, n, api, "src1");
  CheckWrite(dst, n * detail::kPerProposal<T>, api);
  std::vector<detail::Proposal> group(32);
  for (uint64_t r = 0; r < n / 32; ++r) {
    for (uint32_t i = 0; i < 32; ++i) {
      group[i] = {static_cast<float>(src0.data()[r * 32 + i]), src1.data()[r * 32 + i]};
    }
    detail::StableSortDescending(group);
    for (uint32_t i = 0; i < 32; ++i)
      detail::StoreProposal(dst.data(), r * 32 + i, group[i]);
  }
}

// Merges the valid queues (2, 3 or 4 sorted proposal lists) into dst, descending. With
// ifExhaustedSuspension the merge stops when the first queue runs out; GetMrgSortResult then tells
// how many proposals were taken from each queue.
template <typename T>
void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params) {
  using namespace ::tessera::compat::adv;
  detail::CheckSortType<T>("MrgSort");
  const char* api = "MrgSort";
  const uint16_t vb = params.validBit;
  Require(vb == 3 || vb == 7 || vb == 15, api,
          "validBit " + std::to_string(vb) + " is not 3, 7 or 15");
  const int queues = vb == 3 ? 2 : vb == 7 ? 3 : 4;
  const LocalTensor<T>* lists[4] = {&src.src1, &src.src2, &src.src3, &src.src4};
  uint64_t group_len = 0;
  for (int q = 0; q < 4; ++q) {
    Require(params.elementLengths[q] <= 4095, api,
            "elementLengths[" + std::to_string(q) + "] " +
                std::to_string(params.elementLengths[q]) + " is above 4095");
    if (q < queues) group_len += params.elementLengths[q];
  }
  const uint32_t repeats = params.repeatTimes;
  if (repeats > 1) {
    Require(queues == 4 && !params.ifExhaustedSuspension, api,
            "repeatTimes > 1 needs validBit 15 and ifExhaustedSuspension false");
  }
  uint16_t* counts = detail::MrgSortCounts();
  for (uint32_t r = 0; r < repeats; ++r) {
    std::vector<detail::Proposal> in[4];
    for (int q = 0; q < queues; ++q) {
      const uint64_t len = params.elementLengths[q];
      const uint64_t first = r * group_len;
      CheckRead(*lists[q], (first + len) * detail::kPerProposal<T>, api, "src");
      in[q].resize(len);
      for (uint64_t k = 0; k < len; ++k)
        in[q][k] = detail::LoadProposal(lists[q]->data(), first + k);
    }
    std::vector<detail::Proposal> out;
    out.reserve(group_len);
    size_t pos[4] = {0, 0, 0, 0};
    for (;;) {
      int best = -1;
      bool exhausted = false;
      for (int q = 0; q < queues; ++q) {
        if (pos[q] == in[q].size()) {
          exhausted = true;
          continue;
        }
        if (best < 0 || in[q][pos[q]].score > in[best][pos[best]].score) best = q;
      }
      if (best < 0 || (exhausted && params.ifExhaustedSuspension)) break;
      out.push_back(in[best][pos[best]++]);
    }
    CheckWrite(dst, (r * group_len + out.size()) * detail::kPerProposal<T>, api);
    for (size_t k = 0; k < out.size(); ++k)
      detail::StoreProposal(dst.data(), r * group_len + k, out[k]);
    for (int q = 0; q < 4; ++q)
      counts[q] = static_cast<uint16_t>(q < queues ? pos[q] : 0);
  }
}
template <typename T>
void MrgSort4(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params) {
  MrgSort(dst, src, params);
}

// The advanced form: the queue lengths and validBit as arguments, and (with isExhaustedSuspension)
// the proposals taken from each queue in sortedNum.
template <typename T, bool isExhaustedSuspension>
void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& sortList,
             const uint16_t elementCountList[4], uint32_t sortedNum[4], uint16_t validBit,
             const int32_t repeatTime) {
  const MrgSort4Info info(elementCountList, isExhaustedSuspension, validBit,
                          static_cast<uint16_t>(repeatTime));
  MrgSort(dst, sortList, info);
  if (isExhaustedSuspension) {
    const uint16_t* counts = detail::MrgSortCounts();
    for (int q = 0; q < 4; ++q)
      sortedNum[q] = counts[q];
  }
}

inline void GetMrgSortResult(uint16_t& mrgSortList1, uint16_t& mrgSortList2, uint16_t& mrgSortList3,
                             uint16_t& mrgSortList4) {
  const uint16_t* counts = detail::MrgSortCounts();
  mrgSortList1 = counts[0];
  mrgSortList2 = counts[1];
  mrgSortList3 = counts[2];
  mrgSortList4 = counts[3];
}

// On this layout the scores are sorted as they are: concat views src.
template <typename T>
void Concat(LocalTensor<T>& concat, const LocalTensor<T>& src, const LocalTensor<T>& /*tmp*/,
            const int32_t repeatTime) {
  detail::CheckSortType<T>("Concat");
  ::tessera::compat::adv::Require(
      repeatTime >= 0 && repeatTime <= 255, "Concat",
      "repeatTime " + std::to_string(repeatTime) + " is outside [0, 255]");
  concat = src;
}

// Splits repeatTime * 32 proposals into their scores and indices.
template <typename T>
void Extract(const LocalTensor<T>& dstValue, const LocalTensor<uint32_t>& dstIndex,
             const LocalTensor<T>& sorted, const int32_t repeatTime) {
  using namespace ::tessera::compat::adv;
  detail::CheckSortType<T>("Extract");
  const char* api = "Extract";
  Require(repeatTime >= 0 && repeatTime <= 255, api,
          "repeatTime " + std::to_string(repeatTime) + " is outside [0, 255]");
  const uint64_t n = uint64_t{32} * static_cast<uint32_t>(repeatTime);
  if (n == 0) return;
  CheckRead(sorted, n * detail::kPerProposal<T>, api, "sorted");
  CheckWrite(dstValue, n, api);
  CheckWrite(dstIndex, n, api);
  for (uint64_t k = 0; k < n; ++k) {
    const detail::Proposal p = detail::LoadProposal(sorted.data(), k);
    dstValue.data()[k] = static_cast<T>(p.score);
    dstIndex.data()[k] = p.index;
  }
}

// Sorts repeatTime groups of 32 scores with their indices into proposals; with isFullSort the
// groups are merged into one list of repeatTime * 32, descending (tmp is not needed).
template <typename T, bool isFullSort>
void Sort(const LocalTensor<T>& dst, const LocalTensor<T>& concat,
          const LocalTensor<uint32_t>& index, LocalTensor<T>& /*tmp*/, const int32_t repeatTime) {
  Sort32(dst, concat, index, repeatTime);
  if constexpr (isFullSort) {
    const uint64_t n = uint64_t{32} * static_cast<uint32_t>(repeatTime);
    std::vector<detail::Proposal> all(n);
    for (uint64_t k = 0; k < n; ++k)
      all[k] = detail::LoadProposal(dst.data(), k);
    detail::StableSortDescending(all);
    for (uint64_t k = 0; k < n; ++k)
      detail::StoreProposal(dst.data(), k, all[k]);
  }
}

// TopK over topKInfo.outter rows of topKInfo.inner elements: the k largest (isLargest) or
// smallest of each row, ordered, ties by position, with their indices (the row's position, or
// srcIndexLocal's entry with isInitIndex: one shared row in Normal mode, one per row in Small
// mode). Normal mode writes rows of k rounded up to 32 bytes (values) and to 8 (indices); Small
// mode (inner 32) rows of k. With isHasfinish, a row whose finishLocal entry is true gets every
// index set to topKInfo.n. The padding of a row past k is left as it was. The tiling is accepted
// for the vendor's signature (tessera sorts without instruction parameters or scratch).
template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          TopKMode topkMode = TopKMode::TOPK_NORMAL>
void TopK(const LocalTensor<T>& dstValueLocal, const LocalTensor<int32_t>& dstIndexLocal,
          const LocalTensor<T>& srcLocal, const LocalTensor<int32_t>& srcIndexLocal,
          const LocalTensor<bool>& finishLocal, const LocalTensor<uint8_t>& /*tmpLocal*/,
          const int32_t k, const TopkTiling& /*tilling*/, const TopKInfo& topKInfo,
          const bool isLargest = true) {
  using namespace ::tessera::compat::adv;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, ::tessera::half>,
                "TopK: T must be float or half");
  const char* api = "TopK";
  constexpr bool small = topkMode == TopKMode::TOPK_NSMALL;
  const int32_t outter = topKInfo.outter, inner = topKInfo.inner;
  Require(outter >= 1 && inner >= 1 && inner % 32 == 0, api,
          "topKInfo needs outter >= 1 and inner a positive multiple of 32, got outter " +
              std::to_string(outter) + " inner " + std::to_string(inner));
  Require(!small || inner == 32, api, "Small mode needs inner 32, got " + std::to_string(inner));
  Require(topKInfo.n >= 1 && topKInfo.n <= inner, api,
          "topKInfo.n " + std::to_string(topKInfo.n) + " is outside [1, inner " +
              std::to_string(inner) + "]");
  Require(k >= 1 && k <= topKInfo.n, api,
          "k " + std::to_string(k) + " is outside [1, n " + std::to_string(topKInfo.n) + "]");
  const uint32_t per_block = 32 / sizeof(T);
  const uint32_t value_row = small ? k : (k + per_block - 1) / per_block * per_block;
  const uint32_t index_row = small ? k : (k + 7) / 8 * 8;
  const uint64_t rows = static_cast<uint32_t>(outter);
  CheckRead(srcLocal, rows * inner, api, "src");
  if constexpr (isInitIndex)
    CheckRead(srcIndexLocal, small ? rows * inner : inner, api, "srcIndex");
  if constexpr (isHasfinish) CheckRead(finishLocal, rows, api, "finish");
  CheckSpace(dstValueLocal, (rows - 1) * value_row + k, api, "dstValue");
  CheckSpace(dstIndexLocal, (rows - 1) * index_row + k, api, "dstIndex");
  std::vector<uint32_t> order(inner);
  for (uint64_t r = 0; r < rows; ++r) {
    const T* row = srcLocal.data() + r * inner;
    for (int32_t i = 0; i < inner; ++i)
      order[i] = i;
    // Stable on position: the vendor's merge sort keeps equal scores in input order, and the
    // smallest-k path negates the scores, which keeps that order too.
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const float x = ToF32(row[a]), y = ToF32(row[b]);
      return isLargest ? x > y : x < y;
    });
    const bool finished = isHasfinish && finishLocal.data()[r];
    T* values = dstValueLocal.data() + r * value_row;
    int32_t* indices = dstIndexLocal.data() + r * index_row;
    for (int32_t j = 0; j < k; ++j) {
      values[j] = row[order[j]];
      int32_t index = static_cast<int32_t>(order[j]);
      if constexpr (isInitIndex) index = srcIndexLocal.data()[(small ? r * inner : 0) + order[j]];
      indices[j] = finished ? topKInfo.n : index;
    }
    if (dstValueLocal.checked()) {
      ::tessera::kernel::detail::ShadowWritten(values, k * sizeof(T));
      ::tessera::kernel::detail::ShadowWritten(indices, k * sizeof(int32_t));
    }
  }
}
template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          TopKMode topkMode = TopKMode::TOPK_NORMAL>
void TopK(const LocalTensor<T>& dstValueLocal, const LocalTensor<int32_t>& dstIndexLocal,
          const LocalTensor<T>& srcLocal, const LocalTensor<int32_t>& srcIndexLocal,
          const LocalTensor<bool>& finishLocal, const int32_t k, const TopkTiling& tilling,
          const TopKInfo& topKInfo, const bool isLargest = true) {
  TopK<T, isInitIndex, isHasfinish, isReuseSrc, topkMode>(
      dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal, finishLocal, LocalTensor<uint8_t>(), k,
      tilling, topKInfo, isLargest);
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC

// The vendor's sort family (tessera/compat/kernel/adv/sort.h) in the vendor's dialect: Sort32,
// MrgSort, Sort<T, isFullSort>, Concat / Extract, GetSortLen / GetSortOffset and the host query,
// launched through tessera's device runtime and compared with a stable scalar sort on random data
// full of ties, fp32 and half. Built as C++17 and C++20.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "dev_buf.h"
#include "kernel_operator.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tiling/sort/sort_tiling.h"

namespace {

using adv_test::DevBuf;

using UbBuf = AscendC::TBuf<AscendC::TPosition::VECCALC>;

template <class T>
AscendC::LocalTensor<T> Load(AscendC::TPipe& pipe, UbBuf& buf, __gm__ uint8_t* gm, uint32_t n) {
  AscendC::GlobalTensor<T> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gm), n);
  pipe.InitBuffer(buf, n * sizeof(T));
  AscendC::LocalTensor<T> t = buf.Get<T>();
  AscendC::DataCopy(t, g, n);
  AscendC::PipeBarrier<PIPE_ALL>();
  return t;
}
template <class T>
void Store(__gm__ uint8_t* gm, const AscendC::LocalTensor<T>& t, uint32_t n) {
  AscendC::GlobalTensor<T> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gm), n);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopy(g, t, n);
}

template <class... Params, class... Args>
tessera::Status RunKernel(void (*kernel)(Params...), Args... args) {
  auto stream = tessera::device::Stream::Create();
  if (!stream.ok()) return stream.status();
  tessera::Status st = tessera::device::Launch(kernel, 1, *stream, args...);
  if (!st.ok()) return st;
  return stream->Synchronize();
}

enum Mode : uint32_t { kSort32, kMerge4, kFullSortExtract };

// mode kSort32: Sort32 over `repeat` groups; kMerge4: Sort32 then MrgSort of groups of four
// queues (repeatTimes = repeat / 4); kFullSortExtract: Concat + Sort<T, true> + Extract, the
// values then the indices written to `out`.
template <class T>
__global__ __vector__ void sort_custom(__gm__ uint8_t* x, __gm__ uint8_t* idx, __gm__ uint8_t* out,
                                       uint32_t repeat, uint32_t mode) {
  AscendC::TPipe pipe;
  UbBuf in, in_idx, work, dst_buf, tmp_buf, idx_out;
  const uint32_t n = repeat * 32;
  AscendC::LocalTensor<T> src = Load<T>(pipe, in, x, n);
  AscendC::LocalTensor<uint32_t> index = Load<uint32_t>(pipe, in_idx, idx, n);
  const uint32_t len = AscendC::GetSortLen<T>(n);
  pipe.InitBuffer(work, len * sizeof(T));
  pipe.InitBuffer(dst_buf, len * sizeof(T));
  AscendC::LocalTensor<T> sorted = work.Get<T>();
  AscendC::LocalTensor<T> dst = dst_buf.Get<T>();
  if (mode == kSort32) {
    AscendC::Sort32<T>(sorted, src, index, static_cast<int32_t>(repeat));
    Store(out, sorted, len);
  } else if (mode == kMerge4) {
    AscendC::Sort32<T>(sorted, src, index, static_cast<int32_t>(repeat));
    AscendC::MrgSort4Info params;
    for (int q = 0; q < 4; ++q)
      params.elementLengths[q] = 32;
    params.validBit = 15;
    params.repeatTimes = static_cast<uint16_t>(repeat / 4);
    const uint32_t step = AscendC::GetSortOffset<T>(32);
    AscendC::MrgSortSrcList<T> list(sorted[0], sorted[step], sorted[2 * step], sorted[3 * step]);
    AscendC::MrgSort<T>(dst, list, params);
    Store(out, dst, len);
  } else {
    pipe.InitBuffer(tmp_buf, len * sizeof(T));
    pipe.InitBuffer(idx_out, n * sizeof(uint32_t));
    AscendC::LocalTensor<T> tmp = tmp_buf.Get<T>();
    AscendC::LocalTensor<T> concat;
    AscendC::Concat(concat, src, tmp, static_cast<int32_t>(repeat * 2));
    AscendC::Sort<T, true>(sorted, concat, index, tmp, static_cast<int32_t>(repeat));
    AscendC::LocalTensor<uint32_t> out_index = idx_out.Get<uint32_t>();
    AscendC::Extract(dst, out_index, sorted, static_cast<int32_t>(repeat));
    Store(out, dst, n);
    AscendC::GlobalTensor<uint32_t> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ uint32_t*>(out + n * sizeof(T)), n);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(g, out_index, n);
  }
}

struct Ref {
  float score;
  uint32_t index;
};

// Descending by score, equal scores in input order, over runs of `run` elements.
std::vector<Ref> StableRuns(const std::vector<float>& s, const std::vector<uint32_t>& idx,
                            size_t run) {
  std::vector<Ref> r(s.size());
  for (size_t i = 0; i < s.size(); ++i)
    r[i] = {s[i], idx[i]};
  for (size_t b = 0; b < r.size(); b += run) {
    std::stable_sort(r.begin() + b, r.begin() + std::min(r.size(), b + run),
                     [](const Ref& a, const Ref& c) { return a.score > c.score; });
  }
  return r;
}

// Scores from a few distinct values (many ties), indices random and distinct.
template <class T>
void MakeInput(uint32_t n, uint32_t seed, std::vector<T>& x, std::vector<uint32_t>& idx) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-6, 6);
  std::uniform_real_distribution<float> frac(0.0f, 1.0f);
  x.resize(n);
  idx.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = static_cast<T>(i % 3 == 0 ? static_cast<float>(d(rng)) : d(rng) + frac(rng));
    idx[i] = i * 2654435761u ^ seed;
  }
}

template <class T>
void CheckProposals(const std::vector<T>& out, const std::vector<Ref>& ref) {
  for (size_t k = 0; k < ref.size(); ++k) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(out.data()) + k * 8;
    T score;
    uint32_t index;
    std::memcpy(&score, bytes, sizeof(T));
    std::memcpy(&index, bytes + 4, 4);
    ASSERT_EQ(static_cast<float>(score), ref[k].score) << "proposal " << k;
    ASSERT_EQ(index, ref[k].index) << "proposal " << k;
    if (sizeof(T) == 2) {
      ASSERT_EQ(bytes[2], 0) << "reserved bytes of proposal " << k;
      ASSERT_EQ(bytes[3], 0) << "reserved bytes of proposal " << k;
    }
  }
}

template <class T>
void CheckMode(uint32_t repeat, Mode mode, uint32_t seed) {
  SCOPED_TRACE("repeat " + std::to_string(repeat) + " mode " + std::to_string(mode));
  std::vector<T> x;
  std::vector<uint32_t> idx;
  const uint32_t n = repeat * 32;
  MakeInput<T>(n, seed, x, idx);
  std::vector<float> xs(x.begin(), x.end());
  const size_t out_elems = mode == kFullSortExtract ? n + n * 4 / sizeof(T) : n * 8 / sizeof(T);
  DevBuf<T> dx(x), dout{std::vector<T>(out_elems)};
  DevBuf<uint32_t> didx(idx);
  const tessera::Status st =
      RunKernel(sort_custom<T>, dx.gm(), didx.gm(), dout.gm(), repeat, static_cast<uint32_t>(mode));
  ASSERT_TRUE(st.ok()) << st.message();
  const std::vector<T>& out = dout.Download();
  if (mode == kSort32) {
    CheckProposals(out, StableRuns(xs, idx, 32));
  } else if (mode == kMerge4) {
    CheckProposals(out, StableRuns(xs, idx, 128));
  } else {
    const std::vector<Ref> ref = StableRuns(xs, idx, n);
    std::vector<uint32_t> got_idx(n);
    std::memcpy(got_idx.data(), out.data() + n, n * 4);
    for (uint32_t k = 0; k < n; ++k) {
      ASSERT_EQ(static_cast<float>(out[k]), ref[k].score) << "value " << k;
      ASSERT_EQ(got_idx[k], ref[k].index) << "index " << k;
    }
  }
}

TEST(CompatAdvSort, Sort32MrgSortAndFullSortFp32) {
  uint32_t seed = 1;
  for (uint32_t repeat : {1u, 3u, 7u, 31u}) {
    CheckMode<float>(repeat, kSort32, seed++);
    CheckMode<float>(repeat, kFullSortExtract, seed++);
  }
  for (uint32_t repeat : {4u, 8u, 28u})
    CheckMode<float>(repeat, kMerge4, seed++);
}

TEST(CompatAdvSort, Sort32MrgSortAndFullSortHalf) {
  uint32_t seed = 50;
  for (uint32_t repeat : {1u, 5u, 33u}) {
    CheckMode<half>(repeat, kSort32, seed++);
    CheckMode<half>(repeat, kFullSortExtract, seed++);
  }
  for (uint32_t repeat : {4u, 12u})
    CheckMode<half>(repeat, kMerge4, seed++);
}

// Unequal queues, three of them, and a merge that stops when the shortest runs out.
__global__ __vector__ void merge_custom(__gm__ uint8_t* x, __gm__ uint8_t* idx, __gm__ uint8_t* out,
                                        __gm__ uint8_t* counts, uint32_t suspend) {
  AscendC::TPipe pipe;
  UbBuf in, in_idx, work, dst_buf;
  AscendC::LocalTensor<float> src = Load<float>(pipe, in, x, 96);
  AscendC::LocalTensor<uint32_t> index = Load<uint32_t>(pipe, in_idx, idx, 96);
  pipe.InitBuffer(work, 192 * sizeof(float));
  pipe.InitBuffer(dst_buf, 192 * sizeof(float));
  AscendC::LocalTensor<float> sorted = work.Get<float>();
  AscendC::LocalTensor<float> dst = dst_buf.Get<float>();
  AscendC::Duplicate(dst, 0.0f, 192);
  AscendC::Sort32<float>(sorted, src, index, 3);
  const uint16_t lengths[4] = {32, 5, 17, 0};
  uint32_t taken[4] = {0, 0, 0, 0};
  AscendC::MrgSortSrcList<float> list(sorted[0], sorted[64], sorted[128], sorted[0]);
  if (suspend != 0) {
    AscendC::MrgSort<float, true>(dst, list, lengths, taken, 7, 1);
  } else {
    AscendC::MrgSort<float, false>(dst, list, lengths, taken, 7, 1);
    uint16_t l[4];
    AscendC::GetMrgSortResult(l[0], l[1], l[2], l[3]);
    for (int q = 0; q < 4; ++q)
      taken[q] = l[q];
  }
  Store(out, dst, 192);
  for (int q = 0; q < 4; ++q)
    reinterpret_cast<uint32_t*>(counts)[q] = taken[q];
}

TEST(CompatAdvSort, MrgSortUnequalQueuesAndSuspension) {
  std::vector<float> x;
  std::vector<uint32_t> idx;
  MakeInput<float>(96, 7, x, idx);
  const std::vector<Ref> runs = StableRuns(x, idx, 32);
  const size_t lens[3] = {32, 5, 17};
  for (uint32_t suspend : {0u, 1u}) {
    SCOPED_TRACE(suspend ? "suspended" : "full");
    DevBuf<float> dx(x), dout{std::vector<float>(192)};
    DevBuf<uint32_t> didx(idx), dcounts{std::vector<uint32_t>(4)};
    ASSERT_TRUE(RunKernel(merge_custom, dx.gm(), didx.gm(), dout.gm(), dcounts.gm(), suspend).ok());
    std::vector<Ref> ref;
    size_t pos[3] = {0, 0, 0};
    for (;;) {
      int best = -1;
      bool done = false;
      for (int q = 0; q < 3; ++q) {
        if (pos[q] == lens[q]) {
          done = true;
          continue;
        }
        if (best < 0 || runs[q * 32 + pos[q]].score > runs[best * 32 + pos[best]].score) best = q;
      }
      if (best < 0 || (done && suspend)) break;
      ref.push_back(runs[best * 32 + pos[best]++]);
    }
    CheckProposals(dout.Download(), ref);
    const std::vector<uint32_t>& counts = dcounts.Download();
    for (int q = 0; q < 3; ++q)
      EXPECT_EQ(counts[q], pos[q]) << "queue " << q;
    EXPECT_EQ(counts[3], 0u);
  }
}

__global__ __vector__ void bad_merge_custom(__gm__ uint8_t* x) {
  AscendC::TPipe pipe;
  UbBuf in;
  AscendC::LocalTensor<float> src = Load<float>(pipe, in, x, 64);
  AscendC::MrgSort4Info params;
  params.validBit = 5;
  AscendC::MrgSortSrcList<float> list(src, src, src, src);
  AscendC::MrgSort<float>(src, list, params);
}

TEST(CompatAdvSort, BadValidBitFailsTheLaunch) {
  DevBuf<float> dx{std::vector<float>(64)};
  const tessera::Status st = RunKernel(bad_merge_custom, dx.gm());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("validBit 5"), std::string::npos) << st.message();
}

TEST(CompatAdvSort, LayoutAndTmpSizeQueries) {
  EXPECT_EQ(AscendC::GetSortLen<float>(96), 192u);
  EXPECT_EQ(AscendC::GetSortLen<half>(96), 384u);
  EXPECT_EQ(AscendC::GetSortOffset<float>(7), 14u);
  EXPECT_EQ(AscendC::GetSortOffset<half>(7), 28u);
  AscendC::SortConfig config;
  config.type = AscendC::SortType::MERGE_SORT;
  uint32_t max_bytes = 1, min_bytes = 1;
  AscendC::GetSortMaxMinTmpSize(
      AscendC::TensorShape(std::vector<int64_t>{128}), AscendC::TensorDataType::DT_FLOAT,
      AscendC::TensorDataType::DT_UINT32, false, config, max_bytes, min_bytes);
  EXPECT_EQ(max_bytes, 0u);
  EXPECT_EQ(min_bytes, 0u);
}

}  // namespace

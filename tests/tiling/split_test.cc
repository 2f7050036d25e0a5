#include "tessera/tiling/split.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace tessera::tiling {
namespace {

// Exact reference arithmetic for totals near INT64_MAX (a GCC/Clang extension).
__extension__ using Int128 = __int128;

// Core counts the properties are checked for, plus random ones.
std::vector<int64_t> CoreCounts(std::mt19937_64& rng) {
  std::vector<int64_t> cores = {1, 2, 7, 31, 48, 4097, 1000003};
  for (int i = 0; i < 6; ++i)
    cores.push_back(static_cast<int64_t>(rng() % 5000) + 1);
  return cores;
}

std::vector<int64_t> Totals(std::mt19937_64& rng) {
  std::vector<int64_t> totals = {0, 1, 2, 7, 31, 32, 33, 4096, 4097, 1000003, 2000000};
  for (int i = 0; i < 8; ++i)
    totals.push_back(static_cast<int64_t>(rng() % 3000000));
  return totals;
}

TEST(ContiguousSplit, Examples) {
  const ContiguousSplit s = ContiguousSplit::Create(5, 4).value();
  EXPECT_EQ(s.per_core(), 2);
  EXPECT_EQ(s.RangeOf(0), (Range{0, 2}));
  EXPECT_EQ(s.RangeOf(1), (Range{2, 4}));
  EXPECT_EQ(s.RangeOf(2), (Range{4, 5}));  // clamped end
  EXPECT_TRUE(s.RangeOf(3).empty());       // idle core
  EXPECT_TRUE(s.RangeOf(4).empty());       // outside the launch
  EXPECT_TRUE(s.RangeOf(-1).empty());
  const ContiguousSplit idle = ContiguousSplit::Create(2, 8).value();
  EXPECT_EQ(idle.RangeOf(1), (Range{1, 2}));
  EXPECT_EQ(idle.RangeOf(7).size(), 0);
}

TEST(ContiguousSplit, RejectsBadArguments) {
  EXPECT_EQ(ContiguousSplit::Create(-1, 4).status().message(),
            "ContiguousSplit: total must be >= 0, got -1");
  EXPECT_EQ(ContiguousSplit::Create(10, 0).status().message(),
            "ContiguousSplit: core count must be >= 1, got 0");
  EXPECT_FALSE(StridedSplit::Create(10, -2).ok());
  EXPECT_FALSE(StridedSplit::Create(-5, 2).ok());
}

TEST(ContiguousSplit, CoversEveryElementOnceInOrder) {
  std::mt19937_64 rng(1);
  for (int64_t cores : CoreCounts(rng)) {
    for (int64_t total : Totals(rng)) {
      const ContiguousSplit s = ContiguousSplit::Create(total, cores).value();
      const int64_t per = (total + cores - 1) / cores;
      int64_t next = 0;
      for (int64_t id = 0; id < cores; ++id) {
        const Range r = s.RangeOf(id);
        if (r.empty()) {
          ASSERT_EQ(r.size(), 0);
          continue;
        }
        // Consecutive non-empty ranges abut: disjoint and gap-free.
        ASSERT_EQ(r.begin, next) << "total " << total << " cores " << cores << " id " << id;
        ASSERT_LE(r.size(), per);
        next = r.end;
      }
      ASSERT_EQ(next, total) << "total " << total << " cores " << cores;
    }
  }
}

TEST(StridedSplit, VisitsEveryTileOnceAndBalances) {
  std::mt19937_64 rng(2);
  for (int64_t cores :
       {int64_t{1}, int64_t{3}, int64_t{7}, int64_t{31}, int64_t{4097}, int64_t{1000003}}) {
    for (int64_t total : {int64_t{0}, int64_t{1}, int64_t{5}, int64_t{100}, int64_t{4097},
                          int64_t{65537}, static_cast<int64_t>(rng() % 100000)}) {
      const StridedSplit s = StridedSplit::Create(total, cores).value();
      std::vector<uint8_t> seen(static_cast<size_t>(total), 0);
      int64_t min_count = INT64_MAX, max_count = 0;
      for (int64_t id = 0; id < cores; ++id) {
        int64_t visited = 0;
        for (int64_t t = s.First(id); t < s.total(); t += s.step()) {
          ASSERT_EQ(seen[static_cast<size_t>(t)]++, 0) << "tile " << t << " visited twice";
          ++visited;
        }
        ASSERT_EQ(visited, s.Count(id));
        min_count = std::min(min_count, visited);
        max_count = std::max(max_count, visited);
      }
      for (uint8_t v : seen)
        ASSERT_EQ(v, 1);
      EXPECT_LE(max_count - min_count, 1);
    }
  }
  EXPECT_EQ(StridedSplit::Create(10, 4).value().Count(4), 0);
}

// Totals and core counts near INT64_MAX: every share is computed exactly (checked against
// Int128 arithmetic) and the shares of sampled cores tile [0, total) without gaps.
TEST(ContiguousSplit, ExactNearInt64Max) {
  std::mt19937_64 rng(std::random_device{}());
  const int64_t max = INT64_MAX;
  const std::vector<int64_t> totals = {max,         max - 1,    max - 6,
                                       max / 2 + 1, max - 4097, static_cast<int64_t>(rng() >> 1)};
  const std::vector<int64_t> cores = {
      1, 2, 3, 7, 48, 4097, int64_t{1} << 40, max - 1, max, static_cast<int64_t>(rng() >> 1) + 1};
  for (int64_t total : totals) {
    for (int64_t c : cores) {
      SCOPED_TRACE("total " + std::to_string(total) + " cores " + std::to_string(c));
      const ContiguousSplit split = *ContiguousSplit::Create(total, c);
      const Int128 per = (static_cast<Int128>(total) + c - 1) / c;
      ASSERT_EQ(split.per_core(), static_cast<int64_t>(per));
      std::vector<int64_t> ids = {0, 1, c - 1, c - 2, c / 2};
      for (int i = 0; i < 20; ++i)
        ids.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(c)));
      for (int64_t id : ids) {
        if (id < 0 || id >= c) continue;
        const Int128 begin = std::min<Int128>(id * per, total);
        const Int128 end = std::min<Int128>(begin + per, total);
        const Range r = split.RangeOf(id);
        ASSERT_EQ(r.begin, static_cast<int64_t>(begin)) << "core " << id;
        ASSERT_EQ(r.end, static_cast<int64_t>(end)) << "core " << id;
        if (id + 1 < c) {
          ASSERT_EQ(split.RangeOf(id + 1).begin, r.end) << "core " << id;
        }
      }
      EXPECT_EQ(split.RangeOf(c - 1).end, total);
      EXPECT_TRUE(split.RangeOf(-1).empty());
    }
  }
}

TEST(StridedSplit, ExactNearInt64MaxAndRejectsOverflowingLoops) {
  const int64_t max = INT64_MAX;
  for (int64_t c : {int64_t{1}, int64_t{2}, int64_t{7}, int64_t{4097}, int64_t{1} << 40}) {
    const int64_t total = max - c;  // the largest total whose loop cannot overflow
    const StridedSplit split = *StridedSplit::Create(total, c);
    Int128 sum = 0;
    for (int64_t id : {int64_t{0}, int64_t{1}, c / 2, c - 1}) {
      if (id >= c) continue;
      const Int128 expected = (static_cast<Int128>(total) - id + c - 1) / c;
      EXPECT_EQ(split.Count(id), static_cast<int64_t>(expected)) << "cores " << c << " id " << id;
    }
    if (c <= 7) {
      for (int64_t id = 0; id < c; ++id)
        sum += split.Count(id);
      EXPECT_EQ(sum, static_cast<Int128>(total));
    }
    Result<StridedSplit> over = StridedSplit::Create(total + 1, c);
    ASSERT_FALSE(over.ok());
    EXPECT_NE(over.status().message().find("would overflow"), std::string_view::npos);
  }
}

TEST(UniformSplit, AtvossWorkedExamples) {
  // E = 10^6, W = 32, 48 cores: 31250 units -> 651 per core, the first 2 cores one more.
  const UniformSplitConfig a = MakeUniformSplit(1000000, 32, 32, 48).value();
  EXPECT_EQ(a.blockNum, 48u);
  EXPECT_EQ(a.unitNumPerCore, 651u);
  EXPECT_EQ(a.moreUnitCoreNum, 2u);
  EXPECT_EQ(a.tailNum, 0u);
  EXPECT_EQ(a.unitNum, 32u);
  EXPECT_EQ(a.CoreElementCount(0), 20864u);
  EXPECT_EQ(a.CoreElementCount(1), 20864u);
  for (uint32_t i = 2; i < 48; ++i)
    EXPECT_EQ(a.CoreElementCount(i), 20832u);
  EXPECT_EQ(a.CoreOffset(1), 20864u);
  EXPECT_EQ(a.CoreOffset(2), 41728u);
  EXPECT_EQ(a.CoreOffset(3), 41728u + 20832u);
  EXPECT_EQ(a.CoreOffset(47) + a.CoreElementCount(47), 1000000u);

  // E = 100, W = 32: 3 cores, the last with a 4-element tail.
  const UniformSplitConfig b = MakeUniformSplit(100, 32, 32, 48).value();
  EXPECT_EQ(b.blockNum, 3u);
  EXPECT_EQ(b.unitNumPerCore, 1u);
  EXPECT_EQ(b.moreUnitCoreNum, 0u);
  EXPECT_EQ(b.tailNum, 4u);
  EXPECT_EQ(b.CoreElementCount(0), 32u);
  EXPECT_EQ(b.CoreElementCount(2), 36u);
  EXPECT_EQ(b.CoreOffset(2), 64u);
  EXPECT_EQ(b.CoreElementCount(3), 0u);  // outside the launch
  EXPECT_EQ(b.CoreOffset(3), 100u);
}

TEST(UniformSplit, SmallInputIsOneCoreTail) {
  // BASIC_BLOCK 1000 rounds up to 1024 = 32 units; E = 1000 fits in one core's minimum.
  const UniformSplitConfig c = MakeUniformSplit(1000, 32, 1000, 48).value();
  EXPECT_EQ(c.blockNum, 1u);
  EXPECT_EQ(c.unitNumPerCore, 0u);
  EXPECT_EQ(c.moreUnitCoreNum, 0u);
  EXPECT_EQ(c.tailNum, 1000u);
  EXPECT_EQ(c.CoreElementCount(0), 1000u);
  EXPECT_EQ(c.CoreOffset(0), 0u);
  // E = 5000 with the same minimum: 156 units / 32 per core -> 5 cores.
  const UniformSplitConfig d = MakeUniformSplit(5000, 32, 1000, 48).value();
  EXPECT_EQ(d.blockNum, 5u);
  EXPECT_EQ(d.unitNumPerCore, 31u);
  EXPECT_EQ(d.moreUnitCoreNum, 1u);
  EXPECT_EQ(d.tailNum, 8u);
}

TEST(UniformSplit, RejectsBadArguments) {
  EXPECT_EQ(MakeUniformSplit(0, 32, 32, 48).status().message(),
            "UniformSplit: element count must be > 0 (empty shape), got 0");
  EXPECT_FALSE(MakeUniformSplit(100, 0, 32, 48).ok());
  EXPECT_FALSE(MakeUniformSplit(100, 32, 0, 48).ok());
  EXPECT_EQ(MakeUniformSplit(100, 32, 32, 0).status().message(),
            "UniformSplit: core_num must be in [1, 2^32), got 0");
}

TEST(UniformSplit, PropertyCoversExactlyOnceAndBalances) {
  std::mt19937_64 rng(3);
  const std::vector<int64_t> units = {1, 8, 32, 33, 256, 1000};
  for (int iter = 0; iter < 400; ++iter) {
    const int64_t e = iter < 10 ? iter + 1 : static_cast<int64_t>(rng() % 5000000) + 1;
    const int64_t w = units[rng() % units.size()];
    const int64_t min_core = static_cast<int64_t>(rng() % 8192) + 1;
    const std::vector<int64_t> cores = {1,    7,       31,
                                        4097, 1000003, static_cast<int64_t>(rng() % 100) + 1};
    for (int64_t c : cores) {
      const UniformSplitConfig cfg = MakeUniformSplit(e, w, min_core, c).value();
      ASSERT_LE(cfg.blockNum, static_cast<uint64_t>(c));
      ASSERT_EQ(cfg.TotalElements(), static_cast<uint64_t>(e));
      uint64_t next = 0, min_units = UINT64_MAX, max_units = 0;
      for (uint32_t i = 0; i < cfg.blockNum; ++i) {
        // Offsets abut and counts add up: the ranges are disjoint and cover [0, E).
        ASSERT_EQ(cfg.CoreOffset(i), next) << "E " << e << " W " << w << " core " << i;
        const uint64_t count = cfg.CoreElementCount(i);
        next += count;
        const uint64_t whole = count - (i == cfg.blockNum - 1 ? cfg.tailNum : 0);
        ASSERT_EQ(whole % cfg.unitNum, 0u);
        min_units = std::min(min_units, whole / cfg.unitNum);
        max_units = std::max(max_units, whole / cfg.unitNum);
      }
      ASSERT_EQ(next, static_cast<uint64_t>(e));
      ASSERT_LE(max_units - min_units, 1u) << "E " << e << " W " << w << " cores " << c;
      if (cfg.unitNumPerCore == 0 && cfg.moreUnitCoreNum == 0) {
        ASSERT_EQ(cfg.tailNum, static_cast<uint64_t>(e));  // small input: one core, all tail
      } else {
        ASSERT_LT(cfg.tailNum, cfg.unitNum);
      }
    }
  }
}

TEST(MixSplit, CoreIdAndRowHalves) {
  const MixSplit vec = MixSplit::Create(2).value();
  // Flattened AIV index 5 = AI core 2, sub-core 1.
  EXPECT_EQ(vec.CoreId(5), 2);
  EXPECT_EQ(vec.SubBlockIdx(5), 1);
  EXPECT_EQ(vec.CoreId(4), 2);
  EXPECT_EQ(vec.SubBlockRows(7, 0), (Range{0, 4}));
  EXPECT_EQ(vec.SubBlockRows(7, 1), (Range{4, 7}));
  EXPECT_EQ(vec.SubBlockRows(1, 1), (Range{1, 1}));
  EXPECT_TRUE(vec.SubBlockRows(8, 2).empty());
  const MixSplit cube = MixSplit::Create(1).value();
  EXPECT_EQ(cube.CoreId(5), 5);
  EXPECT_EQ(cube.SubBlockRows(7, 0), (Range{0, 7}));
  EXPECT_EQ(MixSplit::Create(3).status().message(),
            "MixSplit: sub_block_num must be 1 or 2, got 3");

  for (int64_t rows = 0; rows < 300; ++rows) {
    const Range a = vec.SubBlockRows(rows, 0), b = vec.SubBlockRows(rows, 1);
    ASSERT_EQ(a.begin, 0);
    ASSERT_EQ(a.end, b.begin);
    ASSERT_EQ(b.end, rows);
    ASSERT_EQ(a.size(), (rows + 1) / 2);
    ASSERT_LE(a.size() - b.size(), 1);
  }
  // Every AIV of a 24-block launch maps to the AI core of its block.
  for (int64_t aiv = 0; aiv < 48; ++aiv)
    ASSERT_EQ(vec.CoreId(aiv) * 2 + vec.SubBlockIdx(aiv), aiv);
}

}  // namespace
}  // namespace tessera::tiling

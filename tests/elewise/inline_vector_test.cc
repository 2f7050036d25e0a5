// InlineVector (the engine's per-block tables) against std::vector over random operation
// sequences, including the aliasing cases: pushing or resizing with one of its own elements while
// it moves from the inline storage to the heap, or grows on the heap.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "tessera/elewise/detail/engine.h"

namespace tessera::elewise::block {
namespace {

using Vec = InlineVector<uint64_t, 4>;

void ExpectSame(const Vec& v, const std::vector<uint64_t>& ref) {
  ASSERT_EQ(v.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i)
    ASSERT_EQ(v[i], ref[i]) << "at " << i;
}

// Appends the same n random values to both.
void PushRandom(size_t n, std::mt19937_64& rng, Vec& v, std::vector<uint64_t>& ref) {
  for (size_t i = 0; i < n; ++i) {
    const uint64_t x = rng();
    v.push_back(x);
    ref.push_back(x);
  }
}

TEST(InlineVectorTest, PushingItsOwnElementWhileGrowing) {
  std::mt19937_64 rng(11);
  for (size_t n : {1u, 3u, 4u, 7u, 8u, 31u}) {
    Vec v;
    std::vector<uint64_t> ref;
    PushRandom(n, rng, v, ref);
    // Each push may grow (4 -> 8 -> 16 -> 32 -> 64): the pushed value lives in the old block.
    for (size_t i = 0; i < 40; ++i) {
      const size_t from = rng() % ref.size();
      v.push_back(v[from]);
      ref.push_back(ref[from]);
      ExpectSame(v, ref);
    }
  }
}

TEST(InlineVectorTest, ResizingWithItsOwnElement) {
  std::mt19937_64 rng(12);
  for (size_t n : {1u, 4u, 5u, 17u}) {
    Vec v;
    std::vector<uint64_t> ref;
    PushRandom(n, rng, v, ref);
    const size_t to = n * 3 + 1;
    v.resize(to, v[n - 1]);
    ref.resize(to, ref[n - 1]);
    ExpectSame(v, ref);
  }
}

TEST(InlineVectorTest, RandomOperationsMatchStdVector) {
  std::mt19937_64 rng(13);
  Vec v;
  std::vector<uint64_t> ref;
  for (int step = 0; step < 2000; ++step) {
    const uint64_t x = rng();
    switch (rng() % 6) {
      case 0:
      case 1:
        v.push_back(x);
        ref.push_back(x);
        break;
      case 2: {
        const size_t n = rng() % 40;
        v.resize(n, x);
        ref.resize(n, x);
        break;
      }
      case 3: {
        Vec copy(v);
        v = copy;  // copy assignment from a copy
        break;
      }
      case 4: {
        Vec moved(std::move(v));
        v = std::move(moved);
        break;
      }
      default:
        if (rng() % 8 == 0) {
          v.clear();
          ref.clear();
        }
        break;
    }
    ExpectSame(v, ref);
  }
}

}  // namespace
}  // namespace tessera::elewise::block

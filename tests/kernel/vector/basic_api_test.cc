// The basic vector APIs beyond arithmetic: bitwise and shift instructions, CreateVecIndex, Brcb,
// Copy with mask + repeat addressing and the mask register (NORMAL / COUNTER, isSetMask =
// false), AddRelu / SubRelu / Axpy, Compares and the compare mask register, against scalar
// references on random data; and, in launched kernels, static LocalTensors, GetTPipePtr with
// event ids, and the checked-mode errors.
#include <algorithm>
#include <cmath>
#include <limits>

#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/stream.h"
#include "tessera/kernel/kernel.h"
#include "vector_test_util.h"

namespace tessera::kernel::testing {
namespace {

template <class T>
std::vector<T> RandomInts(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> dist(std::numeric_limits<T>::min(),
                                              std::numeric_limits<T>::max());
  std::vector<T> v(n);
  for (auto& x : v)
    x = static_cast<T>(dist(rng));
  return v;
}

// A host buffer of n elements then kPad sentinels, as an unchecked tensor of n + kPad elements.
template <class T>
struct IntBuf {
  std::vector<T> v;
  uint32_t n;
  IntBuf(uint32_t count, uint32_t seed) : v(RandomInts<T>(count + kPad, seed)), n(count) {}
  LocalTensor<T> t() {
    return LocalTensor<T>(v.data(), n + kPad, TPosition::VECCALC, false, nullptr, 0);
  }
};

template <class T>
void CheckBitwise() {
  using U = std::make_unsigned_t<T>;
  for (int32_t n : kCounts) {
    IntBuf<T> a(n, 1 + n), b(n, 2 + n), d(n, 3 + n);
    const std::vector<T> before = d.v;
    const T s = RandomInts<T>(1, 4 + n)[0];
    const auto expect = [&](const char* what, auto fn) {
      for (int32_t i = 0; i < n; ++i)
        ASSERT_EQ(d.v[i], static_cast<T>(fn(i))) << what << " n=" << n << " i=" << i;
      for (uint32_t i = n; i < n + kPad; ++i)
        ASSERT_EQ(d.v[i], before[i]) << what << ": element past count written";
    };
    And(d.t(), a.t(), b.t(), n);
    expect("And", [&](int i) { return U(a.v[i]) & U(b.v[i]); });
    Or(d.t(), a.t(), b.t(), n);
    expect("Or", [&](int i) { return U(a.v[i]) | U(b.v[i]); });
    Not(d.t(), a.t(), n);
    expect("Not", [&](int i) { return U(~U(a.v[i])); });
    Ands(d.t(), a.t(), s, n);
    expect("Ands", [&](int i) { return U(a.v[i]) & U(s); });
    Ors(d.t(), a.t(), s, n);
    expect("Ors", [&](int i) { return U(a.v[i]) | U(s); });
    // The template form with the scalar in element 0 of src0.
    static constexpr BinaryConfig kScalarFirst = {0};
    Ors<BinaryDefaultType, true, kScalarFirst>(d.t(), b.t(), a.t(), n);
    expect("Ors<config>", [&](int i) { return U(a.v[i]) | U(b.v[0]); });
    for (uint32_t sh : {0u, 1u, 5u, uint32_t(sizeof(T) * 8 - 1)}) {
      ShiftLeft(d.t(), a.t(), static_cast<T>(sh), n);
      expect("ShiftLeft", [&](int i) { return U(U(a.v[i]) << sh); });
      ShiftRight(d.t(), a.t(), static_cast<T>(sh), n);
      // Arithmetic for signed types (C++20 defines >> on negatives as arithmetic).
      expect("ShiftRight", [&](int i) { return T(a.v[i] >> sh); });
    }
    // A scalar shift of the width or more (checked mode reports it) moves every bit out.
    for (uint32_t sh : {uint32_t(sizeof(T) * 8), uint32_t(sizeof(T) * 8 + 3)}) {
      ShiftLeft(d.t(), a.t(), static_cast<T>(sh), n);
      expect("ShiftLeft(too far)", [&](int) { return U(0); });
      ShiftRight(d.t(), a.t(), static_cast<T>(sh), n);
      expect("ShiftRight(too far)",
             [&](int i) { return T(std::is_signed_v<T> && a.v[i] < 0 ? -1 : 0); });
    }
    // Per-element amounts, including ones of the width or more and negative ones.
    IntBuf<T> amounts(n, 5 + n);
    for (auto& x : amounts.v)
      x = static_cast<T>(static_cast<int64_t>(x) % (sizeof(T) * 8 + 4));
    ShiftLeft(d.t(), a.t(), amounts.t(), n);
    expect("ShiftLeft(tensor)", [&](int i) {
      const U k = U(amounts.v[i]);
      return k >= sizeof(T) * 8 ? U(0) : U(U(a.v[i]) << k);
    });
    ShiftRight(d.t(), a.t(), amounts.t(), n);
    expect("ShiftRight(tensor)", [&](int i) {
      const U k = U(amounts.v[i]);
      if (k >= sizeof(T) * 8) return T(std::is_signed_v<T> && a.v[i] < 0 ? -1 : 0);
      return T(a.v[i] >> k);
    });
  }
}

TEST_P(TargetTest, BitwiseAndShiftsAllIntegerTypes) {
  CheckBitwise<uint16_t>();
  CheckBitwise<int16_t>();
  CheckBitwise<int32_t>();
  CheckBitwise<uint32_t>();
}

TEST_P(TargetTest, AndOrMaskRepeatForm) {
  // 16-bit: 128 elements per repeat, 16 per block; sparse bits in both words.
  IntBuf<uint16_t> a(1024, 11), b(1024, 12), d(1024, 13);
  const std::vector<uint16_t> before = d.v;
  const uint64_t mask[2] = {0xF0F0F0F0F00FF00Full, 0x8000000000000001ull};
  BinaryRepeatParams p;
  p.dstRepStride = 10;
  p.src0BlkStride = 2;
  p.src0RepStride = 16;
  And(d.t(), a.t(), b.t(), mask, 3, p);
  std::vector<uint16_t> want = before;
  for (int r = 0; r < 3; ++r) {
    for (int e = 0; e < 128; ++e) {
      if ((mask[e / 64] >> (e % 64) & 1) == 0) continue;
      const int blk = e / 16, j = e % 16;
      const int di = (r * 10 + blk) * 16 + j, ai = (r * 16 + blk * 2) * 16 + j,
                bi = (r * 8 + blk) * 16 + j;
      want[di] = a.v[ai] & b.v[bi];
    }
  }
  EXPECT_EQ(d.v, want);
}

template <class T>
void CheckIndex() {
  std::mt19937 rng(7);
  for (int32_t n : kCounts) {
    Buf<T> d(n);
    T first;
    if constexpr (std::is_integral_v<T>) {
      first = static_cast<T>(std::uniform_int_distribution<int32_t>(-1000, 1000)(rng));
    } else {
      first = T(std::uniform_real_distribution<float>(-100.0f, 100.0f)(rng));
    }
    CreateVecIndex(d.t(), first, n);
    for (int32_t i = 0; i < n; ++i) {
      if constexpr (std::is_integral_v<T>) {
        ASSERT_EQ(d[i], static_cast<T>(static_cast<int64_t>(first) + i)) << i;
      } else {
        // The exact value rounded once.
        ASSERT_EQ(Bits(d[i]), Bits(T(static_cast<float>(static_cast<double>(first) + i))))
            << "n=" << n << " i=" << i;
      }
    }
    d.ExpectSentinels("CreateVecIndex");
  }
}

TEST_P(TargetTest, CreateVecIndexAllTypes) {
  CheckIndex<int32_t>();
  CheckIndex<float>();
  CheckIndex<half>();
  // int16 wraps modulo 2^16 (no sentinel helper for int16: check the values and the tail).
  std::vector<int16_t> v(70000 + kPad, 77);
  CreateVecIndex(LocalTensor<int16_t>(v.data(), v.size(), TPosition::VECCALC, false, nullptr, 0),
                 int16_t{-5}, 70000);
  for (int i = 0; i < 70000; ++i)
    ASSERT_EQ(v[i], static_cast<int16_t>(-5 + i)) << i;
  EXPECT_EQ(v[70000], 77);
}

template <class T>
void CheckBrcb(uint8_t repeat, uint16_t blk, uint16_t rep) {
  constexpr int kPerBlock = 32 / sizeof(T);
  IntBuf<uint32_t> seed(64, repeat * 31 + blk);
  std::vector<T> src(repeat * 8);
  for (size_t i = 0; i < src.size(); ++i)
    std::memcpy(static_cast<void*>(&src[i]), &seed.v[i], sizeof(T));
  const size_t size = ((repeat - 1) * rep + 7 * blk + 1) * kPerBlock + kPad;
  std::vector<T> dst(size);
  std::vector<uint8_t> before(size * sizeof(T));
  for (size_t i = 0; i < before.size(); ++i)
    before[i] = static_cast<uint8_t>(i * 37 + 1);
  std::memcpy(dst.data(), before.data(), before.size());
  std::vector<T> want = dst;
  for (int r = 0; r < repeat; ++r) {
    for (int k = 0; k < 8; ++k) {
      for (int j = 0; j < kPerBlock; ++j)
        want[(r * rep + k * blk) * kPerBlock + j] = src[r * 8 + k];
    }
  }
  Brcb(LocalTensor<T>(dst.data(), dst.size(), TPosition::VECCALC, false, nullptr, 0),
       LocalTensor<T>(src.data(), src.size(), TPosition::VECCALC, false, nullptr, 0), repeat,
       {blk, rep});
  ASSERT_EQ(std::memcmp(dst.data(), want.data(), size * sizeof(T)), 0)
      << "repeat " << int(repeat) << " blk " << blk << " rep " << rep;
}

TEST(VectorMoveTest, BrcbBroadcastsEachElementToABlock) {
  for (uint8_t repeat : {1, 2, 7}) {
    CheckBrcb<uint16_t>(repeat, 1, 8);
    CheckBrcb<float>(repeat, 1, 8);
    CheckBrcb<half>(repeat, 2, 17);
    CheckBrcb<int32_t>(repeat, 3, 1);  // overlapping repeats: the later one wins
  }
}

// Reference of Copy's addressing for `count` selected elements per repeat `bits`.
template <class T>
std::vector<T> CopyModel(std::vector<T> dst, const std::vector<T>& src, const uint64_t bits[2],
                         const uint64_t last[2], int repeats, const CopyRepeatParams& p) {
  constexpr int kPerBlock = 32 / sizeof(T);
  for (int r = 0; r < repeats; ++r) {
    const uint64_t* m = r + 1 == repeats ? last : bits;
    for (int e = 0; e < 8 * kPerBlock; ++e) {
      if ((m[e / 64] >> (e % 64) & 1) == 0) continue;
      const int blk = e / kPerBlock, j = e % kPerBlock;
      dst[(r * p.dstRepeatSize + blk * p.dstStride) * kPerBlock + j] =
          src[(r * p.srcRepeatSize + blk * p.srcStride) * kPerBlock + j];
    }
  }
  return dst;
}

TEST(VectorMoveTest, CopyNormalCounterAndRegisterMasks) {
  IntBuf<int32_t> src(18 * 64, 21), dst(18 * 64, 22);
  const std::vector<int32_t> before = dst.v;
  // NORMAL, continuous mask: the first 8 elements of each of 18 rows of 64 (the kit's case).
  Copy(dst.t(), src.t(), 8, 18, {1, 1, 1, 8});
  const uint64_t first8[2] = {0xFF, 0};
  EXPECT_EQ(dst.v, CopyModel(before, src.v, first8, first8, 18, {1, 1, 1, 8}));
  // NORMAL, bit mask with block strides.
  dst.v = before;
  const uint64_t sparse[2] = {0x8421'0F0F'F00F'1234ull, 0};
  Copy(dst.t(), src.t(), sparse, 5, {2, 3, 17, 24});
  EXPECT_EQ(dst.v, CopyModel(before, src.v, sparse, sparse, 5, {2, 3, 17, 24}));
  // isSetMask = false reads the register the previous call left (sparse).
  dst.v = before;
  Copy<int32_t, false>(dst.t(), src.t(), MASK_PLACEHOLDER, 4, {1, 1, 8, 8});
  EXPECT_EQ(dst.v, CopyModel(before, src.v, sparse, sparse, 4, {1, 1, 8, 8}));
  // COUNTER: 150 elements = 2 full repeats of 64 and 22; repeatTime ignored.
  dst.v = before;
  SetMaskCount();
  SetVectorMask<int32_t, MaskMode::COUNTER>(150);
  Copy<int32_t, false>(dst.t(), src.t(), MASK_PLACEHOLDER, 1, {1, 2, 8, 16});
  const uint64_t full[2] = {~0ull, 0}, rest[2] = {(1ull << 22) - 1, 0};
  EXPECT_EQ(dst.v, CopyModel(before, src.v, full, rest, 3, {1, 2, 8, 16}));
  // COUNTER with isSetMask = true: the mask argument is the count.
  dst.v = before;
  Copy(dst.t(), src.t(), 7, 9, {1, 1, 8, 8});
  const uint64_t seven[2] = {0x7F, 0};
  EXPECT_EQ(dst.v, CopyModel(before, src.v, seven, seven, 1, {1, 1, 8, 8}));
  SetMaskNorm();
  ResetMask();
  // After ResetMask every element of a repeat is selected.
  dst.v = before;
  Copy<int32_t, false>(dst.t(), src.t(), MASK_PLACEHOLDER, 2, {1, 1, 8, 8});
  EXPECT_EQ(dst.v, CopyModel(before, src.v, full, full, 2, {1, 1, 8, 8}));
}

TEST_P(TargetTest, BinaryRepeatFormInCounterMode) {
  Buf<float> a = Random<float>(300, -4, 4, 31), b = Random<float>(300, -4, 4, 32);
  Buf<float> d = Random<float>(300, -4, 4, 33);
  const std::vector<float> before = d.v;
  SetMaskCount();
  SetVectorMask<float>(0, 201);  // the (high, low) form: low is the count
  Add<float, false>(d.t(), a.t(), b.t(), MASK_PLACEHOLDER, 1, BinaryRepeatParams{});
  SetMaskNorm();
  ResetMask();
  for (int i = 0; i < 300; ++i)
    ASSERT_EQ(d[i], i < 201 ? a[i] + b[i] : before[i]) << i;
  d.ExpectSentinels("Add counter");
}

template <class T>
void CheckFused() {
  for (int32_t n : kCounts) {
    Buf<T> a = Random<T>(n, -8, 8, 41 + n), b = Random<T>(n, -8, 8, 42 + n);
    Buf<T> d = Random<T>(n, -8, 8, 43 + n);
    AddRelu(d.t(), a.t(), b.t(), n);
    for (int32_t i = 0; i < n; ++i) {
      ASSERT_EQ(Bits(d[i]), Bits(FromF<T>(std::max(ToF(a[i]) + ToF(b[i]), 0.0f)))) << i;
    }
    SubRelu(d.t(), a.t(), b.t(), n);
    for (int32_t i = 0; i < n; ++i) {
      ASSERT_EQ(Bits(d[i]), Bits(FromF<T>(std::max(ToF(a[i]) - ToF(b[i]), 0.0f)))) << i;
    }
    d.ExpectSentinels("AddRelu/SubRelu");
    const std::vector<T> acc = d.v;
    const T s = FromF<T>(-1.75f);
    Axpy(d.t(), a.t(), s, n);
    for (int32_t i = 0; i < n; ++i) {
      // Fused (FMA targets) or product and sum rounded apart (the others).
      const float product = ToF(a[i]) * ToF(s);
      const float apart = ToF(acc[i]) + product;
      const float fused = std::fma(ToF(a[i]), ToF(s), ToF(acc[i]));
      ASSERT_TRUE(Bits(d[i]) == Bits(FromF<T>(apart)) || Bits(d[i]) == Bits(FromF<T>(fused)))
          << "Axpy n=" << n << " i=" << i;
    }
    d.ExpectSentinels("Axpy");
  }
}

TEST_P(TargetTest, AddReluSubReluAxpy) {
  CheckFused<float>();
  CheckFused<half>();
  CheckFused<bfloat16>();
}

template <class T>
bool RefCompare(CMPMODE m, double a, double b) {
  switch (m) {
    case CMPMODE::LT:
      return a < b;
    case CMPMODE::GT:
      return a > b;
    case CMPMODE::EQ:
      return a == b;
    case CMPMODE::LE:
      return a <= b;
    case CMPMODE::GE:
      return a >= b;
    default:
      return a != b;
  }
}

template <class T>
void CheckCompares() {
  for (int32_t n : kCounts) {
    // Few distinct values so EQ / NE are exercised; a NaN for the floating types.
    Buf<T> a = Random<T>(n, -3, 3, 51 + n);
    if constexpr (!std::is_same_v<T, int32_t>) {
      for (int32_t i = 0; i < n; ++i)
        a[i] = FromF<T>(std::round(ToF(a[i])));
      a[n / 2] = FromF<T>(std::numeric_limits<float>::quiet_NaN());
    }
    const T s = FromF<T>(1.0f);
    for (CMPMODE m :
         {CMPMODE::LT, CMPMODE::GT, CMPMODE::EQ, CMPMODE::LE, CMPMODE::GE, CMPMODE::NE}) {
      Buf<uint8_t> bits((n + 7) / 8);
      Compares(bits.t(), a.t(), s, m, n);
      for (int32_t i = 0; i < n; ++i) {
        ASSERT_EQ(bits[i / 8] >> (i % 8) & 1,
                  RefCompare<T>(m, static_cast<double>(ToF(a[i])), static_cast<double>(ToF(s))))
            << TypeName<T>() << " mode " << int(m) << " i=" << i;
      }
      for (int32_t i = n; i < (n + 7) / 8 * 8; ++i)
        ASSERT_EQ(bits[i / 8] >> (i % 8) & 1, 0) << "bit past count";
      bits.ExpectSentinels("Compares");
    }
  }
}

TEST_P(TargetTest, ComparesAllModesAndTypes) {
  CheckCompares<float>();
  CheckCompares<half>();
  CheckCompares<bfloat16>();
  CheckCompares<int32_t>();
}

TEST_P(TargetTest, CompareRegisterFormAndCmpMask) {
  Buf<half> a = Random<half>(256, -2, 2, 61), b = Random<half>(256, -2, 2, 62);
  BinaryRepeatParams p;
  p.src0BlkStride = 2;
  const uint64_t mask[2] = {0xFFFF'0000'FFFF'00F1ull, 0x0F00'0000'0000'FFFFull};
  Compare(a.t(), b.t(), CMPMODE::GT, mask, p);
  Buf<uint8_t> out(16);
  GetCmpMask(out.t());
  for (int e = 0; e < 128; ++e) {
    const int blk = e / 16, j = e % 16;
    const bool selected = mask[e / 64] >> (e % 64) & 1;
    const bool want = selected && ToF(a[blk * 2 * 16 + j]) > ToF(b[blk * 16 + j]);
    ASSERT_EQ(out[e / 8] >> (e % 8) & 1, want ? 1 : 0) << e;
  }
  out.ExpectSentinels("GetCmpMask");
  // SetCmpMask then GetCmpMask round-trips the 16 bytes.
  Buf<uint8_t> in(16), back(16);
  for (int i = 0; i < 16; ++i)
    in[i] = static_cast<uint8_t>(i * 29 + 3);
  SetCmpMask(in.t());
  GetCmpMask(back.t());
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(back[i], in[i]);
}

TEST_P(TargetTest, SelectWithRepeatedMask) {
  // VSEL_CMPMASK_SPR: the first 64 bits (float) select in every repeat of 64 elements.
  for (uint32_t n : {1u, 63u, 64u, 200u, 4097u}) {
    Buf<float> a = Random<float>(n, -5, 5, 71 + n), b = Random<float>(n, -5, 5, 72 + n);
    Buf<float> d(n);
    Buf<uint8_t> mask(8);
    for (int i = 0; i < 8; ++i)
      mask[i] = static_cast<uint8_t>(0x5A ^ (i * 53 + n));
    Select(d.t(), mask.t(), a.t(), b.t(), SELMODE::VSEL_CMPMASK_SPR, n);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t e = i % 64;
      ASSERT_EQ(d[i], (mask[e / 8] >> (e % 8) & 1) ? a[i] : b[i]) << "n=" << n << " i=" << i;
    }
    d.ExpectSentinels("Select CMPMASK_SPR");
  }
}

// Scalar references of the per-repeat reductions, in double over the selected elements.
struct RepeatRef {
  double value = 0;
  uint32_t index = 0;
  bool any = false;
};

template <class T>
std::vector<RepeatRef> RefRepeats(ReduceType type, const Buf<T>& src, const uint64_t bits[2],
                                  int repeats, int blk, int rep, int group) {
  constexpr int kPerBlock = 32 / sizeof(T);
  std::vector<RepeatRef> out;
  for (int r = 0; r < repeats; ++r) {
    for (int g0 = 0; g0 < 8 * kPerBlock; g0 += group) {
      RepeatRef acc;
      for (int e = g0; e < g0 + group; ++e) {
        if ((bits[e / 64] >> (e % 64) & 1) == 0) continue;
        const double v = ToF(src.v[(r * rep + (e / kPerBlock) * blk) * kPerBlock + e % kPerBlock]);
        if (type == ReduceType::SUM) {
          acc.value += v;
        } else if (!acc.any || (type == ReduceType::MAX ? v > acc.value : v < acc.value)) {
          acc.value = v;
          acc.index = static_cast<uint32_t>(e);
        }
        acc.any = true;
      }
      out.push_back(acc);
    }
  }
  return out;
}

template <class T>
void CheckReduceRepeat(double tol) {
  constexpr int kPerRepeat = 256 / sizeof(T);
  const uint64_t sparse[2] = {0xF00F'FFFF'0000'F0F1ull,
                              sizeof(T) == 2 ? 0x0000'FFFF'8000'0001ull : 0};
  for (int repeats : {1, 3, 9}) {
    Buf<T> src = Random<T>(16 * kPerRepeat, -10, 10, 81 + repeats);
    for (ReduceType type : {ReduceType::SUM, ReduceType::MAX, ReduceType::MIN}) {
      const auto ref = RefRepeats(type, src, sparse, repeats, 2, 12, kPerRepeat);
      for (ReduceOrder order : {ReduceOrder::ORDER_VALUE_INDEX, ReduceOrder::ORDER_INDEX_VALUE,
                                ReduceOrder::ORDER_ONLY_VALUE, ReduceOrder::ORDER_ONLY_INDEX}) {
        Buf<T> dst(4 * repeats * 3);
        const int dst_rep = 3;
        if (type == ReduceType::SUM) {
          ReduceRepeat<ReduceType::SUM>(dst.t(), src.t(), sparse, repeats, dst_rep, 2, 12, order);
        } else if (type == ReduceType::MAX) {
          ReduceRepeat<ReduceType::MAX>(dst.t(), src.t(), sparse, repeats, dst_rep, 2, 12, order);
        } else {
          ReduceRepeat<ReduceType::MIN>(dst.t(), src.t(), sparse, repeats, dst_rep, 2, 12, order);
        }
        const bool pair = type != ReduceType::SUM && (order == ReduceOrder::ORDER_VALUE_INDEX ||
                                                      order == ReduceOrder::ORDER_INDEX_VALUE);
        const bool only_index = type != ReduceType::SUM && order == ReduceOrder::ORDER_ONLY_INDEX;
        const int unit = pair ? 2 : only_index ? 4 / sizeof(T) : 1;
        for (int r = 0; r < repeats; ++r) {
          const T* out = dst.v.data() + r * dst_rep * unit;
          if (only_index) {
            uint32_t idx;
            std::memcpy(&idx, out, 4);
            ASSERT_EQ(idx, ref[r].index);
            continue;
          }
          const T value = order == ReduceOrder::ORDER_INDEX_VALUE && pair ? out[1] : out[0];
          ASSERT_NEAR(ToF(value), ref[r].value, tol * (1 + std::fabs(ref[r].value)))
              << TypeName<T>() << " type " << int(type) << " r=" << r;
          if (pair) {
            const T index_bits = order == ReduceOrder::ORDER_VALUE_INDEX ? out[1] : out[0];
            ASSERT_EQ(Bits(index_bits), ref[r].index) << "r=" << r;
          }
        }
        dst.ExpectSentinels("ReduceRepeat");
      }
    }
  }
}

TEST_P(TargetTest, ReduceRepeatAllOrders) {
  CheckReduceRepeat<float>(1e-6);
  CheckReduceRepeat<half>(1.0 / 1024);
}

template <class T>
void CheckBlockAndPair(double tol) {
  constexpr int kPerBlock = 32 / sizeof(T);
  constexpr int kPerRepeat = 8 * kPerBlock;
  const uint64_t sparse[2] = {0xFFFF'00FF'F0F0'0003ull, sizeof(T) == 2 ? ~0ull : 0};
  for (int repeats : {1, 2, 7}) {
    Buf<T> src = Random<T>(10 * kPerRepeat, -10, 10, 91 + repeats);
    // ReduceDataBlock MAX with the bit mask, block stride 1, repeat stride 9.
    const auto blocks = RefRepeats(ReduceType::MAX, src, sparse, repeats, 1, 9, kPerBlock);
    Buf<T> dst(8 * repeats * 2);
    ReduceDataBlock<ReduceType::MAX>(dst.t(), src.t(), sparse, repeats, 2, 1, 9);
    for (int r = 0; r < repeats; ++r) {
      for (int k = 0; k < 8; ++k) {
        const RepeatRef& want = blocks[r * 8 + k];
        if (want.any) {
          ASSERT_EQ(ToF(dst[r * 16 + k]), want.value) << "r=" << r << " k=" << k;
        }
      }
    }
    dst.ExpectSentinels("ReduceDataBlock");
    // SUM with a continuous mask.
    Buf<T> sums(8 * repeats);
    const uint64_t first[2] = {kPerRepeat - 5 >= 64 ? ~0ull : (1ull << (kPerRepeat - 5)) - 1,
                               kPerRepeat - 5 > 64 ? (1ull << (kPerRepeat - 5 - 64)) - 1 : 0};
    const auto sum_ref = RefRepeats(ReduceType::SUM, src, first, repeats, 1, 8, kPerBlock);
    ReduceDataBlock<ReduceType::SUM>(sums.t(), src.t(), kPerRepeat - 5, repeats, 1, 1, 8);
    for (int i = 0; i < 8 * repeats; ++i)
      ASSERT_NEAR(ToF(sums[i]), sum_ref[i].value, tol * 16) << i;
    sums.ExpectSentinels("ReduceDataBlock SUM");
    // ReducePairElem with the sparse mask (pairs with one selected element keep it alone).
    const auto pairs = RefRepeats(ReduceType::SUM, src, sparse, repeats, 1, 8, 2);
    Buf<T> pd(kPerRepeat / 2 * repeats);
    ReducePairElem<ReduceType::SUM>(pd.t(), src.t(), sparse, repeats, 1, 1, 8);
    for (int i = 0; i < kPerRepeat / 2 * repeats; ++i) {
      if (pairs[i].any) {
        ASSERT_NEAR(ToF(pd[i]), pairs[i].value, tol * 16) << i;
      }
    }
    pd.ExpectSentinels("ReducePairElem");
  }
}

TEST_P(TargetTest, ReduceDataBlockAndPairElem) {
  CheckBlockAndPair<float>(1e-6);
  CheckBlockAndPair<half>(1.0 / 1024);
}

TEST_P(TargetTest, ReduceMaskFormsAndSpecialRegisters) {
  constexpr int kPerRepeat = 128;  // half
  for (int repeats : {1, 3, 65}) {
    Buf<half> src = Random<half>(repeats * 2 * kPerRepeat, -50, 50, 101 + repeats);
    Buf<half> work(16), dst(2);
    const int mask = 100;
    // Reference over the first 100 elements of repeats 16 blocks apart.
    double sum = 0, best = -1e9;
    uint32_t best_at = 0;
    for (int r = 0; r < repeats; ++r) {
      for (int e = 0; e < mask; ++e) {
        const uint32_t at = r * 2 * kPerRepeat + e;
        const double v = ToF(src[at]);
        sum += v;
        if (v > best) {
          best = v;
          best_at = at;
        }
      }
    }
    ReduceMax(dst.t(), src.t(), work.t(), mask, repeats, 16, true);
    ASSERT_EQ(ToF(dst[0]), best);
    ASSERT_EQ(Bits(dst[1]), best_at);
    half value, index;
    GetReduceRepeatMaxMinSpr(value, index);
    EXPECT_EQ(ToF(value), best);
    ReduceSum(dst.t(), src.t(), work.t(), mask, repeats, 16);
    ASSERT_NEAR(ToF(dst[0]), sum, 1e-3 * (1 + std::fabs(sum)));
    EXPECT_EQ(Bits(GetReduceRepeatSumSpr<half>()), Bits(dst[0]));
    dst.ExpectSentinels("ReduceMax/ReduceSum mask form");
  }
}

template <class T>
void CheckGatherMask() {
  constexpr int kPerRepeat = 256 / sizeof(T);
  IntBuf<uint32_t> seed(8 * kPerRepeat, 111);
  Buf<T> src(8 * kPerRepeat);
  std::memcpy(static_cast<void*>(src.v.data()), seed.v.data(), 8 * kPerRepeat * sizeof(T));
  for (uint8_t pattern = 1; pattern <= 7; ++pattern) {
    Buf<T> dst(4 * kPerRepeat);
    uint64_t count = 0;
    GatherMask(dst.t(), src.t(), pattern, false, 0, {1, 3, 16, 0}, count);
    std::vector<uint32_t> want;
    for (int r = 0; r < 3; ++r) {
      for (int e = 0; e < kPerRepeat; ++e) {
        const bool take =
            pattern == 7 || (pattern <= 2 ? e % 2 == pattern - 1 : e % 4 == pattern - 3);
        if (take) want.push_back(Bits(src[r * 2 * kPerRepeat + e]));
      }
    }
    ASSERT_EQ(count, want.size()) << int(pattern);
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(Bits(dst[i]), want[i]) << int(pattern) << " " << i;
    dst.ExpectSentinels("GatherMask");
  }
  // A pattern tensor in COUNTER mode: 70 elements, the same pattern bytes for every repeat.
  std::vector<uint8_t> bits(64);
  for (size_t i = 0; i < bits.size(); ++i)
    bits[i] = static_cast<uint8_t>(i * 97 + 13);
  Buf<T> dst(4 * kPerRepeat);
  uint64_t count = 0;
  const int total = kPerRepeat + 70;
  GatherMask(dst.t(), src.t(),
             LocalTensor<uint8_t>(bits.data(), bits.size(), TPosition::VECCALC, false, nullptr, 0),
             true, total, {1, 5, 8, 0}, count);
  std::vector<uint32_t> want;
  for (int i = 0; i < total; ++i) {
    const int e = i % kPerRepeat;
    if (bits[e / 8] >> (e % 8) & 1) want.push_back(Bits(src[i]));
  }
  ASSERT_EQ(count, want.size());
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(Bits(dst[i]), want[i]) << i;
  dst.ExpectSentinels("GatherMask tensor");
}

TEST(VectorGatherTest, GatherMaskPatternsAndTensor) {
  CheckGatherMask<float>();
  CheckGatherMask<half>();
  CheckGatherMask<int32_t>();
}

TEST(VectorGatherTest, GatherAndGatherb) {
  Buf<float> src = Random<float>(512, -9, 9, 121), dst(300);
  std::vector<uint32_t> offsets(300);
  std::mt19937 rng(5);
  for (auto& o : offsets)
    o = std::uniform_int_distribution<uint32_t>(0, 511 - 16)(rng) * 4;
  const LocalTensor<uint32_t> off(offsets.data(), 300, TPosition::VECCALC, false, nullptr, 0);
  Gather(dst.t(), src.t(), off, 64, 300);
  for (int i = 0; i < 300; ++i)
    ASSERT_EQ(dst[i], src[(64 + offsets[i]) / 4]) << i;
  dst.ExpectSentinels("Gather");
  std::vector<uint32_t> blocks(16);
  for (auto& b : blocks)
    b = std::uniform_int_distribution<uint32_t>(0, 63 - 1)(rng) * 32;
  Buf<float> out(2 * 10 * 8);
  Gatherb(out.t(), src.t(),
          LocalTensor<uint32_t>(blocks.data(), 16, TPosition::VECCALC, false, nullptr, 0), 2,
          {1, 10});
  for (int r = 0; r < 2; ++r) {
    for (int k = 0; k < 8; ++k) {
      for (int j = 0; j < 8; ++j)
        ASSERT_EQ(out[(r * 10 + k) * 8 + j], src[blocks[r * 8 + k] / 4 + j]);
    }
  }
  out.ExpectSentinels("Gatherb");
}

TEST_P(TargetTest, ScalarAndUnaryRepeatForms) {
  // half: 128 per repeat, 16 per block. dst repeats 9 blocks apart, src blocks 2 apart.
  Buf<half> src = Random<half>(2048, -4, 4, 131), dst = Random<half>(1024, -4, 4, 132);
  const std::vector<half> before = dst.v;
  const uint64_t mask[2] = {0x00FF'FF00'0F0F'F0F0ull, 0x8000'0000'0000'FFFFull};
  const UnaryRepeatParams p{1, 2, 9, 16};
  const half alpha = 0.01;
  LeakyRelu(dst.t(), src.t(), alpha, mask, 3, p);
  std::vector<half> want = before;
  const auto model = [&](auto fn) {
    for (int r = 0; r < 3; ++r) {
      for (int e = 0; e < 128; ++e) {
        if ((mask[e / 64] >> (e % 64) & 1) == 0) continue;
        const int blk = e / 16, j = e % 16;
        want[(r * 9 + blk) * 16 + j] = fn(src[(r * 16 + blk * 2) * 16 + j]);
      }
    }
  };
  model([&](half x) { return half(ToF(x) < 0 ? ToF(x) * ToF(alpha) : ToF(x)); });
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(Bits(dst[i]), Bits(want[i])) << "LeakyRelu " << i;
  Adds(dst.t(), src.t(), half(1.5f), 77, 2, p);
  for (int r = 0; r < 2; ++r) {
    for (int e = 0; e < 77; ++e) {
      const int blk = e / 16, j = e % 16;
      want[(r * 9 + blk) * 16 + j] = half(ToF(src[(r * 16 + blk * 2) * 16 + j]) + 1.5f);
    }
  }
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(Bits(dst[i]), Bits(want[i])) << "Adds " << i;
  Relu(dst.t(), src.t(), 128, 1, {1, 1, 8, 8});
  for (int i = 0; i < 128; ++i)
    ASSERT_EQ(Bits(dst[i]), Bits(half(std::max(ToF(src[i]), 0.0f)))) << "Relu " << i;
  dst.ExpectSentinels("repeat forms");
}

INSTANTIATE_TEST_SUITE_P(AllTargets, TargetTest, ::testing::ValuesIn(CompiledTargets()),
                         TargetParamName);

// ---- In launched kernels: static tensors, GetTPipePtr, checked-mode errors.

class CheckedScope {
 public:
  explicit CheckedScope(bool on) : previous_(device::CheckedMode()) { device::SetCheckedMode(on); }
  ~CheckedScope() { device::SetCheckedMode(previous_); }

 private:
  bool previous_;
};

std::string RunBlocks(void (*kernel)(int32_t), int32_t arg, uint32_t blocks = 1) {
  device::Stream stream;
  Status st = device::Launch(device::LaunchConfig{blocks, device::KernelType::kAiv, "basic_api"},
                             kernel, stream, arg);
  if (st.ok()) st = stream.Synchronize();
  stream.ResetError();
  return std::string(st.message());
}

// Static tensors at byte addresses of UB: a Copy between two of them, the result checked in
// the kernel (a failed check fails the block with the element's index).
void StaticTensorCopy(int32_t rows) {
  LocalTensor<int32_t> src(TPosition::VECIN, 0, rows * 64);
  LocalTensor<int32_t> dst(TPosition::VECOUT, rows * 64 * 4, rows * 8);
  for (int32_t i = 0; i < rows * 64; ++i)
    src.SetValue(i, i * 7 - 3 + static_cast<int32_t>(GetBlockIdx()));
  Copy(dst, src, 8, static_cast<uint8_t>(rows), {1, 1, 1, 8});
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t j = 0; j < 8; ++j) {
      if (dst.GetValue(r * 8 + j) != src.GetValue(r * 64 + j)) {
        KernelFail("test", "element " + std::to_string(r * 8 + j) + " differs");
      }
    }
  }
}

TEST(VectorKernelTest, StaticLocalTensorsAndCopyInBlocks) {
  CheckedScope checked(true);
  EXPECT_EQ(RunBlocks(StaticTensorCopy, 18, 4), "");
  CheckedScope fast(false);
  EXPECT_EQ(RunBlocks(StaticTensorCopy, 5, 3), "");
}

void StaticTensorBeyondUb(int32_t) {
  LocalTensor<float> t(TPosition::VECCALC, 0, 1u << 28);
  t.SetValue(0, 1.0f);
}
void StaticTensorMisaligned(int32_t) {
  LocalTensor<float> t(TPosition::VECCALC, 4, 8);
  t.SetValue(0, 1.0f);
}

TEST(VectorKernelTest, StaticLocalTensorOutsideUbFails) {
  EXPECT_NE(RunBlocks(StaticTensorBeyondUb, 0).find("LocalTensor: VECCALC tensor at byte 0 of"),
            std::string::npos);
  EXPECT_NE(RunBlocks(StaticTensorMisaligned, 0).find("is not 32-byte aligned"), std::string::npos);
}

void EventIds(int32_t release) {
  TPipe pipe;
  TPipe* p = GetTPipePtr();
  if (p != &pipe) KernelFail("test", "GetTPipePtr is not the live pipe");
  const TEventID a = p->AllocEventID<HardEvent::MTE2_V>();
  const TEventID b = p->AllocEventID<HardEvent::MTE2_V>();
  const TEventID fetched = p->FetchEventID(HardEvent::MTE2_V);
  if (a != EVENT_ID0 || b != EVENT_ID1 || fetched != EVENT_ID2) {
    KernelFail("test", "ids " + std::to_string(a) + " " + std::to_string(b) + " " +
                           std::to_string(fetched));
  }
  SetFlag<HardEvent::MTE2_V>(fetched);
  WaitFlag<HardEvent::MTE2_V>(fetched);
  p->ReleaseEventID<HardEvent::MTE2_V>(a);
  if (p->FetchEventID<HardEvent::MTE2_V>() != EVENT_ID0) KernelFail("test", "id 0 not free");
  if (p->FetchEventID(HardEvent::S_V) != EVENT_ID0) KernelFail("test", "events share ids");
  if (release != 0) p->ReleaseEventID<HardEvent::MTE2_V>(a);  // a second release: an error
  p->ReleaseEventID<HardEvent::MTE2_V>(b);
}

void NoPipe(int32_t) {
  { TPipe gone; }
  GetTPipePtr();
}

void AllIdsTaken(int32_t) {
  TPipe pipe;
  for (int i = 0; i < kMaxEventId; ++i)
    pipe.AllocEventID<HardEvent::V_MTE3>();
  pipe.FetchEventID(HardEvent::V_MTE3);
}

TEST(VectorKernelTest, TPipeEventIds) {
  CheckedScope checked(true);
  EXPECT_EQ(RunBlocks(EventIds, 0, 2), "");
  EXPECT_NE(RunBlocks(EventIds, 1)
                .find("TPipe::ReleaseEventID: event id 0 of HardEvent::MTE2_V was "
                      "not taken by AllocEventID"),
            std::string::npos);
  EXPECT_NE(RunBlocks(NoPipe, 0).find("GetTPipePtr: no TPipe is alive in this block"),
            std::string::npos);
  EXPECT_NE(RunBlocks(AllIdsTaken, 0).find("every event id of HardEvent::V_MTE3 is taken"),
            std::string::npos);
}

void CopyBeyond(int32_t repeat) {
  static int32_t a[512], b[512];
  const LocalTensor<int32_t> src(a, 512, TPosition::VECCALC, CheckedLaunch(), nullptr, 0);
  const LocalTensor<int32_t> dst(b, 512, TPosition::VECCALC, CheckedLaunch(), nullptr, 0);
  Copy(dst, src, 64, static_cast<uint8_t>(repeat), {1, 1, 8, 8});
}
void ShiftTooFar(int32_t bits) {
  static uint16_t a[64], b[64];
  const LocalTensor<uint16_t> src(a, 64, TPosition::VECCALC, CheckedLaunch(), nullptr, 0);
  const LocalTensor<uint16_t> dst(b, 64, TPosition::VECCALC, CheckedLaunch(), nullptr, 0);
  ShiftLeft(dst, src, static_cast<uint16_t>(bits), 64);
}
void CmpMaskTooSmall(int32_t) {
  static uint8_t m[8];
  GetCmpMask(LocalTensor<uint8_t>(m, 8, TPosition::VECCALC, CheckedLaunch(), nullptr, 0));
}
// The register is per block: a mode set in one launch does not leak into the next.
void CounterModeLeft(int32_t) {
  SetMaskCount();
}
void CopyNormal(int32_t) {
  static int32_t a[64], b[64];
  a[3] = 42;
  const LocalTensor<int32_t> src(a, 64, TPosition::VECCALC, CheckedLaunch(), nullptr, 0);
  const LocalTensor<int32_t> dst(b, 64, TPosition::VECCALC, CheckedLaunch(), nullptr, 0);
  Copy(dst, src, 64, 1, {1, 1, 8, 8});
  if (b[3] != 42) KernelFail("test", "NORMAL mode did not copy the repeat");
}

TEST(VectorKernelTest, CheckedModeErrors) {
  CheckedScope checked(true);
  EXPECT_EQ(RunBlocks(CopyBeyond, 8), "");
  EXPECT_NE(RunBlocks(CopyBeyond, 9).find("Copy: dst: count 576 exceeds the tensor's 512 elements"),
            std::string::npos);
  EXPECT_NE(
      RunBlocks(ShiftTooFar, 16).find("ShiftLeft: shift 16 is not below the element width 16"),
      std::string::npos);
  EXPECT_EQ(RunBlocks(ShiftTooFar, 15), "");
  EXPECT_NE(RunBlocks(CmpMaskTooSmall, 0).find("GetCmpMask: dst: the register's 16 bytes"),
            std::string::npos);
  EXPECT_EQ(RunBlocks(CounterModeLeft, 0), "");
  EXPECT_EQ(RunBlocks(CopyNormal, 0), "");
}

}  // namespace
}  // namespace tessera::kernel::testing

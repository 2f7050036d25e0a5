// The vendor's class form of tiling data (register/tilingdata_base.h): set_/get_, arrays, nested
// classes, SaveToBuffer against the plain struct a kernel declares, GetDataSize, the class factory.
// Built as C++17 and C++20 (in C++20 tessera's own tiling header is included first).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(InnerTiling)
TILING_DATA_FIELD_DEF(uint16_t, mmVar);
TILING_DATA_FIELD_DEF_ARR(uint16_t, 3, mmArr);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(InnerTilingOp, InnerTiling)

// Every width, mixed so that padding appears between fields and at the tail.
BEGIN_TILING_DATA_DEF(AllWidthsTiling)
TILING_DATA_FIELD_DEF(int8_t, i8);
TILING_DATA_FIELD_DEF(uint64_t, u64);
TILING_DATA_FIELD_DEF(uint8_t, u8);
TILING_DATA_FIELD_DEF(int16_t, i16);
TILING_DATA_FIELD_DEF(uint16_t, u16);
TILING_DATA_FIELD_DEF(int32_t, i32);
TILING_DATA_FIELD_DEF(uint32_t, u32);
TILING_DATA_FIELD_DEF(int64_t, i64);
TILING_DATA_FIELD_DEF(float, f32);
TILING_DATA_FIELD_DEF(bool, flag);
TILING_DATA_FIELD_DEF_ARR(uint8_t, 7, bytes7);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 31, words31);
TILING_DATA_FIELD_DEF_ARR(int64_t, 1, one);
TILING_DATA_FIELD_DEF_STRUCT(InnerTiling, inner);
TILING_DATA_FIELD_DEF(uint8_t, tail);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(AllWidthsCustom, AllWidthsTiling)

// Field names a macro's own parameters could capture.
BEGIN_TILING_DATA_DEF(AwkwardNamesTiling)
TILING_DATA_FIELD_DEF(int32_t, offset);
TILING_DATA_FIELD_DEF(uint16_t, value);
TILING_DATA_FIELD_DEF_ARR(int8_t, 3, values);
TILING_DATA_FIELD_DEF(uint64_t, base);
TILING_DATA_FIELD_DEF_STRUCT(InnerTiling, layout);
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(KeyOneTiling)
TILING_DATA_FIELD_DEF(uint32_t, only);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(AllWidthsCustom_1, KeyOneTiling)
}  // namespace optiling

namespace {

// What the kernel side declares for the same data.
struct PlainInner {
  uint16_t mmVar;
  uint16_t mmArr[3];
};
struct PlainAllWidths {
  int8_t i8;
  uint64_t u64;
  uint8_t u8;
  int16_t i16;
  uint16_t u16;
  int32_t i32;
  uint32_t u32;
  int64_t i64;
  float f32;
  bool flag;
  uint8_t bytes7[7];
  uint32_t words31[31];
  int64_t one[1];
  PlainInner inner;
  uint8_t tail;
};

template <class T>
T RandomValue(std::mt19937_64& rng) {
  if constexpr (std::is_same_v<T, float>) {
    return std::uniform_real_distribution<float>(-1e6f, 1e6f)(rng);
  } else if constexpr (std::is_same_v<T, bool>) {
    return (rng() & 1) != 0;
  } else {
    return static_cast<T>(rng());  // every bit pattern of the width, extremes included
  }
}

TEST(VendorTilingData, LayoutIsThePlainStruct) {
  optiling::AllWidthsTiling tiling;
  EXPECT_EQ(tiling.GetDataSize(), sizeof(PlainAllWidths));
  optiling::InnerTiling inner;
  EXPECT_EQ(inner.GetDataSize(), sizeof(PlainInner));
  EXPECT_STREQ(tiling.GetTilingClassName(), "AllWidthsTiling");
}

TEST(VendorTilingData, SaveToBufferMatchesPlainStructForRandomValues) {
  std::mt19937_64 rng(20261202);
  for (int round = 0; round < 50; ++round) {
    PlainAllWidths ref;
    std::memset(&ref, 0, sizeof(ref));  // zero padding, as SaveToBuffer writes it
    ref.i8 = RandomValue<int8_t>(rng);
    ref.u64 = RandomValue<uint64_t>(rng);
    ref.u8 = RandomValue<uint8_t>(rng);
    ref.i16 = RandomValue<int16_t>(rng);
    ref.u16 = RandomValue<uint16_t>(rng);
    ref.i32 = RandomValue<int32_t>(rng);
    ref.u32 = RandomValue<uint32_t>(rng);
    ref.i64 = RandomValue<int64_t>(rng);
    ref.f32 = RandomValue<float>(rng);
    ref.flag = RandomValue<bool>(rng);
    for (auto& b : ref.bytes7)
      b = RandomValue<uint8_t>(rng);
    for (auto& w : ref.words31)
      w = RandomValue<uint32_t>(rng);
    ref.one[0] = RandomValue<int64_t>(rng);
    ref.inner.mmVar = RandomValue<uint16_t>(rng);
    for (auto& v : ref.inner.mmArr)
      v = RandomValue<uint16_t>(rng);
    ref.tail = RandomValue<uint8_t>(rng);

    optiling::AllWidthsTiling t;
    t.set_i8(ref.i8);
    t.set_u64(ref.u64);
    t.set_u8(ref.u8);
    t.set_i16(ref.i16);
    t.set_u16(ref.u16);
    t.set_i32(ref.i32);
    t.set_u32(ref.u32);
    t.set_i64(ref.i64);
    t.set_f32(ref.f32);
    t.set_flag(ref.flag);
    t.set_bytes7(ref.bytes7);
    t.set_words31(ref.words31);
    t.set_one(ref.one);
    t.inner.set_mmVar(ref.inner.mmVar);
    t.inner.set_mmArr(ref.inner.mmArr);
    t.set_tail(ref.tail);

    EXPECT_EQ(t.get_u64(), ref.u64);
    EXPECT_EQ(t.get_i8(), ref.i8);
    EXPECT_EQ(t.get_words31()[30], ref.words31[30]);
    EXPECT_EQ(t.get_inner().get_mmArr()[2], ref.inner.mmArr[2]);

    // Sentinels around the buffer: SaveToBuffer writes exactly GetDataSize() bytes.
    std::vector<uint8_t> buffer(sizeof(PlainAllWidths) + 64, 0xA5);
    t.SaveToBuffer(buffer.data() + 32, sizeof(PlainAllWidths));
    ASSERT_EQ(std::memcmp(buffer.data() + 32, &ref, sizeof(ref)), 0) << "round " << round;
    for (size_t i = 0; i < 32; ++i) {
      EXPECT_EQ(buffer[i], 0xA5);
      EXPECT_EQ(buffer[32 + sizeof(PlainAllWidths) + i], 0xA5);
    }
  }
}

TEST(VendorTilingData, FieldNamesDoNotClashWithTheMacrosOwnNames) {
  struct Plain {
    int32_t offset;
    uint16_t value;
    int8_t values[3];
    uint64_t base;
    PlainInner layout;
  };
  std::mt19937_64 rng(7);
  Plain ref;
  std::memset(&ref, 0, sizeof(ref));
  ref.offset = RandomValue<int32_t>(rng);
  ref.value = RandomValue<uint16_t>(rng);
  for (auto& v : ref.values)
    v = RandomValue<int8_t>(rng);
  ref.base = RandomValue<uint64_t>(rng);
  ref.layout.mmVar = RandomValue<uint16_t>(rng);
  optiling::AwkwardNamesTiling t;
  t.set_offset(ref.offset);
  t.set_value(ref.value);
  t.set_values(ref.values);
  t.set_base(ref.base);
  t.layout.set_mmVar(ref.layout.mmVar);
  EXPECT_EQ(t.get_value(), ref.value);
  ASSERT_EQ(t.GetDataSize(), sizeof(Plain));
  std::vector<uint8_t> bytes(sizeof(Plain));
  t.SaveToBuffer(bytes.data(), bytes.size());
  EXPECT_EQ(std::memcmp(bytes.data(), &ref, sizeof(ref)), 0);
}

TEST(VendorTilingData, DefaultsAreZeroAndCopiesAreIndependent) {
  optiling::AllWidthsTiling a;
  std::vector<uint8_t> bytes(a.GetDataSize(), 0xFF);
  a.SaveToBuffer(bytes.data(), bytes.size());
  for (uint8_t b : bytes)
    EXPECT_EQ(b, 0);
  a.set_u32(std::numeric_limits<uint32_t>::max());
  optiling::AllWidthsTiling b = a;
  b.set_u32(7);
  EXPECT_EQ(a.get_u32(), std::numeric_limits<uint32_t>::max());
  EXPECT_EQ(b.get_u32(), 7u);
}

TEST(VendorTilingData, ShortOrNullBufferIsRefusedAndUntouched) {
  optiling::InnerTiling t;
  t.set_mmVar(0x1234);
  std::vector<uint8_t> buffer(t.GetDataSize(), 0x5A);
  testing::internal::CaptureStderr();
  t.SaveToBuffer(buffer.data(), buffer.size() - 1);
  t.SaveToBuffer(nullptr, 1024);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("InnerTiling needs 8 bytes"), std::string::npos) << err;
  for (uint8_t b : buffer)
    EXPECT_EQ(b, 0x5A);
}

TEST(VendorTilingData, FactoryCreatesRegisteredClassesWithTilingKeyFallback) {
  auto& factory = optiling::CTilingDataClassFactory::GetInstance();
  auto base = factory.CreateTilingDataInstance("AllWidthsCustom");
  ASSERT_NE(base, nullptr);
  EXPECT_STREQ(base->GetTilingClassName(), "AllWidthsTiling");
  EXPECT_EQ(base->GetDataSize(), sizeof(PlainAllWidths));
  auto key1 = factory.CreateTilingDataInstance("AllWidthsCustom_1");
  ASSERT_NE(key1, nullptr);
  EXPECT_STREQ(key1->GetTilingClassName(), "KeyOneTiling");
  auto key2 = factory.CreateTilingDataInstance("AllWidthsCustom_2");  // no class: the default
  ASSERT_NE(key2, nullptr);
  EXPECT_STREQ(key2->GetTilingClassName(), "AllWidthsTiling");
  auto nested = factory.CreateTilingDataInstance("InnerTilingOp");
  ASSERT_NE(nested, nullptr);
  EXPECT_EQ(nested->GetDataSize(), sizeof(PlainInner));
  EXPECT_EQ(factory.CreateTilingDataInstance("NoSuchOp"), nullptr);
  EXPECT_EQ(factory.CreateTilingDataInstance(nullptr), nullptr);
}

}  // namespace

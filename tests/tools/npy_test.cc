// The .npy writer of `tessera run --save` (tools/tessera/npy.h): the v1.0 header byte by byte,
// 64-byte alignment of the data, every dtype's code and shapes of rank 0, 1 (1, 7, 4097) and 3,
// and the data that follows the header.
#include "npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

using tessera::DataType;
using tessera::Shape;
using tessera::TensorDesc;
using tessera::cli::NpyDescr;
using tessera::cli::NpyHeader;
using tessera::cli::WriteNpy;

TensorDesc Desc(DataType dtype, std::vector<int64_t> dims) {
  return TensorDesc{dtype, *Shape::Make(std::span<const int64_t>(dims)), tessera::Format::kND, {}};
}

// The dict text of a header: after magic, version and length, without the padding.
std::string DictOf(const std::string& header) {
  std::string dict = header.substr(10);
  return dict.substr(0, dict.find('}') + 1);
}

TEST(NpyTest, HeaderIsVersion10AlignedTo64AndEndsWithNewline) {
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{}, {1}, {7}, {4097}, {2, 3, 4097}}) {
    const std::string h = NpyHeader(Desc(DataType::kFloat32, dims));
    ASSERT_GE(h.size(), 11u);
    EXPECT_EQ(h.substr(0, 6), std::string("\x93NUMPY"));
    EXPECT_EQ(h[6], '\x01');  // major
    EXPECT_EQ(h[7], '\x00');  // minor
    const size_t len = static_cast<uint8_t>(h[8]) | static_cast<size_t>(static_cast<uint8_t>(h[9]))
                                                        << 8;
    EXPECT_EQ(h.size(), 10 + len);
    EXPECT_EQ(h.size() % 64, 0u) << h;
    EXPECT_EQ(h.back(), '\n');
    const std::string pad = h.substr(10 + DictOf(h).size());
    EXPECT_EQ(pad.find_first_not_of(' '), pad.size() - 1) << "padding is spaces then '\\n'";
  }
}

TEST(NpyTest, ShapesAreNumpyTuples) {
  EXPECT_EQ(DictOf(NpyHeader(Desc(DataType::kFloat32, {}))),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (), }");
  EXPECT_EQ(DictOf(NpyHeader(Desc(DataType::kFloat32, {1}))),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }");
  EXPECT_EQ(DictOf(NpyHeader(Desc(DataType::kFloat32, {7}))),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (7,), }");
  EXPECT_EQ(DictOf(NpyHeader(Desc(DataType::kInt32, {4097}))),
            "{'descr': '<i4', 'fortran_order': False, 'shape': (4097,), }");
  EXPECT_EQ(DictOf(NpyHeader(Desc(DataType::kFloat16, {2, 3, 4097}))),
            "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3, 4097), }");
}

TEST(NpyTest, EveryDtypeHasItsLittleEndianCode) {
  const std::pair<DataType, const char*> codes[] = {
      {DataType::kFloat32, "<f4"}, {DataType::kFloat16, "<f2"}, {DataType::kBfloat16, "<u2"},
      {DataType::kInt8, "|i1"},    {DataType::kUint8, "|u1"},   {DataType::kInt16, "<i2"},
      {DataType::kInt32, "<i4"},   {DataType::kInt64, "<i8"},   {DataType::kBool, "|b1"}};
  ASSERT_EQ(std::size(codes), tessera::AllDataTypes().size()) << "a dtype without a code";
  for (const auto& [dtype, code] : codes) {
    EXPECT_EQ(NpyDescr(dtype), code);
    EXPECT_NE(DictOf(NpyHeader(Desc(dtype, {7}))).find(std::string("'descr': '") + code + "'"),
              std::string::npos);
  }
}

TEST(NpyTest, FileHoldsTheHeaderThenTheBytes) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    ("tessera_npy_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  for (DataType dtype : tessera::AllDataTypes()) {
    for (int64_t n : {1, 7, 4097}) {
      const TensorDesc desc = Desc(dtype, {n});
      std::vector<uint8_t> data(static_cast<size_t>(n) * tessera::DataTypeSize(dtype));
      for (size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<uint8_t>(i * 7 + 3);
      const auto file = dir / "t.npy";
      ASSERT_TRUE(WriteNpy(file, desc, data).ok());
      std::ifstream in(file, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      const std::string all = ss.str();
      const std::string header = NpyHeader(desc);
      ASSERT_EQ(all.size(), header.size() + data.size());
      EXPECT_EQ(all.substr(0, header.size()), header);
      EXPECT_EQ(all.substr(header.size()), std::string(data.begin(), data.end()));
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(NpyTest, WrongByteCountAndUnwritablePathAreErrors) {
  const std::vector<uint8_t> three(3);
  const tessera::Status st = WriteNpy("/tmp/x.npy", Desc(DataType::kFloat32, {7}), three);
  EXPECT_EQ(st.code(), tessera::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("3 bytes given for float32[7]"), std::string::npos) << st.message();
  const std::vector<uint8_t> four(4);
  const tessera::Status missing =
      WriteNpy("/nonexistent/tessera/x.npy", Desc(DataType::kFloat32, {1}), four);
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("/nonexistent/tessera/x.npy"), std::string::npos);
}

}  // namespace

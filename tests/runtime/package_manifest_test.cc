#include "runtime/package/package_manifest.h"

#include <gtest/gtest.h>

#include "package_test_util.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "runtime/package/package_checksum.h"

namespace tessera::runtime {
namespace {

namespace fs = std::filesystem;

using test_util::TempDir;
using test_util::WriteFile;

constexpr std::string_view kZeroSha =
    "0000000000000000000000000000000000000000000000000000000000000000";
constexpr std::string_view kAddKey = "Add/d=0,p=0/DT_FLOAT,ND/DT_FLOAT,ND/DT_FLOAT,ND";

ManifestParam Param(std::string name) {
  return {std::move(name),
          ManifestParamMode::kRequired,
          {DataType::kFloat32, DataType::kFloat16},
          {Format::kND, Format::kND}};
}

// A valid two-op manifest exercising every field.
PackageManifest SampleManifest() {
  PackageManifest m;
  m.package = "custom_math";
  m.version = "1.2.0";
  m.tiling_library = "lib/libcustom_math_tiling.so";
  m.tiling_library_sha256 = std::string(64, 'a');
  OpManifest add;
  add.op = "Add";
  add.kernel = "add";
  add.tiling_schema_hash = 0x1234abcd5678ef90ull;
  add.inputs = {Param("x"), Param("y")};
  add.outputs = {Param("z")};
  add.binaries = {
      {"x86-64-v3",
       std::string(kAddKey),
       "kernels/x86-64-v3/libadd.so",
       std::string(kZeroSha),
       {{0, ManifestKernelType::kAiv, "0:1"}, {1, ManifestKernelType::kMix, "1:2"}}},
      {"x86-64-v2",
       std::string(kAddKey),
       "kernels/x86-64-v2/libadd.so",
       std::string(kZeroSha),
       {{0, ManifestKernelType::kAic, "1:0"}}},
  };
  OpManifest muls;
  muls.op = "Muls";
  muls.kernel = "muls";
  muls.tiling_schema_hash = 7;
  muls.inputs = {{"x", ManifestParamMode::kRequired, {DataType::kBfloat16}, {Format::kND}}};
  muls.outputs = {{"y", ManifestParamMode::kRequired, {DataType::kBfloat16}, {Format::kND}}};
  muls.attrs = {
      {"value", ManifestAttrType::kFloat, false, ManifestAttrValue(0.5)},
      {"axes", ManifestAttrType::kListInt, false, ManifestAttrValue(std::vector<int64_t>{-1, 2})},
      {"mode", ManifestAttrType::kString, true, std::nullopt},
      {"scales", ManifestAttrType::kListFloat, false, ManifestAttrValue(std::vector<double>{1.5})},
      {"flag", ManifestAttrType::kBool, false, ManifestAttrValue(true)},
      {"count", ManifestAttrType::kInt, false, ManifestAttrValue(int64_t{-3})},
  };
  muls.binaries = {{"armv8-a",
                    "Muls/d=1,p=2/DT_BF16,ND/DT_BF16,ND",
                    "kernels/arm/libmuls.so",
                    std::string(kZeroSha),
                    {{5, ManifestKernelType::kAic, "1:0"}}}};
  m.ops = {add, muls};
  return m;
}

// `text` with the first occurrence of `from` replaced by `to` (which must occur).
std::string Replace(std::string text, std::string_view from, std::string_view to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "sample JSON lacks " << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string ParseError(const std::string& text) {
  Result<PackageManifest> m = ParseManifestText(text, "/x/manifest.json");
  EXPECT_FALSE(m.ok()) << text;
  return m.ok() ? "" : std::string(m.status().message());
}

TEST(PackageManifest, ParsesTheDocumentedExample) {
  const std::string text =
      R"({"package": "name", "version": "1.0", "tiling_library": "lib/libxxx_tiling.so",
    "tiling_library_sha256": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    "ops": [{"op": "Add", "kernel": "add", "tiling_schema_hash": "0xBEEF",
      "params": {"inputs": [{"name": "x", "paramType": "required", "dtype": ["DT_FLOAT"], "format": ["ND"]},
                            {"name": "y", "paramType": "required", "dtype": ["DT_FLOAT"], "format": ["ND"]}],
                 "outputs": [{"name": "z", "paramType": "required", "dtype": ["DT_FLOAT"], "format": ["ND"]}],
                 "attrs": []},
      "binaries": [{"soc": "x86-64-v3", "simplifiedKey": "Add/d=0,p=0/DT_FLOAT,ND/DT_FLOAT,ND/DT_FLOAT,ND",
                    "binPath": "kernels/x86-64-v3/libadd.so",
                    "sha256": "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD",
                    "kernels": [{"tilingKey": 0, "kernelType": "AIV", "taskRation": "1:2"}]}]}]})";
  Result<PackageManifest> m = ParseManifestText(text, "example");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->package, "name");
  ASSERT_EQ(m->ops.size(), 1u);
  const OpManifest& add = m->ops[0];
  EXPECT_EQ(add.tiling_schema_hash, 0xbeefu);
  EXPECT_EQ(add.inputs[1].name, "y");
  EXPECT_EQ(add.outputs[0].dtypes, std::vector<DataType>{DataType::kFloat32});
  ASSERT_EQ(add.binaries.size(), 1u);
  EXPECT_EQ(add.binaries[0].kernels[0].task_ration, "1:2");
  EXPECT_EQ(add.binaries[0].kernels[0].kernel_type, ManifestKernelType::kAiv);
  EXPECT_EQ(FindOpInManifest(*m, "Add"), &add);
  EXPECT_EQ(FindOpInManifest(*m, "Sub"), nullptr);
}

TEST(PackageManifest, WriteThenParseIsEqual) {
  TempDir dir;
  const PackageManifest m = SampleManifest();
  const fs::path file = dir.path() / "manifest.json";
  ASSERT_TRUE(WriteManifestFile(file, m).ok());
  Result<PackageManifest> back = ParseManifestFile(file);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, m);
  EXPECT_EQ(ManifestToJson(*back), ManifestToJson(m));
  EXPECT_NE(ManifestToJson(m).find("\"tiling_schema_hash\": \"0x1234abcd5678ef90\""),
            std::string::npos);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1)
      << "the temporary file of the atomic write is left behind";
}

TEST(PackageManifest, WriterRefusesInvalidManifestsAndUnwritablePlaces) {
  TempDir dir;
  PackageManifest bad = SampleManifest();
  bad.ops[1].op = "Add";
  const fs::path file = dir.path() / "manifest.json";
  const Status s = WriteManifestFile(file, bad);
  EXPECT_EQ(s.message(),
            "manifest " + file.string() +
                ": ops[1].op is \"Add\", already defined by ops[0]; expected unique ops");
  EXPECT_FALSE(fs::exists(file));
  const Status missing_dir =
      WriteManifestFile(dir.path() / "no" / "manifest.json", SampleManifest());
  EXPECT_EQ(missing_dir.code(), StatusCode::kNotFound);
  EXPECT_NE(missing_dir.message().find("expected an existing, writable directory"),
            std::string::npos);
}

TEST(PackageManifest, MalformedJsonNamesLineAndColumn) {
  const std::string message = ParseError("{\n  \"package\": \"p\",\n  \"version\" \"1\"\n}");
  EXPECT_EQ(message.rfind("manifest /x/manifest.json: malformed JSON at line 3, column 15: ", 0),
            0u)
      << message;
  EXPECT_NE(message.find("expected ':'"), std::string::npos) << message;
  EXPECT_EQ(
      ParseError("").rfind("manifest /x/manifest.json: malformed JSON at line 1, column 1", 0), 0u);
}

TEST(PackageManifest, MissingFileIsNamed) {
  Result<PackageManifest> m = ParseManifestFile("/nonexistent/tessera/manifest.json");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kNotFound);
  EXPECT_NE(m.status().message().find("/nonexistent/tessera/manifest.json"), std::string::npos);
}

// Parse-level errors: wrong JSON types, missing and unknown keys, bad enum spellings.
TEST(PackageManifest, ParseErrorsNameJsonPathAndExpectation) {
  const std::string good = ManifestToJson(SampleManifest());
  const std::string p = "manifest /x/manifest.json: ";
  struct Case {
    std::string_view from, to;
    std::string expected;
  };
  const Case cases[] = {
      {"\"kernelType\": \"AIC\"", "\"kernelType\": \"GPU\"",
       p + "ops[0].binaries[1].kernels[0].kernelType is \"GPU\"; expected AIV, AIC or MIX"},
      {"\"package\": \"custom_math\"", "\"package\": 5", p + "package is 5; expected a string"},
      {"\"version\": \"1.2.0\",", "", p + "top level has no \"version\"; expected a string"},
      {"\"version\"", "\"versoin\"",
       p + "top level has unknown key \"versoin\"; expected only package, version, "
           "tiling_library, tiling_library_sha256 and ops"},
      {"\"tilingKey\": 0", "\"tilingKey\": -1",
       p + "ops[0].binaries[0].kernels[0].tilingKey is -1; expected an unsigned integer"},
      {"\"tilingKey\": 0", "\"tilingKey\": \"0\"",
       p + "ops[0].binaries[0].kernels[0].tilingKey is \"0\"; expected an unsigned integer"},
      {"\"paramType\": \"required\"", "\"paramType\": \"sometimes\"",
       p + "ops[0].params.inputs[0].paramType is \"sometimes\"; expected required, optional or "
           "dynamic"},
      {"\"DT_FLOAT16\"", "\"DT_COMPLEX\"",
       p + "ops[0].params.inputs[0].dtype[1] is \"DT_COMPLEX\"; expected one of DT_FLOAT, "
           "DT_FLOAT16, DT_BF16, DT_INT8, DT_UINT8, DT_INT16, DT_INT32, DT_INT64, DT_BOOL"},
      {"\"format\": [\n              \"ND\"", "\"format\": [\n              \"NCHW\"",
       p + "ops[0].params.inputs[0].format[0] is \"NCHW\"; expected ND"},
      {"\"tiling_schema_hash\": \"0x1234abcd5678ef90\"", "\"tiling_schema_hash\": \"1234\"",
       p + "ops[0].tiling_schema_hash is \"1234\"; expected \"0x\" and 1 to 16 hex digits"},
      {"\"binaries\": [", "\"binaries\": {}, \"x\": [",
       p + "ops[0] has unknown key \"x\"; expected only op, kernel, tiling_schema_hash, "
           "simplifiedKeyMode, params and binaries"},
      {"\"kernels\": [", "\"kernels\": 3, \"k\": [",
       p + "ops[0].binaries[0] has unknown key \"k\"; expected only soc, simplifiedKey, binPath, "
           "sha256, kernels and selectiveBuild"},
      {"\"ops\": [", "\"ops\": {\"a\": 1}, \"o\": [",
       p + "top level has unknown key \"o\"; expected only package, version, tiling_library, "
           "tiling_library_sha256 and ops"},
      {"\"default\": 0.5", "\"default\": \"half\"",
       p + "ops[1].params.attrs[0].default is \"half\"; expected a number for a float attr"},
      {"\"default\": [\n              -1,", "\"default\": [\n              -1.5,",
       p + "ops[1].params.attrs[1].default is [-1.5,2]; expected an array of int64 for a list_int "
           "attr"},
      {"\"type\": \"string\"", "\"type\": \"str\"",
       p + "ops[1].params.attrs[2].type is \"str\"; expected int, float, bool, string, list_int or "
           "list_float"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.to);
    EXPECT_EQ(ParseError(Replace(good, c.from, c.to)), c.expected);
  }
  EXPECT_EQ(ParseError("[1, 2]"), p + "top level is [1,2]; expected a JSON object");
}

// Semantic errors found by ValidateManifest, whether the manifest came from JSON or from code.
TEST(PackageManifest, ValidationErrorsNameJsonPathAndExpectation) {
  const std::string p = "manifest src: ";
  struct Case {
    std::string name;
    void (*mutate)(PackageManifest&);
    std::string expected;
  };
  const Case cases[] = {
      {"duplicate op", [](PackageManifest& m) { m.ops[1].op = "Add"; },
       p + "ops[1].op is \"Add\", already defined by ops[0]; expected unique ops"},
      {"unknown soc", [](PackageManifest& m) { m.ops[0].binaries[1].soc = "x86-64-v5"; },
       p + "ops[0].binaries[1].soc is \"x86-64-v5\"; expected one of x86-64, x86-64-v2, "
           "x86-64-v3, x86-64-v4, armv8-a, or a compute unit (CPU model) such as znver3"},
      {"duplicate tiling key",
       [](PackageManifest& m) { m.ops[0].binaries[0].kernels[1].tiling_key = 0; },
       p + "ops[0].binaries[0].kernels[1].tilingKey 0 repeats kernels[0]; expected unique tiling "
           "keys per binary"},
      {"short sha", [](PackageManifest& m) { m.ops[0].binaries[0].sha256 = "abc"; },
       p + "ops[0].binaries[0].sha256 is \"abc\"; expected 64 hex digits (the file's SHA-256)"},
      {"non-hex sha",
       [](PackageManifest& m) { m.ops[0].binaries[0].sha256 = std::string(63, '0') + "g"; },
       p + "ops[0].binaries[0].sha256 is \"" + std::string(63, '0') +
           "g\"; expected 64 hex digits (the file's SHA-256)"},
      {"escaping binPath",
       [](PackageManifest& m) { m.ops[0].binaries[0].bin_path = "kernels/../../libadd.so"; },
       p + "ops[0].binaries[0].binPath is \"kernels/../../libadd.so\"; expected a relative path "
           "that stays inside the package directory"},
      {"absolute binPath", [](PackageManifest& m) { m.ops[0].binaries[0].bin_path = "/lib/x.so"; },
       p + "ops[0].binaries[0].binPath is \"/lib/x.so\"; expected a relative path that stays "
           "inside the package directory"},
      {"absolute tiling library", [](PackageManifest& m) { m.tiling_library = "/usr/lib/t.so"; },
       p + "tiling_library is \"/usr/lib/t.so\"; expected a relative path that stays inside the "
           "package directory"},
      {"key of another op",
       [](PackageManifest& m) {
         m.ops[0].binaries[0].simplified_key = "Sub/d=0,p=0/DT_FLOAT,ND/DT_FLOAT,ND/DT_FLOAT,ND";
       },
       p + "ops[0].binaries[0].simplifiedKey is invalid: simplified key "
           "\"Sub/d=0,p=0/DT_FLOAT,ND/DT_FLOAT,ND/DT_FLOAT,ND\" starts with \"Sub\"; expected "
           "\"Add/\""},
      {"duplicate soc and key", [](PackageManifest& m) { m.ops[0].binaries[1].soc = "x86-64-v3"; },
       p + "ops[0].binaries[1] repeats soc x86-64-v3 and simplifiedKey " + std::string(kAddKey) +
           " of binaries[0]; expected one binary per pair"},
      {"no kernels", [](PackageManifest& m) { m.ops[0].binaries[1].kernels.clear(); },
       p + "ops[0].binaries[1].kernels is empty; expected at least one kernel entry (none only in "
           "a selective build)"},
      {"bad task ration",
       [](PackageManifest& m) { m.ops[0].binaries[1].kernels[0].task_ration = "1-2"; },
       p + "ops[0].binaries[1].kernels[0].taskRation is \"1-2\"; expected \"<AIC>:<AIV>\" like "
           "\"1:2\""},
      {"column count", [](PackageManifest& m) { m.ops[0].outputs[0].dtypes.pop_back(); },
       p + "ops[0].params.outputs[0].format has 2 entries; expected 1, one per dtype"},
      {"column count across params",
       [](PackageManifest& m) {
         m.ops[0].inputs[1].dtypes.push_back(DataType::kInt32);
         m.ops[0].inputs[1].formats.push_back(Format::kND);
       },
       p + "ops[0].params.inputs[1].dtype has 3 entries; expected 2 like "
           "ops[0].params.inputs[0].dtype (one column per supported combination)"},
      {"optional attr without default",
       [](PackageManifest& m) { m.ops[1].attrs[0].default_value.reset(); },
       p + "ops[1].params.attrs[0] has no \"default\"; expected one for an optional attr"},
      {"required attr with default",
       [](PackageManifest& m) { m.ops[1].attrs[2].default_value = std::string("x"); },
       p + "ops[1].params.attrs[2].default is given for a required attr; expected no default (or "
           "paramType optional)"},
      {"default of another type",
       [](PackageManifest& m) { m.ops[1].attrs[0].default_value = int64_t{1}; },
       p + "ops[1].params.attrs[0].default does not hold a float; expected a value of the attr's "
           "type"},
      {"duplicate parameter name", [](PackageManifest& m) { m.ops[0].inputs[1].name = "x"; },
       p + "ops[0].params.inputs[1].name is \"x\", already used by another parameter of Add; "
           "expected unique parameter names"},
      {"no outputs", [](PackageManifest& m) { m.ops[1].outputs.clear(); },
       p + "ops[1].params.outputs is empty; expected at least one output"},
      {"no binaries", [](PackageManifest& m) { m.ops[1].binaries.clear(); },
       p + "ops[1].binaries is empty; expected at least one binary"},
      {"lower-case op", [](PackageManifest& m) { m.ops[0].op = "add op"; },
       p + "ops[0].op is \"add op\"; expected a CamelCase identifier such as \"Add\""},
      {"package name", [](PackageManifest& m) { m.package = "a/b"; },
       p + "package is \"a/b\"; expected a name of letters, digits, '_', '.' and '-'"},
      {"no ops", [](PackageManifest& m) { m.ops.clear(); },
       p + "ops is empty; expected at least one op"},
  };
  EXPECT_TRUE(ValidateManifest(SampleManifest(), "src").ok());
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    PackageManifest m = SampleManifest();
    c.mutate(m);
    const Status s = ValidateManifest(m, "src");
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message(), c.expected);
    // The parser applies the same checks to the same manifest written as JSON (where an int
    // default of a float attr is simply a number).
    if (c.name == "default of another type") continue;
    Result<PackageManifest> parsed = ParseManifestText(ManifestToJson(m), "src");
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().message(), c.expected);
  }
}

TEST(PackageManifest, ContainedRelativePaths) {
  EXPECT_TRUE(IsContainedRelativePath("kernels/libadd.so"));
  EXPECT_TRUE(IsContainedRelativePath("lib/x86-64-v2/lib.add-1_0.so"));
  // Plain names only: no normalisation is needed to see where a path points.
  EXPECT_FALSE(IsContainedRelativePath("a/../b.so"));
  EXPECT_FALSE(IsContainedRelativePath("./b.so"));
  EXPECT_FALSE(IsContainedRelativePath("a//b.so"));
  EXPECT_FALSE(IsContainedRelativePath("a/b.so/"));
  EXPECT_FALSE(IsContainedRelativePath("a\\..\\b.so"));
  EXPECT_FALSE(IsContainedRelativePath(std::string_view("a.so\0../../x", 13)));
  EXPECT_FALSE(IsContainedRelativePath(std::string(4097, 'a')));
  EXPECT_FALSE(IsContainedRelativePath(""));
  EXPECT_FALSE(IsContainedRelativePath("."));
  EXPECT_FALSE(IsContainedRelativePath("a/.."));
  EXPECT_FALSE(IsContainedRelativePath("../b.so"));
  EXPECT_FALSE(IsContainedRelativePath("a/../../b.so"));
  EXPECT_FALSE(IsContainedRelativePath("/abs/b.so"));
}

TEST(PackageChecksum, KnownVectors) {
  EXPECT_EQ(Sha256Hex("abc").value(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("").value(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  TempDir dir;
  // One million 'a' (FIPS 180-2 vector) spans many read chunks.
  WriteFile(dir.path() / "million", std::string(1000000, 'a'));
  EXPECT_EQ(Sha256File(dir.path() / "million").value(),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  WriteFile(dir.path() / "abc", "abc");
  EXPECT_EQ(Sha256File(dir.path() / "abc").value(), Sha256Hex("abc").value());
  Result<std::string> missing = Sha256File(dir.path() / "none");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "cannot open " + (dir.path() / "none").string() + " to compute its sha256");
}

TEST(PackageChecksum, VerifyBinaryAcceptsMatchAndRefusesMismatch) {
  TempDir dir;
  WriteFile(dir.path() / "kernels/libadd.so", "abc");
  ManifestBinary binary{"x86-64-v3",
                        std::string(kAddKey),
                        "kernels/libadd.so",
                        "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD",
                        {{0, ManifestKernelType::kAiv, "0:1"}}};
  EXPECT_TRUE(VerifyBinary(dir.path(), binary).ok());

  binary.sha256 = std::string(kZeroSha);
  const Status mismatch = VerifyBinary(dir.path(), binary);
  EXPECT_EQ(mismatch.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(mismatch.message(),
            "checksum mismatch for " + (dir.path() / "kernels/libadd.so").string() + " (" +
                std::string(kAddKey) + "): manifest sha256 " + std::string(kZeroSha) +
                ", file sha256 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad; "
                "refusing to load this binary");

  binary.bin_path = "kernels/libmissing.so";
  const Status missing = VerifyBinary(dir.path(), binary);
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("libmissing.so"), std::string::npos);

  binary.bin_path = "../outside.so";
  EXPECT_NE(VerifyBinary(dir.path(), binary).message().find("is not a plain relative path inside"),
            std::string::npos);
}

TEST(PackageChecksum, VerifyBinaryRefusesSymlinkOutOfThePackage) {
  TempDir dir;
  WriteFile(dir.path() / "elsewhere/libevil.so", "abc");
  fs::create_directories(dir.path() / "pkg/kernels");
  fs::create_symlink(dir.path() / "elsewhere/libevil.so", dir.path() / "pkg/kernels/libadd.so");
  const ManifestBinary binary{"x86-64-v3",
                              std::string(kAddKey),
                              "kernels/libadd.so",
                              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                              {{0, ManifestKernelType::kAiv, "0:1"}}};
  const Status s = VerifyBinary(dir.path() / "pkg", binary);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("outside the package"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace tessera::runtime

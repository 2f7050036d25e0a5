// Simplified keys of the three modes (build, check, a call's key from its TilingContext), OpDef
// key declarations, tiling-key selections (selective builds) and the manifest fields recording
// both. Random keys are compared with a reference spelled independently here.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/package/package_manifest.h"
#include "runtime/package/package_match.h"
#include "tessera/kernel/kernel_entry.h"
#include "tessera/runtime/op_def.h"
#include "tessera/runtime/tiling_context.h"

namespace tessera::runtime {
namespace {

bool Contains(const Status& s, const std::string& needle) {
  return std::string(s.message()).find(needle) != std::string::npos;
}

constexpr std::string_view kSha =
    "00000000000000000000000000000000000000000000000000000000000000ff";

// The reference spelling of a mode-0/1 key, written without the library's helpers.
std::string ReferenceKey(const std::string& op, bool d, uint32_t p,
                         const std::vector<SimplifiedKeyTensor>& tensors,
                         const std::vector<SimplifiedKeyAttr>& attrs, bool counts) {
  std::ostringstream out;
  out << op << "/d=" << (d ? 1 : 0) << ",p=" << p;
  for (const auto& t : tensors) {
    out << "/" << DataTypeCannName(t.dtype) << ",ND";
    if (counts && t.dynamic_count >= 0) out << ",n=" << t.dynamic_count;
  }
  for (const auto& a : attrs)
    out << "/" << a.name << "=" << a.value;
  return out.str();
}

struct RandomKeyParts {
  std::string op;
  bool d = false;
  uint32_t p = 0;
  std::vector<SimplifiedKeyTensor> ins, outs;
  std::vector<SimplifiedKeyAttr> attrs;
};

RandomKeyParts RandomParts(std::mt19937& rng, bool with_counts, bool with_attrs) {
  static const char* const kOps[] = {"Add", "ScaleMode", "Cast", "LayerNorm2d"};
  static const char* const kAttrNames[] = {"mode", "axis", "keep_dims", "impl", "alpha2"};
  const auto dtypes = AllDataTypes();
  RandomKeyParts parts;
  parts.op = kOps[rng() % 4];
  parts.d = rng() % 2;
  parts.p = rng() % 1000;
  const auto tensor = [&] {
    SimplifiedKeyTensor t{dtypes[rng() % dtypes.size()], Format::kND, -1};
    if (with_counts && rng() % 3 == 0) t.dynamic_count = static_cast<int32_t>(rng() % 9);
    return t;
  };
  for (size_t i = 0, n = 1 + rng() % 4; i < n; ++i)
    parts.ins.push_back(tensor());
  for (size_t i = 0, n = 1 + rng() % 2; i < n; ++i)
    parts.outs.push_back(tensor());
  if (with_attrs) {
    std::vector<std::string> names(std::begin(kAttrNames), std::end(kAttrNames));
    std::shuffle(names.begin(), names.end(), rng);
    static const std::string kChars =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-";
    for (size_t i = 0, n = rng() % 4; i < n; ++i) {
      std::string value;
      switch (rng() % 3) {
        case 0:
          value = std::to_string(static_cast<int64_t>(rng()) - (1ll << 31));
          break;
        case 1:
          value = rng() % 2 ? "true" : "false";
          break;
        default:
          for (size_t c = 0, len = 1 + rng() % 12; c < len; ++c)
            value += kChars[rng() % kChars.size()];
      }
      parts.attrs.push_back({names[i], value});
    }
  }
  return parts;
}

TEST(SimplifiedKeyTest, Mode0RandomKeysMatchTheReferenceAndCheck) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 300; ++iter) {
    const RandomKeyParts k = RandomParts(rng, false, false);
    const std::string key = BuildSimplifiedKey(k.op, k.d, k.p, k.ins, k.outs);
    std::vector<SimplifiedKeyTensor> all = k.ins;
    all.insert(all.end(), k.outs.begin(), k.outs.end());
    ASSERT_EQ(key, ReferenceKey(k.op, k.d, k.p, all, {}, false));
    ASSERT_TRUE(CheckSimplifiedKey(key, k.op, 0).ok()) << key;
    // A mode-0 key is also a mode-1 key without counts and attributes.
    ASSERT_TRUE(CheckSimplifiedKey(key, k.op, 1).ok()) << key;
    ASSERT_FALSE(CheckSimplifiedKey(key, k.op, 2).ok()) << key;
  }
}

TEST(SimplifiedKeyTest, Mode1RandomKeysMatchTheReferenceAndCheck) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 300; ++iter) {
    const RandomKeyParts k = RandomParts(rng, true, true);
    const std::string key = BuildSimplifiedKey(k.op, k.d, k.p, k.ins, k.outs, k.attrs);
    std::vector<SimplifiedKeyTensor> all = k.ins;
    all.insert(all.end(), k.outs.begin(), k.outs.end());
    ASSERT_EQ(key, ReferenceKey(k.op, k.d, k.p, all, k.attrs, true));
    ASSERT_TRUE(CheckSimplifiedKey(key, k.op, 1).ok())
        << CheckSimplifiedKey(key, k.op, 1).ToString();
    const bool plain = k.attrs.empty() && std::none_of(all.begin(), all.end(), [](const auto& t) {
                         return t.dynamic_count >= 0;
                       });
    ASSERT_EQ(CheckSimplifiedKey(key, k.op, 0).ok(), plain) << key;
    // The mode-0 builder ignores counts: the key without attributes and counts.
    ASSERT_EQ(BuildSimplifiedKey(k.op, k.d, k.p, k.ins, k.outs),
              ReferenceKey(k.op, k.d, k.p, all, {}, false));
  }
}

TEST(SimplifiedKeyTest, Mode2RandomFragmentsCheckAndBadOnesAreRefused) {
  std::mt19937 rng(13);
  static const std::string kChars =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,=:+-#@";
  for (int iter = 0; iter < 300; ++iter) {
    std::string fragment;
    for (size_t c = 0, len = 1 + rng() % 40; c < len; ++c)
      fragment += kChars[rng() % kChars.size()];
    if (fragment.substr(0, 2) == "d=") fragment[0] = 'x';
    const bool d = rng() % 2;
    const std::string key = BuildCustomSimplifiedKey("Op", d, 1, fragment);
    ASSERT_EQ(key, std::string("Op/d=") + (d ? "1" : "0") + ",p=1/" + fragment);
    ASSERT_TRUE(CheckSimplifiedKey(key, "Op", 2).ok()) << key;
  }
  const auto fragment_error = [](const std::string& f) {
    return CheckSimplifiedKeyFragment(f, "ScaleMode");
  };
  EXPECT_TRUE(Contains(fragment_error(""), "fragment \"\" of ScaleMode is empty"));
  EXPECT_TRUE(Contains(fragment_error("ScaleMode/d=0,p=0/mul"),
                       "holds '/'; expected only the op's custom fragment (the runtime adds "
                       "\"ScaleMode/d=<0|1>,p=<precision>/\")"));
  EXPECT_TRUE(Contains(fragment_error("d=0,p=0"), "starts with \"d=\""));
  EXPECT_TRUE(Contains(fragment_error("a b"), "expected printable ASCII"));
  EXPECT_TRUE(Contains(fragment_error("caf\xc3\xa9"), "non-ASCII"));
  EXPECT_TRUE(fragment_error(std::string(255, 'k')).ok());
  EXPECT_TRUE(
      Contains(fragment_error(std::string(256, 'k')), "is 256 bytes long; expected at most 255"));
  EXPECT_TRUE(Contains(CheckSimplifiedKey("Op/d=0,p=0/a/b", "Op", 2),
                       "has 2 segments after the flags; expected one custom fragment"));
}

TEST(SimplifiedKeyTest, CheckNamesWhatIsWrong) {
  const auto check = [](std::string_view key, uint32_t mode) {
    return CheckSimplifiedKey(key, "Op", mode);
  };
  EXPECT_TRUE(Contains(check("Op/d=0,p=0/DT_FLOAT,ND", 3), "expected mode 0, 1 or 2"));
  EXPECT_TRUE(Contains(check("Op/d=0,p=0/DT_FLOAT,ND/mode=1", 0),
                       "has attribute segment \"mode=1\"; expected only"));
  EXPECT_TRUE(Contains(check("Op/d=0,p=0/DT_FLOAT,ND,n=2", 0), "has tensor \"DT_FLOAT,ND,n=2\""));
  EXPECT_TRUE(check("Op/d=0,p=0/DT_FLOAT,ND,n=2", 1).ok());
  EXPECT_TRUE(Contains(check("Op/d=0,p=0/DT_FLOAT,ND,n=x", 1), "may add \",n=<count>\""));
  EXPECT_TRUE(Contains(check("Op/d=0,p=0/mode=1", 1), "lists no tensors"));
  EXPECT_TRUE(Contains(check("Op/d=0,p=0/DT_FLOAT,ND/mode=1/DT_FLOAT,ND", 1),
                       "has tensor \"DT_FLOAT,ND\" after an attribute"));
  EXPECT_TRUE(
      Contains(check("Op/d=0,p=0/DT_FLOAT,ND/mode=1/mode=2", 1), "names attribute \"mode\" twice"));
  EXPECT_TRUE(Contains(check("Op/d=0,p=0/DT_FLOAT,ND/mode=a,b", 1),
                       "has attribute \"mode=a,b\"; expected \"<attr>=<value>\""));
  EXPECT_TRUE(Contains(check("Op/d=0,p=0/DT_FLOAT,ND/2x=1", 1), "has attribute \"2x=1\""));
  EXPECT_TRUE(Contains(check("Op/d=0,p=0/DT_FLOAT,ND/mode=", 1), "has attribute \"mode=\""));
  EXPECT_TRUE(Contains(check("Add/d=0,p=0/DT_FLOAT,ND", 1), "expected \"Op/\""));
  EXPECT_TRUE(Contains(check("Op/d=2,p=0/DT_FLOAT,ND", 1), "has flags \"d=2,p=0\""));
}

TEST(TilingKeySelectionTest, ChecksAndSelects) {
  EXPECT_TRUE(CheckTilingKeySelection("Add:0,1;Cast:3").ok());
  EXPECT_TRUE(CheckTilingKeySelection("0,1").ok());
  EXPECT_TRUE(CheckTilingKeySelection("Add:18446744073709551615;2").ok());
  EXPECT_TRUE(Contains(CheckTilingKeySelection("Add:18446744073709551616"), "decimal keys"));
  EXPECT_TRUE(Contains(CheckTilingKeySelection(""), "is empty; expected at least one key"));
  EXPECT_TRUE(Contains(CheckTilingKeySelection("Add:0,,1"), "has item \"Add:0,,1\""));
  EXPECT_TRUE(Contains(CheckTilingKeySelection("Add:x"), "decimal keys"));
  EXPECT_TRUE(Contains(CheckTilingKeySelection("1Add:0"), "has item \"1Add:0\""));
  EXPECT_TRUE(Contains(CheckTilingKeySelection("Add:0;Add:1"), "names op \"Add\" twice"));
  EXPECT_TRUE(Contains(CheckTilingKeySelection("0;1"), "two bare key lists"));
  EXPECT_EQ(SelectedTilingKeys("Add:0,1;Cast:3", "Cast"), (std::vector<uint64_t>{3}));
  EXPECT_EQ(SelectedTilingKeys("Add:0,1;Cast:3", "Sub"), std::nullopt);
  EXPECT_EQ(SelectedTilingKeys("Add:0,1;5,6", "Sub"), (std::vector<uint64_t>{5, 6}));
  EXPECT_EQ(SelectedTilingKeys("5,6;Add:0,1", "Add"), (std::vector<uint64_t>{0, 1}));
}

// The compile-time filter of kernel_entry.h agrees with a reference set on random selections.
TEST(TilingKeySelectionTest, CompileTimeFilterMatchesReference) {
  static_assert(kernel::detail::TilingKeySelected("", "add", 5));
  static_assert(kernel::detail::TilingKeySelected("add:0,15", "add", 15));
  static_assert(!kernel::detail::TilingKeySelected("add:0,15", "add", 1));
  static_assert(!kernel::detail::TilingKeySelected("add:0,15", "add", 5));
  static_assert(kernel::detail::TilingKeySelected("add:0,15", "cast", 7));  // not restricted
  static_assert(
      kernel::detail::TilingKeySelected("add:0 3", "cast", 3));  // bare list, space separated
  static_assert(!kernel::detail::TilingKeySelected("add:0;3", "cast", 4));
  static_assert(!kernel::detail::TilingKeySelected("add:0;3", "add", 3));
  std::mt19937 rng(17);
  const std::vector<std::string> kernels = {"add", "scale_mode", "cast"};
  for (int iter = 0; iter < 500; ++iter) {
    std::string selection;
    std::vector<std::set<uint64_t>> ref(kernels.size());
    std::vector<bool> restricted(kernels.size(), false);
    std::set<uint64_t> bare;
    bool has_bare = false;
    for (size_t k = 0; k < kernels.size(); ++k) {
      if (rng() % 2) continue;
      if (!selection.empty()) selection += ';';
      selection.append(kernels[k]).append(":");
      restricted[k] = true;
      for (size_t i = 0, n = 1 + rng() % 3; i < n; ++i) {
        const uint64_t key = rng() % 12;
        if (i) selection += ',';
        selection += std::to_string(key);
        ref[k].insert(key);
      }
    }
    if (rng() % 2) {
      has_bare = true;
      std::string list;
      for (size_t i = 0, n = 1 + rng() % 3; i < n; ++i) {
        const uint64_t key = rng() % 12;
        if (i) list += ',';
        list += std::to_string(key);
        bare.insert(key);
      }
      selection = selection.empty() ? list : list + ";" + selection;
    }
    for (size_t k = 0; k < kernels.size(); ++k) {
      for (uint64_t key = 0; key < 12; ++key) {
        const bool expected = restricted[k] ? ref[k].count(key) > 0
                              : has_bare    ? bare.count(key) > 0
                                            : true;
        ASSERT_EQ(kernel::detail::TilingKeySelected(selection, kernels[k], key), expected)
            << selection << " " << kernels[k] << " " << key;
      }
    }
  }
}

ManifestBinary Binary(std::string key, std::vector<uint64_t> tiling_keys) {
  ManifestBinary b{"x86-64-v2", std::move(key), "kernels/x86-64-v2/libk.so", std::string(kSha), {}};
  for (uint64_t k : tiling_keys)
    b.kernels.push_back({k, ManifestKernelType::kAiv, "1:2"});
  return b;
}

TEST(FindKernelEntryTest, SelectiveBuildSaysWhatWasBuiltAndHowToAddTheKey) {
  ManifestBinary b = Binary("Add/d=0,p=0/DT_FLOAT,ND/DT_FLOAT,ND/DT_FLOAT,ND", {0, 1});
  EXPECT_TRUE(Contains(FindKernelEntry(b, 5).status(), "available tiling keys: 0, 1"));
  b.selective_build = ManifestSelectiveBuild{"TESSERA_TILING_KEYS", "Add:0,1;Cast:3"};
  ASSERT_TRUE(FindKernelEntry(b, 1).ok());
  EXPECT_TRUE(Contains(
      FindKernelEntry(b, 5).status(),
      "Cannot find tilingKey[5] in kernel json of kernels/x86-64-v2/libk.so (Add/d=0,p=0/"
      "DT_FLOAT,ND/DT_FLOAT,ND/DT_FLOAT,ND, SoC x86-64-v2): tilingKey[5] was not built: this "
      "package was built with TESSERA_TILING_KEYS=Add:0,1;Cast:3 (built tiling keys: 0, 1); "
      "reconfigure with -DTESSERA_TILING_KEYS=Add:0,1,5;Cast:3 or leave it empty to build every "
      "key"));
  b.selective_build = ManifestSelectiveBuild{"TESSERA_TILING_KEYS", "0,1"};
  EXPECT_TRUE(Contains(FindKernelEntry(b, 5).status(),
                       "reconfigure with -DTESSERA_TILING_KEYS=Add:0,1,5;0,1 or leave it empty"));
  b.selective_build = ManifestSelectiveBuild{"TILING_KEYS", "Add:0,1;Cast:3"};
  EXPECT_TRUE(Contains(FindKernelEntry(b, 5).status(),
                       "set TILING_KEYS Add:0,1,5 Cast:3 in its tessera_add_op_package() or "
                       "remove TILING_KEYS to build every key"));
  // A key the selection includes was built: this binary just lacks it, and the advice to add it
  // would be wrong.
  b.selective_build = ManifestSelectiveBuild{"TILING_KEYS", "Add:0,1,5"};
  const Status lacks = FindKernelEntry(b, 5).status();
  EXPECT_TRUE(Contains(lacks, "available tiling keys: 0, 1"));
  EXPECT_FALSE(Contains(lacks, "was not built"));
  ManifestBinary none = Binary("Add/d=0,p=0/DT_FLOAT,ND", {});
  none.selective_build = ManifestSelectiveBuild{"TILING_KEYS", "Add:0"};
  EXPECT_TRUE(Contains(FindKernelEntry(none, 1).status(), "(built tiling keys: none)"));
}

PackageManifest KeyedManifest() {
  PackageManifest m;
  m.package = "keyed";
  m.version = "1";
  m.tiling_library = "lib/libkeyed_ops.so";
  m.tiling_library_sha256 = std::string(64, 'a');
  OpManifest op;
  op.op = "ScaleMode";
  op.kernel = "scale_mode";
  op.simplified_key_mode = 1;
  op.inputs = {{"x", ManifestParamMode::kDynamic, {DataType::kFloat32}, {Format::kND}}};
  op.outputs = {{"y", ManifestParamMode::kRequired, {DataType::kFloat32}, {Format::kND}}};
  op.attrs = {{"mode", ManifestAttrType::kInt, true, std::nullopt}};
  op.binaries = {Binary("ScaleMode/d=0,p=0/DT_FLOAT,ND,n=1/DT_FLOAT,ND/mode=0", {0}),
                 Binary("ScaleMode/d=0,p=0/DT_FLOAT,ND,n=1/DT_FLOAT,ND/mode=1", {})};
  op.binaries[1].selective_build = ManifestSelectiveBuild{"TILING_KEYS", "ScaleMode:0"};
  OpManifest fn = op;
  fn.op = "ScaleModeFn";
  fn.kernel = "scale_mode_fn";
  fn.simplified_key_mode = 2;
  fn.binaries = {Binary("ScaleModeFn/d=0,p=0/mul", {0}), Binary("ScaleModeFn/d=0,p=0/add", {1})};
  m.ops = {op, fn};
  return m;
}

TEST(ManifestKeyFieldsTest, RoundTripAndDefaults) {
  const PackageManifest m = KeyedManifest();
  ASSERT_TRUE(ValidateManifest(m, "mem").ok()) << ValidateManifest(m, "mem").ToString();
  const std::string json = ManifestToJson(m);
  EXPECT_NE(json.find("\"simplifiedKeyMode\": 2"), std::string::npos);
  EXPECT_NE(json.find("\"option\": \"TILING_KEYS\""), std::string::npos);
  Result<PackageManifest> back = ParseManifestText(json, "mem");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, m);
  // Mode 0 is the default: not written, and a manifest without the field parses as mode 0.
  PackageManifest plain = m;
  plain.ops.resize(1);
  plain.ops[0].simplified_key_mode = 0;
  plain.ops[0].binaries = {Binary("ScaleMode/d=0,p=0/DT_FLOAT,ND/DT_FLOAT,ND", {0})};
  const std::string plain_json = ManifestToJson(plain);
  EXPECT_EQ(plain_json.find("simplifiedKeyMode"), std::string::npos);
  EXPECT_EQ(plain_json.find("selectiveBuild"), std::string::npos);
  Result<PackageManifest> plain_back = ParseManifestText(plain_json, "mem");
  ASSERT_TRUE(plain_back.ok()) << plain_back.status().ToString();
  EXPECT_EQ(plain_back->ops[0].simplified_key_mode, 0u);
}

TEST(ManifestKeyFieldsTest, RejectsBadModeKeysAndSelections) {
  const auto error = [](const PackageManifest& m) { return ValidateManifest(m, "m.json"); };
  PackageManifest m = KeyedManifest();
  m.ops[0].simplified_key_mode = 0;  // the mode-1 keys no longer fit
  EXPECT_TRUE(Contains(error(m), "ops[0].binaries[0].simplifiedKey is invalid"));
  m = KeyedManifest();
  m.ops[1].simplified_key_mode = 1;
  EXPECT_TRUE(Contains(error(m), "ops[1].binaries[0].simplifiedKey is invalid"));
  m = KeyedManifest();
  m.ops[0].simplified_key_mode = 3;
  EXPECT_TRUE(Contains(error(m), "ops[0].simplifiedKeyMode is 3; expected 0, 1 or 2"));
  m = KeyedManifest();
  m.ops[0].binaries[1].selective_build.reset();
  EXPECT_TRUE(Contains(error(m),
                       "ops[0].binaries[1].kernels is empty; expected at least one "
                       "kernel entry (none only in a selective build)"));
  m = KeyedManifest();
  m.ops[0].binaries[1].selective_build->option = "TILING_KEY";
  EXPECT_TRUE(Contains(error(m),
                       "selectiveBuild.option is \"TILING_KEY\"; expected "
                       "TESSERA_TILING_KEYS or TILING_KEYS"));
  m = KeyedManifest();
  m.ops[0].binaries[1].selective_build->value = "ScaleMode:";
  EXPECT_TRUE(Contains(error(m), "selectiveBuild.value is invalid: tiling-key selection"));
  std::string json = ManifestToJson(KeyedManifest());
  json.replace(json.find("\"simplifiedKeyMode\": 1"), 22, "\"simplifiedKeyMode\": -1");
  EXPECT_TRUE(Contains(ParseManifestText(json, "m.json").status(),
                       "ops[0].simplifiedKeyMode is -1; expected 0, 1 or 2"));
  json = ManifestToJson(KeyedManifest());
  json.replace(json.find("\"value\""), 7, "\"values\"");
  EXPECT_TRUE(Contains(ParseManifestText(json, "m.json").status(),
                       "selectiveBuild has unknown key \"values\""));
}

Status NoTiling(TilingContext&) {
  return OkStatus();
}

// An op valid in every mode but for its key declarations.
class KeyOp : public OpDef {
 public:
  KeyOp() : OpDef("KeyOp") {
    Input("x").ParamType(REQUIRED).DataType({DataType::kFloat32});
    Input("xs").ParamType(DYNAMIC).DataType({DataType::kFloat16});
    Output("y").ParamType(REQUIRED).Follow("x");
    SetTiling(NoTiling);
    AddConfig("x86-64-v2");
  }
};

Result<std::string> MulKey(const TilingContext&) {
  return std::string("mul");
}

TEST(OpDefKeyTest, ValidateChecksKeyDeclarations) {
  const auto error = [](auto&& build) {
    KeyOp op;
    build(op);
    return op.Validate();
  };
  EXPECT_TRUE(error([](KeyOp& op) {
                op.Attr("mode").Int().BinaryValue(0, {0}).BinaryValue(1);
                op.SimplifiedKeyMode(1);
              }).ok());
  EXPECT_TRUE(Contains(error([](KeyOp& op) {
                         op.Attr("mode").Int().BinaryValues({0, 1});
                       }),
                       "attribute 'mode' declares BinaryValue(s) but SimplifiedKeyMode(0)"));
  EXPECT_TRUE(Contains(error([](KeyOp& op) {
                         op.Attr("a").Float().BinaryValues({1.0f});
                         op.SimplifiedKeyMode(1);
                       }),
                       "attribute 'a' is float; only int, bool and string attributes"));
  EXPECT_TRUE(Contains(error([](KeyOp& op) {
                         op.Attr("a").Int().BinaryValues({true});
                         op.SimplifiedKeyMode(1);
                       }),
                       "declares a binary value of kind bool; expected int"));
  EXPECT_TRUE(Contains(error([](KeyOp& op) {
                         op.Attr("impl").String().BinaryValues({"fast/x"});
                         op.SimplifiedKeyMode(1);
                       }),
                       "declares binary value \"fast/x\"; expected letters, digits"));
  EXPECT_TRUE(Contains(error([](KeyOp& op) {
                         op.Attr("on").Bool().BinaryValues({true, true});
                         op.SimplifiedKeyMode(1);
                       }),
                       "declares binary value true twice"));
  EXPECT_TRUE(Contains(error([](KeyOp& op) { op.SimplifiedKeyMode(3); }),
                       "SimplifiedKeyMode(3) is unknown"));
  EXPECT_TRUE(Contains(error([](KeyOp& op) { op.SimplifiedKeyMode(2).SimplifiedKey("mul"); }),
                       "SimplifiedKeyMode(2) needs a callback (SetGenSimplifiedKey)"));
  EXPECT_TRUE(Contains(error([](KeyOp& op) { op.SetGenSimplifiedKey(MulKey); }),
                       "declares no SimplifiedKey(fragment)"));
  EXPECT_TRUE(Contains(error([](KeyOp& op) {
                         op.SetGenSimplifiedKey(MulKey).SimplifiedKeys({"mul", "KeyOp/mul"});
                       }),
                       "fragment \"KeyOp/mul\" of KeyOp holds '/'"));
  EXPECT_TRUE(Contains(error([](KeyOp& op) {
                         op.SetGenSimplifiedKey(MulKey).SimplifiedKeys({"mul", "mul"});
                       }),
                       "declares SimplifiedKey(\"mul\") twice"));
  EXPECT_TRUE(
      Contains(error([](KeyOp& op) { op.SetGenSimplifiedKey(MulKey).SimplifiedKeyMode(1); }),
               "has a SetGenSimplifiedKey callback but SimplifiedKeyMode(1)"));
  EXPECT_TRUE(Contains(error([](KeyOp& op) { op.SimplifiedKey("mul"); }),
                       "declares SimplifiedKey(\"mul\") but SimplifiedKeyMode(0)"));
}

TilingContext KeyContext(std::map<std::string, AttrValue> attrs) {
  const TensorDesc x{DataType::kFloat32, *Shape::Make({4}), Format::kND, {}};
  const TensorDesc xs{DataType::kFloat16, *Shape::Make({4}), Format::kND, {}};
  return TilingContext("KeyOp", {x, xs}, {x}, std::move(attrs), PlatformInfo{});
}

TEST(OpDefKeyTest, CallKeyFollowsTheMode) {
  KeyOp op;
  op.Attr("mode").Int().BinaryValues({0, 1});
  op.Attr("on").Bool().BinaryValues({true, false});
  op.Attr("impl").String().BinaryValues({"fast"});
  op.Attr("alpha").Float();  // no binary values: not in the key
  const TilingContext ctx = KeyContext(
      {{"mode", int64_t{-3}}, {"on", false}, {"impl", std::string("fast")}, {"alpha", 0.5f}});
  OpDef& mode0 = op;
  Result<std::string> key = CallSimplifiedKey(mode0, ctx, true);
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  EXPECT_EQ(*key, "KeyOp/d=1,p=0/DT_FLOAT,ND/DT_FLOAT16,ND/DT_FLOAT,ND");
  op.SimplifiedKeyMode(1);
  key = CallSimplifiedKey(op, ctx, false);
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  EXPECT_EQ(*key,
            "KeyOp/d=0,p=0/DT_FLOAT,ND/DT_FLOAT16,ND,n=1/DT_FLOAT,ND/mode=-3/on=false/"
            "impl=fast");
  EXPECT_TRUE(CheckSimplifiedKey(*key, "KeyOp", 1).ok());
}

TEST(OpDefKeyTest, CallKeyMode2ReportsCallbackFailures) {
  const TilingContext ctx = KeyContext({});
  const auto key_with = [&](GenSimplifiedKeyFunc fn) {
    KeyOp op;
    op.SetGenSimplifiedKey(std::move(fn)).SimplifiedKey("mul");
    return CallSimplifiedKey(op, ctx, false);
  };
  Result<std::string> ok = key_with(MulKey);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(*ok, "KeyOp/d=0,p=0/mul");
  EXPECT_TRUE(Contains(key_with([](const TilingContext&) -> Result<std::string> {
                         return NotFound("no such dtype");
                       }).status(),
                       "Failed to generate the simplified key of KeyOp: the GenSimplifiedKey "
                       "callback failed: NotFound: no such dtype"));
  EXPECT_TRUE(Contains(key_with([](const TilingContext&) -> Result<std::string> {
                         throw std::runtime_error("boom");
                       }).status(),
                       "the GenSimplifiedKey callback threw: boom"));
  EXPECT_TRUE(
      Contains(key_with([](const TilingContext&) -> Result<std::string> { throw 42; }).status(),
               "the GenSimplifiedKey callback threw a non-std exception"));
  EXPECT_TRUE(Contains(key_with([](const TilingContext&) -> Result<std::string> {
                         return std::string("KeyOp/d=0,p=0/mul");
                       }).status(),
                       "the GenSimplifiedKey callback returned a bad simplified key fragment "
                       "\"KeyOp/d=0,p=0/mul\" of KeyOp holds '/'"));
}

}  // namespace
}  // namespace tessera::runtime

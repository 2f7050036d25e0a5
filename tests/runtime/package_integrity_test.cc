// Integrity before any package code runs: every tampering of a copy of the example custom package
// is refused with a message naming the file, and the tampered library is never mapped into the
// process. The manifest parser refuses duplicate keys, deep nesting, numbers out of range, files
// that are not regular (a FIFO must not hang) and oversize files.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>

#include "tessera/device/memory.h"
#include "tessera/runtime/op_runtime.h"
#include "runtime/package/package.h"
#include "verify/package_verify.h"

namespace tessera::runtime {
namespace {

namespace fs = std::filesystem;
const fs::path kCustom = TESSERA_TEST_CUSTOM_PACKAGE_DIR;
const fs::path kBuiltin = TESSERA_TEST_BUILTIN_PACKAGE_DIR;

bool Has(const Status& s, const std::string& needle) {
  return std::string(s.message()).find(needle) != std::string::npos;
}

// True when `file` (by its real path) is mapped into this process.
bool IsMapped(const fs::path& file) {
  std::error_code ec;
  const std::string real = fs::weakly_canonical(file, ec).string();
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(real) != std::string::npos) return true;
  }
  return false;
}

// A private copy of the example custom package, first on the search path.
class PackageIntegrity : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tessera_integrity_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::copy(kCustom, dir_, fs::copy_options::recursive);
    manifest_ = nlohmann::json::parse(std::ifstream(dir_ / "manifest.json"));
    setenv("TESSERA_CUSTOM_OPP_PATH", dir_.c_str(), 1);
    ClearParamCache();
  }
  void TearDown() override {
    unsetenv("TESSERA_CUSTOM_OPP_PATH");
    ClearParamCache();
    fs::remove_all(dir_);
  }
  void WriteManifestText(const std::string& text) {
    fs::remove(dir_ / "manifest.json");
    std::ofstream(dir_ / "manifest.json", std::ios::binary) << text;
  }
  void SaveManifest() { WriteManifestText(manifest_.dump(2)); }
  nlohmann::json& Binary(size_t i = 0) { return manifest_["ops"][0]["binaries"][i]; }
  // Every kernel library the manifest lists.
  std::vector<std::string> BinPaths() {
    std::vector<std::string> paths;
    for (const auto& b : manifest_["ops"][0]["binaries"])
      paths.push_back(b["binPath"]);
    return paths;
  }

  // Stage 1 of Add on 16 floats: the package's op, or the built-in one when the copy is skipped.
  Result<std::string> PreparePackage() {
    void* p = *device::Malloc(64);
    const TensorDesc desc{DataType::kFloat32, *Shape::Make({16}), Format::kND, {}};
    OpCall call;
    call.op_type = "Add";
    call.inputs = {TensorArg{desc, p}, TensorArg{desc, p}};
    call.outputs = {TensorArg{desc, p}};
    uint64_t ws = 0;
    Result<std::unique_ptr<OpExecutor>> exec = PrepareOp(call, &ws);
    (void)device::Free(p);
    if (!exec.ok()) return exec.status();
    return (*exec)->package();
  }
  // The package must be skipped (the built-in Add runs instead) with `needle` in its reason.
  void ExpectManifestRejected(const std::string& needle) {
    PackageSet set = LoadPackages(*ResolvePackageSearch(ProcessEnv(), kBuiltin));
    ASSERT_FALSE(set.searched.empty());
    EXPECT_FALSE(set.searched[0].used);
    EXPECT_NE(set.searched[0].reason.find(needle), std::string::npos) << set.searched[0].reason;
    Result<std::string> package = PreparePackage();
    ASSERT_TRUE(package.ok()) << package.status().ToString();
    EXPECT_EQ(*package, "builtin");
  }

  fs::path dir_;
  nlohmann::json manifest_;
};

TEST_F(PackageIntegrity, IntactCopyRunsThePackagesOwnOp) {
  Result<std::string> package = PreparePackage();
  ASSERT_TRUE(package.ok()) << package.status().ToString();
  EXPECT_NE(*package, "builtin");
}

TEST_F(PackageIntegrity, OpLibraryReplacedByAnotherLibraryIsNeverLoaded) {
  const std::string lib = manifest_["tiling_library"];
  fs::remove(dir_ / lib);
  fs::copy_file(kBuiltin / "lib/libbuiltin_ops.so", dir_ / lib);
  Result<std::string> package = PreparePackage();
  ASSERT_FALSE(package.ok());
  EXPECT_TRUE(Has(package.status(), "checksum mismatch for " + (dir_ / lib).string()))
      << package.status().ToString();
  EXPECT_TRUE(Has(package.status(), "refusing to load this op library"));
  EXPECT_FALSE(IsMapped(dir_ / lib));
}

TEST_F(PackageIntegrity, OpLibrarySymlinkLeavingThePackageIsRefused) {
  // Even with the manifest recording the outside file's true digest.
  const std::string lib = manifest_["tiling_library"];
  const fs::path outside = kBuiltin / "lib/libbuiltin_ops.so";
  fs::remove(dir_ / lib);
  fs::create_symlink(outside, dir_ / lib);
  manifest_["tiling_library_sha256"] = *Sha256File(outside);
  SaveManifest();
  Result<std::string> package = PreparePackage();
  ASSERT_FALSE(package.ok());
  EXPECT_TRUE(Has(package.status(), "outside the package")) << package.status().ToString();
}

TEST_F(PackageIntegrity, KernelLibraryReplacedOrSymlinkedIsRefused) {
  // Any other library of the built package will do: builds may have a single SoC's kernels.
  const fs::path other = kBuiltin / "lib/libbuiltin_ops.so";
  for (const std::string& rel : BinPaths()) {
    fs::remove(dir_ / rel);
    fs::create_symlink(other, dir_ / rel);
  }
  Result<std::string> package = PreparePackage();
  ASSERT_FALSE(package.ok());
  EXPECT_TRUE(Has(package.status(), "outside the package")) << package.status().ToString();
  // A replacement inside the package fails its checksum instead.
  for (const std::string& rel : BinPaths()) {
    fs::remove(dir_ / rel);
    fs::copy_file(other, dir_ / rel);
  }
  ClearParamCache();
  package = PreparePackage();
  ASSERT_FALSE(package.ok());
  EXPECT_TRUE(Has(package.status(), "checksum mismatch")) << package.status().ToString();
  for (const std::string& rel : BinPaths())
    EXPECT_FALSE(IsMapped(dir_ / rel)) << rel;
}

TEST_F(PackageIntegrity, KernelLibraryThatIsAFifoIsRefusedWithoutWaiting) {
  for (const std::string& rel : BinPaths()) {
    fs::remove(dir_ / rel);
    ASSERT_EQ(::mkfifo((dir_ / rel).c_str(), 0600), 0);
  }
  Result<std::string> package = PreparePackage();
  ASSERT_FALSE(package.ok());
  EXPECT_TRUE(Has(package.status(), "is a FIFO; expected a regular file"))
      << package.status().ToString();
}

TEST_F(PackageIntegrity, OpMappedToAnotherKernelIsRefused) {
  const std::string kernel = manifest_["ops"][0]["kernel"];
  manifest_["ops"][0]["kernel"] = kernel + "_other";
  SaveManifest();
  Result<std::string> package = PreparePackage();
  ASSERT_FALSE(package.ok());
  EXPECT_TRUE(Has(package.status(), "the op library registers Add with kernel " + kernel))
      << package.status().ToString();
}

TEST_F(PackageIntegrity, WrongOpLibraryDigestIsRefused) {
  std::string sha = manifest_["tiling_library_sha256"];
  sha[7] = sha[7] == '0' ? '1' : '0';
  manifest_["tiling_library_sha256"] = sha;
  SaveManifest();
  Result<std::string> package = PreparePackage();
  ASSERT_FALSE(package.ok());
  EXPECT_TRUE(Has(package.status(), "manifest sha256 " + sha)) << package.status().ToString();
}

TEST_F(PackageIntegrity, BinPathWithEmbeddedNulIsRejected) {
  Binary()["binPath"] = Binary()["binPath"].get<std::string>() + std::string("\0", 1) + "../../x";
  SaveManifest();
  ExpectManifestRejected("binPath");
}

TEST_F(PackageIntegrity, BinPathWithDotDotOrAbsoluteIsRejected) {
  Binary()["binPath"] = "kernels/../" + Binary()["binPath"].get<std::string>();
  SaveManifest();
  ExpectManifestRejected("binPath");
  ClearParamCache();
  Binary()["binPath"] = (dir_ / "kernels/x.so").string();
  SaveManifest();
  ExpectManifestRejected("binPath");
}

TEST_F(PackageIntegrity, DuplicateKeysAreRejected) {
  // Two binPaths, then two sha256s: which one would win is not for the parser to guess.
  std::string text = manifest_.dump(2);
  const std::string bin = "\"binPath\": \"" + Binary()["binPath"].get<std::string>() + "\"";
  text.replace(text.find(bin), bin.size(), bin + ", \"binPath\": \"kernels/evil.so\"");
  WriteManifestText(text);
  ExpectManifestRejected("binPath appears twice in one object");
  text = manifest_.dump();
  const std::string sha = "\"sha256\":";
  text.replace(text.find(sha), sha.size(), "\"sha256\":\"" + std::string(64, '0') + "\"," + sha);
  WriteManifestText(text);
  ClearParamCache();
  ExpectManifestRejected("sha256 appears twice in one object");
}

TEST_F(PackageIntegrity, DeepNestingIsRejectedWithoutCrashing) {
  for (const size_t depth : {17, 1000, 100000}) {
    WriteManifestText(std::string(depth, '[') + std::string(depth, ']'));
    ClearParamCache();
    ExpectManifestRejected("nests deeper than 16 levels");
  }
}

TEST_F(PackageIntegrity, NumbersOutOfRangeAreRejected) {
  std::string text = manifest_.dump();
  const std::string key = "\"tilingKey\":0";
  ASSERT_NE(text.find(key), std::string::npos) << text.substr(0, 300);
  const std::string original = text;
  text.replace(text.find(key), key.size(), "\"tilingKey\":1e999");
  WriteManifestText(text);
  ExpectManifestRejected("number overflow");
  text = original;
  text.replace(text.find(key), key.size(), "\"tilingKey\":18446744073709551616");
  WriteManifestText(text);
  ClearParamCache();
  ExpectManifestRejected("tilingKey is 1.8446744073709552e+19; expected an unsigned integer");
}

TEST_F(PackageIntegrity, ManifestThatIsAFifoIsRefusedWithoutWaiting) {
  fs::remove(dir_ / "manifest.json");
  ASSERT_EQ(::mkfifo((dir_ / "manifest.json").c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  ExpectManifestRejected("is a FIFO; expected a regular file");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST_F(PackageIntegrity, ManifestSymlinkedToDevZeroIsRefused) {
  fs::remove(dir_ / "manifest.json");
  fs::create_symlink("/dev/zero", dir_ / "manifest.json");
  ExpectManifestRejected("is a character device; expected a regular file");
}

TEST_F(PackageIntegrity, OversizeManifestIsRefusedBeforeReading) {
  { std::ofstream(dir_ / "manifest.json", std::ios::trunc) << "{"; }
  fs::resize_file(dir_ / "manifest.json", kMaxManifestBytes + 1);  // sparse: nothing is written
  ExpectManifestRejected("bytes; expected at most " + std::to_string(kMaxManifestBytes));
}

TEST_F(PackageIntegrity, TamperedBytesAnywhereInAKernelLibraryAreRefused) {
  std::mt19937 rng(std::random_device{}());
  for (const std::string& rel : BinPaths()) {
    std::fstream f(dir_ / rel, std::ios::in | std::ios::out | std::ios::binary);
    const auto size = static_cast<std::streamoff>(fs::file_size(dir_ / rel));
    const std::streamoff at = static_cast<std::streamoff>(rng() % static_cast<uint64_t>(size));
    f.seekg(at);
    const char c = static_cast<char>(f.get());
    f.seekp(at);
    f.put(static_cast<char>(c ^ (1 + rng() % 255)));
  }
  Result<std::string> package = PreparePackage();
  ASSERT_FALSE(package.ok());
  EXPECT_TRUE(Has(package.status(), "checksum mismatch")) << package.status().ToString();
}

// The opened descriptor is what is hashed and loaded: a path component swapped for a symlink
// after the package was found changes nothing that was verified.
TEST(PackageFileTest, OpenPackageFileHashesWhatItOpened) {
  const fs::path dir = fs::temp_directory_path() / ("tessera_pkgfile_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "lib");
  std::mt19937 rng(7);
  std::string bytes(4097, '\0');
  for (char& c : bytes)
    c = static_cast<char>(rng());
  std::ofstream(dir / "lib/a.so", std::ios::binary) << bytes;
  Result<PackageFile> file = OpenPackageFile(dir, "lib/a.so", "kernel library");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->sha256(), *Sha256Hex(bytes));
  EXPECT_EQ(*Sha256Fd(file->fd(), "a"), *Sha256Hex(bytes));
  EXPECT_FALSE(OpenPackageFile(dir, "lib/../lib/a.so", "kernel library").ok());
  EXPECT_FALSE(OpenPackageFile(dir, "lib", "kernel library").ok());  // a directory
  Result<PackageFile> small = OpenPackageFile(dir, "lib/a.so", "kernel library", 4096);
  ASSERT_FALSE(small.ok());
  EXPECT_TRUE(Has(small.status(), "has 4097 bytes; expected at most 4096"));
  Result<PackageFile> wrong =
      OpenVerifiedPackageFile(dir, "lib/a.so", std::string(64, 'f'), "kernel library", "key");
  ASSERT_FALSE(wrong.ok());
  EXPECT_TRUE(Has(wrong.status(), "checksum mismatch for " + (dir / "lib/a.so").string()));
  fs::remove_all(dir);
}

// An Ed25519 key pair; the public half written as PEM to `pem`.
struct SigningKey {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key{nullptr, &EVP_PKEY_free};

  explicit SigningKey(const fs::path& pem) {
    std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(
        EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr), &EVP_PKEY_CTX_free);
    EVP_PKEY* raw = nullptr;
    if (ctx && EVP_PKEY_keygen_init(ctx.get()) == 1 && EVP_PKEY_keygen(ctx.get(), &raw) == 1) {
      key.reset(raw);
    }
    FILE* f = std::fopen(pem.c_str(), "w");
    if (f != nullptr && key) PEM_write_PUBKEY(f, key.get());
    if (f != nullptr) std::fclose(f);
  }
  // The 64-byte signature of `message`.
  std::string Sign(const std::string& message) const {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    std::string sig(64, '\0');
    size_t size = sig.size();
    if (EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1 ||
        EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &size,
                       reinterpret_cast<const unsigned char*>(message.data()),
                       message.size()) != 1) {
      return "";
    }
    return sig;
  }
};

std::string ReadAll(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_F(PackageIntegrity, SignedPackagesWithTrustedKeys) {
  const fs::path keys = dir_.string() + "_keys";
  fs::create_directories(keys);
  const SigningKey vendor(keys / "vendor.pem"), other(keys / "other.pem");
  ASSERT_TRUE(vendor.key && other.key);
  const std::string text = ReadAll(dir_ / "manifest.json");
  std::ofstream(dir_ / "manifest.json.sig", std::ios::binary) << vendor.Sign(text);
  setenv("TESSERA_TRUSTED_KEYS",
         ((keys / "other.pem").string() + ":" + (keys / "vendor.pem").string()).c_str(), 1);
  Result<std::string> package = PreparePackage();
  ASSERT_TRUE(package.ok()) << package.status().ToString();
  EXPECT_NE(*package, "builtin");  // signed by a trusted key: used
  Result<PackageReport> report = VerifyPackage(dir_);
  ASSERT_TRUE(report.ok());
  bool passed = false;
  for (const PackageFinding& f : report->findings)
    passed = passed || (f.check == "signature" && f.severity == FindingSeverity::kPass);
  EXPECT_TRUE(passed);

  // Changed after signing (one character of the version): refused, the built-in Add runs.
  std::string changed = text;
  changed[changed.find("\"version\"") + 12] ^= 1;
  WriteManifestText(changed);
  ClearParamCache();
  ExpectManifestRejected("does not verify manifest.json with any trusted key");
  report = VerifyPackage(dir_);
  ASSERT_TRUE(report.ok());
  EXPECT_FALSE(report->ok());

  // Signed by a key that is not trusted.
  WriteManifestText(text);
  std::ofstream(dir_ / "manifest.json.sig", std::ios::binary | std::ios::trunc) << other.Sign(text);
  setenv("TESSERA_TRUSTED_KEYS", (keys / "vendor.pem").c_str(), 1);
  ClearParamCache();
  ExpectManifestRejected("does not verify manifest.json with any trusted key");

  // Not signed at all.
  fs::remove(dir_ / "manifest.json.sig");
  ClearParamCache();
  ExpectManifestRejected("every package must be signed");
  unsetenv("TESSERA_TRUSTED_KEYS");
  fs::remove_all(keys);
}

// A library loaded through /proc/self/fd/N keeps that name after its descriptor is closed; a
// different library opened later at the same number must not be taken for it.
TEST(PackageFileTest, DescriptorNamesOfLoadedLibrariesAreNotReused) {
  Result<PackageFile> a = OpenPackageFile(kCustom, "lib/libcustom_add_ops.so", "op library");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  Result<void*> ha = DlopenPackageFile(*a);
  ASSERT_TRUE(ha.ok()) << ha.status().ToString();
  const int n = a->fd();
  *a = PackageFile();  // closes the descriptor; the library stays loaded under its name
  Result<PackageFile> b = OpenPackageFile(kBuiltin, "lib/libbuiltin_ops.so", "op library");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  const bool reused_number = b->fd() == n;
  Result<void*> hb = DlopenPackageFile(*b);
  ASSERT_TRUE(hb.ok()) << hb.status().ToString();
  EXPECT_NE(*ha, *hb);
  if (reused_number) {
    EXPECT_NE(b->fd(), n);  // moved to a number no loaded library is named by
  }
  // The same file again through a new descriptor: the loaded library is returned.
  Result<PackageFile> again = OpenPackageFile(kBuiltin, "lib/libbuiltin_ops.so", "op library");
  ASSERT_TRUE(again.ok());
  Result<void*> hc = DlopenPackageFile(*again);
  ASSERT_TRUE(hc.ok()) << hc.status().ToString();
  EXPECT_EQ(*hc, *hb);
  (void)b->Release();  // both handles stay loaded for the rest of the process
  (void)again->Release();
}

}  // namespace
}  // namespace tessera::runtime

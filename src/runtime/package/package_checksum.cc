#include "runtime/package/package_checksum.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <system_error>
#include <utility>
#include <vector>

namespace tessera::runtime {
namespace fs = std::filesystem;
namespace {

using MdContext = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

std::string Hex(const unsigned char* bytes, unsigned int size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (unsigned int i = 0; i < size; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 0xf];
  }
  return out;
}

// A SHA-256 digest context; empty when OpenSSL cannot create one.
MdContext NewSha256() {
  MdContext ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (ctx && EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) ctx.reset();
  return ctx;
}

Result<std::string> Finish(EVP_MD_CTX* ctx) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(ctx, digest.data(), &size) != 1) {
    return Internal("OpenSSL EVP_DigestFinal_ex failed for SHA-256");
  }
  return Hex(digest.data(), size);
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

Result<std::string> Sha256Hex(std::string_view data) {
  MdContext ctx = NewSha256();
  if (!ctx || EVP_DigestUpdate(ctx.get(), data.data(), data.size()) != 1) {
    return Internal("OpenSSL SHA-256 of " + std::to_string(data.size()) + " bytes failed");
  }
  return Finish(ctx.get());
}

Result<std::string> Sha256File(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return NotFound("cannot open " + file.string() + " to compute its sha256");
  MdContext ctx = NewSha256();
  if (!ctx) return Internal("OpenSSL could not create a SHA-256 context");
  std::array<char, 1 << 16> buffer;
  while (in) {
    in.read(buffer.data(), buffer.size());
    const std::streamsize got = in.gcount();
    if (got > 0 && EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<size_t>(got)) != 1) {
      return Internal("OpenSSL EVP_DigestUpdate failed while hashing " + file.string());
    }
  }
  if (in.bad()) return Internal("reading " + file.string() + " failed while computing its sha256");
  return Finish(ctx.get());
}

Result<std::string> Sha256Fd(int fd, std::string_view name) {
  MdContext ctx = NewSha256();
  if (!ctx) return Internal("OpenSSL could not create a SHA-256 context");
  std::vector<char> buffer(1 << 16);
  off_t offset = 0;
  for (;;) {
    const ssize_t got = ::pread(fd, buffer.data(), buffer.size(), offset);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      return Internal("reading " + std::string(name) + " failed while computing its sha256 (" +
                      std::strerror(errno) + ")");
    }
    if (got == 0) break;
    if (EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<size_t>(got)) != 1) {
      return Internal("OpenSSL EVP_DigestUpdate failed while hashing " + std::string(name));
    }
    offset += got;
  }
  return Finish(ctx.get());
}

PackageFile& PackageFile::operator=(PackageFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    sha256_ = std::move(other.sha256_);
  }
  return *this;
}

PackageFile::~PackageFile() {
  if (fd_ >= 0) ::close(fd_);
}

int PackageFile::Release() {
  return std::exchange(fd_, -1);
}

namespace {

std::string FdLink(int fd) {
  return "/proc/self/fd/" + std::to_string(fd);
}

// The real path of the open file `fd` ("" when /proc does not say).
std::string RealPathOf(int fd) {
  std::string target(4096, '\0');
  const ssize_t n = ::readlink(FdLink(fd).c_str(), target.data(), target.size());
  if (n <= 0 || static_cast<size_t>(n) >= target.size()) return "";
  target.resize(static_cast<size_t>(n));
  return target;
}

// True when the loaded object whose dynamic section is at `address` is mapped from the file open
// as `fd`: its mapping in /proc/self/maps names the file's device and inode. (Its name cannot tell:
// a /proc/self/fd/M name may since stand for another file.)
bool MappedFromFile(const void* address, int fd) {
  struct stat st {};
  if (address == nullptr || ::fstat(fd, &st) != 0) return false;
  std::ifstream maps("/proc/self/maps");
  const auto target = reinterpret_cast<uintptr_t>(address);
  std::string line;
  while (std::getline(maps, line)) {
    unsigned long long begin = 0, end = 0, offset = 0, inode = 0;
    unsigned int major_id = 0, minor_id = 0;
    char perms[8] = {};
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %x:%x %llu", &begin, &end, perms, &offset,
                    &major_id, &minor_id, &inode) != 7) {
      continue;
    }
    if (target < begin || target >= end) continue;
    return inode == static_cast<unsigned long long>(st.st_ino) && major_id == major(st.st_dev) &&
           minor_id == minor(st.st_dev);
  }
  return false;
}

const char* KindOf(mode_t mode) {
  return S_ISFIFO(mode)   ? "a FIFO"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISDIR(mode)  ? "a directory"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a regular file";
}

}  // namespace

Result<PackageFile> OpenPackageFile(const fs::path& package_dir, std::string_view relative,
                                    std::string_view what, uint64_t max_bytes) {
  const std::string shown =
      (package_dir / std::string(relative.substr(0, relative.find('\0')))).string();
  const std::string name = std::string(what) + " " + shown;
  if (!IsContainedRelativePath(relative)) {
    std::string printable;
    for (char c : relative)
      printable += c == '\0' ? std::string("\\u0000") : std::string(1, c);
    return InvalidArgument(name + ": path \"" + printable +
                           "\" is not a plain relative path inside the package; expected names " +
                           "separated by '/' without \"..\", \".\", NUL or a leading '/'");
  }
  char* real_root = ::realpath(package_dir.c_str(), nullptr);
  if (real_root == nullptr) {
    return NotFound(name + ": the package directory " + package_dir.string() +
                    " cannot be resolved (" + std::strerror(errno) + ")");
  }
  const std::string root(real_root);
  std::free(real_root);
  const std::string path = (package_dir / std::string(relative)).string();
  // O_NONBLOCK: a FIFO must be refused, not waited on; O_NOCTTY: a terminal is not adopted.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT) {
      return NotFound(name + " is missing: " + path + " does not exist");
    }
    return NotFound(name + " cannot be opened (" + std::strerror(errno) +
                    "); expected the file the manifest lists");
  }
  PackageFile file(fd, path, "");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return Internal(name + ": fstat failed (" + std::strerror(errno) + ")");
  }
  if (!S_ISREG(st.st_mode)) {
    return InvalidArgument(name + " is " + KindOf(st.st_mode) + "; expected a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    return InvalidArgument(name + " has " + std::to_string(st.st_size) +
                           " bytes; expected at most " + std::to_string(max_bytes));
  }
  const std::string real = RealPathOf(fd);
  const std::string prefix = root == "/" ? root : root + "/";
  if (real.empty() || real.compare(0, prefix.size(), prefix) != 0) {
    return InvalidArgument(name + " resolves to " + (real.empty() ? "an unknown file" : real) +
                           ", outside the package " + root +
                           "; expected a file inside the package directory");
  }
  TESSERA_ASSIGN_OR_RETURN(std::string digest, Sha256Fd(fd, shown));
  return PackageFile(file.Release(), path, std::move(digest));
}

Result<PackageFile> OpenVerifiedPackageFile(const fs::path& package_dir, std::string_view relative,
                                            std::string_view expected_sha256, std::string_view what,
                                            std::string_view subject) {
  TESSERA_ASSIGN_OR_RETURN(PackageFile file, OpenPackageFile(package_dir, relative, what));
  if (Lower(expected_sha256) != file.sha256()) {
    return FailedPrecondition("checksum mismatch for " + file.path() + " (" + std::string(subject) +
                              "): manifest sha256 " + std::string(expected_sha256) +
                              ", file sha256 " + file.sha256() + "; refusing to load this " +
                              std::string(what));
  }
  return file;
}

namespace {

// Loaded through /proc/self/fd/N, a library's $ORIGIN is /proc/self/fd, so an installed package
// cannot find tessera's own libraries through its RUNPATH. Load them once from the directory of
// this library (the installed <libdir>) so the loader finds them by soname; nothing is ever loaded
// from inside a package except the files its manifest lists and verifies.
void LoadTesseraLibraries() {
  static std::once_flag once;
  std::call_once(once, [] {
    Dl_info info{};
    if (dladdr(reinterpret_cast<const void*>(&LoadTesseraLibraries), &info) == 0 ||
        info.dli_fname == nullptr) {
      return;
    }
    std::error_code ec;
    const fs::path dir = fs::path(info.dli_fname).parent_path();
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.rfind("libtessera_", 0) != 0 || it->path().extension() != ".so") continue;
      if (void* loaded = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) {
        dlclose(loaded);
        continue;
      }
      (void)dlopen(it->path().c_str(), RTLD_NOW | RTLD_LOCAL);  // kept: packages may need it
    }
  });
}

}  // namespace

Result<void*> DlopenPackageFile(PackageFile& file) {
  LoadTesseraLibraries();
  // A library loaded earlier through a descriptor that had the same number and is still mapped
  // (dlclose may keep C++ libraries) would be returned by name without opening this file: move
  // the descriptor to a number whose name no loaded library has.
  std::vector<int> held;  // numbers tried, kept open so the next attempt gets a new one
  std::string link = FdLink(file.fd());
  for (;;) {
    // Found either because this very file is loaded already (fine: dlopen returns it) or by a
    // name left by a descriptor closed since, naming another file (then take a fresh number).
    void* loaded = dlopen(link.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (loaded == nullptr) break;
    struct link_map* map = nullptr;
    const bool same = dlinfo(loaded, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr &&
                      MappedFromFile(map->l_ld, file.fd());
    dlclose(loaded);
    if (same) break;
    if (held.size() >= 256) {
      for (int fd : held)
        ::close(fd);
      return Internal("cannot load " + file.path() + ": no free descriptor name unused by a " +
                      "loaded library after 256 tries");
    }
    const int moved = ::fcntl(file.fd(), F_DUPFD_CLOEXEC, file.fd() + 1);
    if (moved < 0) {
      for (int fd : held)
        ::close(fd);
      return Internal("cannot load " + file.path() + ": fcntl(F_DUPFD) failed (" +
                      std::strerror(errno) + ")");
    }
    held.push_back(file.Release());
    file = PackageFile(moved, file.path(), file.sha256());
    link = FdLink(moved);
  }
  for (int fd : held)
    ::close(fd);
  dlerror();
  void* handle = dlopen(link.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    return NotFound("cannot load " + file.path() + ": " + (error ? error : "unknown error"));
  }
  return handle;
}

namespace {

using PkeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

// The Ed25519 public key in PEM file `file`.
Result<PkeyPtr> LoadEd25519PublicKey(const std::string& file) {
  TESSERA_ASSIGN_OR_RETURN(const std::string pem,
                           ReadRegularFile(file, uint64_t{1} << 16, "trusted key"));
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  PkeyPtr key(bio ? PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr) : nullptr,
              &EVP_PKEY_free);
  if (!key) {
    return InvalidArgument("trusted key " + file +
                           " is not a PEM public key; expected the output of `openssl pkey "
                           "-pubout` for an Ed25519 key");
  }
  if (EVP_PKEY_id(key.get()) != EVP_PKEY_ED25519) {
    return InvalidArgument("trusted key " + file + " is not an Ed25519 key");
  }
  return key;
}

}  // namespace

Status VerifyManifestSignature(std::string_view manifest_text, const fs::path& signature_file,
                               std::string_view trusted_keys) {
  Result<std::string> signature = ReadRegularFile(signature_file, 4096, "signature");
  if (!signature.ok()) {
    return FailedPrecondition(std::string(signature.status().message()) + "; " +
                              std::string(kTrustedKeysEnv) +
                              " is set, so every package must be signed");
  }
  if (signature->size() != 64) {
    return FailedPrecondition("signature " + signature_file.string() + " has " +
                              std::to_string(signature->size()) +
                              " bytes; expected a 64-byte Ed25519 signature");
  }
  std::vector<std::string> tried;
  size_t start = 0;
  while (start <= trusted_keys.size()) {
    const size_t colon = std::min(trusted_keys.find(':', start), trusted_keys.size());
    const std::string file(trusted_keys.substr(start, colon - start));
    start = colon + 1;
    if (file.empty()) continue;
    TESSERA_ASSIGN_OR_RETURN(const PkeyPtr key, LoadEd25519PublicKey(file));
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1) {
      return Internal("OpenSSL could not set up Ed25519 verification with " + file);
    }
    const int ok = EVP_DigestVerify(
        ctx.get(), reinterpret_cast<const unsigned char*>(signature->data()), signature->size(),
        reinterpret_cast<const unsigned char*>(manifest_text.data()), manifest_text.size());
    if (ok == 1) return OkStatus();
    tried.push_back(file);
  }
  if (tried.empty()) {
    return InvalidArgument(std::string(kTrustedKeysEnv) + "=\"" + std::string(trusted_keys) +
                           "\" lists no key file");
  }
  std::string keys;
  for (const std::string& k : tried)
    keys += (keys.empty() ? "" : ", ") + k;
  return FailedPrecondition("signature " + signature_file.string() +
                            " does not verify manifest.json with any trusted key (" + keys +
                            "): the manifest was changed after signing, or signed by another key");
}

void ClosePackageLibrary(void* handle, PackageFile& file) {
  if (handle != nullptr) dlclose(handle);
  if (file.fd() < 0) return;
  if (void* still = dlopen(FdLink(file.fd()).c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) {
    dlclose(still);
    (void)file.Release();  // still mapped under this name: the name must keep meaning this file
    return;
  }
  file = PackageFile();
}

Status VerifyBinary(const fs::path& package_dir, const ManifestBinary& binary) {
  return OpenVerifiedPackageFile(package_dir, binary.bin_path, binary.sha256, "binary",
                                 binary.simplified_key)
      .status();
}

}  // namespace tessera::runtime

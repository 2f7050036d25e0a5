#include "tessera/runtime/package_checksum.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
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
    void* loaded = dlopen(link.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (loaded == nullptr) break;
    // Found either by name (a stale /proc/self/fd/N) or because this very file is loaded already
    // under another name; only the first needs another number.
    struct link_map* map = nullptr;
    const bool stale_name =
        dlinfo(loaded, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name == link;
    dlclose(loaded);
    if (!stale_name) break;
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

Status VerifyBinary(const fs::path& package_dir, const ManifestBinary& binary) {
  return OpenVerifiedPackageFile(package_dir, binary.bin_path, binary.sha256, "binary",
                                 binary.simplified_key)
      .status();
}

}  // namespace tessera::runtime

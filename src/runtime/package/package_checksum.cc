#include "runtime/package/package_checksum.h"

#include <openssl/evp.h>

#include <array>
#include <cctype>
#include <fstream>
#include <memory>
#include <system_error>

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

Status VerifyBinary(const fs::path& package_dir, const ManifestBinary& binary) {
  const fs::path file = package_dir / binary.bin_path;
  if (!IsContainedRelativePath(binary.bin_path)) {
    return InvalidArgument("binary " + file.string() + " (" + binary.simplified_key +
                           "): binPath \"" + binary.bin_path +
                           "\" leaves the package directory; expected a relative path inside it");
  }
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(package_dir, ec);
  const fs::path real = fs::weakly_canonical(file, ec);
  const fs::path relative = real.lexically_relative(root);
  if (ec || relative.empty() || *relative.begin() == "..") {
    return InvalidArgument("binary " + file.string() + " (" + binary.simplified_key +
                           ") resolves to " + real.string() + ", outside the package " +
                           root.string() + "; expected it inside the package directory");
  }
  if (!fs::is_regular_file(real, ec)) {
    return NotFound("binary " + file.string() + " (" + binary.simplified_key +
                    ") is missing or not a regular file; expected the kernel library the " +
                    "manifest lists");
  }
  TESSERA_ASSIGN_OR_RETURN(const std::string actual, Sha256File(real));
  if (Lower(binary.sha256) != actual) {
    return FailedPrecondition("checksum mismatch for " + file.string() + " (" +
                              binary.simplified_key + "): manifest sha256 " + binary.sha256 +
                              ", file sha256 " + actual + "; refusing to load this binary");
  }
  return OkStatus();
}

}  // namespace tessera::runtime

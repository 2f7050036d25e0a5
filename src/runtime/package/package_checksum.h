// SHA-256 of package files (OpenSSL libcrypto, EVP API) and the checks run before a package file
// is loaded: every file a package can make the process load is opened once, checked and hashed
// through that descriptor, and loaded through the same descriptor (/proc/self/fd/N), so what was
// checked is what runs (no check-then-open race).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "tessera/core/status.h"
#include "runtime/package/package_manifest.h"

namespace tessera::runtime {

// Largest op, tiling or kernel library a package may make the process load.
inline constexpr uint64_t kMaxPackageLibraryBytes = 1ull << 30;

// Lower-case hex SHA-256 of `data`; Internal only when OpenSSL itself fails.
Result<std::string> Sha256Hex(std::string_view data);
// Lower-case hex SHA-256 of the file's bytes, read in chunks. Errors name the file.
Result<std::string> Sha256File(const std::filesystem::path& file);
// Lower-case hex SHA-256 of the bytes of the open file `fd` (read with pread from offset 0, so
// the descriptor's offset is untouched). `name` names the file in errors.
Result<std::string> Sha256Fd(int fd, std::string_view name);

// A package file opened for loading. Owns the descriptor; move-only.
class PackageFile {
 public:
  PackageFile() = default;
  PackageFile(int fd, std::string path, std::string sha256)
      : fd_(fd), path_(std::move(path)), sha256_(std::move(sha256)) {}
  PackageFile(PackageFile&& other) noexcept { *this = std::move(other); }
  PackageFile& operator=(PackageFile&& other) noexcept;
  PackageFile(const PackageFile&) = delete;
  PackageFile& operator=(const PackageFile&) = delete;
  ~PackageFile();

  int fd() const { return fd_; }
  // The file as the package names it (package dir / relative path), for messages.
  const std::string& path() const { return path_; }
  // Lower-case hex SHA-256 of the opened file's bytes.
  const std::string& sha256() const { return sha256_; }
  // Gives up ownership: the descriptor stays open (a loaded library keeps its file).
  int Release();

 private:
  int fd_ = -1;
  std::string path_;
  std::string sha256_;
};

// Opens `package_dir`/`relative` for loading and hashes it. Refuses, before reading a byte of
// code: a `relative` that is not a plain relative path (IsContainedRelativePath: NUL, "..",
// absolute, ...); a file that does not open; one that is not a regular file (a FIFO or device is
// refused without blocking); one larger than `max_bytes`; one whose real location - of the opened
// descriptor, so a symlink swapped in later changes nothing - is outside the package's real
// directory. `what` names the file's role in errors ("kernel library", "op library").
Result<PackageFile> OpenPackageFile(const std::filesystem::path& package_dir,
                                    std::string_view relative, std::string_view what,
                                    uint64_t max_bytes = kMaxPackageLibraryBytes);

// OpenPackageFile, then compares the hash with `expected_sha256` (case-insensitive). A mismatch is
// FailedPrecondition with both digests: "checksum mismatch for <file> (<subject>): manifest sha256
// <a>, file sha256 <b>; refusing to load this <what>".
Result<PackageFile> OpenVerifiedPackageFile(const std::filesystem::path& package_dir,
                                            std::string_view relative,
                                            std::string_view expected_sha256, std::string_view what,
                                            std::string_view subject);

// dlopen(RTLD_NOW | RTLD_LOCAL) of an opened, verified file through /proc/self/fd/N. When a
// library loaded earlier still holds that name, the descriptor is first moved to a free number
// (so `file` may change its fd). Keep the file open as long as the library stays loaded - C++
// libraries often stay after dlclose - or its name could later stand for another file: use
// ClosePackageLibrary to close both. Errors name file.path() and the loader's message.
Result<void*> DlopenPackageFile(PackageFile& file);

// dlclose(handle), then closes `file`'s descriptor only if the library really left the process;
// otherwise the descriptor stays open (released) so its name keeps meaning this file.
void ClosePackageLibrary(void* handle, PackageFile& file);

// Optional package signatures (for vendors who ship packages). A package may carry
// `manifest.json.sig`: the 64-byte Ed25519 signature of manifest.json's exact bytes, as written by
// `openssl pkeyutl -sign -rawin -inkey key.pem -in manifest.json -out manifest.json.sig`. The
// manifest records every library's sha256, so a valid signature covers the whole package. When
// TESSERA_TRUSTED_KEYS lists public keys (PEM files, colon separated), every package found on the
// search path except the built-in one and packages linked into the application must carry a
// signature that one of them verifies; otherwise it is skipped with the reason.
inline constexpr std::string_view kTrustedKeysEnv = "TESSERA_TRUSTED_KEYS";
inline constexpr std::string_view kSignatureFileName = "manifest.json.sig";

// OK when `signature_file` holds an Ed25519 signature of `manifest_text` made with the private key
// of one of the PEM public keys listed in `trusted_keys` (colon separated paths). Errors say which:
// the signature file is missing or not 64 bytes, a key file cannot be read or is not an Ed25519
// public key, or no listed key verifies the signature.
Status VerifyManifestSignature(std::string_view manifest_text,
                               const std::filesystem::path& signature_file,
                               std::string_view trusted_keys);

// Refuses to let `binary` be loaded unless OpenVerifiedPackageFile(package_dir, binPath, sha256)
// passes; the opened file is closed again (use OpenVerifiedPackageFile to keep it for loading).
Status VerifyBinary(const std::filesystem::path& package_dir, const ManifestBinary& binary);

}  // namespace tessera::runtime

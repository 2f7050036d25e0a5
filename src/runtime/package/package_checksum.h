// SHA-256 of package binaries (OpenSSL libcrypto, EVP API) and the check run before a binary is
// loaded.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "tessera/core/status.h"
#include "runtime/package/package_manifest.h"

namespace tessera::runtime {

// Lower-case hex SHA-256 of `data`; Internal only when OpenSSL itself fails.
Result<std::string> Sha256Hex(std::string_view data);
// Lower-case hex SHA-256 of the file's bytes, read in chunks. Errors name the file.
Result<std::string> Sha256File(const std::filesystem::path& file);

// Refuses to let `binary` be loaded unless its file, `package_dir`/binPath, stays inside the
// package after resolving symlinks, is a regular file, and hashes to the manifest's sha256
// (compared case-insensitively). A mismatch is FailedPrecondition with both digests:
// "checksum mismatch for <file> (<simplifiedKey>): manifest sha256 <a>, file sha256 <b>; refusing
// to load this binary".
Status VerifyBinary(const std::filesystem::path& package_dir, const ManifestBinary& binary);

}  // namespace tessera::runtime

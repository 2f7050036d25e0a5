#include "op_library.h"

#include <dlfcn.h>

#include <map>
#include <memory>
#include <mutex>

#include "runtime/package/package.h"
#include "tessera/runtime/op_registration.h"

namespace tessera::cli {
namespace {

struct LoadedDefs {
  std::mutex mu;
  // By package directory; the libraries are never closed (the OpDefs' code lives there).
  std::map<std::string, std::vector<std::unique_ptr<runtime::OpDef>>> by_dir;
};

LoadedDefs& Loaded() {
  static LoadedDefs* loaded = new LoadedDefs();  // immortal: outlives the op libraries' users
  return *loaded;
}

Result<std::vector<std::unique_ptr<runtime::OpDef>>> LoadDefs(const std::string& dir) {
  TESSERA_ASSIGN_OR_RETURN(
      const runtime::PackageManifest manifest,
      runtime::ParseManifestFile(std::filesystem::path(dir) / runtime::kManifestFileName));
  TESSERA_ASSIGN_OR_RETURN(
      runtime::PackageFile file,
      runtime::OpenVerifiedPackageFile(dir, manifest.tiling_library, manifest.tiling_library_sha256,
                                       "op library", "package " + manifest.package));
  TESSERA_ASSIGN_OR_RETURN(void* handle, runtime::DlopenPackageFile(file));
  (void)file.Release();  // the descriptor names the loaded library for the rest of the process
  auto list =
      reinterpret_cast<runtime::OpDefinitionsFn>(dlsym(handle, runtime::kOpDefinitionsSymbol));
  if (list == nullptr) {
    return NotFound("op library " + manifest.tiling_library + " of package " + manifest.package +
                    " exports no " + runtime::kOpDefinitionsSymbol);
  }
  size_t count = 0;
  const runtime::OpFactory* factories = list(&count);
  std::vector<std::unique_ptr<runtime::OpDef>> defs;
  for (size_t i = 0; i < count; ++i)
    defs.emplace_back(factories[i]());
  return defs;
}

}  // namespace

Result<const runtime::OpDef*> LoadPackageOpDef(const std::string& package_dir,
                                               const std::string& op) {
  LoadedDefs& loaded = Loaded();
  std::lock_guard<std::mutex> lock(loaded.mu);
  auto it = loaded.by_dir.find(package_dir);
  if (it == loaded.by_dir.end()) {
    TESSERA_ASSIGN_OR_RETURN(auto defs, LoadDefs(package_dir));
    it = loaded.by_dir.emplace(package_dir, std::move(defs)).first;
  }
  for (const auto& def : it->second) {
    if (def->type() == op) return def.get();
  }
  return NotFound("the op library of package " + package_dir + " defines no op " + op);
}

}  // namespace tessera::cli

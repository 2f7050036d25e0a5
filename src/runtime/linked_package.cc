#include "tessera/runtime/linked_package.h"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <system_error>

namespace tessera::runtime {
namespace {

struct Registry {
  std::mutex mu;
  LinkedPackages linked;
  std::vector<const void*> anchors;  // per package; resolved to a file name when listed
};

// Constructed on first use, so registrars of any translation unit may run first.
Registry& GetRegistry() {
  static Registry* registry = new Registry();  // immortal: registrars may run during exit
  return *registry;
}

// The package called `name`, added at the end (registration order) when new.
LinkedPackage& Entry(Registry& r, const char* name) {
  for (LinkedPackage& p : r.linked.packages) {
    if (p.name == name) return p;
  }
  r.linked.packages.push_back(LinkedPackage{});
  r.linked.packages.back().name = name;
  r.anchors.push_back(nullptr);
  return r.linked.packages.back();
}

void Warn(Registry& r, const LinkedPackage& p, const char* part) {
  r.linked.warnings.push_back("linked package '" + p.name + "' registered its " + part +
                              " twice (is it linked both as a shared and a static library?); " +
                              "the first registration is used");
}

std::string LibraryFile(const void* anchor) {
  Dl_info info{};
  if (anchor != nullptr && dladdr(anchor, &info) != 0 && info.dli_fname && info.dli_fname[0]) {
    return info.dli_fname;
  }
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("the program") : exe.string();
}

}  // namespace

void RegisterLinkedOpLibrary(const char* package, OpDefinitionsFn list) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  LinkedPackage& p = Entry(r, package);
  if (p.ops != nullptr) return Warn(r, p, "op library");
  p.ops = list;
}

void RegisterLinkedKernelLibrary(const char* package, KernelEntriesFn list) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  LinkedPackage& p = Entry(r, package);
  if (p.kernels != nullptr) return Warn(r, p, "kernel library");
  p.kernels = list;
}

void RegisterLinkedManifest(const char* package, const char* soc, const char* manifest_json,
                            const void* anchor) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  LinkedPackage& p = Entry(r, package);
  if (!p.manifest_json.empty()) return Warn(r, p, "manifest");
  p.manifest_json = manifest_json;
  p.soc = soc;
  r.anchors[static_cast<size_t>(&p - r.linked.packages.data())] = anchor;
}

std::string LinkedPackage::Problem() const {
  std::string missing;
  if (ops == nullptr) missing += "op library (TESSERA_OP_LIBRARY())";
  if (kernels == nullptr) {
    missing += (missing.empty() ? "" : ", ");
    missing += "kernel library (TESSERA_KERNEL_LIBRARY())";
  }
  if (manifest_json.empty()) {
    missing += (missing.empty() ? "" : ", ");
    missing += "manifest";
  }
  if (missing.empty()) return "";
  return "incomplete linked package, never registered: " + missing +
         "; link the package's <name>_linked or <name>_linked_whole target";
}

LinkedPackages ListLinkedPackages() {
  Registry& r = GetRegistry();
  LinkedPackages out;
  std::vector<const void*> anchors;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    out = r.linked;
    anchors = r.anchors;
  }
  // dladdr takes the dynamic loader's lock, which dlopen holds while it runs registrars that take
  // r.mu: naming the files under r.mu could deadlock against a concurrent dlopen.
  for (size_t i = 0; i < out.packages.size(); ++i) {
    const void* anchor = anchors[i];
    if (anchor == nullptr) anchor = reinterpret_cast<const void*>(out.packages[i].ops);
    out.packages[i].library = LibraryFile(anchor);
  }
  return out;
}

std::optional<LinkedPackage> FindLinkedPackage(std::string_view name) {
  for (LinkedPackage& p : ListLinkedPackages().packages) {
    if (p.name == name) return std::move(p);
  }
  return std::nullopt;
}

}  // namespace tessera::runtime

extern "C" void tessera_register_linked_kernel_library(const char* package,
                                                       tessera::device::KernelEntriesFn list) {
  tessera::runtime::RegisterLinkedKernelLibrary(package, list);
}

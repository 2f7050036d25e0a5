#include "symbol_name.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <mutex>
#include <unordered_map>

namespace tessera::device::detail {
namespace {

struct ObjectOf {
  uintptr_t address;
  std::string path;  // "" while not found
  uintptr_t bias = 0;
};

// Finds the loaded object (executable or library) whose segments hold `address`.
int FindObject(dl_phdr_info* info, size_t, void* data) {
  auto* want = static_cast<ObjectOf*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    if (want->address >= begin && want->address < begin + ph.p_memsz) {
      want->path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
      want->bias = info->dlpi_addr;
      return 1;
    }
  }
  return 0;
}

// Looks `value` up among the function symbols of the ELF file's .symtab.
std::string StaticSymbol(const std::string& path, uintptr_t value) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  struct stat st {};
  std::string found;
  if (fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) > sizeof(ElfW(Ehdr))) {
    const size_t size = static_cast<size_t>(st.st_size);
    void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      const auto* base = static_cast<const char*>(map);
      const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(base);
      const bool valid = std::memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
                         eh->e_shoff + size_t{eh->e_shnum} * sizeof(ElfW(Shdr)) <= size;
      const auto* sh = reinterpret_cast<const ElfW(Shdr)*>(base + (valid ? eh->e_shoff : 0));
      for (int i = 0; valid && found.empty() && i < eh->e_shnum; ++i) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
        const ElfW(Shdr)& strtab = sh[sh[i].sh_link];
        if (sh[i].sh_offset + sh[i].sh_size > size || strtab.sh_offset + strtab.sh_size > size)
          continue;
        const auto* syms = reinterpret_cast<const ElfW(Sym)*>(base + sh[i].sh_offset);
        for (size_t k = 0; k < sh[i].sh_size / sizeof(ElfW(Sym)); ++k) {
          if (ELF64_ST_TYPE(syms[k].st_info) != STT_FUNC || syms[k].st_value != value ||
              syms[k].st_name >= strtab.sh_size)
            continue;
          found = base + strtab.sh_offset + syms[k].st_name;
          break;
        }
      }
      munmap(map, size);
    }
  }
  close(fd);
  return found;
}

}  // namespace

std::string FunctionSymbol(const void* address) {
  static std::mutex mu;
  static auto* cache = new std::unordered_map<const void*, std::string>();
  {
    std::lock_guard<std::mutex> lock(mu);
    if (const auto it = cache->find(address); it != cache->end()) return it->second;
  }
  std::string symbol;
  Dl_info info{};
  if (dladdr(address, &info) != 0 && info.dli_sname && info.dli_saddr == address) {
    symbol = info.dli_sname;
  } else {
    ObjectOf object{reinterpret_cast<uintptr_t>(address), "", 0};
    if (dl_iterate_phdr(FindObject, &object) != 0)
      symbol = StaticSymbol(object.path, object.address - object.bias);
  }
  std::lock_guard<std::mutex> lock(mu);
  return cache->emplace(address, std::move(symbol)).first->second;
}

}  // namespace tessera::device::detail

// KernelTable: one kernel instance per valid TilingKey combination, selected at launch by key.
//
// A kernel is a struct with a static member template over the key values, in field order:
//
//   struct ScaleKernel {
//     template <int64_t UseScale, int64_t BlockM>
//     static void Run(const float* in, float* out, int64_t n, const uint8_t* tiling) {
//       if constexpr (UseScale == 1) { ... }   // resolved at compile time; dead branches vanish
//     }
//   };
//   using Table = KernelTable<ScaleKernel, kSchema>;   // kSchema: a constexpr StaticKeySchema
//   Status s = Table::Launch({{"UseScale", 1}, {"BlockM", 128}}, in, out, n, tiling);
//
// Run is instantiated for exactly EnumerateValid<kSchema>(); an invalid key is refused by the
// schema's validation (missing/extra field, unlisted value, is_valid) before any instance runs.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "tessera/core/status.h"
#include "tessera/tiling/tiling_key.h"

namespace tessera::tiling {

template <class Kernel_, const auto& Schema_>
class KernelTable {
  static constexpr auto kCombos = EnumerateValid<Schema_>();
  static constexpr size_t kFields = std::remove_cvref_t<decltype(Schema_)>::size();
  static_assert(kCombos.size() > 0,
                "KernelTable: is_valid rejects every combination of the TilingKey schema, so there "
                "is no kernel instance to build");

  template <size_t C, size_t... J>
  static constexpr auto EntryFor(std::index_sequence<J...>) {
    return &Kernel_::template Run<kCombos[C][J]...>;
  }

 public:
  using Kernel = Kernel_;
  // The common function-pointer type of all instances.
  using Entry = decltype(EntryFor<0>(std::make_index_sequence<kFields>{}));

  struct Instance {
    uint64_t key;                         // packed TilingKey
    std::array<int64_t, kFields> values;  // key values in field order
    Entry entry;
  };

 private:
  template <size_t... C>
  static constexpr std::array<Instance, sizeof...(C)> Build(std::index_sequence<C...>) {
    return {Instance{*Schema_.Pack(kCombos[C]), kCombos[C],
                     EntryFor<C>(std::make_index_sequence<kFields>{})}...};
  }

 public:
  // Every instance, in EnumerateValid order; constexpr so tests can count them at compile time.
  static constexpr std::array<Instance, kCombos.size()> kInstances =
      Build(std::make_index_sequence<kCombos.size()>{});

  // The run-time form of the schema, built once.
  static const KeySchema& schema() {
    static const KeySchema s = KeySchema::FromStatic(Schema_);
    return s;
  }

  // The instance for a key map; fails with the schema's validation error.
  static Result<Entry> Find(const KeyMap& key) {
    TESSERA_ASSIGN_OR_RETURN(uint64_t packed, schema().Pack(key));
    return FindValidated(packed);
  }

  // The instance for a packed key (as a tiling function returns it); fails when the key does not
  // decode or its combination is invalid, with the same messages as Find.
  static Result<Entry> FindPacked(uint64_t key) {
    TESSERA_ASSIGN_OR_RETURN(KeyMap map, schema().Decode(key));
    return Find(map);
  }

  // Validates `key`, then runs the matching instance with `args`. An instance returning Status has
  // it passed through; any other return value is ignored.
  template <class... Args>
  static Status Launch(const KeyMap& key, Args&&... args) {
    TESSERA_ASSIGN_OR_RETURN(Entry entry, Find(key));
    if constexpr (std::is_same_v<decltype(entry(std::forward<Args>(args)...)), Status>) {
      return entry(std::forward<Args>(args)...);
    } else {
      entry(std::forward<Args>(args)...);
      return OkStatus();
    }
  }

 private:
  static Result<Entry> FindValidated(uint64_t packed) {
    for (const Instance& inst : kInstances) {
      if (inst.key == packed) return inst.entry;
    }
    // Unreachable while kInstances is EnumerateValid: a validated key is always instantiated.
    return Internal("KernelTable: no instance for validated TilingKey " + std::to_string(packed));
  }
};

}  // namespace tessera::tiling

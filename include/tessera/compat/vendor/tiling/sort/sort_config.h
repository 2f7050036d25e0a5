// The vendor's sort configuration (SortType, SortConfig), shared by the kernel side
// (tessera/compat/kernel/adv/sort.h) and the host side (tiling/sort/sort_tiling.h), so a file that
// includes both sees one definition.
#pragma once

namespace AscendC {

enum class SortType { RADIX_SORT, MERGE_SORT };

struct SortConfig {
  SortType type = SortType::RADIX_SORT;
  bool isDescend = false;
  bool hasSrcIndex = false;
  bool hasDstIndex = false;
};

inline constexpr SortConfig DEFAULT_SORT_CONFIG = {SortType::RADIX_SORT, false, false, false};

}  // namespace AscendC

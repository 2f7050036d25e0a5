// Multi-core split helpers: which part of the work each core (block) handles.
//
// Each split is a small value made on the host by a Create/Make function that validates its
// arguments; its per-core accessors are constexpr, allocation-free and total (an id outside the
// launch gets an empty share), so kernels call them freely.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "tessera/core/status.h"

namespace tessera::tiling {

// Half-open range [begin, end) of elements, rows or tiles.
struct Range {
  int64_t begin = 0;
  int64_t end = 0;
  constexpr int64_t size() const { return end - begin; }
  constexpr bool empty() const { return end <= begin; }
  friend constexpr bool operator==(const Range&, const Range&) = default;
};

namespace detail {
inline Status CheckSplitArgs(const char* split, int64_t total, const char* total_name,
                             int64_t cores) {
  if (total < 0) {
    return InvalidArgument(std::string(split) + ": " + total_name + " must be >= 0, got " +
                           std::to_string(total));
  }
  if (cores < 1) {
    return InvalidArgument(std::string(split) + ": core count must be >= 1, got " +
                           std::to_string(cores));
  }
  return OkStatus();
}
}  // namespace detail

// Contiguous split: per = ceil(total / cores); core i gets [i*per, min(i*per + per, total)).
// Trailing cores get an empty range when total is small (e.g. total 5 on 4 cores: 2, 2, 1, 0).
class ContiguousSplit {
 public:
  // Fails unless total >= 0 and cores >= 1.
  static Result<ContiguousSplit> Create(int64_t total, int64_t cores) {
    TESSERA_RETURN_IF_ERROR(detail::CheckSplitArgs("ContiguousSplit", total, "total", cores));
    return ContiguousSplit(total, cores);
  }

  constexpr int64_t total() const { return total_; }
  constexpr int64_t cores() const { return cores_; }
  constexpr int64_t per_core() const { return per_; }

  // Exact for every total up to INT64_MAX: no intermediate exceeds total.
  constexpr Range RangeOf(int64_t core_id) const {
    if (core_id < 0 || core_id >= cores_ || per_ == 0 || core_id > total_ / per_) {
      return {total_, total_};
    }
    const int64_t begin = core_id * per_;  // <= total_: core_id <= total_ / per_
    return {begin, begin + std::min(per_, total_ - begin)};
  }

 private:
  // ceil(total / cores) without forming total + cores - 1, which overflows near INT64_MAX.
  constexpr ContiguousSplit(int64_t total, int64_t cores)
      : total_(total), cores_(cores), per_(total / cores + (total % cores != 0 ? 1 : 0)) {}

  int64_t total_;
  int64_t cores_;
  int64_t per_;
};

// Strided split: core i takes tiles i, i + cores, i + 2*cores, ... < total; loads differ by at most
// one tile.  for (int64_t t = split.First(id); t < split.total(); t += split.step()) ...
class StridedSplit {
 public:
  // Fails unless total >= 0, cores >= 1 and total + cores fits in int64_t: the loop above steps
  // past total once, and that step must not overflow.
  static Result<StridedSplit> Create(int64_t total, int64_t cores) {
    TESSERA_RETURN_IF_ERROR(detail::CheckSplitArgs("StridedSplit", total, "total", cores));
    if (total > INT64_MAX - cores) {
      return InvalidArgument("StridedSplit: total " + std::to_string(total) + " + core count " +
                             std::to_string(cores) +
                             " exceeds INT64_MAX; the per-core loop (t += step) would overflow");
    }
    return StridedSplit(total, cores);
  }

  constexpr int64_t total() const { return total_; }
  constexpr int64_t step() const { return cores_; }
  // First tile of core_id; >= total() for an idle or out-of-launch core, so the loop runs zero
  // times.
  constexpr int64_t First(int64_t core_id) const {
    return core_id < 0 || core_id >= cores_ ? total_ : std::min(core_id, total_);
  }
  // Number of tiles core_id handles.
  constexpr int64_t Count(int64_t core_id) const {
    const int64_t first = First(core_id);
    if (first >= total_) return 0;
    const int64_t left = total_ - first;  // ceil(left / cores) without overflow
    return left / cores_ + (left % cores_ != 0 ? 1 : 0);
  }

 private:
  constexpr StridedSplit(int64_t total, int64_t cores) : total_(total), cores_(cores) {}

  int64_t total_;
  int64_t cores_;
};

// The uniform segment split of ATVOSS's DefaultKernelSchedule (field names as in its
// DefaultKernelConfig). Work is cut into units of unitNum elements; every core gets unitNumPerCore
// units, the first moreUnitCoreNum cores one more, and the last core also the tailNum elements that
// do not fill a unit. Offsets and counts are in elements.
struct UniformSplitConfig {
  uint32_t blockNum = 1;
  uint64_t unitNumPerCore = 0;
  uint64_t moreUnitCoreNum = 0;
  uint64_t tailNum = 0;
  uint64_t unitNum = 1;

  constexpr uint64_t TotalElements() const {
    return unitNum * (unitNumPerCore * blockNum + moreUnitCoreNum) + tailNum;
  }
  // Device side (CalCurCoreEleCnt): elements of core `core`; 0 for cores outside the launch.
  constexpr uint64_t CoreElementCount(uint32_t core) const {
    if (core >= blockNum) return 0;
    return unitNum * unitNumPerCore + (core < moreUnitCoreNum ? unitNum : 0) +
           (core == blockNum - 1 ? tailNum : 0);
  }
  // Device side (CalGMOffset): first element of core `core`; TotalElements() outside the launch.
  constexpr uint64_t CoreOffset(uint32_t core) const {
    if (core >= blockNum) return TotalElements();
    return core < moreUnitCoreNum ? core * (unitNumPerCore * unitNum + unitNum)
                                  : unitNumPerCore * unitNum * core + moreUnitCoreNum * unitNum;
  }
};

// Host side (MakeScheduleConfig). elements = E; unit_num = W (elements of one basic block);
// min_elements_per_core = the least a core should get (ATVOSS's BASIC_BLOCK; rounded up to a
// multiple of W); core_num = cores available. E <= that minimum runs on one core as a pure tail;
// otherwise blockNum = min(ceil(U / (C / W)), core_num) with U = E / W units.
inline Result<UniformSplitConfig> MakeUniformSplit(int64_t elements, int64_t unit_num,
                                                   int64_t min_elements_per_core,
                                                   int64_t core_num) {
  if (elements <= 0) {
    return InvalidArgument("UniformSplit: element count must be > 0 (empty shape), got " +
                           std::to_string(elements));
  }
  if (unit_num <= 0) {
    return InvalidArgument("UniformSplit: unit_num must be > 0, got " + std::to_string(unit_num));
  }
  if (min_elements_per_core <= 0) {
    return InvalidArgument("UniformSplit: min_elements_per_core must be > 0, got " +
                           std::to_string(min_elements_per_core));
  }
  if (core_num < 1 || core_num > UINT32_MAX) {
    return InvalidArgument("UniformSplit: core_num must be in [1, 2^32), got " +
                           std::to_string(core_num));
  }
  const auto e = static_cast<uint64_t>(elements);
  const auto w = static_cast<uint64_t>(unit_num);
  const uint64_t units_per_min = (static_cast<uint64_t>(min_elements_per_core) + w - 1) / w;
  UniformSplitConfig cfg;
  cfg.unitNum = w;
  if (e <= units_per_min * w) {
    cfg.tailNum = e;
    return cfg;
  }
  const uint64_t units = e / w;
  cfg.blockNum = static_cast<uint32_t>(std::min<uint64_t>(
      (units + units_per_min - 1) / units_per_min, static_cast<uint64_t>(core_num)));
  cfg.unitNumPerCore = units / cfg.blockNum;
  cfg.moreUnitCoreNum = units % cfg.blockNum;
  cfg.tailNum = e % w;
  return cfg;
}

// MIX kernels (1 AI core = 1 cube core + sub_block_num vector cores). On a vector core the block
// index is flattened (block * sub_block_num + sub_block); both sides find their AI core with
// CoreId.
class MixSplit {
 public:
  // Fails unless sub_block_num is 1 (vector-only or cube side) or 2 (vector side on 1:2 chips).
  static Result<MixSplit> Create(int64_t sub_block_num) {
    if (sub_block_num != 1 && sub_block_num != 2) {
      return InvalidArgument("MixSplit: sub_block_num must be 1 or 2, got " +
                             std::to_string(sub_block_num));
    }
    return MixSplit(sub_block_num);
  }

  constexpr int64_t sub_block_num() const { return sub_; }
  constexpr int64_t CoreId(int64_t block_idx) const { return block_idx / sub_; }
  constexpr int64_t SubBlockIdx(int64_t block_idx) const { return block_idx % sub_; }
  // Rows of one cube result that vector sub-core sub_block_idx handles: with two sub-cores the
  // first takes ceil(rows / 2), the second the rest; empty for an index outside [0, sub_block_num).
  constexpr Range SubBlockRows(int64_t rows, int64_t sub_block_idx) const {
    rows = std::max<int64_t>(rows, 0);
    if (sub_block_idx < 0 || sub_block_idx >= sub_) return {rows, rows};
    if (sub_ == 1) return {0, rows};
    const int64_t first = (rows + 1) / 2;
    return sub_block_idx == 0 ? Range{0, first} : Range{first, rows};
  }

 private:
  constexpr explicit MixSplit(int64_t sub_block_num) : sub_(sub_block_num) {}

  int64_t sub_;
};

}  // namespace tessera::tiling

// Checked mode: the GM accesses of one launch, ordered by vector clocks, and the race and
// coverage analysis run when the launch ends (see tessera/device/gm_access.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/device/gm_access.h"

namespace tessera::device::detail {

// clock[f]: how many release points of core f (by fiber index) are known to precede this point.
using Clock = std::vector<uint32_t>;

class AccessLog {
 public:
  explicit AccessLog(uint32_t fibers);

  // Called by the running block `fiber` only (no lock: each fiber touches its own record).
  void Note(uint32_t fiber, GmAccess kind, uintptr_t begin, uintptr_t end, const char* api);

  // Release points. Each returns after `fiber`'s own clock moved past what it published.
  // SyncAll round `round`: arrive before waiting, leave after.
  void BarrierArrive(uint32_t fiber, uint64_t round);
  void BarrierLeave(uint32_t fiber, uint64_t round);
  // Cross-core flags: the setter's clock, joined into `accumulator` (a key naming the multi-setter
  // arrival counter, or a fresh key for single-setter modes), is what a completed round delivers.
  void JoinSetter(uint32_t fiber, uint64_t accumulator);
  // Delivers the accumulated clock as count number `index` (from 1) of counter `slot`, and clears
  // the accumulator. `deliver` raises the counter and returns the count's number; it runs under
  // the log's lock so a waiter never sees the count before its clock.
  void Deliver(uint64_t accumulator, uint64_t slot, const std::function<uint64_t()>& deliver);
  // Takes count `index` of counter `slot`.
  void Consume(uint32_t fiber, uint64_t slot, uint64_t index);
  void ReleaseAt(uint32_t fiber, const void* word);
  void AcquireAt(uint32_t fiber, const void* word);

  // After every block ended. `describe(fiber)` names a block ("block 3 (AIV)"), `where(addr)`
  // names an address ("argument 2 byte 96"). Returns the first race, else "".
  std::string FindRace(const std::function<std::string(uint32_t)>& describe,
                       const std::function<std::string(uintptr_t, uintptr_t)>& where) const;
  // The first sub-range of [begin, end) no block wrote, as "bytes [a, b)"; "" when covered.
  std::string FirstUnwritten(uintptr_t begin, uintptr_t end,
                             const std::function<std::string(uintptr_t, uintptr_t)>& where) const;

 private:
  struct Range {
    uintptr_t begin, end;
    const char* api;
    bool atomic;  // an atomic add (writes only)
  };
  // Accesses between two release/acquire points of one block, with the clock they run at.
  struct Segment {
    Clock clock;
    std::vector<Range> reads, writes;  // writes include atomic adds  // writes include atomic adds
  };
  struct FiberLog {
    Clock clock;
    bool segment_open = false;
    std::vector<Segment> segments;
  };
  // A release: the fiber's accesses so far are published with its current clock; later ones
  // run at the next own tick.
  void Tick(uint32_t fiber);
  void Join(Clock& into, const Clock& from) const;

  std::vector<FiberLog> fibers_;
  std::mutex mu_;  // the shared tables below
  std::map<uint64_t, Clock> barriers_;
  std::unordered_map<uint64_t, Clock> accumulators_;
  std::map<std::pair<uint64_t, uint64_t>, Clock> counts_;  // (slot, index) -> clock
  std::unordered_map<const void*, Clock> words_;
};

}  // namespace tessera::device::detail

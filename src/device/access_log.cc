#include "access_log.h"

#include <algorithm>

#include "block_state.h"
#include "launch_job.h"

namespace tessera::device {
namespace detail {

AccessLog::AccessLog(uint32_t fibers) : fibers_(fibers) {
  // Own components start at 1: a block's first accesses must not look ordered before another
  // block that has learnt nothing of it (clock 0).
  for (uint32_t f = 0; f < fibers; ++f) {
    fibers_[f].clock.assign(fibers, 0);
    fibers_[f].clock[f] = 1;
  }
}

void AccessLog::Join(Clock& into, const Clock& from) const {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (size_t i = 0; i < from.size(); ++i)
    into[i] = std::max(into[i], from[i]);
}

void AccessLog::Tick(uint32_t fiber) {
  FiberLog& log = fibers_[fiber];
  ++log.clock[fiber];
  log.segment_open = false;
}

void AccessLog::Note(uint32_t fiber, GmAccess kind, uintptr_t begin, uintptr_t end,
                     const char* api) {
  if (begin >= end) return;
  FiberLog& log = fibers_[fiber];
  if (!log.segment_open) {
    log.segments.push_back(Segment{log.clock, {}, {}});
    log.segment_open = true;
  }
  const bool atomic = kind == GmAccess::kAtomicAdd;
  std::vector<Range>& ranges =
      kind == GmAccess::kRead ? log.segments.back().reads : log.segments.back().writes;
  // Consecutive rows of a copy usually continue the previous range: merge them.
  if (!ranges.empty() && ranges.back().end == begin && ranges.back().api == api &&
      ranges.back().atomic == atomic) {
    ranges.back().end = end;
    return;
  }
  ranges.push_back(Range{begin, end, api, atomic});
}

void AccessLog::BarrierArrive(uint32_t fiber, uint64_t round) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Join(barriers_[round], fibers_[fiber].clock);
  }
  Tick(fiber);
}

void AccessLog::BarrierLeave(uint32_t fiber, uint64_t round) {
  FiberLog& log = fibers_[fiber];
  std::lock_guard<std::mutex> lock(mu_);
  Join(log.clock, barriers_[round]);
  log.segment_open = false;
}

void AccessLog::JoinSetter(uint32_t fiber, uint64_t accumulator) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Join(accumulators_[accumulator], fibers_[fiber].clock);
  }
  Tick(fiber);
}

void AccessLog::Deliver(uint64_t accumulator, uint64_t slot,
                        const std::function<uint64_t()>& deliver) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t index = deliver();
  counts_[{slot, index}] = accumulators_[accumulator];
}

void AccessLog::Consume(uint32_t fiber, uint64_t slot, uint64_t index) {
  FiberLog& log = fibers_[fiber];
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = counts_.find({slot, index});
  if (it != counts_.end()) {
    Join(log.clock, it->second);
    counts_.erase(it);
  }
  log.segment_open = false;
}

void AccessLog::ReleaseAt(uint32_t fiber, const void* word) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Join(words_[word], fibers_[fiber].clock);
  }
  Tick(fiber);
}

void AccessLog::AcquireAt(uint32_t fiber, const void* word) {
  FiberLog& log = fibers_[fiber];
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = words_.find(word);
  if (it == words_.end()) return;
  Join(log.clock, it->second);
  log.segment_open = false;
}

namespace {

struct Item {
  uintptr_t begin, end;
  uint32_t fiber;
  const Clock* clock;
  bool write;   // a write or an atomic add
  bool atomic;  // an atomic add
  const char* api;
};

const char* Verb(const Item& i) {
  return i.atomic ? "atomically adds to" : i.write ? "writes" : "reads";
}

// a happens before b: b's clock has seen a's own tick.
bool Before(const Item& a, const Item& b) {
  return (*b.clock)[a.fiber] >= (*a.clock)[a.fiber];
}

}  // namespace

std::string AccessLog::FindRace(
    const std::function<std::string(uint32_t)>& describe,
    const std::function<std::string(uintptr_t, uintptr_t)>& where) const {
  std::vector<Item> items;
  for (uint32_t f = 0; f < fibers_.size(); ++f) {
    for (const Segment& s : fibers_[f].segments) {
      for (const Range& r : s.reads)
        items.push_back(Item{r.begin, r.end, f, &s.clock, false, false, r.api});
      for (const Range& r : s.writes)
        items.push_back(Item{r.begin, r.end, f, &s.clock, true, r.atomic, r.api});
    }
  }
  std::sort(items.begin(), items.end(),
            [](const Item& a, const Item& b) { return a.begin < b.begin; });
  std::vector<const Item*> active;
  // Clusters of overlapping ranges; only a cluster with a write and two blocks can race.
  for (size_t i = 0; i < items.size();) {
    size_t j = i;
    uintptr_t cluster_end = items[i].end;
    bool any_write = false, two_blocks = false;
    for (; j < items.size() && items[j].begin < cluster_end; ++j) {
      cluster_end = std::max(cluster_end, items[j].end);
      any_write = any_write || items[j].write;
      two_blocks = two_blocks || items[j].fiber != items[i].fiber;
    }
    if (any_write && two_blocks) {
      active.clear();
      for (size_t k = i; k < j; ++k) {
        const Item& x = items[k];
        std::erase_if(active, [&](const Item* y) { return y->end <= x.begin; });
        for (const Item* y : active) {
          if (y->fiber == x.fiber || !(x.write || y->write) || (x.atomic && y->atomic)) continue;
          if (Before(*y, x) || Before(x, *y)) continue;
          const uintptr_t ob = std::max(x.begin, y->begin), oe = std::min(x.end, y->end);
          const Item& w = y->write ? *y : x;  // a write (the earlier-starting one if both are)
          const Item& o = &w == y ? x : *y;
          if (o.write) {
            return describe(w.fiber) + " and " + describe(o.fiber) +
                   " both write the same global memory with nothing ordering the writes: " +
                   describe(w.fiber) + " " + Verb(w) + " " + where(w.begin, w.end) + " (" + w.api +
                   "), " + describe(o.fiber) + " " + Verb(o) + " " + where(o.begin, o.end) + " (" +
                   o.api + "); they overlap in " + where(ob, oe) +
                   " (no SyncAll or cross-core flag between them)";
          }
          return describe(o.fiber) + " reads " + where(o.begin, o.end) + " (" + o.api + ") that " +
                 describe(w.fiber) + " " + Verb(w) + " (" + where(w.begin, w.end) + ", " + w.api +
                 ") in the same phase: no SyncAll or cross-core flag orders the " +
                 "write and the read; they overlap in " + where(ob, oe);
        }
        active.push_back(&x);
      }
    }
    i = j;
  }
  return "";
}

std::string AccessLog::FirstUnwritten(
    uintptr_t begin, uintptr_t end,
    const std::function<std::string(uintptr_t, uintptr_t)>& where) const {
  std::vector<std::pair<uintptr_t, uintptr_t>> writes;
  for (const FiberLog& f : fibers_) {
    for (const Segment& s : f.segments) {
      for (const Range& r : s.writes) {
        if (r.end > begin && r.begin < end) writes.emplace_back(r.begin, r.end);
      }
    }
  }
  std::sort(writes.begin(), writes.end());
  uintptr_t covered = begin;  // [begin, covered) is written
  uintptr_t gap_begin = 0, gap_end = 0;
  uint64_t unwritten = 0;
  const auto gap = [&](uintptr_t b, uintptr_t e) {
    if (unwritten == 0) gap_begin = b, gap_end = e;
    unwritten += e - b;
  };
  for (const auto& [b, e] : writes) {
    if (b > covered) gap(covered, std::min(b, end));
    covered = std::max(covered, e);
    if (covered >= end) break;
  }
  if (covered < end) gap(covered, end);
  if (unwritten == 0) return "";
  return where(gap_begin, gap_end) + " (" + std::to_string(unwritten) + " of " +
         std::to_string(end - begin) + " bytes of the range are unwritten)";
}

}  // namespace detail

namespace {

detail::AccessLog* RunningLog(uint32_t* fiber) {
  const BlockContext* ctx = detail::CurrentBlockContext();
  if (ctx == nullptr || !ctx->checked || ctx->launch == nullptr) return nullptr;
  *fiber = ctx->fiber_index;
  return ctx->launch->access_log();
}

}  // namespace

void NoteGmAccess(GmAccess kind, const void* ptr, size_t bytes, const char* api) {
  uint32_t fiber = 0;
  if (detail::AccessLog* log = RunningLog(&fiber)) {
    const auto b = reinterpret_cast<uintptr_t>(ptr);
    log->Note(fiber, kind, b, b + bytes, api);
  }
}

void NoteRelease(const void* word) {
  uint32_t fiber = 0;
  if (detail::AccessLog* log = RunningLog(&fiber)) log->ReleaseAt(fiber, word);
}

void NoteAcquire(const void* word) {
  uint32_t fiber = 0;
  if (detail::AccessLog* log = RunningLog(&fiber)) log->AcquireAt(fiber, word);
}

bool RecordingGmAccess() {
  uint32_t fiber = 0;
  return RunningLog(&fiber) != nullptr;
}

}  // namespace tessera::device

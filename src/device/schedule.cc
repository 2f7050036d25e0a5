#include "schedule.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>

namespace tessera::device::detail {
namespace {

enum class Order { kPool, kSequential, kReverse, kShuffle };

struct Request {
  Order order = Order::kPool;
  uint64_t seed = 0;
  std::vector<uint32_t> blocks;  // empty: all
  bool any = false;
};

bool ParseUnsigned(const std::string& text, uint64_t* value) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  *value = std::strtoull(text.c_str(), nullptr, 10);
  return true;
}

const Request& FromEnvironment() {
  static const Request request = [] {
    Request r;
    if (const char* s = std::getenv("TESSERA_SCHEDULE"); s != nullptr && s[0] != '\0') {
      const std::string v = s;
      if (v == "sequential") {
        r.order = Order::kSequential;
      } else if (v == "reverse") {
        r.order = Order::kReverse;
      } else if (v.rfind("shuffle:", 0) == 0 && ParseUnsigned(v.substr(8), &r.seed)) {
        r.order = Order::kShuffle;
      } else {
        std::fprintf(stderr,
                     "tessera: TESSERA_SCHEDULE=%s is not sequential, reverse or shuffle:SEED; "
                     "ignored\n",
                     s);
      }
    }
    if (const char* s = std::getenv("TESSERA_BLOCKS"); s != nullptr && s[0] != '\0') {
      std::string v = s;
      size_t start = 0;
      bool ok = true;
      while (ok && start <= v.size()) {
        const size_t comma = std::min(v.find(',', start), v.size());
        uint64_t idx = 0;
        ok = ParseUnsigned(v.substr(start, comma - start), &idx) && idx <= UINT32_MAX;
        if (ok) r.blocks.push_back(static_cast<uint32_t>(idx));
        start = comma + 1;
      }
      if (!ok) {
        r.blocks.clear();
        std::fprintf(stderr,
                     "tessera: TESSERA_BLOCKS=%s is not a comma-separated list of block indices; "
                     "ignored\n",
                     s);
      }
    }
    r.any = r.order != Order::kPool || !r.blocks.empty();
    return r;
  }();
  return request;
}

}  // namespace

std::unique_ptr<BlockSchedule> ScheduleFromEnvironment(uint32_t groups, uint32_t cores_per_group,
                                                       const std::string& kernel) {
  const Request& r = FromEnvironment();
  if (!r.any) return nullptr;
  auto s = std::make_unique<BlockSchedule>();
  if (r.order != Order::kPool) {
    std::vector<uint32_t> group_order(groups);
    std::iota(group_order.begin(), group_order.end(), 0u);
    if (r.order == Order::kReverse) {
      std::reverse(group_order.begin(), group_order.end());
    } else if (r.order == Order::kShuffle) {
      // Fisher-Yates over a fixed generator: the same seed gives the same order everywhere.
      std::mt19937_64 gen(r.seed);
      for (uint32_t i = groups; i > 1; --i)
        std::swap(group_order[i - 1], group_order[gen() % i]);
    }
    for (uint32_t g : group_order) {
      for (uint32_t c = 0; c < cores_per_group; ++c)
        s->order.push_back(g * cores_per_group + c);
    }
  }
  if (!r.blocks.empty()) {
    s->runs.assign(size_t{groups} * cores_per_group, false);
    std::string listed;
    for (uint32_t b : r.blocks) {
      if (b >= groups) continue;
      for (uint32_t c = 0; c < cores_per_group; ++c)
        s->runs[size_t{b} * cores_per_group + c] = true;
      listed += (listed.empty() ? "" : ", ") + std::to_string(b);
    }
    std::fprintf(stderr,
                 "tessera: TESSERA_BLOCKS: kernel '%s' runs block(s) %s of %u; the others are "
                 "skipped\n",
                 kernel.c_str(), listed.empty() ? "(none)" : listed.c_str(), groups);
  }
  return s;
}

}  // namespace tessera::device::detail

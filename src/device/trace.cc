// The Chrome-trace timeline (TESSERA_TRACE): launches on stream lanes, blocks on logical-core
// lanes, and in checked mode the blocks' pipe phases nested inside them on the same lanes.
//
// Events are formatted when a launch completes and appended to the file at synchronisation and at
// exit. The file always ends in a complete JSON trailer: each flush seeks back over the trailer,
// appends the new events and writes the trailer again, so a flush costs only the new events.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

#include "debug_internal.h"
#include "stream_impl.h"

namespace tessera::device {
namespace detail {
namespace {

constexpr int kStreamPid = 1;
constexpr int kCorePid = 2;
constexpr uint32_t kAivTidBase = 100000;  // AIC n has tid n, AIV n has tid 100000 + n

struct Recorder {
  std::mutex mu;
  std::FILE* file = nullptr;
  std::string path;
  std::string pending;  // formatted events not yet in the file
  bool first_event = true;
  long trailer_pos = 0;
  uint64_t events = 0;
  uint64_t dropped = 0;
  uint64_t dropped_written = 0;
  uint64_t limit = 500000;
  uint64_t dropped_phases = 0;  // beyond the per-block phase limit
  uint64_t dropped_phases_written = 0;
  uint64_t launches = 0;
  int64_t epoch_ns = 0;
  std::set<uint32_t> named_streams;
  std::set<uint32_t> named_cores;
};

constinit std::atomic<bool> g_trace_on{false};
constexpr uint64_t kDefaultPhaseLimit = 10000;
constinit std::atomic<uint64_t> g_phase_limit{kDefaultPhaseLimit};

Recorder& R() {
  static auto* r = new Recorder;  // never destroyed: launches may complete during exit
  return *r;
}

std::string JsonEscape(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

std::string Micros(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", static_cast<double>(ns) / 1000.0);
  return buf;
}

void AddEvent(Recorder& r, const std::string& json) {
  r.pending += r.first_event ? "\n" : ",\n";
  r.pending += json;
  r.first_event = false;
}

void AddThreadName(Recorder& r, int pid, uint32_t tid, const std::string& name) {
  AddEvent(r, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + std::to_string(pid) +
                  ",\"tid\":" + std::to_string(tid) + ",\"args\":{\"name\":\"" + name + "\"}}");
  AddEvent(r, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":" + std::to_string(pid) +
                  ",\"tid\":" + std::to_string(tid) +
                  ",\"args\":{\"sort_index\":" + std::to_string(tid) + "}}");
}

// Appends pending events and a fresh trailer. Caller holds r.mu.
void WritePending(Recorder& r) {
  if (r.file == nullptr || (r.pending.empty() && r.dropped == r.dropped_written &&
                            r.dropped_phases == r.dropped_phases_written)) {
    return;
  }
  std::fseek(r.file, r.trailer_pos, SEEK_SET);
  std::fwrite(r.pending.data(), 1, r.pending.size(), r.file);
  r.pending.clear();
  r.trailer_pos = std::ftell(r.file);
  const std::string trailer =
      "\n],\"otherData\":{\"tool\":\"tessera\",\"dropped_events\":" + std::to_string(r.dropped) +
      ",\"event_limit\":" + std::to_string(r.limit) +
      ",\"dropped_phases\":" + std::to_string(r.dropped_phases) +
      ",\"phase_limit\":" + std::to_string(g_phase_limit.load(std::memory_order_relaxed)) + "}}\n";
  std::fwrite(trailer.data(), 1, trailer.size(), r.file);
  std::fflush(r.file);
  r.dropped_written = r.dropped;
  r.dropped_phases_written = r.dropped_phases;
}

void CloseLocked(Recorder& r) {
  if (r.file == nullptr) return;
  WritePending(r);
  std::fclose(r.file);
  r.file = nullptr;
  g_trace_on.store(false, std::memory_order_relaxed);
}

Status OpenLocked(Recorder& r, const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    return InvalidArgument("trace file '" + path + "' cannot be opened: " + std::strerror(errno));
  }
  static const bool at_exit = [] {
    std::atexit([] {
      Recorder& rec = R();
      std::lock_guard<std::mutex> lock(rec.mu);
      CloseLocked(rec);
    });
    return true;
  }();
  (void)at_exit;
  r.file = f;
  r.path = path;
  r.pending.clear();
  r.first_event = true;
  r.events = r.dropped = r.dropped_written = r.launches = 0;
  r.dropped_phases = r.dropped_phases_written = 0;
  r.named_streams.clear();
  r.named_cores.clear();
  r.epoch_ns = SteadyNowNs();
  if (const char* env = std::getenv("TESSERA_TRACE_LIMIT"); env && *env) {
    r.limit = std::strtoull(env, nullptr, 10);
  }
  g_phase_limit.store(kDefaultPhaseLimit, std::memory_order_relaxed);
  if (const char* env = std::getenv("TESSERA_TRACE_PHASE_LIMIT"); env && *env) {
    g_phase_limit.store(std::strtoull(env, nullptr, 10), std::memory_order_relaxed);
  }
  const std::string header = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  std::fwrite(header.data(), 1, header.size(), f);
  r.trailer_pos = std::ftell(f);
  AddEvent(r, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(kStreamPid) +
                  ",\"args\":{\"name\":\"tessera streams\"}}");
  AddEvent(r, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(kCorePid) +
                  ",\"args\":{\"name\":\"tessera logical cores\"}}");
  r.dropped_written = ~uint64_t{0};  // write the trailer now: the file is valid JSON at once
  WritePending(r);
  g_trace_on.store(true, std::memory_order_relaxed);
  return OkStatus();
}

const bool g_trace_from_env = [] {
  const char* env = std::getenv("TESSERA_TRACE");
  if (env == nullptr || *env == '\0') return false;
  Recorder& r = R();
  std::lock_guard<std::mutex> lock(r.mu);
  const Status st = OpenLocked(r, env);
  if (!st.ok()) std::fprintf(stderr, "tessera: TESSERA_TRACE: %s\n", st.ToString().c_str());
  return st.ok();
}();

// A block's pipe totals for its args: `,"pipe_us":{"MTE2":1.5,...}` and the phases it dropped.
std::string PhaseArgs(const PhaseLog* log) {
  if (log == nullptr) return "";
  std::string pipes;
  for (int p = 0; p < kTracePipeCount; ++p) {
    const auto pipe = static_cast<TracePipe>(p);
    if (log->busy_ns(pipe) == 0) continue;
    pipes += pipes.empty() ? "" : ",";
    pipes += std::string("\"") + TracePipeName(pipe) + "\":" + Micros(log->busy_ns(pipe));
  }
  std::string out = ",\"pipe_us\":{" + pipes + "}";
  if (log->dropped() > 0) out += ",\"phases_dropped\":" + std::to_string(log->dropped());
  return out;
}

}  // namespace

bool TraceEnabled() {
  return g_trace_on.load(std::memory_order_relaxed);
}

uint64_t TracePhaseLimit() {
  return g_phase_limit.load(std::memory_order_relaxed);
}

void RecordLaunch(const TracedLaunch& l) {
  Recorder& r = R();
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.file == nullptr) return;
  uint64_t phases = 0;
  for (uint32_t i = 0; i < l.block_count; ++i) {
    if (const PhaseLog* log = l.blocks[i].phases) {
      phases += log->phases().size();
      r.dropped_phases += log->dropped();
    }
  }
  const uint64_t count = 1 + l.block_count;
  if (r.events + count > r.limit) {
    r.dropped += count + phases;
    return;
  }
  r.events += count;
  const uint64_t id = ++r.launches;
  const std::string name = JsonEscape(*l.name);
  if (r.named_streams.insert(l.stream_id).second) {
    AddThreadName(r, kStreamPid, l.stream_id,
                  l.stream_id == 0 ? "default stream" : "stream " + std::to_string(l.stream_id));
  }
  std::string args = "{\"launch\":" + std::to_string(id) +
                     ",\"blockDim\":" + std::to_string(l.block_dim) + ",\"type\":\"" +
                     KernelTypeName(l.type) + "\",\"stream\":" + std::to_string(l.stream_id);
  if (l.bytes_moved > 0) args += ",\"bytes\":" + std::to_string(l.bytes_moved);
  if (l.failed) args += ",\"failed\":true";
  args += "}";
  AddEvent(r, "{\"ph\":\"X\",\"cat\":\"launch\",\"name\":\"" + name + "\",\"pid\":" +
                  std::to_string(kStreamPid) + ",\"tid\":" + std::to_string(l.stream_id) +
                  ",\"ts\":" + Micros(l.begin_ns - r.epoch_ns) +
                  ",\"dur\":" + Micros(l.end_ns - l.begin_ns) + ",\"args\":" + args + "}");
  for (uint32_t i = 0; i < l.block_count; ++i) {
    const TracedBlock& b = l.blocks[i];
    const bool cube = b.core == CoreType::kAic;
    const uint32_t tid = (cube ? 0 : kAivTidBase) + b.block_idx;
    if (r.named_cores.insert(tid).second) {
      AddThreadName(r, kCorePid, tid,
                    std::string(CoreTypeName(b.core)) + " " + std::to_string(b.block_idx));
    }
    const std::string lane =
        ",\"pid\":" + std::to_string(kCorePid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":";
    const std::string ids =
        "{\"launch\":" + std::to_string(id) + ",\"block\":" + std::to_string(b.block_idx);
    AddEvent(r, "{\"ph\":\"X\",\"cat\":\"block\",\"name\":\"" + name + "\"" + lane +
                    Micros(b.begin_ns - r.epoch_ns) + ",\"dur\":" + Micros(b.end_ns - b.begin_ns) +
                    ",\"args\":" + ids + PhaseArgs(b.phases) + "}}");
    if (b.phases == nullptr) continue;
    // Phases lie inside their block (recorded while it ran), so viewers nest them under it.
    for (const PhaseLog::Phase& p : b.phases->phases()) {
      if (r.events >= r.limit) {
        ++r.dropped;
        continue;
      }
      ++r.events;
      AddEvent(r, std::string("{\"ph\":\"X\",\"cat\":\"phase\",\"name\":\"") +
                      TracePipeName(p.pipe) + "\"" + lane + Micros(p.begin_ns - r.epoch_ns) +
                      ",\"dur\":" + Micros(p.end_ns - p.begin_ns) + ",\"args\":" + ids +
                      ",\"calls\":" + std::to_string(p.calls) + "}}");
    }
  }
}

void TraceOnSynchronize() {
  if (!TraceEnabled()) return;
  Recorder& r = R();
  std::lock_guard<std::mutex> lock(r.mu);
  WritePending(r);
}

}  // namespace detail

Status SetTraceFile(const std::string& path) {
  detail::Recorder& r = detail::R();
  std::lock_guard<std::mutex> lock(r.mu);
  detail::CloseLocked(r);
  if (path.empty()) return OkStatus();
  return detail::OpenLocked(r, path);
}

Status FlushTrace() {
  detail::Recorder& r = detail::R();
  std::lock_guard<std::mutex> lock(r.mu);
  detail::WritePending(r);
  return OkStatus();
}

}  // namespace tessera::device

// `tessera trace summary FILE` and `tessera trace svg FILE -o out.svg`: read a TESSERA_TRACE file
// (launches, blocks, and in checked mode the blocks' pipe phases).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.h"

namespace tessera::cli {
namespace {

struct Span {
  std::string name;
  uint64_t launch = 0;
  int64_t tid = 0;
  double ts = 0;
  double dur = 0;
  uint64_t bytes = 0;
  uint64_t calls = 0;                     // phases: the calls merged into it
  std::map<std::string, double> pipe_us;  // blocks: time per pipe (checked mode)
};

// The pipes phases are recorded on, in the order data flows through a core.
const char* const kPipes[] = {"MTE2", "MTE1", "M", "FIX", "V", "MTE3"};
const char* const kPipeColours[] = {"#4e79a7", "#76b7b2", "#e15759",
                                    "#f28e2b", "#59a14f", "#b07aa1"};

struct Trace {
  std::vector<Span> launches;
  std::vector<Span> blocks;
  std::vector<Span> phases;
  std::map<int64_t, std::string> core_names;  // tid -> "AIV 3"
  uint64_t dropped = 0;
  uint64_t dropped_phases = 0;  // beyond TESSERA_TRACE_PHASE_LIMIT
};

int Fail(const std::string& what) {
  std::fprintf(stderr, "tessera trace: %s\n", what.c_str());
  return 1;
}

bool LoadTrace(const std::string& path, Trace* trace, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot be read";
    return false;
  }
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("traceEvents") ||
      !j["traceEvents"].is_array()) {
    *error = path + ": not a trace file (expected JSON with a \"traceEvents\" array)";
    return false;
  }
  if (j.contains("otherData") && j["otherData"].is_object()) {
    trace->dropped = j["otherData"].value("dropped_events", uint64_t{0});
    trace->dropped_phases = j["otherData"].value("dropped_phases", uint64_t{0});
  }
  for (const auto& e : j["traceEvents"]) {
    if (!e.is_object()) continue;
    const std::string ph = e.value("ph", "");
    const std::string cat = e.value("cat", "");
    if (ph == "M" && e.value("name", "") == "thread_name" && e.value("pid", 0) == 2) {
      trace->core_names[e.value("tid", int64_t{0})] =
          e.contains("args") ? e["args"].value("name", "") : "";
      continue;
    }
    if (ph != "X" || (cat != "launch" && cat != "block" && cat != "phase")) continue;
    Span s;
    s.name = e.value("name", "");
    s.tid = e.value("tid", int64_t{0});
    s.ts = e.value("ts", 0.0);
    s.dur = e.value("dur", 0.0);
    if (e.contains("args") && e["args"].is_object()) {
      s.launch = e["args"].value("launch", uint64_t{0});
      s.bytes = e["args"].value("bytes", uint64_t{0});
      s.calls = e["args"].value("calls", uint64_t{0});
      if (e["args"].contains("pipe_us") && e["args"]["pipe_us"].is_object()) {
        for (const auto& [pipe, us] : e["args"]["pipe_us"].items())
          if (us.is_number()) s.pipe_us[pipe] = us.get<double>();
      }
    }
    (cat == "launch"  ? trace->launches
     : cat == "block" ? trace->blocks
                      : trace->phases)
        .push_back(s);
  }
  return true;
}

struct KernelRow {
  std::string name;
  uint64_t calls = 0;
  uint64_t blocks = 0;
  double total_us = 0;
  double balance_sum = 0;  // sum over launches of max/mean block time
  uint64_t balance_launches = 0;
  double worst_balance = 0;
  uint64_t bytes = 0;
  bool all_bytes = true;
  double block_us = 0;                    // summed over the kernel's blocks
  std::map<std::string, double> pipe_us;  // per pipe, summed over the kernel's blocks
};

// Cell of the pipe table: microseconds and share of the kernel's block time.
std::string PipeCell(const KernelRow& r, const char* pipe) {
  const auto it = r.pipe_us.find(pipe);
  if (it == r.pipe_us.end()) return "-";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.1f %3.0f%%", it->second,
                r.block_us > 0 ? 100.0 * it->second / r.block_us : 0.0);
  return buf;
}

int Summary(const TraceOptions& options, const Trace& trace) {
  std::map<uint64_t, std::vector<double>> block_times;  // launch id -> block durations
  std::map<uint64_t, std::vector<const Span*>> launch_blocks;
  for (const Span& b : trace.blocks) {
    block_times[b.launch].push_back(b.dur);
    launch_blocks[b.launch].push_back(&b);
  }
  std::vector<KernelRow> rows;
  std::map<std::string, size_t> index;
  for (const Span& l : trace.launches) {
    auto [it, fresh] = index.emplace(l.name, rows.size());
    if (fresh) rows.push_back(KernelRow{l.name});
    KernelRow& r = rows[it->second];
    ++r.calls;
    r.total_us += l.dur;
    r.bytes += l.bytes;
    r.all_bytes = r.all_bytes && l.bytes > 0;
    for (const Span* b : launch_blocks[l.launch]) {
      r.block_us += b->dur;
      for (const auto& [pipe, us] : b->pipe_us)
        r.pipe_us[pipe] += us;
    }
    const auto times = block_times.find(l.launch);
    if (times != block_times.end() && !times->second.empty()) {
      const std::vector<double>& t = times->second;
      r.blocks += t.size();
      double sum = 0, max = 0;
      for (double d : t) {
        sum += d;
        max = std::max(max, d);
      }
      const double mean = sum / static_cast<double>(t.size());
      const double balance = mean > 0 ? max / mean : 1.0;
      r.balance_sum += balance;
      r.worst_balance = std::max(r.worst_balance, balance);
      ++r.balance_launches;
    }
  }
  std::sort(rows.begin(), rows.end(),
            [](const KernelRow& a, const KernelRow& b) { return a.total_us > b.total_us; });
  const auto gbps = [](const KernelRow& r) {
    return r.total_us > 0 ? static_cast<double>(r.bytes) / (r.total_us * 1e3) : 0.0;
  };
  if (options.json) {
    nlohmann::json kernels = nlohmann::json::array();
    for (const KernelRow& r : rows) {
      nlohmann::json k = {{"name", r.name},
                          {"calls", r.calls},
                          {"blocks", r.blocks},
                          {"total_us", r.total_us},
                          {"mean_us", r.total_us / static_cast<double>(r.calls)}};
      if (r.balance_launches > 0) {
        k["block_balance"] = r.balance_sum / static_cast<double>(r.balance_launches);
        k["worst_block_balance"] = r.worst_balance;
      }
      if (r.all_bytes) {
        k["bytes"] = r.bytes;
        k["gb_per_s"] = gbps(r);
      }
      k["block_us"] = r.block_us;
      if (!r.pipe_us.empty()) {
        nlohmann::json pipes = nlohmann::json::object();
        for (const auto& [pipe, us] : r.pipe_us)
          pipes[pipe] = {{"us", us}, {"share", r.block_us > 0 ? us / r.block_us : 0.0}};
        k["pipes"] = pipes;
      }
      kernels.push_back(k);
    }
    const nlohmann::json out = {{"file", options.file},
                                {"launches", trace.launches.size()},
                                {"blocks", trace.blocks.size()},
                                {"phases", trace.phases.size()},
                                {"dropped_events", trace.dropped},
                                {"dropped_phases", trace.dropped_phases},
                                {"kernels", kernels}};
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf(
      "%s: %zu launches, %zu blocks%s\n", options.file.c_str(), trace.launches.size(),
      trace.blocks.size(),
      trace.dropped > 0
          ? (", " + std::to_string(trace.dropped) + " events dropped (TESSERA_TRACE_LIMIT)").c_str()
          : "");
  std::printf("%-24s %7s %12s %10s %8s %8s\n", "kernel", "calls", "total us", "mean us", "balance",
              "GB/s");
  for (const KernelRow& r : rows) {
    char balance[16] = "-";
    if (r.balance_launches > 0)
      std::snprintf(balance, sizeof(balance), "%.2f",
                    r.balance_sum / static_cast<double>(r.balance_launches));
    char rate[16] = "";
    if (r.all_bytes) std::snprintf(rate, sizeof(rate), "%.1f", gbps(r));
    std::printf("%-24s %7llu %12.1f %10.2f %8s %8s\n", r.name.c_str(),
                static_cast<unsigned long long>(r.calls), r.total_us,
                r.total_us / static_cast<double>(r.calls), balance, rate);
  }
  std::printf("balance: max/mean block time per launch, averaged over the kernel's launches\n");
  std::vector<const char*> pipes;  // the columns: pipes some kernel used
  for (const char* pipe : kPipes) {
    if (std::any_of(rows.begin(), rows.end(),
                    [pipe](const KernelRow& r) { return r.pipe_us.count(pipe) > 0; }))
      pipes.push_back(pipe);
  }
  if (pipes.empty()) return 0;
  std::printf("\npipe time (checked mode): us summed over blocks, %% of block time\n%-24s",
              "kernel");
  for (const char* pipe : pipes)
    std::printf(" %13s", pipe);
  std::printf("\n");
  for (const KernelRow& r : rows) {
    if (r.pipe_us.empty()) continue;
    std::printf("%-24s", r.name.c_str());
    for (const char* pipe : pipes)
      std::printf(" %13s", PipeCell(r, pipe).c_str());
    std::printf("\n");
  }
  if (trace.dropped_phases > 0) {
    std::printf("%llu phases not drawn (TESSERA_TRACE_PHASE_LIMIT); pipe times include them\n",
                static_cast<unsigned long long>(trace.dropped_phases));
  }
  return 0;
}

std::string XmlEscape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

int Svg(const TraceOptions& options, const Trace& trace) {
  if (options.out.empty()) return Fail("svg: -o OUT.svg is required");
  std::map<int64_t, int> lanes;  // tid -> row, AIC lanes first (tids sort that way)
  double t0 = 0, t1 = 0;
  bool any = false;
  for (const Span& b : trace.blocks) {
    lanes.emplace(b.tid, 0);
    t0 = any ? std::min(t0, b.ts) : b.ts;
    t1 = any ? std::max(t1, b.ts + b.dur) : b.ts + b.dur;
    any = true;
  }
  int row = 0;
  for (auto& [tid, r] : lanes)
    r = row++;
  // With phases, each lane has a sub-row under its blocks for the pipes.
  const bool phased = !trace.phases.empty();
  const double label_w = 80, plot_w = 1100, lane_h = phased ? 30 : 18, top = 24;
  const double block_h = phased ? 16 : lane_h - 2;
  const double span = std::max(t1 - t0, 1e-3);
  const double height = top + lane_h * static_cast<double>(lanes.size()) + 20;
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << label_w + plot_w + 10
      << "\" height=\"" << height << "\" font-family=\"monospace\" font-size=\"11\">\n";
  svg << "<text x=\"4\" y=\"14\">" << XmlEscape(options.file) << ": " << trace.blocks.size()
      << " blocks over " << span << " us</text>\n";
  if (phased) {
    double x = label_w + plot_w - 6 * 48;
    for (size_t p = 0; p < std::size(kPipes); ++p, x += 48)
      svg << "<text x=\"" << x << "\" y=\"14\" fill=\"" << kPipeColours[p] << "\">" << kPipes[p]
          << "</text>\n";
  }
  for (const auto& [tid, r] : lanes) {
    const auto name = trace.core_names.find(tid);
    svg << "<text x=\"4\" y=\"" << top + lane_h * r + 13 << "\">"
        << XmlEscape(name != trace.core_names.end() ? name->second : std::to_string(tid))
        << "</text>\n";
  }
  const char* const kColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                  "#76b7b2", "#edc948", "#b07aa1", "#9c755f"};
  std::map<std::string, size_t> colour_of;
  for (const Span& b : trace.blocks) {
    const size_t colour = colour_of.emplace(b.name, colour_of.size()).first->second % 8;
    const double x = label_w + (b.ts - t0) / span * plot_w;
    const double w = std::max(b.dur / span * plot_w, 0.5);
    const double y = top + lane_h * lanes[b.tid] + 1;
    svg << "<rect class=\"block\" x=\"" << x << "\" y=\"" << y << "\" width=\"" << w
        << "\" height=\"" << block_h << "\" fill=\"" << kColours[colour] << "\"><title>"
        << XmlEscape(b.name) << " launch " << b.launch << ": " << b.dur << " us</title></rect>\n";
    if (w > 7.0 * static_cast<double>(b.name.size()))
      svg << "<text x=\"" << x + 2 << "\" y=\"" << y + 12 << "\" fill=\"white\">"
          << XmlEscape(b.name) << "</text>\n";
  }
  for (const Span& p : trace.phases) {
    const auto lane = lanes.find(p.tid);
    if (lane == lanes.end()) continue;  // its block was not recorded
    const auto pipe = std::find(std::begin(kPipes), std::end(kPipes), p.name);
    const size_t colour = static_cast<size_t>(pipe - std::begin(kPipes));
    const double x = label_w + (p.ts - t0) / span * plot_w;
    const double w = std::max(p.dur / span * plot_w, 0.5);
    const double y = top + lane_h * lane->second + block_h + 2;
    svg << "<rect class=\"phase\" x=\"" << x << "\" y=\"" << y << "\" width=\"" << w
        << "\" height=\"" << lane_h - block_h - 4 << "\" fill=\""
        << (pipe != std::end(kPipes) ? kPipeColours[colour] : "#999999") << "\"><title>"
        << XmlEscape(p.name) << ": " << p.calls << " calls, " << p.dur << " us (launch " << p.launch
        << ")</title></rect>\n";
  }
  svg << "</svg>\n";
  std::ofstream out(options.out);
  out << svg.str();
  if (!out) return Fail("svg: " + options.out + ": cannot be written");
  std::printf("%s: %zu blocks, %zu pipe phases on %zu lanes\n", options.out.c_str(),
              trace.blocks.size(), trace.phases.size(), lanes.size());
  return 0;
}

}  // namespace

void AddTraceCommand(CLI::App& app, TraceOptions& options) {
  CLI::App* cmd = app.add_subcommand("trace", "Read a TESSERA_TRACE timeline");
  cmd->require_subcommand(1);
  CLI::App* summary =
      cmd->add_subcommand("summary", "Per-kernel table: calls, time, balance, GB/s");
  summary->add_option("FILE", options.file, "Trace file (TESSERA_TRACE=FILE)")->required();
  summary->add_flag("--json", options.json, "Print JSON");
  summary->callback([&options] { options.action = "summary"; });
  CLI::App* svg = cmd->add_subcommand("svg", "Draw blocks on per-core lanes over time");
  svg->add_option("FILE", options.file, "Trace file (TESSERA_TRACE=FILE)")->required();
  svg->add_option("-o,--output", options.out, "SVG file to write")->required();
  svg->callback([&options] { options.action = "svg"; });
}

int RunTrace(const TraceOptions& options) {
  Trace trace;
  std::string error;
  if (!LoadTrace(options.file, &trace, &error)) return Fail(error);
  return options.action == "svg" ? Svg(options, trace) : Summary(options, trace);
}

}  // namespace tessera::cli

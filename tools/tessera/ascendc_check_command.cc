// `tessera ascendc-check KIT_DIR [--json]`: builds and runs every Ascend C sample of a kit checkout
// with zero edits, through find_package(ASC) / tessera-asc, and reports built / passed per sample
// with the first error of each failure.
//
// A sample is a directory whose CMakeLists.txt enables the ASC language (single-file .asc samples)
// or calls npu_op_package (op projects). It is copied to a work directory and run the way its
// README says (the first ```bash block that runs cmake: data generation, ./demo, verification),
// on the emulated NPU profile of the architecture (see SampleProfile),
// else configured, built and its `demo` run. Vendor environment lines (`source .../set_env.sh`)
// are skipped; `make -j` is capped at --jobs.
#include <sys/wait.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "ascendc_cores.h"
#include "commands.h"

namespace tessera::cli {
namespace {

namespace fs = std::filesystem;

struct Sample {
  fs::path dir;
  std::string name;       // relative to the kit
  std::string kind;       // "asc" or "op-project"
  std::string cores;      // "vector", "cube" or "mix" (ascendc_cores.h)
  bool inferred = false;  // the class came from the APIs used (rule 3) for some kernel
};

struct Outcome {
  bool configured = false;
  bool built = false;
  bool passed = false;
  std::string phase;  // where it stopped: configure, build, gen-data, run, verify; empty if passed
  std::string first_error;
  double seconds = 0;
};

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// True when a sample's CMakeLists.txt builds for `arch`: its CMAKE_ASC_ARCHITECTURES default when
// it sets one, else any mention of the architecture.
bool ForArch(const std::string& text, const std::string& arch) {
  std::smatch m;
  if (std::regex_search(text, m,
                        std::regex(R"re(set\s*\(\s*CMAKE_ASC_ARCHITECTURES\s+"([^"]*)")re"))) {
    return m[1].str().find(arch) != std::string::npos;
  }
  return text.find(arch) != std::string::npos;
}

// The sample's class from its kernel and host sources (every C/C++/.asc file under its folder).
CoresClass SampleCores(const fs::path& dir) {
  std::vector<std::string> sources;
  // Unreadable folders are skipped and a folder that vanishes ends the walk (error_code forms:
  // the throwing ones would end the CLI).
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    const std::string ext = it->path().extension().string();
    std::error_code type_ec;
    if (it->is_regular_file(type_ec) && (ext == ".asc" || ext == ".cpp" || ext == ".cc" ||
                                         ext == ".cxx" || ext == ".h" || ext == ".hpp")) {
      sources.push_back(ReadText(it->path()));
    }
  }
  return ClassifyCores(sources);
}

// Samples under `kit` built for `arch` (the arch appears in their CMakeLists.txt), sorted.
std::vector<Sample> FindSamples(const fs::path& kit, const std::string& arch,
                                const std::string& filter) {
  std::vector<Sample> samples;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(kit, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec) || it->path().filename() != "CMakeLists.txt") continue;
    const std::string text = ReadText(it->path());
    std::string kind;
    if (text.find("LANGUAGES ASC") != std::string::npos) {
      kind = "asc";
    } else if (text.find("npu_op_package") != std::string::npos) {
      kind = "op-project";
    } else {
      continue;
    }
    if (!arch.empty() && !ForArch(text, arch)) continue;
    const fs::path dir = it->path().parent_path();
    const std::string name = fs::relative(dir, kit).generic_string();
    if (!filter.empty() && name.find(filter) == std::string::npos) continue;
    samples.push_back(Sample{dir, name, kind, ""});
  }
  // An op project's nested CMakeLists (op_host/, op_kernel/) belong to the project above them.
  std::sort(samples.begin(), samples.end(),
            [](const Sample& a, const Sample& b) { return a.name < b.name; });
  std::vector<Sample> top;
  for (const Sample& s : samples) {
    if (!top.empty() && s.name.rfind(top.back().name + "/", 0) == 0) continue;
    top.push_back(s);
  }
  for (Sample& s : top) {
    const CoresClass c = SampleCores(s.dir);
    s.cores = c.cores;
    s.inferred = c.inferred;
  }
  return top;
}

// The README's run commands: the first ```bash block that runs cmake and more (a lone cmake line
// is a README's illustration of an option, the run comes later), else the first that runs cmake;
// without `source` lines.
std::vector<std::string> ReadmeCommands(const fs::path& dir) {
  for (const char* readme : {"README.md", "README_en.md"}) {
    std::ifstream in(dir / readme);
    if (!in) continue;
    std::string line;
    bool in_block = false;
    std::vector<std::string> block;
    std::vector<std::string> lone_cmake;
    while (std::getline(in, line)) {
      const auto first = line.find_first_not_of(" \t");
      const std::string trimmed = first == std::string::npos ? "" : line.substr(first);
      if (trimmed.rfind("```", 0) == 0) {
        if (in_block) {
          bool runs_cmake = false;
          for (const std::string& l : block) {
            if (std::regex_search(l, std::regex(R"((^|[;&\s])cmake\s)"))) runs_cmake = true;
          }
          if (runs_cmake && block.size() > 1) return block;
          if (runs_cmake && lone_cmake.empty()) lone_cmake = block;
          block.clear();
        }
        in_block = !in_block && trimmed.rfind("```bash", 0) == 0;
        continue;
      }
      if (in_block && !trimmed.empty() && trimmed.rfind("source ", 0) != 0 && trimmed[0] != '#') {
        block.push_back(trimmed);
      }
    }
    if (!lone_cmake.empty()) return lone_cmake;
  }
  return {};
}

// Shell functions that mark the phases and keep the build to `jobs` processes.
std::string Preamble(int jobs) {
  std::ostringstream s;
  s << "set -e -o pipefail\n"
    << "trap 'echo \"@@FAILED: $BASH_COMMAND\" >&2' ERR\n"
    << "cmake() { if [ \"$1\" = --build ]; then command cmake \"$@\" -j " << jobs
    << " && echo @@BUILT >&2; else command cmake \"$@\" && echo @@CONFIGURED >&2; fi; }\n"
    << "make() { local a=(); for x in \"$@\"; do case \"$x\" in -j*) ;; *) a+=(\"$x\");; esac; "
       "done;"
    << " command make -j" << jobs << " \"${a[@]}\" && echo @@BUILT >&2; }\n";
  return s.str();
}

std::string FirstMatch(const std::string& log, const std::regex& re) {
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    if (std::regex_search(line, re)) return line;
  }
  return "";
}

std::string LastLines(const std::string& log, int n) {
  std::vector<std::string> lines;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.rfind("@@", 0) != 0) lines.push_back(line);
  }
  std::string out;
  for (size_t i = lines.size() > static_cast<size_t>(n) ? lines.size() - n : 0; i < lines.size();
       ++i) {
    out += (out.empty() ? "" : " | ") + lines[i];
  }
  return out;
}

// The device profile samples run on: the emulated NPU the architecture's samples are written for
// (dav-2201 = Atlas A2, 48 vector cores, NPU buffer sizes), so that a sample launching more blocks
// than this machine has threads and synchronising them (SyncAll) runs as on its NPU. A
// TESSERA_PROFILE in the environment wins.
std::string SampleProfile(const std::string& arch) {
  if (const char* env = std::getenv("TESSERA_PROFILE"); env != nullptr && *env != '\0') return env;
  return arch.empty() || arch == "dav-2201" ? "ascend910b" : "";
}

Outcome RunSample(const Sample& sample, const fs::path& work, const fs::path& asc_dir, int jobs,
                  int timeout_seconds, const std::string& profile) {
  Outcome outcome;
  const auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  fs::remove_all(work, ec);
  fs::create_directories(work.parent_path(), ec);
  fs::copy(sample.dir, work, fs::copy_options::recursive, ec);
  if (ec) {
    outcome.phase = "setup";
    outcome.first_error = "cannot copy the sample to " + work.string() + ": " + ec.message();
    return outcome;
  }
  std::vector<std::string> commands = ReadmeCommands(sample.dir);
  if (commands.empty()) {
    commands = {"mkdir -p build && cd build", "cmake .. && make", "./demo"};
  }
  std::ofstream script(work / "tessera_check.sh");
  script << Preamble(jobs);
  for (const std::string& c : commands)
    script << c << "\n";
  script.close();
  const fs::path log = work / "tessera_check.log";
  // The ASC package's tools (msopprof) first, as CANN's set_env.sh puts the vendor's on PATH.
  const fs::path tools = asc_dir / "bin";
  const std::string tools_path = fs::is_directory(tools) ? ShellQuote(tools.string()) + ":" : "";
  const std::string cmd = "cd " + ShellQuote(work.string()) +
                          // /usr/bin first: the samples' python3 scripts need Debian's numpy.
                          " && PATH=" + tools_path +
                          "/usr/bin:$PATH ASC_ROOT=" + ShellQuote(asc_dir.string()) +
                          (profile.empty() ? "" : " TESSERA_PROFILE=" + ShellQuote(profile)) +
                          " CMAKE_PREFIX_PATH=" + ShellQuote(asc_dir.string()) + " timeout -k 5 " +
                          std::to_string(timeout_seconds) + " bash tessera_check.sh > " +
                          ShellQuote(log.string()) + " 2>&1";
  const int rc = std::system(cmd.c_str());
  const std::string text = ReadText(log);
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.configured = text.find("@@CONFIGURED") != std::string::npos;
  outcome.built = text.find("@@BUILT") != std::string::npos;
  const bool says_fail = std::regex_search(text, std::regex(R"(test failed|\[ERROR\] result)"));
  if (rc == 0 && !says_fail) {
    outcome.passed = true;
    return outcome;
  }
  const std::string failed = FirstMatch(text, std::regex("^@@FAILED: "));
  const std::string failed_cmd = failed.empty() ? "" : failed.substr(10);
  if (WIFEXITED(rc) && WEXITSTATUS(rc) == 124) {
    outcome.phase = outcome.built ? "run" : "build";
    outcome.first_error = "timed out after " + std::to_string(timeout_seconds) + " s";
  } else if (!outcome.configured) {
    outcome.phase = "configure";
    outcome.first_error = FirstMatch(text, std::regex("CMake Error|Unknown CMake command|error"));
  } else if (!outcome.built) {
    outcome.phase = "build";
    outcome.first_error = FirstMatch(text, std::regex(R"(error[:\s])"));
  } else if (failed_cmd.find("gen_data") != std::string::npos) {
    outcome.phase = "gen-data";
  } else if (failed_cmd.find("verify") != std::string::npos || says_fail) {
    outcome.phase = "verify";
  } else {
    outcome.phase = "run";
  }
  if (outcome.first_error.empty()) {
    outcome.first_error = FirstMatch(text, std::regex(R"(tessera: |error|Error|ERROR|Assertion)"));
  }
  if (outcome.first_error.empty()) outcome.first_error = LastLines(text, 2);
  if (outcome.first_error.size() > 300) outcome.first_error.resize(300);
  return outcome;
}

struct Totals {
  int total = 0;
  int built = 0;
  int passed = 0;
  int inferred = 0;  // samples classed from the APIs they use (ascendc_cores.h rule 3)
};

fs::path DefaultAscDir() {
  if (const char* env = std::getenv("TESSERA_ASC_DIR"); env != nullptr && *env != '\0') return env;
  return TESSERA_ASC_DIR_DEFAULT;
}

}  // namespace

void AddAscendcCheckCommand(CLI::App& app, AscendcCheckOptions& options) {
  CLI::App* sub = app.add_subcommand(
      "ascendc-check", "Build and run the Ascend C samples of a kit checkout with zero edits");
  sub->add_option("kit", options.kit, "Kit checkout (or any folder of samples)")
      ->required()
      ->check(CLI::ExistingDirectory);
  sub->add_option("--arch", options.arch,
                  "Only samples whose CMakeLists.txt names this architecture ('' = all)")
      ->capture_default_str();
  sub->add_option("--filter", options.filter, "Only samples whose path contains this text");
  sub->add_option("--work", options.work, "Work directory (default: a fresh one under /tmp)");
  sub->add_option("--jobs", options.jobs, "Parallel compile jobs per sample")
      ->capture_default_str();
  sub->add_option("--timeout", options.timeout, "Seconds per sample")->capture_default_str();
  sub->add_option("--asc-dir", options.asc_dir,
                  "Folder holding ASCConfig.cmake (default: this build's, or $TESSERA_ASC_DIR)");
  sub->add_flag("--json", options.json, "Print the results as JSON");
}

int RunAscendcCheck(const AscendcCheckOptions& options) {
  const fs::path asc_dir = options.asc_dir.empty() ? DefaultAscDir() : fs::path(options.asc_dir);
  if (!fs::exists(asc_dir / "ASCConfig.cmake")) {
    std::cerr << "ascendc-check: no ASCConfig.cmake in '" << asc_dir.string()
              << "' (tessera-asc needs python3-clang at tessera's configure time; or pass "
                 "--asc-dir)\n";
    return 1;
  }
  if (options.jobs < 1 || options.timeout < 1) {
    std::cerr << "ascendc-check: --jobs and --timeout must be at least 1\n";
    return 1;
  }
  const fs::path kit = fs::absolute(options.kit);
  const std::vector<Sample> samples = FindSamples(kit, options.arch, options.filter);
  if (samples.empty()) {
    std::cerr << "ascendc-check: no samples under '" << kit.string() << "'"
              << (options.arch.empty() ? "" : " for " + options.arch)
              << " (a sample's CMakeLists.txt enables LANGUAGES ASC or calls npu_op_package)\n";
    return 1;
  }
  fs::path work = options.work;
  if (work.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "tessera-ascendc-check-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) {
      std::cerr << "ascendc-check: cannot create a work directory under /tmp\n";
      return 1;
    }
    work = tmpl;
  }
  nlohmann::json results = nlohmann::json::array();
  // Totals per class, in this order, then over all samples.
  const std::vector<std::string> classes = {"vector", "cube", "mix", "all"};
  std::map<std::string, Totals> totals;
  for (const Sample& sample : samples) {
    const Outcome o = RunSample(sample, work / sample.name, asc_dir, options.jobs, options.timeout,
                                SampleProfile(options.arch));
    for (const std::string& c : {sample.cores, std::string("all")}) {
      Totals& t = totals[c];
      ++t.total;
      t.built += o.built ? 1 : 0;
      t.passed += o.passed ? 1 : 0;
      t.inferred += sample.inferred ? 1 : 0;
    }
    results.push_back({{"sample", sample.name},
                       {"kind", sample.kind},
                       {"cores", sample.cores},
                       {"cores_rule", sample.inferred ? "inferred" : "stated"},
                       {"built", o.built},
                       {"passed", o.passed},
                       {"phase", o.phase},
                       {"first_error", o.first_error},
                       {"seconds", o.seconds}});
    if (!options.json) {
      std::cout << (o.passed  ? "PASS  "
                    : o.built ? "FAIL  "
                              : "BUILD ")
                << sample.name << " (" << sample.cores << ")";
      if (!o.passed) std::cout << "  [" << o.phase << "] " << o.first_error;
      std::cout << std::endl;
    }
  }
  const Totals& all = totals["all"];
  if (options.json) {
    nlohmann::json by_class = nlohmann::json::object();
    for (const std::string& c : classes) {
      const Totals& t = totals[c];
      by_class[c] = {
          {"total", t.total}, {"built", t.built}, {"passed", t.passed}, {"inferred", t.inferred}};
    }
    nlohmann::json out = {{"kit", kit.string()}, {"arch", options.arch}, {"work", work.string()},
                          {"total", all.total},  {"built", all.built},   {"passed", all.passed},
                          {"cores", by_class},   {"samples", results}};
    std::cout << out.dump(2) << "\n";
  } else {
    for (const std::string& c : classes) {
      const Totals& t = totals[c];
      if (t.total == 0) continue;
      std::printf(
          "%-6s %d samples: %d built (%.0f%%), %d passed (%.0f%%); %d classed from the APIs used\n",
          c.c_str(), t.total, t.built, 100.0 * t.built / t.total, t.passed,
          100.0 * t.passed / t.total, t.inferred);
    }
    std::printf("logs under %s\n", work.string().c_str());
  }
  return all.passed == all.total ? 0 : 1;
}

}  // namespace tessera::cli

// A deterministic mutation fuzzer for the targets of fuzz_targets.h, built with the project's
// compiler (no libFuzzer needed): runs every corpus file, then mutates corpus entries (bit flips,
// interesting bytes and numbers, insertions of tokens that parsers find hard, chunk copies, cuts
// and splices) until the time budget is spent. A crash prints the input that caused it and leaves
// it in <crash-dir>/crash-<target>-<n> for a regression test. Same seed, same inputs.
//
//   tessera_fuzz --target manifest --corpus DIR [--seconds 10] [--seed 1] [--crash-dir DIR]
//   tessera_fuzz --target manifest FILE...      (replays files, for regression tests)
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_targets.h"

namespace {

namespace fs = std::filesystem;
using tessera::fuzz::Outcome;
using Target = Outcome (*)(const uint8_t*, size_t);

struct NamedTarget {
  const char* name;
  Target fn;
};
constexpr NamedTarget kTargets[] = {
    {"manifest", tessera::fuzz::FuzzManifest},
    {"config", tessera::fuzz::FuzzVendorConfig},
    {"tiling", tessera::fuzz::FuzzTilingData},
    {"cli", tessera::fuzz::FuzzCliArgs},
};

// Tokens that parsers of JSON, ini files, numbers and paths find hard.
const char* const kTokens[] = {"{",
                               "}",
                               "[",
                               "]",
                               "\"",
                               ":",
                               ",",
                               "\\u0000",
                               "\\",
                               "\\ud800",
                               "null",
                               "true",
                               "false",
                               "1e999",
                               "-1e999",
                               "-1",
                               "0",
                               "18446744073709551615",
                               "18446744073709551616",
                               "9223372036854775807",
                               "-9223372036854775808",
                               "1.5",
                               "0x",
                               "NaN",
                               "inf",
                               "..",
                               "/",
                               "../",
                               "/etc/passwd",
                               "=",
                               "#",
                               "\n",
                               "\r\n",
                               "load_priority",
                               "binPath",
                               "sha256",
                               "tilingKey",
                               "kernels",
                               "binaries",
                               "ops",
                               "simplifiedKey",
                               "--shape",
                               "--dtype",
                               "--attr",
                               "--out-shape",
                               "--out-dtype",
                               "--json",
                               "Add",
                               "Cast",
                               "float32",
                               "float16",
                               "bfloat16",
                               "int8",
                               ",,",
                               "4,x",
                               "[1,2]",
                               "dims=1,2,3,4",
                               "scale=",
                               "flag=2",
                               "total=99999999999999999999"};

std::string g_target;  // for the crash handler
std::string g_crash_dir = ".";
const std::string* g_current = nullptr;

void OnCrash(int sig) {
  // Only async-signal-safe calls: write the input that crashed, then die with the signal.
  static char path[4096];
  std::snprintf(path, sizeof(path), "%s/crash-%s-%d", g_crash_dir.c_str(), g_target.c_str(),
                static_cast<int>(getpid()));
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0 && g_current != nullptr) {
    (void)!::write(fd, g_current->data(), g_current->size());
    ::close(fd);
  }
  static const char msg[] = "tessera_fuzz: CRASH; the input is in ";
  (void)!::write(2, msg, sizeof(msg) - 1);
  (void)!::write(2, path, std::strlen(path));
  (void)!::write(2, "\n", 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::string ReadFile(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  std::string Mutate(const std::vector<std::string>& corpus) {
    std::string s = corpus[Pick(corpus.size())];
    const int steps = 1 + static_cast<int>(Pick(4));
    for (int i = 0; i < steps; ++i)
      Step(s, corpus);
    if (s.size() > (1u << 20)) s.resize(1u << 20);
    return s;
  }

 private:
  size_t Pick(size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng_() % n); }

  void Step(std::string& s, const std::vector<std::string>& corpus) {
    const size_t at = Pick(s.size() + 1);
    switch (Pick(9)) {
      case 0:  // flip a bit
        if (!s.empty()) s[Pick(s.size())] ^= static_cast<char>(1u << Pick(8));
        break;
      case 1: {  // an interesting byte
        static const char bytes[] = {'\0', '\xff', '\x7f', '\x80', ' ', '"', '\\', '\n', '9'};
        if (!s.empty()) s[Pick(s.size())] = bytes[Pick(sizeof(bytes))];
        break;
      }
      case 2:
      case 3:  // insert a token
        s.insert(at, kTokens[Pick(std::size(kTokens))]);
        break;
      case 4: {  // erase a chunk
        if (s.empty()) break;
        const size_t from = Pick(s.size());
        s.erase(from, 1 + Pick(std::min<size_t>(64, s.size() - from)));
        break;
      }
      case 5: {  // copy a chunk elsewhere
        if (s.empty()) break;
        const size_t from = Pick(s.size());
        const std::string chunk = s.substr(from, 1 + Pick(64));
        s.insert(Pick(s.size() + 1), chunk);
        break;
      }
      case 6: {  // replace a number with an extreme one
        const size_t digit = s.find_first_of("0123456789", at);
        if (digit == std::string::npos) break;
        const size_t end = std::min(s.find_first_not_of("0123456789", digit), s.size());
        static const char* numbers[] = {"18446744073709551616", "1e999",      "-1",    "0",
                                        "9223372036854775808",  "4294967296", "1e-400"};
        s.replace(digit, end - digit, numbers[Pick(std::size(numbers))]);
        break;
      }
      case 7: {  // splice with another entry
        const std::string& other = corpus[Pick(corpus.size())];
        s = s.substr(0, at) + other.substr(Pick(other.size() + 1));
        break;
      }
      default: {  // nest deeper
        const char open = Pick(2) ? '[' : '{';
        const size_t depth = 1 + Pick(40);
        s.insert(at, std::string(depth, open));
        break;
      }
    }
  }

  std::mt19937_64 rng_;
};

int Usage() {
  std::fprintf(stderr,
               "usage: tessera_fuzz --target manifest|config|tiling|cli --corpus DIR "
               "[--seconds S] [--seed N] [--crash-dir DIR] | --target T FILE...\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus_dir;
  double seconds = 10;
  uint64_t seed = 1;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--target" && has_value) {
      g_target = argv[++i];
    } else if (arg == "--corpus" && has_value) {
      corpus_dir = argv[++i];
    } else if (arg == "--seconds" && has_value) {
      seconds = std::atof(argv[++i]);
    } else if (arg == "--seed" && has_value) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--crash-dir" && has_value) {
      g_crash_dir = argv[++i];
    } else if (!arg.empty() && arg[0] != '-') {
      files.push_back(arg);
    } else {
      return Usage();
    }
  }
  Target target = nullptr;
  for (const NamedTarget& t : kTargets) {
    if (g_target == t.name) target = t.fn;
  }
  if (target == nullptr || (corpus_dir.empty() && files.empty())) return Usage();
  for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL})
    std::signal(sig, OnCrash);

  std::vector<std::string> corpus;
  if (!corpus_dir.empty()) {
    std::vector<fs::path> paths;
    for (const auto& e : fs::directory_iterator(corpus_dir)) {
      if (e.is_regular_file()) paths.push_back(e.path());
    }
    std::sort(paths.begin(), paths.end());  // deterministic order
    for (const fs::path& p : paths)
      corpus.push_back(ReadFile(p));
  }
  for (const std::string& f : files)
    corpus.push_back(ReadFile(f));
  if (corpus.empty()) {
    std::fprintf(stderr, "tessera_fuzz: empty corpus\n");
    return 2;
  }

  uint64_t runs = 0, accepted = 0;
  const auto run = [&](const std::string& input) {
    g_current = &input;
    accepted +=
        target(reinterpret_cast<const uint8_t*>(input.data()), input.size()) == Outcome::kAccepted;
    ++runs;
    g_current = nullptr;
  };
  for (const std::string& input : corpus)
    run(input);
  if (!corpus_dir.empty()) {
    Mutator mutator(seed);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(seconds));
    while (std::chrono::steady_clock::now() < deadline)
      run(mutator.Mutate(corpus));
  }
  std::printf(
      "tessera_fuzz %s: %llu inputs (%zu corpus), %llu accepted, %llu rejected cleanly, "
      "0 crashes\n",
      g_target.c_str(), static_cast<unsigned long long>(runs), corpus.size(),
      static_cast<unsigned long long>(accepted), static_cast<unsigned long long>(runs - accepted));
  return 0;
}

// Subcommands of the tessera CLI. Each returns the process exit code: 0 on success, 1 when the
// command failed or its check did not pass (a message on stderr names the argument or the cause).
#pragma once

#include <string>

#include "op_call_args.h"
#include "runtime/package/package_search.h"

namespace CLI {
class App;
}

namespace tessera::cli {

struct InfoOptions {
  bool json = false;
  std::string profile;
};
void AddInfoCommand(CLI::App& app, InfoOptions& options);
int RunInfo(const InfoOptions& options);

struct DemoOptions {
  bool json = false;
};
void AddDemoCommand(CLI::App& app, DemoOptions& options);
int RunDemo(const DemoOptions& options);

// `tessera ops` and `tessera packages`.
struct ListOptions {
  bool json = false;
};
void AddOpsCommand(CLI::App& app, ListOptions& options);
int RunOps(const ListOptions& options);

// `tessera packages [--explain OP [call description]]`.
struct PackagesOptions {
  bool json = false;
  std::string explain;  // op type to explain; empty: the search order only
  OpCallOptions call;   // --shape/--dtype/--attr/...; a call is described when any is given
};
void AddPackagesCommand(CLI::App& app, PackagesOptions& options);
int RunPackages(const PackagesOptions& options);

// "TESSERA_CUSTOM_OPP_PATH[0]", "vendor 'acme'" or "built-in": where a candidate came from.
std::string OriginText(const runtime::PackageCandidate& candidate);

void AddTilingCommand(CLI::App& app, OpCallOptions& options);
int RunTilingCommand(const OpCallOptions& options);

struct RunOptions {
  OpCallOptions call;
  int iters = 10;
  std::string save_dir;  // non-empty: write inputs and outputs there as .npy files
};
void AddRunCommand(CLI::App& app, RunOptions& options);
int RunOpCommand(const RunOptions& options);

// `tessera verify PACKAGE_DIR`.
struct VerifyOptions {
  std::string dir;
  bool json = false;
};
void AddVerifyCommand(CLI::App& app, VerifyOptions& options);
int RunVerify(const VerifyOptions& options);

// `tessera bench`: the elewise benchmark cases (bench/elewise/cases) as a table or JSON.
struct BenchOptions {
  bool json = false;
  bool quick = false;  // tiny sizes and few rounds
  int rounds = 0;      // 0: the default (15, or 3 with --quick)
  double scale = 0;    // 0: the default (1, or 1/1024 with --quick)
  std::string filter;
  bool no_ceiling = false;
  bool no_emulated = false;
};
void AddBenchCommand(CLI::App& app, BenchOptions& options);
int RunBench(const BenchOptions& options);

// `tessera trace summary FILE [--json]`, `tessera trace svg FILE -o OUT.svg`.
struct TraceOptions {
  std::string action;  // "summary" or "svg"
  std::string file;
  std::string out;
  bool json = false;
};
void AddTraceCommand(CLI::App& app, TraceOptions& options);
int RunTrace(const TraceOptions& options);

// `tessera ascendc-check KIT_DIR`: builds and runs a kit's Ascend C samples unchanged.
struct AscendcCheckOptions {
  std::string kit;
  std::string arch = "dav-2201";
  std::string filter;
  std::string work;     // empty: a fresh directory under /tmp
  std::string asc_dir;  // empty: this build's (or $TESSERA_ASC_DIR)
  int jobs = 2;
  int timeout = 300;
  bool json = false;
};
void AddAscendcCheckCommand(CLI::App& app, AscendcCheckOptions& options);
int RunAscendcCheck(const AscendcCheckOptions& options);

}  // namespace tessera::cli

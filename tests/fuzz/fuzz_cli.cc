// Fuzz target over the `tessera tiling` / `tessera run` call options: the input is argv, one
// argument per line, parsed by CLI11 with the tool's own option definitions, then the options are
// resolved against the built-in package (BuildOpCall) and every --attr value is parsed as every
// attribute type.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "fuzz_targets.h"
#include "op_call_args.h"

namespace tessera::fuzz {

Outcome FuzzCliArgs(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> args;
  size_t start = 0;
  while (start <= text.size() && args.size() < 64) {
    const size_t end = std::min(text.find('\n', start), text.size());
    args.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  CLI::App app{"fuzz"};
  cli::OpCallOptions options;
  CLI::App* cmd = app.add_subcommand("tiling", "fuzzed");
  cli::AddOpCallOptions(cmd, options);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError&) {
    return Outcome::kRejected;
  }
  for (const std::string& attr : options.attrs) {
    const std::string value = attr.substr(std::min(attr.find('=') + 1, attr.size()));
    for (int type = 0; type < 6; ++type)
      (void)cli::ParseAttrValue(static_cast<runtime::ManifestAttrType>(type), value);
  }
  if (options.op.empty()) return Outcome::kRejected;
  Result<cli::ResolvedCall> call = cli::BuildOpCall(options);
  if (!call.ok() && call.status().message().empty()) {
    InvariantFailed("cli", "an error without a message");
  }
  return call.ok() ? Outcome::kAccepted : Outcome::kRejected;
}

}  // namespace tessera::fuzz

// Runs the tessera CLI binary (TESSERA_CLI_PATH) as a user would, for the CLI tests.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace tessera::cli_test {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `tessera <args>` with the package environment cleared, so only the built-in package is
// found unless `env` sets variables ("NAME=value ...").
inline CliResult RunCli(const std::string& args, const std::string& env = "") {
  static int calls = 0;
  const std::string err_file = ::testing::TempDir() + "tessera_cli_stderr_" +
                               std::to_string(getpid()) + "_" + std::to_string(calls++) + ".txt";
  const std::string cmd = "env -u TESSERA_CUSTOM_OPP_PATH -u TESSERA_OPP_PATH " + env + " " +
                          TESSERA_CLI_PATH + " " + args + " 2>" + err_file;
  CliResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0)
    r.out.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_file);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  std::remove(err_file.c_str());
  return r;
}

// `tessera <args> --json`, expected to exit with `exit_code`; the parsed stdout.
inline nlohmann::json RunJson(const std::string& args, const std::string& env = "",
                              int exit_code = 0) {
  const CliResult r = RunCli(args + " --json", env);
  EXPECT_EQ(r.exit_code, exit_code) << args << "\n" << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: " << r.out;
  return j;
}

}  // namespace tessera::cli_test

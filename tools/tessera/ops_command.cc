// `tessera ops`: every op of every package in priority order, the package it resolves to (the
// first that has it), the definitions it shadows, its dtype/format combinations and SoCs.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "commands.h"

namespace tessera::cli {
namespace {

struct OpEntry {
  std::string op;
  std::vector<const runtime::LoadedPackage*> packages;  // priority order; the first wins
};

// Ops in order of first appearance over the packages in priority order.
std::vector<OpEntry> CollectOps(const runtime::PackageSet& set) {
  std::vector<OpEntry> ops;
  for (const runtime::LoadedPackage& p : set.packages) {
    for (const runtime::OpManifest& op : p.manifest.ops) {
      auto it =
          std::find_if(ops.begin(), ops.end(), [&](const OpEntry& e) { return e.op == op.op; });
      if (it == ops.end()) it = ops.insert(ops.end(), OpEntry{op.op, {}});
      it->packages.push_back(&p);
    }
  }
  return ops;
}

// Combination i: the i-th dtype/format of every input, then every output.
nlohmann::json CombinationsJson(const runtime::OpManifest& op) {
  nlohmann::json combos = nlohmann::json::array();
  const size_t n = !op.inputs.empty()    ? op.inputs.front().dtypes.size()
                   : !op.outputs.empty() ? op.outputs.front().dtypes.size()
                                         : 0;
  for (size_t i = 0; i < n; ++i) {
    nlohmann::json c = {{"inputs", nlohmann::json::array()}, {"outputs", nlohmann::json::array()}};
    for (const auto* list : {&op.inputs, &op.outputs}) {
      for (const runtime::ManifestParam& p : *list) {
        c[list == &op.inputs ? "inputs" : "outputs"].push_back(
            {{"name", p.name},
             {"dtype", DataTypeName(p.dtypes[i])},
             {"format", FormatName(p.formats[i])}});
      }
    }
    combos.push_back(c);
  }
  return combos;
}

std::string CombinationText(const nlohmann::json& c) {
  std::string s;
  for (const char* side : {"inputs", "outputs"}) {
    if (std::string(side) == "outputs") s += "->";
    bool first = true;
    for (const auto& p : c[side]) {
      s += (first ? "" : ",") + p["dtype"].get<std::string>();
      if (p["format"] != "ND") s += "/" + p["format"].get<std::string>();
      first = false;
    }
  }
  return s;
}

std::vector<std::string> Socs(const runtime::OpManifest& op) {
  std::set<std::string> socs;
  for (const auto& b : op.binaries)
    socs.insert(b.soc);
  return {socs.begin(), socs.end()};
}

nlohmann::json ParamsJson(const std::vector<runtime::ManifestParam>& params) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& p : params)
    j.push_back({{"name", p.name}, {"mode", runtime::ManifestParamModeName(p.mode)}});
  return j;
}

nlohmann::json OpJson(const OpEntry& e) {
  const runtime::LoadedPackage& winner = *e.packages.front();
  const runtime::OpManifest& op = *runtime::FindOpInManifest(winner.manifest, e.op);
  nlohmann::json attrs = nlohmann::json::array(), shadowed = nlohmann::json::array();
  for (const auto& a : op.attrs) {
    attrs.push_back({{"name", a.name},
                     {"type", runtime::ManifestAttrTypeName(a.type)},
                     {"required", a.required}});
  }
  for (size_t i = 1; i < e.packages.size(); ++i) {
    shadowed.push_back({{"package", e.packages[i]->manifest.package},
                        {"path", e.packages[i]->candidate.dir.string()},
                        {"source", OriginText(e.packages[i]->candidate)}});
  }
  return {{"op", e.op},
          {"package", winner.manifest.package},
          {"path", winner.candidate.dir.string()},
          {"source", OriginText(winner.candidate)},
          {"kernel", op.kernel},
          {"inputs", ParamsJson(op.inputs)},
          {"outputs", ParamsJson(op.outputs)},
          {"attrs", attrs},
          {"combinations", CombinationsJson(op)},
          {"socs", Socs(op)},
          {"shadowed", shadowed}};
}

}  // namespace

void AddOpsCommand(CLI::App& app, ListOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "ops", "List every op, the package it resolves to, its dtype/format combinations and SoCs");
  cmd->add_flag("--json", options.json, "Print JSON");
}

int RunOps(const ListOptions& options) {
  Result<runtime::PackageSet> set = LoadPackageSet();
  if (!set.ok()) return Fail("ops", set.status().ToString());
  nlohmann::json ops = nlohmann::json::array();
  for (const OpEntry& e : CollectOps(*set))
    ops.push_back(OpJson(e));
  if (options.json) {
    std::printf("%s\n", nlohmann::json{{"ops", ops}, {"warnings", set->warnings}}.dump(2).c_str());
    return 0;
  }
  if (ops.empty()) std::printf("no ops: no package was loaded (see `tessera packages`)\n");
  for (const auto& op : ops) {
    std::string signature, attrs, socs, combos;
    for (const char* side : {"inputs", "outputs"}) {
      if (std::string(side) == "outputs") signature += " -> ";
      for (size_t i = 0; i < op[side].size(); ++i) {
        signature += (i ? ", " : "") + op[side][i]["name"].get<std::string>();
        if (op[side][i]["mode"] != "required") signature += "?";
      }
    }
    for (const auto& a : op["attrs"]) {
      attrs += " " + a["name"].get<std::string>() + ":" + a["type"].get<std::string>() +
               (a["required"].get<bool>() ? "" : "?");
    }
    for (const auto& s : op["socs"])
      socs += " " + s.get<std::string>();
    for (const auto& c : op["combinations"])
      combos += " " + CombinationText(c);
    std::printf("%-10s %s (%s)\n", op["op"].get<std::string>().c_str(),
                op["package"].get<std::string>().c_str(), op["source"].get<std::string>().c_str());
    std::printf("    %s%s%s\n    socs:%s\n    dtypes:%s\n", signature.c_str(),
                attrs.empty() ? "" : "  attrs:", attrs.c_str(), socs.c_str(), combos.c_str());
    for (const auto& s : op["shadowed"]) {
      std::printf("    shadows %s (%s %s)\n", s["package"].get<std::string>().c_str(),
                  s["source"].get<std::string>().c_str(), s["path"].get<std::string>().c_str());
    }
  }
  for (const std::string& w : set->warnings)
    std::printf("warning: %s\n", w.c_str());
  return 0;
}

}  // namespace tessera::cli

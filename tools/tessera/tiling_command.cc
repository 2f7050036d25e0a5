// `tessera tiling`: prepares a call (stage 1 only) on device buffers and shows the plan the
// runtime chose: package, binary, simplified key, SoC, block dim, tiling key, workspace, the tiling
// data decoded through the op's tiling schema and, for uniform splits, each core's range.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "tessera/tiling/split.h"

namespace tessera::cli {
namespace {

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// The key's bytes, low first (built-in ops pack one 8-bit field per byte, see
// ops/common/op_keys.h).
nlohmann::json KeyBytes(uint64_t key) {
  nlohmann::json bytes = nlohmann::json::array();
  do {
    bytes.push_back(key & 0xffu);
    key >>= 8;
  } while (key != 0);
  return bytes;
}

// Scalar int64 field `name`, if the schema has one.
std::optional<int64_t> IntField(const tiling::TilingSchema& schema,
                                const std::vector<uint8_t>& bytes, std::string_view name) {
  const tiling::TilingField* f = schema.Find(name);
  if (f == nullptr || f->is_array || f->type != tiling::TilingFieldType::kInt64 ||
      f->offset + 8 > bytes.size()) {
    return std::nullopt;
  }
  int64_t v;
  std::memcpy(&v, bytes.data() + f->offset, 8);
  return v;
}

// Per-core [offset, offset + count) of a uniform split (fields blockNum, unitNumPerCore,
// moreUnitCoreNum, tailNum, unitNum); null when the tiling data has no such fields. The items are
// output elements, or rows of `rowLength` elements when that is what the split covers.
nlohmann::json PerCore(const runtime::PlanInfo& plan, int64_t out_numel) {
  if (plan.tiling_schema == nullptr) return nullptr;
  const auto& s = *plan.tiling_schema;
  const auto& b = plan.tiling_data;
  const auto block = IntField(s, b, "blockNum"), per = IntField(s, b, "unitNumPerCore"),
             more = IntField(s, b, "moreUnitCoreNum"), tail = IntField(s, b, "tailNum"),
             unit = IntField(s, b, "unitNum");
  if (!block || !per || !more || !tail || !unit || *block < 1 || *per < 0 || *more < 0 ||
      *tail < 0 || *unit < 0) {
    return nullptr;
  }
  const tiling::UniformSplitConfig split{static_cast<uint32_t>(*block), static_cast<uint64_t>(*per),
                                         static_cast<uint64_t>(*more), static_cast<uint64_t>(*tail),
                                         static_cast<uint64_t>(*unit)};
  const uint64_t total = split.TotalElements();
  std::string items = "items";
  if (total == static_cast<uint64_t>(out_numel)) {
    items = "elements";
  } else if (const auto row = IntField(s, b, "rowLength");
             row && *row > 0 &&
             total * static_cast<uint64_t>(*row) == static_cast<uint64_t>(out_numel)) {
    items = "rows of " + std::to_string(*row) + " elements";
  }
  nlohmann::json cores = nlohmann::json::array();
  for (uint32_t c = 0; c < split.blockNum; ++c) {
    cores.push_back(
        {{"core", c}, {"offset", split.CoreOffset(c)}, {"count", split.CoreElementCount(c)}});
  }
  return {{"items", items}, {"total", total}, {"cores", cores}};
}

}  // namespace

void AddTilingCommand(CLI::App& app, OpCallOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "tiling", "Prepare a call and show its plan: binary, block dim, tiling key and data, split");
  AddOpCallOptions(cmd, options);
}

int RunTilingCommand(const OpCallOptions& options) {
  Result<ResolvedCall> rc = BuildOpCall(options);
  if (!rc.ok()) return Fail("tiling", rc.status().ToString());
  DeviceBuffers buffers;
  if (Status st = buffers.Bind(rc->call); !st.ok()) return Fail("tiling", st.ToString());
  uint64_t workspace = 0;
  Result<std::unique_ptr<runtime::OpExecutor>> exec = runtime::PrepareOp(rc->call, &workspace);
  if (!exec.ok()) return Fail("tiling", exec.status().ToString());
  const runtime::PlanInfo plan = (*exec)->info();

  nlohmann::json tiling_data = nullptr, fields = nlohmann::json::object();
  if (plan.tiling_schema != nullptr) {
    Result<std::string> text = TilingToJson(*plan.tiling_schema, plan.tiling_data);
    if (!text.ok()) return Fail("tiling", "decoding the tiling data: " + text.status().ToString());
    tiling_data = nlohmann::json::parse(*text);
    for (const auto& f : tiling_data["fields"])
      fields[f["name"].get<std::string>()] = f["value"];
  }
  const nlohmann::json per_core = PerCore(plan, NumElements(rc->call.outputs.front().desc));
  nlohmann::json j = CallJson(rc->call);
  j.update({{"op", plan.op_type},
            {"package", plan.package},
            {"package_dir", plan.package_dir},
            {"kernel", plan.kernel_name},
            {"binary", plan.binary},
            {"simplified_key", plan.simplified_key},
            {"soc", plan.soc},
            {"block_dim", plan.block_dim},
            {"tiling_key", plan.tiling_key},
            {"tiling_key_hex", Hex(plan.tiling_key)},
            {"tiling_key_bytes", KeyBytes(plan.tiling_key)},
            {"workspace", plan.workspace},
            {"tiling_data_size", plan.tiling_data.size()},
            {"tiling_data", tiling_data},
            {"fields", fields},
            {"per_core", per_core}});
  if (options.json) {
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::string ins;
  for (const auto& in : j["inputs"])
    ins += (ins.empty() ? "" : ", ") +
           (in.is_null() ? std::string("(absent)") : in.get<std::string>());
  std::printf("op              %s(%s) -> %s%s%s\n", plan.op_type.c_str(), ins.c_str(),
              j["outputs"][0].get<std::string>().c_str(), rc->call.attrs.empty() ? "" : "  ",
              AttrsText(rc->call.attrs).c_str());
  std::printf("package         %s (%s)\n", plan.package.c_str(), plan.package_dir.c_str());
  std::printf("binary          %s, kernel %s\n", plan.binary.c_str(), plan.kernel_name.c_str());
  std::printf("simplified key  %s\n", plan.simplified_key.c_str());
  std::printf("soc             %s\n", plan.soc.c_str());
  std::printf("block dim       %u\n", plan.block_dim);
  std::printf("tiling key      %llu (%s; bytes low first: %s)\n",
              static_cast<unsigned long long>(plan.tiling_key), Hex(plan.tiling_key).c_str(),
              j["tiling_key_bytes"].dump().c_str());
  std::printf("workspace       %llu bytes\n", static_cast<unsigned long long>(plan.workspace));
  if (plan.tiling_schema == nullptr) {
    std::printf("tiling data     %zu bytes (the op declares no tiling struct)\n",
                plan.tiling_data.size());
  } else {
    std::printf("tiling data     %s, %zu bytes\n", std::string(plan.tiling_schema->name).c_str(),
                plan.tiling_data.size());
    for (const auto& f : tiling_data["fields"]) {
      std::printf("  %-16s %s\n", f["name"].get<std::string>().c_str(), f["value"].dump().c_str());
    }
  }
  if (!per_core.is_null()) {
    std::printf("per-core split  %llu %s over %zu cores\n",
                per_core["total"].get<unsigned long long>(),
                per_core["items"].get<std::string>().c_str(), per_core["cores"].size());
    for (const auto& c : per_core["cores"]) {
      const auto off = c["offset"].get<unsigned long long>(),
                 n = c["count"].get<unsigned long long>();
      std::printf("  core %-4u [%llu, %llu)  %llu\n", c["core"].get<unsigned>(), off, off + n, n);
    }
  }
  return 0;
}

}  // namespace tessera::cli

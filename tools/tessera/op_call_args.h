// Shared by `tessera tiling` and `tessera run`: the command-line description of an op call
// (--shape, --dtype, --attr, --out-shape, --out-dtype), its translation into a runtime::OpCall
// using the manifest of the package the op resolves to, device buffers for the call and host
// tensors holding typed element data as doubles.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/package/package_manifest.h"
#include "runtime/package/package_search.h"
#include "tessera/core/status.h"
#include "tessera/core/tensor_desc.h"
#include "tessera/runtime/op_runtime.h"

namespace CLI {
class App;
}

namespace tessera::cli {

// Raw option text; validated by BuildOpCall.
struct OpCallOptions {
  std::string op;
  std::vector<std::string> shapes;  // one per input
  std::string dtype;                // one dtype for all inputs, or a comma list, one per input
  std::vector<std::string> attrs;   // "name=value"
  std::string out_shape;            // overrides the broadcast shape of every output
  std::string out_dtype;            // overrides the output dtype
  bool json = false;
};

// Adds OP, --shape, --dtype, --attr, --out-shape, --out-dtype and --json to `cmd`.
void AddOpCallOptions(CLI::App* cmd, OpCallOptions& options);
// Adds only --shape, --dtype, --attr, --out-shape and --out-dtype (commands that take the op
// another way).
void AddCallDescriptionOptions(CLI::App* cmd, OpCallOptions& options);

// A call resolved against its op's manifest; tensor addresses are null until DeviceBuffers binds
// them.
struct ResolvedCall {
  runtime::OpCall call;
  runtime::OpManifest op;   // the op's manifest entry in the package the op resolves to
  std::string package_dir;  // that package's directory
};

// The packages as the runtime finds them now (environment + built-in directory).
Result<runtime::PackageSet> LoadPackageSet();

// Validates the options against the manifest of the package `options.op` resolves to: one --shape
// per input (numpy-broadcast into each output's shape unless --out-shape; the row ops take one
// --shape for x and derive gamma and beta as [last dim], x2 as x1, SwiGlu's y halves the last
// dim), known dtypes, declared
// attributes parsed by their declared type, every required attribute present. The output dtype is
// --out-dtype, else an int attribute "dst_type" (a DataType code, as Cast's), else the first
// input's. Errors name the option, the text given and what was expected.
Result<ResolvedCall> BuildOpCall(const OpCallOptions& options);

// Parses one attribute value of `type`: int, float, bool (true/false/1/0), string, lists as
// "1,2,3" or "[1, 2, 3]".
Result<runtime::AttrValue> ParseAttrValue(runtime::ManifestAttrType type, const std::string& text);

// numpy broadcast of `shapes` (right-aligned; each dim equal or 1).
Result<Shape> BroadcastShapes(const std::vector<Shape>& shapes);

// Device memory for every tensor of a call, freed on destruction.
class DeviceBuffers {
 public:
  DeviceBuffers() = default;
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;
  ~DeviceBuffers();
  // Allocates each present input and each output of `call` and stores the addresses in it.
  Status Bind(runtime::OpCall& call);
  // A workspace of at least `bytes` (null for 0), reused across calls, owned like the tensors.
  Result<void*> Workspace(uint64_t bytes);

 private:
  Result<void*> Alloc(uint64_t bytes);
  std::vector<void*> ptrs_;
  void* workspace_ = nullptr;
  uint64_t workspace_bytes_ = 0;
};

// Element data of one tensor on the host, read and written as doubles in the tensor's dtype
// (rounding to nearest even for float16/bfloat16, truncation toward zero with saturation for
// integers, nonzero -> true for bool).
class HostTensor {
 public:
  explicit HostTensor(TensorDesc desc);
  const TensorDesc& desc() const { return desc_; }
  int64_t size() const { return numel_; }
  std::vector<uint8_t>& bytes() { return bytes_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  double Get(int64_t i) const;
  void Set(int64_t i, double v);

 private:
  TensorDesc desc_;
  int64_t numel_ = 0;
  std::vector<uint8_t> bytes_;
};

// Element count of a desc's shape (0 when it overflows; callers validated the shape).
int64_t NumElements(const TensorDesc& desc);

// "float32[1024, 1024] ND" descriptions of the call's inputs/outputs and its attributes.
nlohmann::json CallJson(const runtime::OpCall& call);
nlohmann::json AttrJson(const runtime::AttrValue& value);
// "value=2.5 dst_type=27"; empty when there are none.
std::string AttrsText(const std::map<std::string, runtime::AttrValue>& attrs);

// Prints "tessera <command>: <message>" to stderr and returns exit code 1.
int Fail(const char* command, const std::string& message);

}  // namespace tessera::cli

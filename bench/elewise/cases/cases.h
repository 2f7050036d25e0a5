// The elewise benchmark cases of issue #6 (a*b+c, sigmoid, gelu, RMSNorm fp32/bf16, Softmax),
// shared by tessera_elewise_bench (Google Benchmark) and `tessera bench`.
//
// Each case owns its device buffers (random data) and three ways to compute the same traffic:
//   - the limit: a plain SIMD loop with the same number of input and output streams and
//     streaming stores, launched like the operator (one block per worker thread);
//   - the operator built with tessera's elewise templates;
//   - the peer: Eigen Tensor on a ThreadPoolDevice with as many threads (when Eigen is built in).
// Bandwidth on a shared machine drifts by up to 2x within seconds, so a measurement alternates
// the three within each round and reports medians of per-round ratios.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/core/status.h"
#include "tessera/device/stream.h"

namespace tessera::bench {

struct SuiteOptions {
  double scale = 1.0;    // multiplies the sizes (element count, or rows of the row ops)
  int rounds = 15;       // interleaved rounds per case; medians are taken over them
  std::string filter;    // run the cases whose id contains this text (empty: all)
  bool ceiling = true;   // also measure each operator's in-cache ceiling
  bool emulated = true;  // also run the operator on the emulated ascend910b profile
};

// One round: seconds taken by each implementation (eigen absent when the peer is not available)
// and, when asked for, the operator's in-cache seconds per element (its compute ceiling: the same
// operator on a cache-resident slice, the workers' L2 plus half the L3 (at most 1M elements),
// launched repeatedly).
struct RoundTimes {
  double limit = 0;
  double elewise = 0;
  std::optional<double> eigen;
  std::optional<double> in_cache_seconds_per_element;
  std::optional<double> emulated;  // the operator on the ascend910b profile
};

class Case {
 public:
  virtual ~Case() = default;
  Case(const Case&) = delete;
  Case& operator=(const Case&) = delete;

  const std::string& id() const { return id_; }        // e.g. "rmsnorm_bf16"
  const std::string& title() const { return title_; }  // e.g. "RMSNorm bf16"
  const std::vector<int64_t>& shape() const { return shape_; }
  const std::string& dtype() const { return dtype_; }
  // Bytes one run moves to and from memory (every input once, every output once).
  double bytes() const { return bytes_; }
  int64_t elements() const;

  // One round of limit, operator and peer, each launched and synchronized on `stream`; with
  // `ceiling` also the in-cache time, with `emulated` also the operator on the ascend910b profile
  // (the native profile is restored before it returns).
  Result<RoundTimes> RunRound(const device::Stream& stream, bool ceiling, bool emulated);

 protected:
  Case(std::string id, std::string title, std::vector<int64_t> shape, std::string dtype,
       double bytes);
  virtual Status Limit(const device::Stream& stream) = 0;
  virtual Status Elewise(const device::Stream& stream) = 0;
  virtual void Eigen() = 0;
  // Whether Eigen() computes anything (the built-in op cases have no Eigen peer).
  virtual bool HasPeer() const { return true; }
  // The operator on the cache-resident slice; InCacheElements() elements.
  virtual Status ElewiseInCache(const device::Stream& stream) = 0;
  virtual int64_t InCacheElements() const = 0;

 private:
  std::string id_;
  std::string title_;
  std::vector<int64_t> shape_;
  std::string dtype_;
  double bytes_ = 0;
};

// Ids of all cases in report order.
std::vector<std::string> CaseIds();
// Allocates and fills the buffers of case `id` at `scale` of its issue size. InvalidArgument for
// an unknown id, a scale that is not positive, leaves no work or is above 64; errors of device
// allocation pass through.
Result<std::unique_ptr<Case>> MakeCase(const std::string& id, double scale);

// Whether the Eigen peers can run here; when not, EigenUnavailableReason() says why.
bool EigenAvailable();
std::string EigenUnavailableReason();

struct CaseResult {
  std::string id;
  std::string title;
  std::vector<int64_t> shape;
  std::string dtype;
  double bytes = 0;
  int rounds = 0;
  double gbps = 0;                       // operator, from its median time
  double limit_gbps = 0;                 // the limit loop, from its median time
  double ratio_limit = 0;                // median of limit time / operator time
  std::optional<double> eigen_gbps;      // present when the peer ran
  std::optional<double> ratio_eigen;     // median of Eigen time / operator time
  std::optional<double> ceiling_gbps;    // in-cache throughput of the operator, same byte count
  std::optional<double> ceiling_gelems;  // the same in G elements/s
  std::optional<double> ratio_emulated;  // median of ascend910b time / native time (< 1.1: goal)
  // The in-cache ceiling is below the limit's bandwidth: compute, not memory, bounds the case.
  bool compute_bound = false;
};

// Medians over `rounds` (at least one).
CaseResult Summarize(const Case& c, const std::vector<RoundTimes>& rounds);

// Measures one case: one warm-up round, then options.rounds interleaved rounds.
Result<CaseResult> Measure(Case& c, const SuiteOptions& options, const device::Stream& stream);

// Every case matching options.filter, one after another (each case's buffers are freed before
// the next is made). InvalidArgument when the filter matches no case or rounds < 1.
Result<std::vector<CaseResult>> RunSuite(const SuiteOptions& options);

}  // namespace tessera::bench

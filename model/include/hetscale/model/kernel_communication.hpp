// The bundled kernels' messages and what they cost: each kernel's communication in one
// timed run as a list of message steps (pattern, number of calls, sizes) whose counts and
// sizes are expressions in N and p (docs/predict.md, "Overhead models of the bundled
// kernels"), and the overhead T0(N, p) they add up to on measured communication costs:
// linear fits (hetscale-commbench's "models", a site's [network]) as an expression, a
// network probe's figures (network_probe.hpp) as a function. The analytic prediction
// (`hetscale predict --overhead-of`) and the forecasts read the kernels' messages here and
// nowhere else.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/model/network_calibration.hpp"
#include "hetscale/model/network_probe.hpp"
#include "hetscale/model/prediction.hpp"
#include "hetscale/model/workload.hpp"
#include "hetscale/site/site_table.hpp"

namespace hetscale {

/// `calls` calls of `pattern` per timed run, their sizes (network_probe.hpp's MessagePattern
/// says what a size means for each pattern) spread evenly from `first_bytes` to
/// `last_bytes` (the same text: every call of one size). Expressions in N and p.
struct MessageStep {
  MessagePattern pattern = MessagePattern::send;
  std::string calls;
  std::string first_bytes;
  std::string last_bytes;
  std::string what;  // which of the kernel's data
};

struct KernelCommunication {
  std::string_view kernel;
  std::vector<MessageStep> steps;
};

/// The kernels with a description: mm, ge, conv2d, lu.
[[nodiscard]] std::vector<std::string_view> described_kernels();

/// The messages of a bundled kernel's timed run (docs/kernels.md). Throws Error for a
/// kernel without a description, naming the ones there are.
const KernelCommunication& kernel_communication(std::string_view kernel);

/// One step at given N and p.
struct MessageStepAt {
  MessagePattern pattern = MessagePattern::send;
  double calls = 0;
  double first_bytes = 0;
  double last_bytes = 0;
};

/// A kernel's steps with their expressions compiled, for evaluation at many (N, p).
class CompiledCommunication {
 public:
  explicit CompiledCommunication(const KernelCommunication& communication);
  [[nodiscard]] std::vector<MessageStepAt> at(double n, double p) const;
  [[nodiscard]] std::string_view kernel() const { return kernel_; }

 private:
  struct Step {
    MessagePattern pattern;
    Workload calls, first_bytes, last_bytes;
  };
  std::string_view kernel_;
  std::vector<Step> steps_;
};

/// The seconds of one step at a pattern cost `cost(pattern, bytes, p)`: its calls times
/// the mean cost of its sizes, the mean over 32 sizes evenly spaced at the middles of 32
/// equal parts of the range (one size when the range is one size; exact for costs linear
/// in the size).
[[nodiscard]] double step_seconds(const MessageStepAt& step, double processes,
                                  const std::function<double(MessagePattern, double, double)>& cost);

/// The seconds of the kernel's communication at (N, p) on a probed network: the sum of its
/// steps at ProbeCosts::seconds.
[[nodiscard]] double communication_seconds(const CompiledCommunication& communication, const ProbeCosts& costs,
                                           double n, double p);

/// The kernel's communication on each of `probes`, at the probe's process count, for a
/// forecast's T0 (TimeModel::use_probed_communication): communication_seconds at p = the
/// probe's ranks. Where two probes have the same process count, the later one in `probes`.
/// Throws Error for a kernel without a description.
[[nodiscard]] std::vector<ProbedCommunication> probed_communication(std::string_view kernel,
                                                                    const std::vector<NetworkProbe>& probes);

/// Communication costs in milliseconds of linear models: a message of B bytes takes
/// `send_ms + send_ms_per_byte * B`; a small-message broadcast over p processes `bcast_ms`,
/// an all-reduce `allreduce_ms` and a barrier `barrier_ms`, expressions in p.
struct CommunicationCosts {
  double send_ms = 0;
  double send_ms_per_byte = 0;
  std::string bcast_ms;
  std::string barrier_ms;
  std::string allreduce_ms;
};

/// From hetscale-commbench's fitted lines (seconds; T_send per byte): T_send = a2 + b2 B,
/// T_bcast = a1 + b1 p, T_barrier = a3 + b3 p, T_allreduce = a4 + b4 p (the barrier's
/// line when `has_allreduce` is false: files written before the all-reduce was timed).
CommunicationCosts communication_costs(const CommModels& models, bool has_allreduce = true);
/// From a site table's [network] (a star: each message crosses two host links): T_send =
/// 2 latency + B / bandwidth; binomial-tree and recursive-doubling collectives of
/// latency-bound messages: T_bcast = T_barrier = T_allreduce = lg(p) * 2 latency.
CommunicationCosts communication_costs(const Network& network);

/// T0(N, p) in ms of a kernel on linear costs, as an expression in N and p: per step its
/// calls times its pattern's cost at the step's mean size B:
///   send T_send(B); broadcast T_bcast + lg(p) b2 B (a binomial tree, lg p steps of the
///   whole message); scatterv, gatherv and alltoall (p - 1) T_send(B / p) (one message per
///   other rank, one after another at the root or in the rounds of a pairwise exchange);
///   allreduce T_allreduce + lg(p) b2 B; barrier T_barrier.
/// Throws Error for a kernel without a description.
std::string kernel_overhead_expression(std::string_view kernel, const CommunicationCosts& costs);

/// T0 of a bundled kernel and where it comes from, for `hetscale predict --overhead-of`.
struct KernelOverhead {
  std::string expression;  // in ms (linear costs); empty when `seconds` is set
  /// T0(N, p) in seconds on a network probe's figures; empty for an expression.
  std::function<double(double n, double p)> seconds;
  std::string source;       // e.g. "hetscale-commbench models of FILE"
  std::string description;  // what T0 is made of, for --print-overhead
};

/// From hetscale-commbench's output at `path`: on its network probe when the file has one,
/// else on the lines of its "models".
KernelOverhead kernel_overhead_from_commbench(std::string_view kernel, const std::string& path);
/// From the [network] of the site table at `path` (the default [network] when it has none).
KernelOverhead kernel_overhead_from_network(std::string_view kernel, const std::string& path);

/// The kernel's steps, one a line ("  broadcast  N calls of 8*(N + 1) .. 16 bytes: the pivot row").
std::string describe_kernel_communication(const KernelCommunication& communication);

}  // namespace hetscale

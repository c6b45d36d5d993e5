// The bundled kernels' messages and the overhead they add up to (kernel_communication.hpp).
#include "hetscale/model/kernel_communication.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

// lu's block size, lu_block_size(N, p) of kernels/serial/lu.hpp without its rounding down.
constexpr std::string_view lu_block = "min(128, max(8, N/(8*p)))";

std::string nb(std::string_view text) {
  std::string out(text);
  for (std::size_t at = out.find("NB"); at != std::string::npos; at = out.find("NB", at + lu_block.size()))
    out.replace(at, 2, "(" + std::string(lu_block) + ")");
  return out;
}

// What each kernel sends in one timed run (docs/kernels.md, "The kernels"): its collectives
// and messages in order.
const std::array<KernelCommunication, 4>& descriptions() {
  static const std::array<KernelCommunication, 4> all = {
      KernelCommunication{"mm",
                          {{MessagePattern::scatterv, "1", "8*N^2", "8*N^2", "A's row blocks from rank 0"},
                           {MessagePattern::broadcast, "1", "8*N^2", "8*N^2", "B from rank 0"},
                           {MessagePattern::gatherv, "1", "8*N^2", "8*N^2", "C's row blocks to rank 0"}}},
      KernelCommunication{
          "ge",
          {{MessagePattern::scatterv, "1", "8*N*(N + 1)", "8*N*(N + 1)", "the rows of [A | b] from rank 0"},
           {MessagePattern::allreduce, "N", "12", "12", "the pivot search, one (value, row) pair per column"},
           {MessagePattern::broadcast, "N", "8*(N + 1)", "16", "the pivot row from column k on, per column k"},
           {MessagePattern::send, "N*(p - 1)/p", "8*(N + 1)", "16",
            "the row exchange, when rows k and the pivot's have two owners"},
           {MessagePattern::gatherv, "1", "8*N*(N + 1)", "8*N*(N + 1)", "the reduced rows to rank 0"}}},
      KernelCommunication{"conv2d",
                          {{MessagePattern::alltoall, "1", "32*N^2/p", "32*N^2/p",
                            "the forward transpose of both images"},
                           {MessagePattern::alltoall, "1", "16*N^2/p", "16*N^2/p",
                            "the backward transpose of the product"}}},
      KernelCommunication{"lu",
                          {{MessagePattern::scatterv, "1", "8*N^2", "8*N^2", "the column blocks from rank 0"},
                           {MessagePattern::broadcast, nb("N/NB"), nb("8*NB*(N + 1)"), nb("8*NB*(NB + 1)"),
                            "each panel of NB columns from its diagonal on, with its pivots (NB = " +
                                std::string(lu_block) + ")"},
                           {MessagePattern::gatherv, "1", "8*N^2", "8*N^2", "the factors' column blocks to rank 0"}}},
  };
  return all;
}

Workload parse_step_expression(const std::string& text) {
  Workload w = Workload::parse(text);
  for (const std::string& name : w.parameters())
    if (name != "N" && name != "p") throw Error("a message step may use N and p only, not '" + name + "'");
  return w;
}

double evaluate(const Workload& w, double n, double p) {
  std::array<double, 2> values{};
  const auto& names = w.parameters();
  for (std::size_t i = 0; i < names.size(); ++i) values[i] = names[i] == "N" ? n : p;
  return w.evaluate(std::span<const double>(values.data(), names.size()));
}

std::string number(double value) { return fmt::format("{:.9g}", value); }

// "a + b*x" with the sign folded in ("0.12 - 0.3*p"); a zero term is left out.
std::string line(double intercept, double slope, std::string_view x) {
  if (slope == 0) return number(intercept);
  const std::string term = number(std::abs(slope)) + "*" + std::string(x);
  if (intercept == 0) return slope < 0 ? "-" + term : term;
  return number(intercept) + (slope < 0 ? " - " : " + ") + term;
}

// T_send of a message of `bytes` (an expression), in ms.
std::string send(const CommunicationCosts& c, std::string_view bytes) {
  return "(" + line(c.send_ms, c.send_ms_per_byte, "(" + std::string(bytes) + ")") + ")";
}

// The cost in ms of one call of `pattern` whose size is `bytes` (an expression).
std::string pattern_expression(MessagePattern pattern, const CommunicationCosts& c, const std::string& bytes) {
  const std::string per_byte = number(c.send_ms_per_byte);
  switch (pattern) {
    case MessagePattern::send:
      return send(c, bytes);
    case MessagePattern::broadcast:
      return "(" + c.bcast_ms + " + lg(p)*" + per_byte + "*" + bytes + ")";
    case MessagePattern::allreduce:
      return "(" + c.allreduce_ms + " + lg(p)*" + per_byte + "*" + bytes + ")";
    case MessagePattern::barrier:
      return c.barrier_ms;
    case MessagePattern::scatterv:
    case MessagePattern::gatherv:
    case MessagePattern::alltoall:
      return "(p - 1)*" + send(c, bytes + "/p");
  }
  return "0";
}

constexpr int kQuadraturePoints = 32;

std::string probe_summary(const NetworkProbe& probe) {
  const PointToPointProbe& p2p = probe.point_to_point();
  std::string out = fmt::format("point to point ({}, {} to {}):", probe.remote ? "between nodes" : "within a node",
                                p2p.first_host, p2p.second_host);
  for (const LinearSegment& s : p2p.fit.segments)
    out += fmt::format(" [{:g} .. {:g} bytes: {:.4g} us + {:.4g} MB/s]", s.first_bytes, s.last_bytes,
                       1e6 * s.latency_seconds, s.seconds_per_byte > 0 ? 1e-6 / s.seconds_per_byte : 0.0);
  out += "\n";
  if (probe.saturation) {
    out += "saturation (share of a lone flow's bandwidth):";
    for (const SaturationPoint& s : probe.saturation->points)
      out += fmt::format(" {} flows {:.3g}", s.flows, probe.saturation->per_flow_share(s.flows));
    if (probe.saturation->alltoall)
      out += fmt::format(", all-to-all of {} {:.3g}", probe.saturation->alltoall->processes,
                         probe.saturation->per_flow_share(probe.saturation->alltoall->processes));
    out += "\n";
  }
  std::vector<std::string> measured;
  for (MessagePattern pattern : kMessagePatterns) {
    std::vector<int> counts;
    for (const CollectiveSample& c : probe.collectives)
      if (c.pattern == pattern && std::find(counts.begin(), counts.end(), c.processes) == counts.end())
        counts.push_back(c.processes);
    if (counts.empty()) continue;
    std::sort(counts.begin(), counts.end());
    measured.push_back(fmt::format("{} at p = {}", to_string(pattern), fmt::join(counts, ", ")));
  }
  out += "collectives measured: " + (measured.empty() ? std::string("none") : fmt::format("{}", fmt::join(measured, "; "))) + "\n";
  return out;
}

}  // namespace

std::vector<std::string_view> described_kernels() {
  std::vector<std::string_view> out;
  for (const KernelCommunication& k : descriptions()) out.push_back(k.kernel);
  return out;
}

const KernelCommunication& kernel_communication(std::string_view kernel) {
  for (const KernelCommunication& k : descriptions())
    if (k.kernel == kernel) return k;
  throw Error(fmt::format("no overhead model for kernel '{}' (known: {})", kernel, fmt::join(described_kernels(), ", ")));
}

CompiledCommunication::CompiledCommunication(const KernelCommunication& communication) : kernel_(communication.kernel) {
  for (const MessageStep& s : communication.steps)
    steps_.push_back({s.pattern, parse_step_expression(s.calls), parse_step_expression(s.first_bytes),
                      parse_step_expression(s.last_bytes)});
}

std::vector<MessageStepAt> CompiledCommunication::at(double n, double p) const {
  std::vector<MessageStepAt> out;
  for (const Step& s : steps_)
    out.push_back({s.pattern, evaluate(s.calls, n, p), evaluate(s.first_bytes, n, p), evaluate(s.last_bytes, n, p)});
  return out;
}

double step_seconds(const MessageStepAt& step, double processes,
                    const std::function<double(MessagePattern, double, double)>& cost) {
  if (step.calls == 0) return 0;
  if (step.first_bytes == step.last_bytes) return step.calls * cost(step.pattern, step.first_bytes, processes);
  double sum = 0;
  for (int i = 0; i < kQuadraturePoints; ++i) {
    const double t = (i + 0.5) / kQuadraturePoints;
    sum += cost(step.pattern, step.first_bytes + t * (step.last_bytes - step.first_bytes), processes);
  }
  return step.calls * sum / kQuadraturePoints;
}

double communication_seconds(const CompiledCommunication& communication, const ProbeCosts& costs, double n,
                             double p) {
  const auto cost = [&costs](MessagePattern pattern, double bytes, double processes) {
    return costs.seconds(pattern, bytes, processes);
  };
  double total = 0;
  for (const MessageStepAt& step : communication.at(n, p)) total += step_seconds(step, p, cost);
  return total;
}

std::vector<ProbedCommunication> probed_communication(std::string_view kernel, const std::vector<NetworkProbe>& probes) {
  auto compiled = std::make_shared<const CompiledCommunication>(kernel_communication(kernel));
  std::vector<ProbedCommunication> out;
  for (const NetworkProbe& probe : probes) {
    const auto p = static_cast<double>(probe.processes());
    auto costs = std::make_shared<const ProbeCosts>(probe);
    ProbedCommunication probed{static_cast<std::size_t>(probe.processes()),
                               [compiled, costs, p](double n) { return communication_seconds(*compiled, *costs, n, p); }};
    const auto same = std::find_if(out.begin(), out.end(), [&](const auto& o) { return o.processes == probed.processes; });
    if (same != out.end()) {
      *same = std::move(probed);
    } else {
      out.push_back(std::move(probed));
    }
  }
  return out;
}

CommunicationCosts communication_costs(const CommModels& models, bool has_allreduce) {
  CommunicationCosts c;
  c.send_ms = 1e3 * models.send.intercept;
  c.send_ms_per_byte = 1e3 * models.send.slope;
  c.bcast_ms = "(" + line(1e3 * models.bcast.intercept, 1e3 * models.bcast.slope, "p") + ")";
  c.barrier_ms = "(" + line(1e3 * models.barrier.intercept, 1e3 * models.barrier.slope, "p") + ")";
  const LineFit& allreduce = has_allreduce ? models.allreduce : models.barrier;
  c.allreduce_ms = "(" + line(1e3 * allreduce.intercept, 1e3 * allreduce.slope, "p") + ")";
  return c;
}

CommunicationCosts communication_costs(const Network& network) {
  CommunicationCosts c;
  const double latency_ms = 2 * network.latency_us * 1e-3;  // two host links
  c.send_ms = latency_ms;
  c.send_ms_per_byte = 1e3 / (network.bandwidth_MBps * 1e6);
  c.bcast_ms = "(" + number(latency_ms) + "*lg(p))";
  c.barrier_ms = c.bcast_ms;
  c.allreduce_ms = c.bcast_ms;
  return c;
}

std::string kernel_overhead_expression(std::string_view kernel, const CommunicationCosts& c) {
  std::string out;
  for (const MessageStep& s : kernel_communication(kernel).steps) {
    const std::string bytes =
        s.first_bytes == s.last_bytes ? "(" + s.first_bytes + ")" : "((" + s.first_bytes + ") + (" + s.last_bytes + "))/2";
    const std::string cost = pattern_expression(s.pattern, c, bytes);
    out += (out.empty() ? "" : " + ") + (s.calls == "1" ? cost : "(" + s.calls + ")*" + cost);
  }
  return out;
}

std::string describe_kernel_communication(const KernelCommunication& communication) {
  std::string out;
  for (const MessageStep& s : communication.steps) {
    const std::string sizes = s.first_bytes == s.last_bytes ? s.first_bytes : s.first_bytes + " .. " + s.last_bytes;
    out += fmt::format("  {:<10} {} call(s) of {} bytes: {}\n", to_string(s.pattern), s.calls, sizes, s.what);
  }
  return out;
}

KernelOverhead kernel_overhead_from_commbench(std::string_view kernel, const std::string& path) {
  const CommbenchOutput output = read_commbench_output(path);
  const KernelCommunication& communication = kernel_communication(kernel);
  if (!output.probe)
    return {kernel_overhead_expression(kernel, communication_costs(*output.models, output.has_allreduce_model)), {},
            "hetscale-commbench models of " + path, ""};
  auto compiled = std::make_shared<const CompiledCommunication>(communication);
  auto costs = std::make_shared<const ProbeCosts>(*output.probe);
  KernelOverhead out;
  out.seconds = [compiled, costs](double n, double p) { return communication_seconds(*compiled, *costs, n, p); };
  out.source = "hetscale-commbench network probe of " + path;
  out.description = fmt::format(
      "T0(N, p) of {} on the network probe of {} ({} ranks on {} nodes): the sum over the kernel's messages of their "
      "calls times their cost, a collective measured at its p and size where measured (interpolated between), "
      "elsewhere scaled by its algorithm on the point-to-point fit (docs/predict.md):\n{}{}",
      kernel, path, output.probe->processes(), output.probe->nodes().size(),
      describe_kernel_communication(communication), probe_summary(*output.probe));
  return out;
}

KernelOverhead kernel_overhead_from_network(std::string_view kernel, const std::string& path) {
  const SiteTable site = load_site_table(path);
  return {kernel_overhead_expression(kernel, communication_costs(site.network.value_or(Network{}))), {},
          site.network ? "[network] of " + path : "the default [network] (" + path + " has none)", ""};
}

}  // namespace hetscale

#include "hetscale/collector/set_equalization.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/site/hostlist.hpp"
#include "hetscale/site/partition_file.hpp"

namespace hetscale {

bool node_csv_gives_th(const CsvTable& csv) {
  csv.allow_only({"node", "speed", "variation", "th"});
  const bool has_th = csv.has_column("th");
  if (has_th == csv.has_column("variation"))
    throw ConfigError(csv.where(0, "node"), "give exactly one of the columns 'variation' and 'th'");
  return has_th;
}

EqualizationNodes equalization_nodes_from_csv(const CsvTable& csv, const std::string& source,
                                              double correlation_time) {
  const bool has_th = node_csv_gives_th(csv);
  if (has_th && !(correlation_time > 0))
    throw Error(
        "a 'th' column needs a positive correlation time (E[L^2]/E[L] of the "
        "availability intervals, in seconds)");
  const char* spread_column = has_th ? "th" : "variation";
  EqualizationNodes nodes;
  nodes.source = source;
  for (std::size_t r = 0; r < csv.rows(); ++r) {
    nodes.names.push_back(csv.text(r, "node"));
    const double speed = csv.number(r, "speed");
    const double spread = csv.number(r, spread_column);
    if (!(speed > 0)) throw ConfigError(csv.where(r, "speed"), "speed must be positive");
    if (spread < 0) throw ConfigError(csv.where(r, spread_column), "must be >= 0");
    nodes.computers.push_back(
        {speed, has_th ? variation_from_heterogeneity(spread, correlation_time) : spread});
  }
  if (nodes.names.empty()) throw Error(source + ": no nodes listed");
  return nodes;
}

EqualizationNodes equalization_nodes_from_timings(
    const std::string& source, std::vector<NodeTimingStats> stats,
    const std::vector<MeasuredAvailability>& availability) {
  EqualizationNodes nodes;
  nodes.source = source;
  nodes.note = check_equalization_input(stats);
  for (const auto& s : stats) nodes.names.push_back(s.host);
  VariationChoice choice = choose_variation(stats, availability);
  nodes.stats = std::move(stats);
  nodes.computers = std::move(choice.computers);
  nodes.variation = std::move(choice.source);
  nodes.from_availability = choice.from_availability;
  return nodes;
}

EqualizationSimulation equalization_simulation(std::span<const VariableComputer> computers,
                                               SimulationOptions options) {
  EqualizationSimulation sim;
  sim.options = options;
  double largest_k = 0;
  for (const auto& c : computers) largest_k = std::max(largest_k, c.variation);
  constexpr double max_th = 0.5;
  const double needed = 1.5 * std::pow(largest_k / max_th, 2);  // correlation = 2/3 interval
  if (needed > sim.options.max_interval) {
    sim.note = fmt::format(
        "simulated availability intervals lengthened from {:g} s to {:.3g} s so "
        "that every node's TH stays <= {}",
        sim.options.max_interval, needed, max_th);
    sim.options.max_interval = needed;
  }
  const double correlation = correlation_time_of_uniform_intervals(sim.options.max_interval);
  for (const auto& c : computers) {
    const double th = c.variation / std::sqrt(correlation);
    sim.computers.push_back({c.speed / 0.5, 0.5, th * 0.5});
  }
  return sim;
}

EqualizationPlan plan_equalization(std::span<const VariableComputer> computers, double seconds,
                                   const std::string& method,
                                   const EqualizationSimulation* simulation) {
  EqualizationPlan plan;
  plan.method = method;
  plan.seconds = seconds;
  for (const auto& c : computers) plan.total_work += c.speed * seconds;
  plan.chosen = choose_partition(computers, plan.total_work, method);
  const bool linear = method == "linearised";
  plan.methods = {{"proportional", plan.chosen.two_step.step1, {}},
                  {"equalized", linear ? plan.chosen.two_step.step2 : plan.chosen.partition, {}}};
  if (linear) plan.methods.push_back({"equalized_linear", plan.chosen.partition, {}});
  if (simulation == nullptr) return plan;
  SimulationOptions options = simulation->options;
  for (auto& m : plan.methods) {
    m.simulated = simulate(simulation->computers, m.partition.work, options);
    if (options.deadline == 0) options.deadline = m.simulated.tau;
  }
  return plan;
}

const EqualizationMethod& written_method(const EqualizationPlan& plan) {
  return plan.methods.back();
}

Table equalization_table(const EqualizationNodes& nodes, const EqualizationPlan& plan) {
  const auto& two = plan.chosen.two_step;
  const auto& step1 = two.step1;
  const auto& equalized = two.equalized;
  const auto& step2 = plan.chosen.partition;
  const double total = plan.total_work;
  Table table{{"node", "speed", "variation", "proportional_weight", "equalized_weight",
               "step2_weight", "t_plus_sigma_step1", "t_plus_sigma_step2", "case",
               "modelled_tau_step1", "modelled_tau_equalized", "modelled_tau_step2"},
              {}};
  if (!nodes.stats.empty()) {
    table.columns.insert(table.columns.begin() + 1,
                         {"repetitions", "mean_seconds_per_op", "sd_seconds_per_op"});
  }
  const double tau_equalized = modelled_tau(nodes.computers, equalized.work);
  for (std::size_t i = 0; i < nodes.names.size(); ++i) {
    std::vector<Cell> row{nodes.names[i]};
    if (!nodes.stats.empty())
      row.insert(row.end(), {static_cast<std::int64_t>(nodes.stats[i].repetitions),
                             nodes.stats[i].mean_seconds_per_op, nodes.stats[i].sd_seconds_per_op});
    row.insert(row.end(),
               {nodes.computers[i].speed, nodes.computers[i].variation, step1.work[i] / total,
                equalized.work[i] / total, step2.work[i] / total,
                step1.mean_time[i] + step1.time_sd[i], step2.mean_time[i] + step2.time_sd[i],
                std::string(case_key(two.which)), two.tau_step1, tau_equalized, plan.chosen.tau});
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string equalization_text(const EqualizationNodes& nodes, const EqualizationPlan& plan) {
  std::ostringstream out;
  print_table(out, equalization_table(nodes, plan), TableFormat::table);
  const auto& two = plan.chosen.two_step;
  const auto& step2 = plan.chosen.partition;
  out << fmt::format("case: {}: {}\n", case_key(two.which), case_description(two.which));
  if (two.which != EqualizationCase::none && two.which != EqualizationCase::slow_steady_far)
    out << fmt::format("share of the equalizing move taken: {:.3g}\n", two.move_fraction);
  out << fmt::format("modelled tau (s): step 1 {:.6g}, equalized {:.6g}, step 2 ({}) {:.6g}\n",
                     two.tau_step1, two.tau_equalized, plan.method, plan.chosen.tau);
  out << fmt::format("degree of equalization: step 1 {:.3g}%, step 2 ({}) {:.3g}%\n",
                     two.step1.degree, plan.method, step2.degree);
  if (!step2.note.empty() && step2.note != case_description(two.which))
    out << "note: " << step2.note << '\n';
  if (!nodes.note.empty()) out << "note: " << nodes.note << '\n';
  return out.str();
}

std::string simulation_text(const EqualizationPlan& plan,
                            const EqualizationSimulation& simulation) {
  std::string text = fmt::format(
      "simulated ({} repetitions, seed {}, intervals uniform in [0, {:.3g}] s; risk = "
      "Prob[T > tau of proportional]):\n",
      simulation.options.repetitions, simulation.options.seed, simulation.options.max_interval);
  for (const auto& m : plan.methods)
    text += fmt::format("  {:<17} tau {:.6g} s  sigma_T {:.4g} s  risk {:.3f}\n", m.name,
                        m.simulated.tau, m.simulated.sigma_t, m.simulated.risk_factor);
  if (!simulation.note.empty()) text += "note: " + simulation.note + '\n';
  return text;
}

std::string equalized_partition_file(const EqualizationNodes& nodes, const EqualizationPlan& plan,
                                     const std::string& site) {
  const auto& work = plan.chosen.partition.work;
  Partition partition;
  partition.site = site;
  // Checked by the plugin: a file named by digest (a long node list) must say its nodes.
  partition.node_list = compress_hostlist(sort_hostnames(nodes.names));
  const double total = std::accumulate(work.begin(), work.end(), 0.0);
  for (std::size_t i = 0; i < nodes.names.size(); ++i)
    partition.nodes.push_back({nodes.names[i], work[i] / total, {}});
  return "# Written by hetscale equalize (" + plan.method + ") from " + nodes.source + "\n" +
         format_partition(partition);
}

std::filesystem::path write_equalized_partition(const EqualizationNodes& nodes,
                                                const EqualizationPlan& plan,
                                                const std::string& site,
                                                const std::filesystem::path& output,
                                                const std::filesystem::path& partitions) {
  if (output.empty() && partitions.empty()) return {};
  // Where the plugin looks for the partitions of whoever runs this: root's are the site's,
  // any other user's go to that user's own directory. The step's nodes are in node order,
  // which for the usual names is the natural order.
  const uid_t owner = ::geteuid();
  if (output.empty() && owner != 0) make_user_partitions_dir(partitions, owner);
  const std::filesystem::path path =
      !output.empty() ? output : equalized_partition_path(partitions, sort_hostnames(nodes.names), owner);
  // Replaced whole: the SPANK plugin reads the old partition or the new one, never half.
  write_file_atomically(path, equalized_partition_file(nodes, plan, site));
  return path;
}

}  // namespace hetscale

// The equalization of a stored machine set: read in one snapshot, store in one transaction.
#include "hetscale/collector/stored_set_equalization.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hetscale/site/hostlist.hpp"

namespace hetscale::collector {
namespace {

// Every method's partition and shares, the written one naming `file`.
std::vector<long long> store(pg::Connection& conn, const EqualizeSetOptions& options,
                             const EqualizedSet& set) {
  const auto& nodes = set.nodes;
  const auto& plan = set.plan;
  pg::Transaction tx(conn);
  std::vector<long long> ids;
  for (const auto& m : plan.methods) {
    StoredPartition p;
    p.experiment_id = set.timings.experiment_id;
    p.set_index = options.set_index;
    p.method = m.name;
    p.seconds = options.seconds;
    p.node_list = compress_hostlist(sort_hostnames(nodes.names));
    p.degree_of_equalization = m.partition.degree;
    p.simulated_tau = m.simulated.tau;
    p.simulated_sigma = m.simulated.sigma_t;
    p.simulated_risk = m.simulated.risk_factor;
    if (!set.file.empty() && &m == &written_method(plan)) p.file_name = set.file;
    for (std::size_t i = 0; i < nodes.names.size(); ++i)
      p.shares.push_back({nodes.names[i], m.partition.work[i] / plan.total_work,
                          nodes.stats[i].mean_seconds_per_op, nodes.stats[i].sd_seconds_per_op,
                          m.partition.mean_time[i] + m.partition.time_sd[i]});
    ids.push_back(store_partition(conn, p));
  }
  tx.commit();
  return ids;
}

}  // namespace

EqualizedSet equalize_stored_set(pg::Connection& conn, const EqualizeSetOptions& options) {
  EqualizedSet set;
  {
    pg::Transaction snapshot(conn, pg::TransactionMode::snapshot);  // timings of one moment
    set.timings = load_set_timings(conn, options.experiment, options.set_index, options.parameter);
    auto stats = node_timing_stats(set.timings.ranks);
    std::vector<std::string> hosts;
    for (const auto& s : stats) hosts.push_back(s.host);
    const auto availability = load_host_availability(conn, set.timings.experiment_id, hosts);
    snapshot.commit();
    set.nodes = equalization_nodes_from_timings(
        fmt::format("experiment {} set {} at {} = {:g}", options.experiment, options.set_index,
                    set.timings.parameter_name, set.timings.parameter),
        std::move(stats), availability);
  }
  SimulationOptions simulation;
  simulation.repetitions = options.repetitions;
  simulation.seed = options.seed;
  simulation.max_interval = options.interval;
  set.simulation = equalization_simulation(set.nodes.computers, simulation);
  set.plan =
      plan_equalization(set.nodes.computers, options.seconds, options.method, &set.simulation);
  set.file = write_equalized_partition(set.nodes, set.plan, options.site, options.output,
                                       options.partitions)
                 .string();
  set.partition_ids = store(conn, options, set);
  return set;
}

std::string equalized_set_text(const EqualizedSet& set) {
  return fmt::format("{}: {}\n{}\n", set.nodes.source, set.timings.choice, set.nodes.variation) +
         equalization_text(set.nodes, set.plan) + simulation_text(set.plan, set.simulation) +
         fmt::format("stored partitions {}\n", fmt::join(set.partition_ids, ", "));
}

nlohmann::json equalized_set_json(const EqualizedSet& set) {
  const auto& nodes = set.nodes;
  const auto& methods = set.plan.methods;
  nlohmann::json j = {{"source", nodes.source},
                      {"parameter", set.timings.parameter},
                      {"runs", set.timings.runs},
                      {"choice", set.timings.choice},
                      {"variation", nodes.from_availability ? "availability" : "run_times"},
                      {"variation_source", nodes.variation},
                      {"note", nodes.note},
                      {"case", case_key(set.plan.chosen.two_step.which)},
                      {"nodes", table_json(equalization_table(nodes, set.plan))},
                      {"methods", nlohmann::json::array()}};
  for (std::size_t m = 0; m < methods.size(); ++m)
    j["methods"].push_back(
        {{"method", methods[m].name},
         {"partition_id", set.partition_ids[m]},
         {"degree_of_equalization", methods[m].partition.degree},
         {"modelled_tau", modelled_tau(nodes.computers, methods[m].partition.work)},
         {"simulated_tau", methods[m].simulated.tau},
         {"simulated_sigma", methods[m].simulated.sigma_t},
         {"simulated_risk", methods[m].simulated.risk_factor}});
  return j;
}

}  // namespace hetscale::collector

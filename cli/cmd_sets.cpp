// hetscale sets: the nested, doubling, group-balanced machine sets of a site table.
#include <fmt/format.h>

#include "commands.hpp"
#include "configured_settings.hpp"
#include "hetscale/model/machine_sets.hpp"
#include "hetscale/site/hostlist.hpp"
#include "hetscale/site/site_table.hpp"
#include "output.hpp"

namespace hetscale::cli {
namespace {

struct SetsArgs {
  std::string site;
  MachineSetOptions options;
  TableFormat format = TableFormat::table;
};

Table sets_table(const SiteTable& site, const std::vector<MachineSet>& sets) {
  Table table{{"set", "nodes"}, {}};
  for (const auto& group : site.groups) table.columns.push_back(group.name);
  table.columns.insert(table.columns.end(), {"marked_speed", "unit", "members"});
  for (const auto& set : sets) {
    std::vector<Cell> row{static_cast<std::int64_t>(set.index),
                          static_cast<std::int64_t>(set.nodes.size())};
    for (const auto& [group, count] : set.group_counts)
      row.emplace_back(static_cast<std::int64_t>(count));
    row.insert(row.end(),
               {set.marked_speed, site.speed_unit, compress_hostlist(sort_hostnames(set.nodes))});
    table.rows.push_back(std::move(row));
  }
  return table;
}

nlohmann::json sets_json(const SiteTable& site, const std::vector<MachineSet>& sets) {
  auto out = nlohmann::json::array();
  for (const auto& set : sets) {
    auto groups = nlohmann::json::object();
    for (const auto& [group, count] : set.group_counts) groups[group] = count;
    out.push_back({{"set", set.index},
                   {"nodes", set.nodes.size()},
                   {"groups", groups},
                   {"marked_speed", set.marked_speed},
                   {"unit", site.speed_unit},
                   {"members", compress_hostlist(sort_hostnames(set.nodes))},
                   {"member_list", set.nodes}});
  }
  return out;
}

void run_sets(const SetsArgs& args, Context& context) {
  const auto site = load_site_table(args.site);
  const auto sets = build_machine_sets(site, args.options);
  if (args.format == TableFormat::json) {
    context.out << sets_json(site, sets).dump(2) << '\n';
    return;
  }
  print_table(context.out, sets_table(site, sets), args.format);
}

}  // namespace

void register_sets(CLI::App& app, Context& context) {
  auto args = std::make_shared<SetsArgs>();
  auto* cmd =
      app.add_subcommand("sets", "Nested, doubling, group-balanced machine sets of a site table");
  cmd->add_option("--site", args->site, "Site table (TOML; default: the config file's site)");
  cmd->add_option("--start", args->options.start, "Nodes in the first set")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max", args->options.max, "Largest set, in nodes (0: no limit)")
      ->capture_default_str();
  const std::map<std::string, SetPolicy> policies{{"stop", SetPolicy::stop},
                                                  {"fill", SetPolicy::fill}};
  cmd->add_option(
         "--policy", args->options.policy,
         "stop: end when a group cannot give its balanced share (STAS); fill: top up from the "
         "other groups")
      ->transform(CLI::CheckedTransformer(policies))
      ->default_str("stop");
  cmd->add_flag("--include-degraded", args->options.include_degraded, "Use degraded nodes too");
  add_format_option(*cmd, args->format);
  cmd->callback([args, &context] {
    args->site = required_site_table(args->site);
    run_sets(*args, context);
  });
}

}  // namespace hetscale::cli

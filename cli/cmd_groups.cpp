// hetscale groups: node records (files, directories, stdin) -> groups -> site table; or,
// with --declared, a file of declared speeds -> site table.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/classifier/node_grouping.hpp"
#include "hetscale/collector/plan_loader.hpp"
#include "hetscale/site/declared_nodes.hpp"
#include "hetscale/site/hostlist.hpp"
#include "hetscale/site/site_table.hpp"
#include "output.hpp"

namespace hetscale::cli {
namespace {

struct GroupsArgs {
  std::vector<std::string> inputs;
  std::string output;
  GroupingOptions options;
  TableFormat format = TableFormat::table;
  bool strict = false;
  std::string db;                           // also store the site and every record's figure there
  std::string declared;                     // a file of declared speeds instead of records
  std::string speed_unit = "speed-factor";  // the unit of the declared speeds
};

NodeRecordBatch read_inputs(const std::vector<std::string>& inputs) {
  NodeRecordBatch batch;
  for (const std::string& input : inputs) {
    if (input == "-") {
      read_node_records(std::cin, "<stdin>", batch);
    } else {
      read_node_record_path(input, batch);
    }
  }
  return batch;
}

std::vector<std::string> hosts_of(const SiteTable& table, const std::string& group) {
  std::vector<std::string> hosts;
  for (const Node& node : table.nodes)
    if (node.group == group) hosts.push_back(node.name);
  return hosts;
}

// "1800 (12 CPUs), 900 (8 CPUs)": each kind's speed, most efficient kind last.
std::string kind_speeds_text(const std::vector<GroupCpuKind>& kinds) {
  std::vector<std::string> parts;
  for (auto kind = kinds.rbegin(); kind != kinds.rend(); ++kind)
    parts.push_back(fmt::format("{:.6g} ({} CPUs)", kind->marked_speed, kind->cpus.size()));
  return fmt::format("{}", fmt::join(parts, ", "));
}

Table summary_table(const GroupingResult& result) {
  Table table{{"group", "marked_speed", "unit", "nodes", "ok", "degraded", "excluded", "min_speed",
               "max_speed", "fingerprint", "cpu_model", "hardware", "kind_speeds", "hosts"},
              {}};
  for (const GroupSummary& g : result.groups) {
    const auto count = [](std::uint32_t n) { return static_cast<std::int64_t>(n); };
    table.rows.push_back({g.name, g.marked_speed, result.table.speed_unit,
                          count(g.ok + g.degraded + g.excluded), count(g.ok), count(g.degraded),
                          count(g.excluded), g.min_speed, g.max_speed, g.fingerprint, g.cpu_model,
                          g.hardware, kind_speeds_text(g.cpu_kinds),
                          compress_hostlist(hosts_of(result.table, g.name))});
  }
  return table;
}

nlohmann::json notices_json(const GroupingResult& result) {
  auto out = nlohmann::json::array();
  for (const NodeNotice& n : result.notices)
    out.push_back({{"host", n.host},
                   {"group", n.group},
                   {"state", std::string(to_string(n.state))},
                   {"reason", n.reason}});
  return out;
}

// Every measured record is a point of its node's benchmark history (also the older
// records `groups` did not keep for the table): re-classifying adds to the history.
std::vector<collector::BenchmarkPoint> benchmark_points(const NodeRecordBatch& batch) {
  std::vector<collector::BenchmarkPoint> out;
  for (const LocatedNodeRecord& located : batch.records) {
    const NodeRecord& r = located.record;
    if (r.marked_speed > 0)
      out.push_back({r.host, r.benchmark, r.time, r.marked_speed, r.availability});
  }
  return out;
}

PlanSite plan_site(const SiteTable& table) {
  return {table.name, table.speed_unit, table.benchmark, table.groups, table.nodes};
}

// Replaced whole: the SPANK plugin of a running step reads the old table or the new one.
void write_site_table(const std::string& path, const std::string& text) {
  try {
    write_file_atomically(path, text);
  } catch (const Error& e) {
    throw Error(fmt::format("cannot write the site table to '{}': {}", path, e.what()));
  }
}

// Bad records, duplicates and nodes to review go to stderr, one line each; they never
// stop the other records from being grouped.
void report(const NodeRecordBatch& batch, const GroupingResult& result, std::ostream& err) {
  for (const std::string& e : batch.errors) err << "hetscale groups: skipped " << e << '\n';
  for (const std::string& w : result.warnings) err << "hetscale groups: " << w << '\n';
  for (const NodeNotice& n : result.notices)
    err << fmt::format("hetscale groups: {} {}{}: {}\n", to_string(n.state), n.host,
                       n.group.empty() ? "" : " (group " + n.group + ")", n.reason);
}

// Site, groups, nodes and history points in one transaction. The table file is written
// just before the commit: a database error leaves no file, a file error stores nothing.
void store_in_database(const GroupsArgs& args, const NodeRecordBatch& batch, const SiteTable& table,
                       const std::string& site_toml, Context& context) {
  const collector::SiteCounts counts =
      collector::store_site(args.db, plan_site(table), benchmark_points(batch), [&] {
        if (!args.output.empty() && args.output != "-") write_site_table(args.output, site_toml);
      });
  context.err << fmt::format(
      "hetscale groups: stored site '{}' in the database: {} node{}, {} new benchmark "
      "point{}{}\n",
      table.name, counts.nodes, counts.nodes == 1 ? "" : "s", counts.points_added,
      counts.points_added == 1 ? "" : "s",
      counts.availability_added == 0
          ? std::string()
          : fmt::format(", {} new availability measurement{}", counts.availability_added,
                        counts.availability_added == 1 ? "" : "s"));
}

// One row per group of a table of declared speeds.
Table declared_summary(const SiteTable& table) {
  Table summary{{"group", "marked_speed", "unit", "nodes", "processors", "hosts"}, {}};
  for (const Group& g : table.groups) {
    std::int64_t nodes = 0, processors = 0;
    for (const Node& node : table.nodes)
      if (node.group == g.name) {
        ++nodes;
        processors += node.processors;
      }
    summary.rows.push_back({g.name, g.marked_speed, table.speed_unit, nodes, processors,
                            compress_hostlist(hosts_of(table, g.name))});
  }
  return summary;
}

void run_declared(const GroupsArgs& args, Context& context) {
  const SiteTable table =
      load_declared_nodes(args.declared, {args.options.site_name, args.speed_unit});
  const std::string site_toml = format_site_table(table);
  if (args.output == "-") {
    context.out << site_toml;
    return;
  }
  if (!args.output.empty()) write_site_table(args.output, site_toml);
  if (args.format == TableFormat::json) {
    context.out << nlohmann::json{{"site", table.name},
                                  {"speed_unit", table.speed_unit},
                                  {"benchmark", table.benchmark},
                                  {"groups", table_json(declared_summary(table))}}
                       .dump(2)
                << '\n';
  } else {
    print_table(context.out, declared_summary(table), args.format);
  }
}

void run_groups(const GroupsArgs& args, Context& context) {
  if (!args.declared.empty()) {
    run_declared(args, context);
    return;
  }
  const NodeRecordBatch batch =
      read_inputs(args.inputs.empty() ? std::vector<std::string>{"-"} : args.inputs);
  const GroupingResult result = group_nodes(batch.records, args.options);
  report(batch, result, context.err);
  const std::string site_toml = format_site_table(result.table);
  if (!args.db.empty()) {
    store_in_database(args, batch, result.table, site_toml, context);
  } else if (!args.output.empty() && args.output != "-") {
    write_site_table(args.output, site_toml);
  }
  if (args.output == "-") {
    context.out << site_toml;
  } else {
    if (args.format == TableFormat::json) {
      context.out << nlohmann::json{{"site", result.table.name},
                                    {"speed_unit", result.table.speed_unit},
                                    {"benchmark", result.table.benchmark},
                                    {"groups", table_json(summary_table(result))},
                                    {"notices", notices_json(result)},
                                    {"warnings", result.warnings},
                                    {"skipped", batch.errors}}
                         .dump(2)
                  << '\n';
    } else {
      print_table(context.out, summary_table(result), args.format);
    }
  }
  if (args.strict && !(batch.errors.empty() && result.warnings.empty()))
    throw Error(fmt::format("--strict: {} record(s) skipped, {} warning(s)", batch.errors.size(),
                            result.warnings.size()));
}

}  // namespace

void register_groups(CLI::App& app, Context& context) {
  auto args = std::make_shared<GroupsArgs>();
  auto* cmd = app.add_subcommand(
      "groups",
      "Group node records by hardware and speed, or read declared speeds; write the site table");
  auto* inputs = cmd->add_option("inputs", args->inputs,
                                 "Node record files (JSON Lines), directories of *.json/*.jsonl, "
                                 "or - for stdin (the default)");
  auto* declared = cmd->add_option(
      "--declared", args->declared,
      "Instead of node records, the speeds a file declares: one node a line, 'NAME group=G "
      "[cpus=N] [speed=S]' (S per processor, default 1.0; N default 1); benchmark 'declared'");
  cmd->add_option("-o,--output", args->output, "Write the site table (TOML) here; - for stdout");
  auto* threshold = cmd->add_option("--degraded-threshold", args->options.degraded_threshold,
                                    "A node this fraction below its group's median is degraded")
                        ->capture_default_str()
                        ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--site-name", args->options.site_name, "[site] name of the table")
      ->capture_default_str();
  cmd->add_option("--speed-unit", args->speed_unit,
                  "With --declared: the unit of the declared speeds, [site] speed_unit")
      ->capture_default_str()
      ->needs(declared);
  auto* strict = cmd->add_flag("--strict", args->strict,
                               "Exit with status 1 when a record was skipped or a host was "
                               "duplicated");
  auto* db = cmd->add_option(
      "--db", args->db,
      "Also store the site, groups, nodes and every record's marked speed (benchmark history) "
      "in this database, in one transaction");
  declared->excludes(inputs)->excludes(threshold)->excludes(strict)->excludes(db);
  add_format_option(*cmd, args->format);
  cmd->callback([args, &context] { run_groups(*args, context); });
}

}  // namespace hetscale::cli

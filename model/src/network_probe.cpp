// A network probe's figures: their JSON (hetscale-commbench's output) and what the
// kernels' messages cost on the probed network (network_probe.hpp).
#include "hetscale/model/network_probe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>

#include "hetscale/base/error.hpp"
#include "hetscale/base/json_depth.hpp"
#include "hetscale/base/json_fields.hpp"
#include "hetscale/base/regular_file.hpp"

namespace hetscale {
namespace {

using Json = nlohmann::json;
namespace jf = json_fields;

constexpr std::array<std::string_view, std::size(kMessagePatterns)> kPatternNames = {
    "send", "broadcast", "scatterv", "gatherv", "allreduce", "barrier", "alltoall"};

std::size_t pattern_index(MessagePattern pattern) { return static_cast<std::size_t>(pattern); }

// Rounds of a tree or of recursive doubling on p processes.
double rounds(double processes) { return processes > 1 ? std::ceil(std::log2(processes)) : 0.0; }

// y at x by linear interpolation of (xs, ys) (xs ascending, at least one point), held
// beyond the ends.
double interpolate(const std::vector<double>& xs, const std::vector<double>& ys, double x) {
  if (x <= xs.front()) return ys.front();
  if (x >= xs.back()) return ys.back();
  const auto upper = static_cast<std::size_t>(std::upper_bound(xs.begin(), xs.end(), x) - xs.begin());
  const std::size_t lower = upper - 1;
  const double t = (x - xs[lower]) / (xs[upper] - xs[lower]);
  return ys[lower] + t * (ys[upper] - ys[lower]);
}

// ln of a time, never of 0: a collective timed from a late rank's arrival can take
// (next to) nothing.
double log_time(double seconds) { return std::log(std::max(seconds, 1e-12)); }

// ---- JSON ------------------------------------------------------------------------------

Json point_to_point_json(const PointToPointProbe& p) {
  Json samples = Json::array();
  for (const MessageSample& s : p.samples)
    samples.push_back({{"bytes", s.bytes}, {"seconds", s.seconds}, {"repetitions", s.repetitions}});
  Json segments = Json::array();
  for (const LinearSegment& s : p.fit.segments)
    segments.push_back({{"first_bytes", s.first_bytes},
                        {"last_bytes", s.last_bytes},
                        {"latency_seconds", s.latency_seconds},
                        {"seconds_per_byte", s.seconds_per_byte},
                        {"bandwidth_MBps", s.seconds_per_byte > 0 ? 1e-6 / s.seconds_per_byte : 0.0}});
  return {{"ranks", {p.first_rank, p.second_rank}},
          {"hosts", {p.first_host, p.second_host}},
          {"samples", samples},
          {"segments", segments},
          {"relative_rms", p.fit.relative_rms},
          {"bic", p.fit.bic}};
}

Json saturation_json(const SaturationProbe& s) {
  Json points = Json::array();
  for (const SaturationPoint& p : s.points)
    points.push_back({{"flows", p.flows}, {"seconds", p.seconds}, {"per_flow_MBps", p.per_flow_MBps}});
  Json pairs = Json::array();
  for (const auto& [a, b] : s.pairs) pairs.push_back({a, b});
  Json out = {{"message_bytes", s.message_bytes}, {"pairing", s.pairing}, {"pairs", pairs}, {"points", points}};
  out["alltoall"] = s.alltoall ? Json{{"processes", s.alltoall->processes},
                                      {"bytes_per_pair", s.alltoall->bytes_per_pair},
                                      {"seconds", s.alltoall->seconds},
                                      {"per_flow_MBps", s.alltoall->per_flow_MBps}}
                               : Json(nullptr);
  return out;
}

// Errors of the json_fields readers, with the file they come from.
template <typename F>
auto reading(const std::string& source, F&& read) {
  try {
    return read();
  } catch (const ConfigError&) {
    throw;
  } catch (const Error& e) {
    throw Error(source + ": " + e.what());
  }
}

const Json& object_at(const Json& parent, const std::string& path, std::string_view key) {
  const Json& value = jf::require(parent, path, key);
  if (!value.is_object()) jf::fail(jf::join(path, key), "must be an object");
  return value;
}

const Json& array_at(const Json& parent, const std::string& path, std::string_view key) {
  const Json& value = jf::require(parent, path, key);
  if (!value.is_array()) jf::fail(jf::join(path, key), "must be a list");
  return value;
}

double number_at(const Json& parent, const std::string& path, std::string_view key) {
  return jf::finite_number(jf::require(parent, path, key), jf::join(path, key));
}

PointToPointProbe parse_point_to_point(const Json& j, const std::string& path) {
  PointToPointProbe p;
  const Json& ranks = array_at(j, path, "ranks");
  const Json& hosts = array_at(j, path, "hosts");
  if (ranks.size() != 2) jf::fail(jf::join(path, "ranks"), "must be a list of two ranks");
  if (hosts.size() != 2) jf::fail(jf::join(path, "hosts"), "must be a list of two hosts");
  p.first_rank = jf::small_counter(ranks[0], path + ".ranks[0]");
  p.second_rank = jf::small_counter(ranks[1], path + ".ranks[1]");
  p.first_host = jf::text(hosts[0], path + ".hosts[0]");
  p.second_host = jf::text(hosts[1], path + ".hosts[1]");
  const Json& samples = array_at(j, path, "samples");
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const std::string at = fmt::format("{}.samples[{}]", path, i);
    if (!samples[i].is_object()) jf::fail(at, "must be an object");
    p.samples.push_back({jf::non_negative(jf::require(samples[i], at, "bytes"), at + ".bytes"),
                         jf::positive(jf::require(samples[i], at, "seconds"), at + ".seconds"),
                         jf::small_counter(jf::require(samples[i], at, "repetitions"), at + ".repetitions")});
  }
  const Json& segments = array_at(j, path, "segments");
  if (segments.empty()) jf::fail(jf::join(path, "segments"), "must hold at least one segment");
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::string at = fmt::format("{}.segments[{}]", path, i);
    if (!segments[i].is_object()) jf::fail(at, "must be an object");
    LinearSegment s;
    s.first_bytes = jf::non_negative(jf::require(segments[i], at, "first_bytes"), at + ".first_bytes");
    s.last_bytes = jf::non_negative(jf::require(segments[i], at, "last_bytes"), at + ".last_bytes");
    s.latency_seconds = number_at(segments[i], at, "latency_seconds");
    s.seconds_per_byte = number_at(segments[i], at, "seconds_per_byte");
    if (s.last_bytes < s.first_bytes) jf::fail(at + ".last_bytes", "must not be below first_bytes");
    if (!p.fit.segments.empty() && s.first_bytes <= p.fit.segments.back().last_bytes)
      jf::fail(at + ".first_bytes", "must be above the previous segment's last_bytes");
    p.fit.segments.push_back(s);
  }
  p.fit.relative_rms = jf::non_negative(jf::require(j, path, "relative_rms"), jf::join(path, "relative_rms"));
  p.fit.bic = number_at(j, path, "bic");
  p.fit.points = p.samples.size();
  return p;
}

std::optional<PointToPointProbe> optional_point_to_point(const Json& j, const std::string& path,
                                                         std::string_view key) {
  const Json* value = jf::find(j, key);
  if (jf::absent(value)) return std::nullopt;
  if (!value->is_object()) jf::fail(jf::join(path, key), "must be an object or null");
  return parse_point_to_point(*value, jf::join(path, key));
}

SaturationProbe parse_saturation(const Json& j, const std::string& path) {
  SaturationProbe s;
  s.message_bytes = jf::positive(jf::require(j, path, "message_bytes"), jf::join(path, "message_bytes"));
  s.pairing = jf::text(jf::require(j, path, "pairing"), jf::join(path, "pairing"));
  const Json& pairs = array_at(j, path, "pairs");
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::string at = fmt::format("{}.pairs[{}]", path, i);
    if (!pairs[i].is_array() || pairs[i].size() != 2) jf::fail(at, "must be a list of two hosts");
    s.pairs.emplace_back(jf::text(pairs[i][0], at + "[0]"), jf::text(pairs[i][1], at + "[1]"));
  }
  const Json& points = array_at(j, path, "points");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string at = fmt::format("{}.points[{}]", path, i);
    if (!points[i].is_object()) jf::fail(at, "must be an object");
    SaturationPoint p;
    p.flows = jf::small_counter(jf::require(points[i], at, "flows"), at + ".flows");
    if (p.flows < 1) jf::fail(at + ".flows", "must be at least 1");
    if (!s.points.empty() && p.flows <= s.points.back().flows) jf::fail(at + ".flows", "must grow from point to point");
    p.seconds = jf::positive(jf::require(points[i], at, "seconds"), at + ".seconds");
    p.per_flow_MBps = jf::positive(jf::require(points[i], at, "per_flow_MBps"), at + ".per_flow_MBps");
    s.points.push_back(p);
  }
  const Json* a = jf::find(j, "alltoall");
  if (!jf::absent(a)) {
    const std::string at = jf::join(path, "alltoall");
    if (!a->is_object()) jf::fail(at, "must be an object or null");
    AllToAllPoint p;
    p.processes = jf::small_counter(jf::require(*a, at, "processes"), at + ".processes");
    p.bytes_per_pair = jf::positive(jf::require(*a, at, "bytes_per_pair"), at + ".bytes_per_pair");
    p.seconds = jf::positive(jf::require(*a, at, "seconds"), at + ".seconds");
    p.per_flow_MBps = jf::positive(jf::require(*a, at, "per_flow_MBps"), at + ".per_flow_MBps");
    s.alltoall = p;
  }
  return s;
}

CollectiveSample parse_collective(const Json& j, const std::string& at) {
  if (!j.is_object()) jf::fail(at, "must be an object");
  const std::string name = jf::text(jf::require(j, at, "pattern"), at + ".pattern");
  const std::optional<MessagePattern> pattern = parse_message_pattern(name);
  if (!pattern || *pattern == MessagePattern::send)
    jf::fail(at + ".pattern", "must be broadcast, scatterv, gatherv, allreduce, barrier or alltoall, not " +
                                  jf::shown(j.at("pattern")));
  CollectiveSample c;
  c.pattern = *pattern;
  c.processes = jf::small_counter(jf::require(j, at, "processes"), at + ".processes");
  if (c.processes < 2) jf::fail(at + ".processes", "must be at least 2");
  c.bytes = jf::non_negative(jf::require(j, at, "bytes"), at + ".bytes");
  c.seconds = jf::non_negative(jf::require(j, at, "seconds"), at + ".seconds");
  c.repetitions = jf::small_counter(jf::require(j, at, "repetitions"), at + ".repetitions");
  return c;
}

double finite_model_field(const Json& models, const char* fit, const char* key, const std::string& path) {
  const Json* f = jf::find(models, fit);
  const Json* v = f && f->is_object() ? jf::find(*f, key) : nullptr;
  if (!v || !v->is_number() || !std::isfinite(v->get<double>()))
    throw Error(fmt::format("{}: field 'models.{}.{}' must be a finite number (the JSON "
                            "hetscale-commbench prints)",
                            path, fit, key));
  return v->get<double>();
}

LineFit model_line(const Json& models, const char* fit, const std::string& path) {
  return {finite_model_field(models, fit, "intercept", path), finite_model_field(models, fit, "slope", path), 1};
}

}  // namespace

std::string_view to_string(MessagePattern pattern) noexcept { return kPatternNames[pattern_index(pattern)]; }

std::optional<MessagePattern> parse_message_pattern(std::string_view text) noexcept {
  for (MessagePattern p : kMessagePatterns)
    if (to_string(p) == text) return p;
  return std::nullopt;
}

std::vector<std::string> NetworkProbe::nodes() const {
  std::vector<std::string> out;
  for (const std::string& h : hosts)
    if (std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  return out;
}

const PointToPointProbe& NetworkProbe::point_to_point() const {
  if (remote) return *remote;
  if (local) return *local;
  throw Error("the network probe has no point-to-point figures");
}

double SaturationProbe::per_flow_share(double flows) const {
  std::vector<std::pair<double, double>> measured;  // (flows, MB/s)
  for (const SaturationPoint& p : points) measured.emplace_back(p.flows, p.per_flow_MBps);
  if (alltoall && std::none_of(points.begin(), points.end(), [&](const auto& p) { return p.flows == alltoall->processes; }))
    measured.emplace_back(alltoall->processes, alltoall->per_flow_MBps);
  if (measured.empty()) return 1;
  std::sort(measured.begin(), measured.end());
  const auto lone = std::find_if(measured.begin(), measured.end(), [](const auto& m) { return m.first == 1; });
  const double reference = lone != measured.end() ? lone->second : measured.front().second;
  std::vector<double> x, y;
  for (const auto& [f, bandwidth] : measured) {
    x.push_back(std::log(f));
    y.push_back(bandwidth);
  }
  const double share = interpolate(x, y, std::log(std::max(flows, 1.0))) / reference;
  return std::clamp(share, 1e-6, 1.0);
}

ProbeCosts::ProbeCosts(const NetworkProbe& probe)
    : fit_(probe.point_to_point().fit), saturation_(probe.saturation), columns_(std::size(kMessagePatterns)) {
  for (const CollectiveSample& c : probe.collectives) {
    std::vector<Column>& columns = columns_[pattern_index(c.pattern)];
    auto column = std::find_if(columns.begin(), columns.end(), [&](const Column& k) { return k.processes == c.processes; });
    if (column == columns.end()) column = columns.insert(columns.end(), Column{static_cast<double>(c.processes), {}, {}});
    column->bytes.push_back(c.bytes);
    column->seconds.push_back(c.seconds);
  }
  for (std::vector<Column>& columns : columns_) {
    std::sort(columns.begin(), columns.end(), [](const Column& a, const Column& b) { return a.processes < b.processes; });
    for (Column& column : columns) {  // by size; a size measured twice keeps its mean
      std::vector<std::pair<double, double>> points;
      for (std::size_t i = 0; i < column.bytes.size(); ++i) points.emplace_back(column.bytes[i], column.seconds[i]);
      std::sort(points.begin(), points.end());
      column.bytes.clear();
      column.seconds.clear();
      std::vector<int> counts;
      for (const auto& [b, s] : points) {
        if (!column.bytes.empty() && column.bytes.back() == b) {
          column.seconds.back() += s;
          ++counts.back();
        } else {
          column.bytes.push_back(b);
          column.seconds.push_back(s);
          counts.push_back(1);
        }
      }
      for (std::size_t i = 0; i < counts.size(); ++i) column.seconds[i] /= counts[i];
    }
  }
}

double ProbeCosts::round_seconds(double bytes, double flows) const {
  const LinearSegment& segment = fit_.segment_of(bytes);
  const double share = saturation_ ? saturation_->per_flow_share(flows) : 1.0;
  return std::max(0.0, segment.latency_seconds + segment.seconds_per_byte * bytes / share);
}

double ProbeCosts::algorithm_seconds(MessagePattern pattern, double bytes, double p) const {
  if (pattern != MessagePattern::send && p <= 1) return 0;
  switch (pattern) {
    case MessagePattern::send:
      return round_seconds(bytes, 1);
    case MessagePattern::broadcast: {
      double total = 0;
      for (double r = 0; r < rounds(p); ++r) total += round_seconds(bytes, std::exp2(r));
      return total;
    }
    case MessagePattern::scatterv:
    case MessagePattern::gatherv:
      return (p - 1) * round_seconds(bytes / p, 1);
    case MessagePattern::allreduce:
      return rounds(p) * round_seconds(bytes, p);
    case MessagePattern::barrier:
      return rounds(p) * round_seconds(0, 1);
    case MessagePattern::alltoall:
      return (p - 1) * round_seconds(bytes / p, p);
  }
  return 0;
}

double ProbeCosts::column_seconds(MessagePattern pattern, const Column& column, double bytes) const {
  const std::vector<double>& sizes = column.bytes;
  if (sizes.size() == 1 || bytes <= sizes.front() || bytes >= sizes.back()) {
    const std::size_t edge = bytes >= sizes.back() ? sizes.size() - 1 : 0;
    const double measured = column.seconds[edge];
    if (bytes == sizes[edge]) return measured;
    const double at_edge = algorithm_seconds(pattern, sizes[edge], column.processes);
    return at_edge > 0 ? measured * algorithm_seconds(pattern, bytes, column.processes) / at_edge : measured;
  }
  std::vector<double> x, y;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    x.push_back(std::log(std::max(sizes[i], 1.0)));
    y.push_back(log_time(column.seconds[i]));
  }
  return std::exp(interpolate(x, y, std::log(std::max(bytes, 1.0))));
}

double ProbeCosts::seconds(MessagePattern pattern, double bytes, double p) const {
  if (pattern != MessagePattern::send && p <= 1) return 0;
  const std::vector<Column>& columns = columns_[pattern_index(pattern)];
  if (columns.empty() || pattern == MessagePattern::send) return algorithm_seconds(pattern, bytes, p);
  if (p <= columns.front().processes || p >= columns.back().processes) {
    const Column& edge = p >= columns.back().processes ? columns.back() : columns.front();
    const double measured = column_seconds(pattern, edge, bytes);
    if (p == edge.processes) return measured;
    const double at_edge = algorithm_seconds(pattern, bytes, edge.processes);
    return at_edge > 0 ? measured * algorithm_seconds(pattern, bytes, p) / at_edge : measured;
  }
  const auto upper = std::find_if(columns.begin(), columns.end(), [&](const Column& c) { return c.processes > p; });
  const Column& high = *upper;
  const Column& low = *(upper - 1);
  const double t = (std::log(p) - std::log(low.processes)) / (std::log(high.processes) - std::log(low.processes));
  return std::exp((1 - t) * log_time(column_seconds(pattern, low, bytes)) +
                  t * log_time(column_seconds(pattern, high, bytes)));
}

bool ProbeCosts::measured(MessagePattern pattern, double bytes, double p) const {
  const std::vector<Column>& columns = columns_[pattern_index(pattern)];
  if (columns.empty() || p < columns.front().processes || p > columns.back().processes) return false;
  for (const Column& c : columns) {
    if (c.processes == p) return bytes >= c.bytes.front() && bytes <= c.bytes.back();
  }
  const auto upper = std::find_if(columns.begin(), columns.end(), [&](const Column& c) { return c.processes > p; });
  for (const Column* c : {&*(upper - 1), &*upper})
    if (bytes < c->bytes.front() || bytes > c->bytes.back()) return false;
  return true;
}

void add_network_probe_json(Json& out, const NetworkProbe& probe) {
  out["probe_version"] = probe.version;
  out["engine"] = probe.engine;
  out["experiment"] = probe.experiment;
  out["site"] = probe.site;
  out["machine_set"] = probe.machine_set ? Json(*probe.machine_set) : Json(nullptr);
  out["slurm_job_id"] = probe.slurm_job_id ? Json(*probe.slurm_job_id) : Json(nullptr);
  out["measured_at"] = probe.measured_at;
  out["hosts"] = probe.hosts;
  out["wait"] = probe.wait;
  out["load"] = probe.load;
  out["skew_us"] = probe.skew_us;
  out["budget_seconds"] = probe.budget_seconds;
  out["elapsed_seconds"] = probe.elapsed_seconds;
  out["point_to_point"] = {{"remote", probe.remote ? point_to_point_json(*probe.remote) : Json(nullptr)},
                           {"local", probe.local ? point_to_point_json(*probe.local) : Json(nullptr)},
                           {"local_absent", probe.local_absent}};
  out["saturation"] = probe.saturation ? saturation_json(*probe.saturation) : Json(nullptr);
  out["saturation_absent"] = probe.saturation_absent;
  Json collectives = Json::array();
  for (const CollectiveSample& c : probe.collectives)
    collectives.push_back({{"pattern", to_string(c.pattern)},
                           {"processes", c.processes},
                           {"bytes", c.bytes},
                           {"seconds", c.seconds},
                           {"repetitions", c.repetitions}});
  out["collectives"] = collectives;
}

bool has_network_probe(const Json& document) {
  return document.is_object() && document.contains("probe_version");
}

NetworkProbe parse_network_probe(const Json& document, const std::string& source) {
  return reading(source, [&] {
    if (!document.is_object()) throw Error("not a JSON object (the JSON hetscale-commbench prints)");
    NetworkProbe p;
    p.version = jf::small_counter(jf::require(document, "", "probe_version"), "probe_version");
    if (p.version > kNetworkProbeVersion || p.version < 1)
      throw Error(fmt::format("probe_version {} is not one this hetscale reads (1 to {}): use a newer hetscale",
                              p.version, kNetworkProbeVersion));
    p.engine = jf::non_empty_text(jf::require(document, "", "engine"), "engine");
    if (p.engine != "slurm" && p.engine != "simgrid" && p.engine != "mpirun")
      jf::fail("engine", "must be slurm, simgrid or mpirun, not " + jf::shown(document.at("engine")));
    p.experiment = jf::optional_text(document, "", "experiment");
    p.site = jf::optional_text(document, "", "site");
    if (const Json* set = jf::find(document, "machine_set"); !jf::absent(set))
      p.machine_set = jf::small_counter(*set, "machine_set");
    p.slurm_job_id = jf::optional_counter(document, "", "slurm_job_id");
    p.measured_at = jf::optional_timestamp(document, "", "measured_at");
    const Json& hosts = array_at(document, "", "hosts");
    if (hosts.size() < 2) jf::fail("hosts", "must name at least 2 ranks' hosts");
    for (std::size_t i = 0; i < hosts.size(); ++i) p.hosts.push_back(jf::non_empty_text(hosts[i], fmt::format("hosts[{}]", i)));
    p.wait = jf::optional_text(document, "", "wait");
    p.load = jf::optional_text(document, "", "load");
    p.skew_us = jf::optional_non_negative(document, "", "skew_us");
    p.budget_seconds = jf::optional_non_negative(document, "", "budget_seconds");
    p.elapsed_seconds = jf::optional_non_negative(document, "", "elapsed_seconds");
    const Json& p2p = object_at(document, "", "point_to_point");
    p.remote = optional_point_to_point(p2p, "point_to_point", "remote");
    p.local = optional_point_to_point(p2p, "point_to_point", "local");
    p.local_absent = jf::optional_text(p2p, "point_to_point", "local_absent");
    if (!p.remote && !p.local) jf::fail("point_to_point", "must hold a remote or a local probe");
    if (const Json* s = jf::find(document, "saturation"); !jf::absent(s)) {
      if (!s->is_object()) jf::fail("saturation", "must be an object or null");
      p.saturation = parse_saturation(*s, "saturation");
    }
    p.saturation_absent = jf::optional_text(document, "", "saturation_absent");
    const Json& collectives = array_at(document, "", "collectives");
    for (std::size_t i = 0; i < collectives.size(); ++i)
      p.collectives.push_back(parse_collective(collectives[i], fmt::format("collectives[{}]", i)));
    return p;
  });
}

CommbenchOutput parse_commbench_output(const std::string& text, const std::string& source) {
  require_json_nesting_within_limit(text, source);
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::exception& e) {
    throw Error(fmt::format("{}: not JSON: {}", source, e.what()));
  }
  const Json* models = doc.is_object() ? jf::find(doc, "models") : nullptr;
  const bool probed = has_network_probe(doc);
  if ((!models || !models->is_object()) && !(probed && jf::absent(models)))
    throw Error(fmt::format("{}: no 'models' object (the JSON hetscale-commbench prints)", source));
  CommbenchOutput out;
  if (!jf::absent(models)) {
    CommModels& m = out.models.emplace();
    m.send = model_line(*models, "send", source);
    m.bcast = model_line(*models, "bcast", source);
    m.barrier = model_line(*models, "barrier", source);
    if (jf::find(*models, "allreduce") != nullptr) {
      m.allreduce = model_line(*models, "allreduce", source);
      out.has_allreduce_model = true;
    }
  }
  if (probed) out.probe = parse_network_probe(doc, source);
  return out;
}

CommbenchOutput read_commbench_output(const std::string& path) {
  return parse_commbench_output(read_regular_file(path, 64u << 20), path);
}

}  // namespace hetscale

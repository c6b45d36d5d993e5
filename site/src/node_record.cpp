// Node records to and from JSON, with validation that names the offending field, and
// the JSON Lines reader that names file and line.
#include "hetscale/site/node_record.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include "hetscale/base/json_depth.hpp"

namespace hetscale {
namespace {

using nlohmann::json;

[[noreturn]] void bad_field(const std::string& name, std::string_view what) {
  throw Error(fmt::format("field '{}' {}", name, what));
}

const json& required(const json& object, const std::string& name) {
  auto it = object.find(name);
  if (it == object.end()) throw Error(fmt::format("missing field '{}'", name));
  return *it;
}

std::string get_string(const json& object, const std::string& name, const std::string& path = "") {
  const json& value = required(object, name);
  if (!value.is_string()) bad_field(path + name, "must be a string");
  return value.get<std::string>();
}

double get_number(const json& object, const std::string& name, const std::string& path = "") {
  const json& value = required(object, name);
  if (!value.is_number()) bad_field(path + name, "must be a number");
  const double number = value.get<double>();
  if (!std::isfinite(number) || number < 0) bad_field(path + name, "must be a non-negative number");
  return number;
}

std::uint64_t get_count(const json& object, const std::string& name, const std::string& path = "") {
  const json& value = required(object, name);
  if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0))
    bad_field(path + name, "must be a non-negative integer");
  return value.get<std::uint64_t>();
}

std::uint32_t get_count32(const json& object, const std::string& name,
                          const std::string& path = "") {
  const std::uint64_t value = get_count(object, name, path);
  if (value > std::numeric_limits<std::uint32_t>::max()) bad_field(path + name, "is too large");
  return static_cast<std::uint32_t>(value);
}

const json& get_array(const json& object, const std::string& name, const std::string& path = "") {
  const json& value = required(object, name);
  if (!value.is_array()) bad_field(path + name, "must be an array");
  return value;
}

// A string, or null for what is not known (an empty string in records written before
// null was used).
std::string get_text(const json& object, const std::string& name, const std::string& path = "") {
  const json& value = required(object, name);
  if (value.is_null()) return "";
  if (!value.is_string()) bad_field(path + name, "must be a string or null");
  return value.get<std::string>();
}

json text_or_null(const std::string& text) {
  return text.empty() ? json(nullptr) : json(text);
}

template <typename T>
json value_or_null(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

// A count, or null when not known; 0 in records written before null was used is not known
// either (memory and clock were never 0 on a real node).
std::optional<std::uint64_t> get_known_count(const json& object, const std::string& name,
                                             const std::string& path = "") {
  if (required(object, name).is_null()) return std::nullopt;
  const std::uint64_t value = get_count(object, name, path);
  if (value == 0) return std::nullopt;
  return value;
}

std::optional<double> get_known_number(const json& object, const std::string& name,
                                       const std::string& path = "") {
  if (required(object, name).is_null()) return std::nullopt;
  const double value = get_number(object, name, path);
  if (value == 0) return std::nullopt;
  return value;
}

std::vector<unsigned> get_indices(const json& object, const std::string& name,
                                  const std::string& path) {
  std::vector<unsigned> out;
  for (const json& value : get_array(object, name, path)) {
    if (!value.is_number_integer() || value.get<std::int64_t>() < 0 ||
        value.get<std::uint64_t>() > std::numeric_limits<unsigned>::max())
      bad_field(path + name, "must hold non-negative integers");
    out.push_back(value.get<unsigned>());
  }
  return out;
}

// Each element of the array `name` as an object, with the path of its fields.
template <typename Read>
void for_each_object(const json& object, const std::string& name, const std::string& path,
                     Read read) {
  const json& array = get_array(object, name, path);
  for (std::size_t i = 0; i < array.size(); ++i) {
    const std::string at = fmt::format("{}{}[{}]", path, name, i);
    if (!array[i].is_object()) bad_field(at, "must be an object");
    read(array[i], at + ".");
  }
}

// Records written before accelerators were objects hold "GPU Tesla V100-SXM2-32GB" or
// "CoProc pci 1bcf:001c": the kind from the prefix, the rest as the model.
Accelerator accelerator_from_text(const std::string& text) {
  Accelerator a;
  for (const auto& [prefix, kind] : {std::pair{"GPU ", "gpu"}, std::pair{"CoProc ", "coprocessor"}})
    if (text.starts_with(prefix)) {
      a.kind = kind;
      a.model = text.substr(std::string_view(prefix).size());
      return a;
    }
  a.kind = "accelerator";
  a.model = text;
  return a;
}

Accelerator accelerator_from_json(const json& object, const std::string& at) {
  Accelerator a;
  a.kind = get_string(object, "kind", at);
  if (a.kind.empty()) bad_field(at + "kind", "must not be empty");
  a.vendor = get_text(object, "vendor", at);
  a.model = get_text(object, "model", at);
  a.memory_bytes = get_known_count(object, "memory_bytes", at);
  a.pci_bus_id = get_text(object, "pci_bus_id", at);
  a.pci_id = get_text(object, "pci_id", at);
  a.numa = get_indices(object, "numa", at);
  return a;
}

CpuKind cpu_kind_from_json(const json& object, const std::string& at) {
  CpuKind k;
  k.cpus = get_indices(object, "cpus", at);
  if (get_count(object, "pus", at) != k.cpus.size())
    bad_field(at + "pus", "must be the number of 'cpus'");
  k.cores = get_count32(object, "cores", at);
  if (const json& efficiency = required(object, "efficiency"); !efficiency.is_null()) {
    if (!efficiency.is_number_integer() || efficiency.get<std::int64_t>() < 0 ||
        efficiency.get<std::int64_t>() > std::numeric_limits<int>::max())
      bad_field(at + "efficiency", "must be a non-negative integer or null");
    k.efficiency = efficiency.get<int>();
  }
  k.core_type = get_text(object, "core_type", at);
  k.frequency_max_mhz = get_known_number(object, "frequency_max_mhz", at);
  k.frequency_base_mhz = get_known_number(object, "frequency_base_mhz", at);
  return k;
}

MemoryTier memory_tier_from_json(const json& object, const std::string& at) {
  MemoryTier t;
  const std::uint64_t numa = get_count(object, "numa", at);
  if (numa > std::numeric_limits<unsigned>::max()) bad_field(at + "numa", "is too large");
  t.numa = static_cast<unsigned>(numa);
  t.kind = get_string(object, "kind", at);
  if (t.kind.empty()) bad_field(at + "kind", "must not be empty");
  t.bytes = get_known_count(object, "bytes", at);
  return t;
}

// "allowed_pus": {"count": 16, "of": 64}; optional (added within schema 1).
std::optional<PartOf> part_of_from_json(const json& object, const std::string& name,
                                        const std::string& path) {
  if (!object.contains(name)) return std::nullopt;
  const json& value = object.at(name);
  if (!value.is_object()) bad_field(path + name, "must be an object");
  const std::string at = path + name + ".";
  PartOf part{get_count32(value, "count", at), get_count32(value, "of", at)};
  if (part.count > part.of) bad_field(at + "count", "must not be more than 'of'");
  return part;
}

json part_of_to_json(const PartOf& part) {
  return {{"count", part.count}, {"of", part.of}};
}

json accelerator_to_json(const Accelerator& a) {
  return {{"kind", a.kind},
          {"vendor", text_or_null(a.vendor)},
          {"model", text_or_null(a.model)},
          {"memory_bytes", value_or_null(a.memory_bytes)},
          {"pci_bus_id", text_or_null(a.pci_bus_id)},
          {"pci_id", text_or_null(a.pci_id)},
          {"numa", a.numa}};
}

json cpu_kind_to_json(const CpuKind& k) {
  return {{"cpus", k.cpus},
          {"pus", k.cpus.size()},
          {"cores", k.cores},
          {"efficiency", value_or_null(k.efficiency)},
          {"core_type", text_or_null(k.core_type)},
          {"frequency_max_mhz", value_or_null(k.frequency_max_mhz)},
          {"frequency_base_mhz", value_or_null(k.frequency_base_mhz)}};
}


HardwareParts hardware_from_json(const json& object) {
  if (!object.is_object()) bad_field("hardware", "must be an object");
  const std::string path = "hardware.";
  HardwareParts h;
  h.cpu_vendor = get_text(object, "cpu_vendor", path);
  h.cpu_model = get_text(object, "cpu_model", path);
  if (object.contains("architecture")) h.architecture = get_text(object, "architecture", path);
  h.packages = get_count32(object, "packages", path);
  h.cores = get_count32(object, "cores", path);
  h.pus = get_count32(object, "pus", path);
  h.numa_nodes = get_count32(object, "numa_nodes", path);
  for_each_object(object, "caches", path, [&](const json& cache, const std::string& at) {
    CacheLevel c;
    c.level = static_cast<int>(get_count32(cache, "level", at));
    c.size_bytes = get_count(cache, "size_bytes", at);
    c.count = get_count32(cache, "count", at);
    if (cache.contains("memory_side")) {
      if (!cache.at("memory_side").is_boolean())
        bad_field(at + "memory_side", "must be true or false");
      c.memory_side = cache.at("memory_side").get<bool>();
    }
    h.caches.push_back(c);
  });
  h.memory_bytes = get_known_count(object, "memory_bytes", path);
  h.clock_mhz = get_known_number(object, "clock_mhz", path);
  const json& accelerators = get_array(object, "accelerators", path);
  for (std::size_t i = 0; i < accelerators.size(); ++i) {
    const std::string at = fmt::format("hardware.accelerators[{}]", i);
    if (accelerators[i].is_string())
      h.accelerators.push_back(accelerator_from_text(accelerators[i].get<std::string>()));
    else if (accelerators[i].is_object())
      h.accelerators.push_back(accelerator_from_json(accelerators[i], at + "."));
    else
      bad_field(at, "must be an object");
  }
  // Optional (added within schema 1): absent in records of earlier versions.
  if (object.contains("cpu_kinds"))
    for_each_object(object, "cpu_kinds", path, [&](const json& kind, const std::string& at) {
      h.cpu_kinds.push_back(cpu_kind_from_json(kind, at));
    });
  if (object.contains("memory"))
    for_each_object(object, "memory", path, [&](const json& tier, const std::string& at) {
      h.memory.push_back(memory_tier_from_json(tier, at));
    });
  h.allowed_pus = part_of_from_json(object, "allowed_pus", path);
  h.offline_pus = part_of_from_json(object, "offline_pus", path);
  h.allowed_numa_nodes = part_of_from_json(object, "allowed_numa_nodes", path);
  h.offline_numa_nodes = part_of_from_json(object, "offline_numa_nodes", path);
  return h;
}

// "YYYY-MM-DDTHH:MM:SSZ" with an optional fraction of seconds before the Z.
bool is_utc_time(const std::string& t) {
  constexpr std::string_view shape = "dddd-dd-ddTdd:dd:dd";
  if (t.size() < shape.size() + 1 || t.back() != 'Z') return false;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const bool digit = std::isdigit(static_cast<unsigned char>(t[i])) != 0;
    if (shape[i] == 'd' ? !digit : t[i] != shape[i]) return false;
  }
  const std::string_view rest =
      std::string_view(t).substr(shape.size(), t.size() - shape.size() - 1);
  if (rest.empty()) return true;
  return rest.size() > 1 && rest[0] == '.' && std::all_of(rest.begin() + 1, rest.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) != 0;
         });
}

NodeState state_from_text(const std::string& text) {
  if (text == "ok") return NodeState::ok;
  if (text == "excluded") return NodeState::excluded;
  bad_field("state", fmt::format("must be \"ok\" or \"excluded\", not \"{}\"", text));
}

void check_measurement(const NodeRecord& r) {
  if (r.state != NodeState::ok) return;
  if (!(r.marked_speed > 0))
    bad_field("marked_speed", "must be a positive number for a node in state ok");
  if (r.processors == 0) bad_field("processors", "must be at least 1 for a node in state ok");
  if (r.repetitions <= 0) bad_field("repetitions", "must be at least 1 for a node in state ok");
  if (r.fingerprint.empty()) bad_field("fingerprint", "must not be empty for a node in state ok");
}

// Optional keys (added within schema 1): absent in records of earlier versions.
void read_binding(const json& object, NodeRecord& r) {
  if (object.contains("binding")) {
    r.binding = get_string(object, "binding");
    if (r.binding != "" && r.binding != "pinned" && r.binding != "unpinned")
      bad_field("binding",
                fmt::format("must be \"pinned\" or \"unpinned\", not \"{}\"", r.binding));
  }
  if (object.contains("binding_reason")) r.binding_reason = get_string(object, "binding_reason");
}

NodeAvailability availability_from_json(const json& object) {
  if (!object.is_object()) bad_field("availability", "must be an object");
  const std::string path = "availability.";
  NodeAvailability a;
  a.period_seconds = get_number(object, "period_seconds", path);
  a.window_seconds = get_number(object, "window_seconds", path);
  if (!(a.window_seconds > 0)) bad_field(path + "window_seconds", "must be positive");
  a.reference_speed = get_number(object, "reference_speed", path);
  if (!(a.reference_speed > 0)) bad_field(path + "reference_speed", "must be positive");
  a.reference = get_string(object, "reference", path);
  if (a.reference != "measured" && a.reference != "given")
    bad_field(path + "reference",
              fmt::format("must be \"measured\" or \"given\", not \"{}\"", a.reference));
  for (const json& value : get_array(object, "series", path)) {
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0)
      bad_field(path + "series", "must hold non-negative numbers");
    a.series.push_back(value.get<double>());
  }
  if (a.series.empty()) bad_field(path + "series", "must not be empty");
  a.mean = get_number(object, "mean", path);
  a.sd = get_number(object, "sd", path);
  a.th = get_number(object, "th", path);
  const json& correlation = required(object, "correlation_seconds");
  if (!correlation.is_null()) a.correlation_seconds = get_number(object, "correlation_seconds", path);
  return a;
}

// "cpu_kind_speeds": optional (added within schema 1), only from a node of several kinds.
std::vector<KindSpeed> kind_speeds_from_json(const json& object) {
  std::vector<KindSpeed> out;
  for_each_object(object, "cpu_kind_speeds", "", [&](const json& entry, const std::string& at) {
    KindSpeed k;
    k.kind = get_count32(entry, "kind", at);
    k.cpus = get_indices(entry, "cpus", at);
    k.processors = get_count32(entry, "processors", at);
    k.marked_speed = get_number(entry, "marked_speed", at);
    if (!(k.marked_speed > 0)) bad_field(at + "marked_speed", "must be a positive number");
    k.repetitions = static_cast<int>(get_count32(entry, "repetitions", at));
    k.cv = get_number(entry, "cv", at);
    k.duration_seconds = get_number(entry, "duration_seconds", at);
    out.push_back(std::move(k));
  });
  return out;
}

json kind_speeds_to_json(const std::vector<KindSpeed>& speeds) {
  json out = json::array();
  for (const KindSpeed& k : speeds)
    out.push_back({{"kind", k.kind},
                   {"cpus", k.cpus},
                   {"processors", k.processors},
                   {"marked_speed", k.marked_speed},
                   {"repetitions", k.repetitions},
                   {"cv", k.cv},
                   {"duration_seconds", k.duration_seconds}});
  return out;
}

// "invalid JSON at column 12" or, when the text simply stops, "truncated record".
std::string json_problem(const std::string& line, const json::parse_error& error) {
  if (error.byte >= line.size()) return "truncated record (the JSON object ends early)";
  return fmt::format("invalid JSON at column {}", error.byte);
}

}  // namespace

json hardware_to_json(const HardwareParts& h) {
  json caches = json::array();
  for (const CacheLevel& c : h.caches) {
    json cache = {{"level", c.level}, {"size_bytes", c.size_bytes}, {"count", c.count}};
    if (c.memory_side) cache["memory_side"] = true;
    caches.push_back(std::move(cache));
  }
  json accelerators = json::array();
  for (const Accelerator& a : h.accelerators) accelerators.push_back(accelerator_to_json(a));
  json kinds = json::array();
  for (const CpuKind& k : h.cpu_kinds) kinds.push_back(cpu_kind_to_json(k));
  json memory = json::array();
  for (const MemoryTier& t : h.memory)
    memory.push_back({{"numa", t.numa}, {"kind", t.kind}, {"bytes", value_or_null(t.bytes)}});
  json out = {{"cpu_vendor", text_or_null(h.cpu_vendor)},
              {"cpu_model", text_or_null(h.cpu_model)},
              {"architecture", text_or_null(h.architecture)},
              {"packages", h.packages},
              {"cores", h.cores},
              {"pus", h.pus},
              {"numa_nodes", h.numa_nodes},
              {"caches", caches},
              {"memory_bytes", value_or_null(h.memory_bytes)},
              {"clock_mhz", value_or_null(h.clock_mhz)},
              {"accelerators", accelerators},
              {"cpu_kinds", kinds},
              {"memory", memory}};
  const std::pair<const char*, const std::optional<PartOf>*> parts[] = {
      {"allowed_pus", &h.allowed_pus},
      {"offline_pus", &h.offline_pus},
      {"allowed_numa_nodes", &h.allowed_numa_nodes},
      {"offline_numa_nodes", &h.offline_numa_nodes}};
  for (const auto& [name, part] : parts)
    if (*part) out[name] = part_of_to_json(**part);
  return out;
}

json availability_to_json(const NodeAvailability& a) {
  return {{"period_seconds", a.period_seconds},
          {"window_seconds", a.window_seconds},
          {"reference_speed", a.reference_speed},
          {"reference", a.reference},
          {"mean", a.mean},
          {"sd", a.sd},
          {"th", a.th},
          {"correlation_seconds",
           a.correlation_seconds ? json(*a.correlation_seconds) : json(nullptr)},
          {"series", a.series}};
}

json to_json(const NodeRecord& r) {
  json out = {{"schema", r.schema},
          {"host", r.host},
          {"time", r.time},
          {"state", std::string(to_string(r.state))},
          {"reason", r.reason},
          {"fingerprint", r.fingerprint},
          {"hardware", hardware_to_json(r.hardware)},
          {"topology_source", r.topology_source},
          {"benchmark", r.benchmark},
          {"benchmark_size", r.benchmark_size},
          {"speed_unit", r.speed_unit},
          {"marked_speed", r.marked_speed},
          {"processors", r.processors},
          {"cpus", r.cpus},
          {"binding", r.binding},
          {"binding_reason", r.binding_reason},
          {"repetitions", r.repetitions},
          {"cv", r.cv},
          {"duration_seconds", r.duration_seconds},
          {"software", r.software}};
  if (r.availability) out["availability"] = availability_to_json(*r.availability);
  if (!r.kind_speeds.empty()) out["cpu_kind_speeds"] = kind_speeds_to_json(r.kind_speeds);
  return out;
}

NodeRecord node_record_from_json(const json& object) {
  if (!object.is_object()) throw Error("a node record must be a JSON object");
  NodeRecord r;
  const json& schema = required(object, "schema");
  if (!schema.is_number_integer()) bad_field("schema", "must be an integer");
  r.schema = schema.get<int>();
  if (r.schema != node_record_schema)
    throw Error(
        fmt::format("schema {} is not supported (this hetscale reads node records of schema {})",
                    r.schema, node_record_schema));
  r.host = get_string(object, "host");
  if (r.host.empty()) bad_field("host", "must not be empty");
  r.time = get_string(object, "time");
  if (!is_utc_time(r.time))
    bad_field(
        "time",
        fmt::format("must be an ISO 8601 UTC time like 2026-11-21T06:10:00Z, not \"{}\"", r.time));
  r.state = state_from_text(get_string(object, "state"));
  r.reason = get_string(object, "reason");
  if (r.state == NodeState::excluded && r.reason.empty())
    bad_field("reason", "must say why the node is excluded");
  r.fingerprint = get_string(object, "fingerprint");
  r.hardware = hardware_from_json(required(object, "hardware"));
  r.topology_source = get_string(object, "topology_source");
  r.benchmark = get_string(object, "benchmark");
  r.benchmark_size = get_count(object, "benchmark_size");
  r.speed_unit = get_string(object, "speed_unit");
  r.marked_speed = get_number(object, "marked_speed");
  r.processors = get_count32(object, "processors");
  for (const json& cpu : get_array(object, "cpus")) {
    if (!cpu.is_number_unsigned()) bad_field("cpus", "must hold non-negative integers");
    r.cpus.push_back(cpu.get<unsigned>());
  }
  read_binding(object, r);
  r.repetitions = static_cast<int>(get_count32(object, "repetitions"));
  r.cv = get_number(object, "cv");
  r.duration_seconds = get_number(object, "duration_seconds");
  r.software = required(object, "software");
  if (!r.software.is_object()) bad_field("software", "must be an object");
  // Optional (within schema 1): only `classify --availability` writes it.
  if (object.contains("availability"))
    r.availability = availability_from_json(object.at("availability"));
  if (object.contains("cpu_kind_speeds")) {
    r.kind_speeds = kind_speeds_from_json(object);
    for (const KindSpeed& k : r.kind_speeds)
      if (k.kind >= r.hardware.cpu_kinds.size())
        bad_field("cpu_kind_speeds", fmt::format("names kind {}, but the node has {} CPU kind(s)",
                                                 k.kind, r.hardware.cpu_kinds.size()));
  }
  check_measurement(r);
  return r;
}

int compare_record_times(const std::string& a, const std::string& b) {
  // The first 19 characters (to the second) order lexicographically; then the fraction.
  const int whole = a.compare(0, 19, b, 0, 19);
  if (whole != 0) return whole < 0 ? -1 : 1;
  auto fraction = [](const std::string& t) {
    return t.size() > 20 && t[19] == '.' ? std::stod("0" + t.substr(19, t.size() - 20)) : 0.0;
  };
  const double fa = fraction(a), fb = fraction(b);
  return fa < fb ? -1 : (fa > fb ? 1 : 0);
}

void read_node_records(std::istream& in, const std::string& source, NodeRecordBatch& batch) {
  std::string line;
  std::uint32_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const SourceLocation where{source, number, 0};
    try {
      require_json_nesting_within_limit(line, source, number);
      batch.records.push_back({node_record_from_json(json::parse(line)), where});
    } catch (const json::parse_error& e) {
      batch.errors.push_back(fmt::format("{}: {}", where.str(), json_problem(line, e)));
    } catch (const json::out_of_range& e) {  // "[json.exception.out_of_range.406] number ..."
      const std::string_view what = e.what();
      batch.errors.push_back(
          fmt::format("{}: invalid JSON: {}", where.str(), what.substr(what.find("] ") + 2)));
    } catch (const ConfigError& e) {  // nested too deeply: the error names line and column
      batch.errors.push_back(e.what());
    } catch (const Error& e) {
      batch.errors.push_back(fmt::format("{}: {}", where.str(), e.what()));
    }
  }
}

namespace {

void read_node_record_file(const std::filesystem::path& file, NodeRecordBatch& batch) {
  std::ifstream in(file);
  if (!in) {
    batch.errors.push_back(fmt::format("{}: cannot read: {}", file.string(), std::strerror(errno)));
    return;
  }
  read_node_records(in, file.string(), batch);
}

}  // namespace

void read_node_record_path(const std::filesystem::path& path, NodeRecordBatch& batch) {
  std::error_code error;
  if (!std::filesystem::is_directory(path, error)) {
    read_node_record_file(path, batch);
    return;
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(path, error)) {
    const std::string extension = entry.path().extension().string();
    if (entry.is_regular_file() && (extension == ".json" || extension == ".jsonl"))
      files.push_back(entry.path());
  }
  if (error) {
    batch.errors.push_back(fmt::format("{}: cannot read: {}", path.string(), error.message()));
    return;
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) read_node_record_file(file, batch);
}

}  // namespace hetscale

#include "common/rank_weights.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <numeric>
#include <string_view>

#include "common/engine.hpp"
#include "common/kernel_weights.hpp"
#include "common/row_distribution.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/base/number_text.hpp"
#include "hetscale/base/text_file.hpp"
#include "hetscale/site/partition_file.hpp"
#include "hetscale/site/run_record.hpp"
#include "hetscale/site/site_table.hpp"
#include "hetscale/site/step_layout.hpp"
#include "hetscale/site/step_weights.hpp"

namespace hetscale::kernels {
namespace {

void read_positive(const char* text, std::string_view name, std::optional<double>& value,
                   bool& invalid) {
  if (text == nullptr || *text == '\0') return;  // empty = unset
  try {
    value = parse_number(text, name);
    invalid = *value <= 0;
  } catch (const Error&) {
    invalid = true;
  }
}

std::string rank_list(const std::vector<std::size_t>& ranks) {
  std::string out;
  for (std::size_t r : ranks) out += (out.empty() ? "" : ",") + std::to_string(r);
  return out;
}

// The speeds, when every rank has one (else all 0).
std::vector<double> marked_speeds_of(std::span<const RankEnvironment> ranks) {
  std::vector<double> speeds(ranks.size(), 0.0);
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (!ranks[r].marked_speed) return std::vector<double>(ranks.size(), 0.0);
    speeds[r] = *ranks[r].marked_speed;
  }
  return speeds;
}

}  // namespace

RankEnvironment read_rank_environment(const char* weight, const char* marked_speed) {
  RankEnvironment env;
  read_positive(weight, "HETSCALE_WEIGHT", env.weight, env.weight_invalid);
  read_positive(marked_speed, "HETSCALE_MARKED_SPEED", env.marked_speed, env.speed_invalid);
  return env;
}

RankWeights choose_weights(std::span<const RankEnvironment> ranks,
                           const std::optional<std::string>& option, const char* weights_source,
                           const char* system_speed) {
  RankWeights out;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (ranks[r].speed_invalid) {
      throw Error("HETSCALE_MARKED_SPEED of rank " + std::to_string(r) +
                  " is not a positive number");
    }
  }
  out.marked_speeds = marked_speeds_of(ranks);
  if (system_speed != nullptr) {
    out.system_speed = parse_number(system_speed, "HETSCALE_SYSTEM_SPEED");
    if (out.system_speed <= 0) throw Error("HETSCALE_SYSTEM_SPEED must be positive");
  } else {
    out.system_speed = std::accumulate(out.marked_speeds.begin(), out.marked_speeds.end(), 0.0);
  }
  if (option) {
    out.weights = parse_kernel_weights(*option, ranks.size());
    out.source = *option == "equal" ? "equal" : "option";
    return out;
  }
  std::vector<std::size_t> missing;
  std::vector<double> weights;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (ranks[r].weight_invalid) {
      throw Error("HETSCALE_WEIGHT of rank " + std::to_string(r) + " is not a positive number");
    }
    if (ranks[r].weight)
      weights.push_back(*ranks[r].weight);
    else
      missing.push_back(r);
  }
  if (!missing.empty()) {
    out.weights.assign(ranks.size(), 1.0 / static_cast<double>(ranks.size()));
    out.source = "equal";
    out.note = "no HETSCALE_WEIGHT for rank(s) " + rank_list(missing) +
               " and no --weights: using equal weights";
    return out;
  }
  out.weights = normalise_weights(weights);
  out.source = weights_source != nullptr && *weights_source != '\0' ? weights_source : "marked";
  return out;
}

void check_request_answered(const char* request, const char* weights_source) {
  if (request == nullptr || *request == '\0' || std::string_view(request) == "off") return;
  if (weights_source != nullptr && *weights_source != '\0') return;
  throw Error(std::string("hetscale: weights: the step asked for weights (HETSCALE_WEIGHTS=") + request +
              ") and got none: the hetscale SPANK plugin did not run for it (not installed on the node, "
              "or built for another Slurm release, which Slurm does not load)");
}

void with_digest(RankWeights& weights, std::span<const std::string> by_rank) {
  weights.digest = combine_weights_digests(by_rank);
  if (weights.digest && weights.digest->find(',') != std::string::npos) {
    const std::string warning =
        "the ranks carry different HETSCALE_WEIGHTS_DIGEST values: their nodes read different "
        "versions of the site table or the partition, and the weights may not sum to 1 (recorded "
        "in weights_digest)";
    weights.note = weights.note.empty() ? warning : weights.note + "; " + warning;
  }
}

bool names_partition_file(const std::string& option) {
  return option.find('/') != std::string::npos;
}

namespace {

/// Collective: every rank's HETSCALE_WEIGHTS_DIGEST, by rank ("" when unset or not a
/// digest: a value of another length is not what the plugin sets).
std::vector<std::string> gather_digests(const MpiSession& mpi) {
  constexpr std::size_t kDigest = 64;
  std::array<char, kDigest> mine{};
  const char* value = std::getenv("HETSCALE_WEIGHTS_DIGEST");
  if (value != nullptr && std::string_view(value).size() == kDigest) std::copy_n(value, kDigest, mine.data());
  std::vector<char> all(kDigest * static_cast<std::size_t>(mpi.size()));
  check_mpi(MPI_Allgather(mine.data(), kDigest, MPI_CHAR, all.data(), kDigest, MPI_CHAR, mpi.comm()),
            "MPI_Allgather");
  std::vector<std::string> digests;
  for (std::size_t r = 0; r < static_cast<std::size_t>(mpi.size()); ++r) {
    std::string digest(all.data() + r * kDigest, kDigest);
    digests.push_back(is_weights_digest(digest) ? digest : std::string());
  }
  return digests;
}

/// Collective: every rank's host name, by rank (engine.hpp's rank_host_name).
std::vector<std::string> gather_hosts(const MpiSession& mpi) {
  std::array<char, 256> mine{};
  const std::string name = rank_host_name();
  name.copy(mine.data(), mine.size() - 1);
  std::vector<char> all(mine.size() * static_cast<std::size_t>(mpi.size()));
  check_mpi(MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(),
                          static_cast<int>(mine.size()), MPI_CHAR, mpi.comm()),
            "MPI_Allgather");
  std::vector<std::string> hosts;
  for (std::size_t r = 0; r < static_cast<std::size_t>(mpi.size()); ++r)
    hosts.emplace_back(all.data() + r * mine.size());
  return hosts;
}

/// Collective: rank 0 reads the file and every rank gets its text (-1 length = unreadable,
/// reported as `unreadable` followed by the path).
std::string broadcast_file(const MpiSession& mpi, const std::string& path, const char* unreadable) {
  std::string text;
  int length = 0;
  if (mpi.rank() == 0) {
    try {
      text = read_text_file(path, "file");
      length = static_cast<int>(text.size());
    } catch (const Error&) {
      length = -1;
    }
  }
  check_mpi(MPI_Bcast(&length, 1, MPI_INT, 0, mpi.comm()), "MPI_Bcast");
  if (length < 0) throw Error(std::string(unreadable) + path);
  text.resize(static_cast<std::size_t>(length));
  check_mpi(MPI_Bcast(text.data(), length, MPI_CHAR, 0, mpi.comm()), "MPI_Bcast");
  return text;
}

/// The step as the SPANK plugin would see it: the ranks' hosts in order of first
/// appearance, each with its number of ranks, one processor per rank.
struct RankPlacement {
  StepLayout layout;
  std::vector<std::uint32_t> node_of_rank;
};

RankPlacement place_ranks(const std::vector<std::string>& hosts) {
  RankPlacement out;
  std::vector<std::string> names;
  std::vector<std::uint32_t> tasks;
  for (const std::string& host : hosts) {
    const auto at = std::find(names.begin(), names.end(), host);
    if (at == names.end()) {
      names.push_back(host);
      tasks.push_back(0);
    }
    const auto index =
        static_cast<std::size_t>(std::find(names.begin(), names.end(), host) - names.begin());
    ++tasks[index];
    out.node_of_rank.push_back(static_cast<std::uint32_t>(index));
  }
  out.layout = make_step_layout(names, tasks, 1);
  return out;
}

/// Every rank's weight and marked speed from the site library's StepWeights.
RankWeights from_step_weights(const StepWeights& step, const RankPlacement& placement) {
  RankWeights out;
  out.source = step.source;
  out.system_speed = step.system_speed;
  for (std::size_t r = 0; r < placement.node_of_rank.size(); ++r) {
    const StepWeights::Rank rank = step.rank(placement.node_of_rank[r], r);
    out.weights.push_back(rank.weight);
    out.marked_speeds.push_back(rank.marked_speed);
  }
  out.weights = normalise_weights(out.weights);
  return out;
}

}  // namespace

RankWeights resolve_weights(const MpiSession& mpi, const WeightsChoice& choice) {
  const std::optional<std::string>& option = choice.weights;
  if (option && *option == "marked" && !choice.site) {
    throw Error("--weights marked: needs a site table (--site FILE or HETSCALE_SITE)");
  }
  // A site table gives marked weights, and marked speeds to a partition file's shares,
  // computed by the same site library code as the SPANK plugin's (hetscale/site/step_weights.hpp).
  const bool from_table = choice.site && ((option && *option == "marked") || choice.weights_file);
  if (from_table) {
    const SiteTable table = parse_site_table(
        broadcast_file(mpi, *choice.site, "cannot read the site table "), *choice.site);
    const RankPlacement placement = place_ranks(gather_hosts(mpi));
    StepWeights step = marked_weights(table, placement.layout, OnMissing::fail);
    if (choice.weights_file) {
      const Partition partition =
          parse_partition(broadcast_file(mpi, *choice.weights_file, "--weights-file: cannot read "),
                          *choice.weights_file);
      step = partition_weights(std::move(step), partition, placement.layout, table, "file");
    }
    return from_step_weights(step, placement);
  }
  const RankEnvironment mine =
      read_rank_environment(std::getenv("HETSCALE_WEIGHT"), std::getenv("HETSCALE_MARKED_SPEED"));
  // Per rank: (state, value) twice; state 1 = set, 0 = unset, -1 = invalid.
  auto state = [](const std::optional<double>& v, bool invalid) {
    return invalid ? -1.0 : v ? 1.0 : 0.0;
  };
  const double packed[4] = {state(mine.weight, mine.weight_invalid), mine.weight.value_or(0),
                            state(mine.marked_speed, mine.speed_invalid),
                            mine.marked_speed.value_or(0)};
  std::vector<double> all(4 * static_cast<std::size_t>(mpi.size()));
  check_mpi(MPI_Allgather(packed, 4, MPI_DOUBLE, all.data(), 4, MPI_DOUBLE, mpi.comm()),
            "MPI_Allgather");
  std::vector<RankEnvironment> ranks(static_cast<std::size_t>(mpi.size()));
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const double* p = all.data() + 4 * r;
    if (p[0] > 0) ranks[r].weight = p[1];
    ranks[r].weight_invalid = p[0] < 0;
    if (p[2] > 0) ranks[r].marked_speed = p[3];
    ranks[r].speed_invalid = p[2] < 0;
  }
  // Step-wide values: rank 0's view, broadcast so every rank decides alike.
  auto broadcast_text = [&](const char* name) -> std::optional<std::string> {
    const char* value = mpi.rank() == 0 ? std::getenv(name) : nullptr;
    std::string text = value ? value : "";
    int length = value ? static_cast<int>(text.size()) : -1;
    check_mpi(MPI_Bcast(&length, 1, MPI_INT, 0, mpi.comm()), "MPI_Bcast");
    if (length < 0) return std::nullopt;
    text.resize(static_cast<std::size_t>(length));
    check_mpi(MPI_Bcast(text.data(), length, MPI_CHAR, 0, mpi.comm()), "MPI_Bcast");
    return text;
  };
  const auto source = broadcast_text("HETSCALE_WEIGHTS_SOURCE");
  const auto system_speed = broadcast_text("HETSCALE_SYSTEM_SPEED");
  if (!option && !choice.weights_file) {
    const auto request = broadcast_text("HETSCALE_WEIGHTS");
    check_request_answered(request ? request->c_str() : nullptr, source ? source->c_str() : nullptr);
  }
  const std::optional<std::string> partition_file = choice.weights_file ? choice.weights_file
                                                    : option && names_partition_file(*option)
                                                        ? option
                                                        : std::nullopt;
  if (partition_file) {
    // Marked speeds and C still come from the environment; only the shares come from the file.
    const char* unreadable = choice.weights_file ? "--weights-file: cannot read "
                                                 : "--weights: cannot read the partition file ";
    const auto text = broadcast_file(mpi, *partition_file, unreadable);
    const auto hosts = gather_hosts(mpi);
    RankWeights out = choose_weights(ranks, std::string("equal"), nullptr,
                                     system_speed ? system_speed->c_str() : nullptr);
    out.weights = weights_for_ranks(parse_partition(text, *partition_file), hosts);
    out.source = "file";
    with_digest(out, gather_digests(mpi));
    return out;
  }
  RankWeights out = choose_weights(ranks, option, source ? source->c_str() : nullptr,
                                   system_speed ? system_speed->c_str() : nullptr);
  with_digest(out, gather_digests(mpi));
  return out;
}

}  // namespace hetscale::kernels

#include "common/rank_weights.hpp"

#include <cstdlib>
#include <numeric>
#include <string_view>

#include "hetscale/error.hpp"
#include "hetscale/row_distribution.hpp"
#include "hetscale/weights_option.hpp"

namespace hetscale::kernels {
namespace {

void read_positive(const char* text, std::string_view name, std::optional<double>& value, bool& invalid) {
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

RankWeights choose_weights(std::span<const RankEnvironment> ranks, const std::optional<std::string>& option,
                           const char* weights_source, const char* system_speed) {
  RankWeights out;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (ranks[r].speed_invalid) {
      throw Error("HETSCALE_MARKED_SPEED of rank " + std::to_string(r) + " is not a positive number");
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
    out.weights = parse_weights_option(*option, ranks.size());
    out.source = *option == "equal" ? "equal" : "option";
    return out;
  }
  std::vector<std::size_t> missing;
  std::vector<double> weights;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (ranks[r].weight_invalid) {
      throw Error("HETSCALE_WEIGHT of rank " + std::to_string(r) + " is not a positive number");
    }
    if (ranks[r].weight) weights.push_back(*ranks[r].weight);
    else missing.push_back(r);
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

RankWeights resolve_weights(const MpiSession& mpi, const std::optional<std::string>& option) {
  const RankEnvironment mine =
      read_rank_environment(std::getenv("HETSCALE_WEIGHT"), std::getenv("HETSCALE_MARKED_SPEED"));
  // Per rank: (state, value) twice; state 1 = set, 0 = unset, -1 = invalid.
  auto state = [](const std::optional<double>& v, bool invalid) { return invalid ? -1.0 : v ? 1.0 : 0.0; };
  const double packed[4] = {state(mine.weight, mine.weight_invalid), mine.weight.value_or(0),
                            state(mine.marked_speed, mine.speed_invalid), mine.marked_speed.value_or(0)};
  std::vector<double> all(4 * static_cast<std::size_t>(mpi.size()));
  check_mpi(MPI_Allgather(packed, 4, MPI_DOUBLE, all.data(), 4, MPI_DOUBLE, mpi.comm()), "MPI_Allgather");
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
  return choose_weights(ranks, option, source ? source->c_str() : nullptr,
                        system_speed ? system_speed->c_str() : nullptr);
}

}  // namespace hetscale::kernels

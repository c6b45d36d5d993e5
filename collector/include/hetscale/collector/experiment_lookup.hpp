// Finding an experiment by name in a database shared by many users (docs/schema.md,
// "Owners and row-level security"): names are unique per (cluster, owner, name), so a
// name alone may stand for several experiments.
#pragma once

#include <optional>
#include <string>

#include "hetscale/collector/pg.hpp"

namespace hetscale::collector {

/// The id of the experiment called `name`: the current database user's own (owner =
/// current_user) when there is one, else the only one of that name. nullopt when no
/// experiment has the name; throws hetscale::Error when the choice is ambiguous (the user
/// owns several of that name, on different clusters, or owns none and several users have
/// one), naming the candidates' owners and clusters.
std::optional<long long> find_experiment(pg::Connection& conn, const std::string& name);

}  // namespace hetscale::collector

// The partition a round is submitted to, as Slurm reports it, against the round's
// largest machine set: a set pinned with --nodelist to nodes the partition does not
// have would wait in the queue for ever (Slurm rejects nothing at submit time then).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/jobgen/round.hpp"
#include "hetscale/slurm/scontrol.hpp"

namespace hetscale::jobgen {

/// Throws ConfigError at the spec's [machine_sets] `max` (or where the sets are
/// defined) when the largest set has more nodes than the partition, or a node the
/// partition does not have. `named_at` says where the partition's name came from, for
/// the message ("spec.toml:22:13" or "--partition").
void check_partition(const Round& round, const slurm::Partition& partition,
                     const std::string& named_at);

/// The [slurm] key a refusal of `sbatch --test-only` is about ("Invalid qos
/// specification": "qos"; partition, account, reservation; "Invalid feature
/// specification": "constraint"), or empty when it names none of them.
std::string refused_slurm_key(std::string_view message);

/// Where the spec says what Slurm refused: the key's value when the spec gives it, else
/// its [slurm] table, else the spec file itself.
SourceLocation refused_at(const ExperimentSpec& spec, std::string_view key);

}  // namespace hetscale::jobgen

// Asking the running Slurm about a partition (`scontrol show partition`), for checks
// that must not fail where there is no Slurm: the answer says whether Slurm could be
// asked at all.
#pragma once

#include <string>

#include "hetscale/jobgen/node_availability.hpp"
#include "hetscale/jobgen/partition_check.hpp"

namespace hetscale::cli {

struct PartitionQuery {
  enum class Status {
    found,       // `partition` holds what Slurm reports
    unknown,     // Slurm answered: no such partition
    unreachable  // no scontrol, no slurm.conf, no controller: `detail` says which
  };
  Status status = Status::unreachable;
  jobgen::SlurmPartition partition;
  std::string detail;
};

PartitionQuery query_partition(const std::string& name);

struct NodeStatesQuery {
  bool reachable = false;  // else `detail` says why Slurm could not be asked
  jobgen::SlurmNodeStates states;
  std::string detail;
};

/// `scontrol show node --oneliner` and `scontrol show reservation --oneliner`. Throws
/// Error when Slurm answers with something they cannot read.
NodeStatesQuery query_node_states();

}  // namespace hetscale::cli

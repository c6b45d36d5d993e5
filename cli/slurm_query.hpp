// Asking the running Slurm about a partition (`scontrol show partition`), for checks
// that must not fail where there is no Slurm: the answer says whether Slurm could be
// asked at all.
#pragma once

#include <string>

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

}  // namespace hetscale::cli

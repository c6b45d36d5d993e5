// hetscale_record.hpp: the C++ face of hetscale_record.h (write a run record,
// docs/run-record.md, from your own MPI code). Header only, C++17, no dependency but the C header.
//
//   const double share = hetscale::record::weight(rank, size);
//   ... run, time, gather the ranks' timings on rank 0 ...
//   if (rank == 0) hetscale::record::write(run, timings);   // throws std::system_error
#pragma once

#include <cerrno>
#include <string>
#include <system_error>
#include <vector>

#include "hetscale_record.h"

namespace hetscale::record {

struct RankTiming {
  int rank = 0;
  std::string host;
  double weight = 0;
  double marked_speed = 0;
  double compute_seconds = 0;
  double communication_seconds = 0;
  double wall_seconds = 0;
};

struct Run {
  std::string code;
  std::string workload;        // as in the experiment spec, e.g. "500*M^2"
  std::string parameter;       // e.g. "M"
  double parameter_value = 0;
  double work = 0;             // W, > 0
  double wall_seconds = 0;     // T, > 0
  bool verified = false;
  std::string start_time;      // ISO 8601 UTC; empty when unknown
  std::string end_time;
};

/// This rank's share of the work: HETSCALE_WEIGHT, else 1/size.
inline double weight(int rank, int size) { return hetscale_weight(rank, size); }

/// Appends the record to $HETSCALE_RECORD (nothing when unset); throws std::system_error.
inline void write(const Run& run, const std::vector<RankTiming>& ranks) {
  std::vector<hetscale_rank_timing> c_ranks;
  c_ranks.reserve(ranks.size());
  for (const RankTiming& r : ranks)
    c_ranks.push_back({r.rank, r.host.c_str(), r.weight, r.marked_speed, r.compute_seconds,
                       r.communication_seconds, r.wall_seconds});
  const hetscale_run c_run{run.code.c_str(), run.workload.c_str(), run.parameter.c_str(),
                           run.parameter_value, run.work, run.wall_seconds, run.verified ? 1 : 0,
                           run.start_time.empty() ? nullptr : run.start_time.c_str(),
                           run.end_time.empty() ? nullptr : run.end_time.c_str()};
  if (hetscale_write_record(&c_run, c_ranks.data(), static_cast<int>(c_ranks.size())) != 0)
    throw std::system_error(errno, std::generic_category(), "hetscale: cannot write the run record");
}

}  // namespace hetscale::record

// A planned round against the running Slurm before it is written or submitted, for
// hetscale jobgen and hetscale study: the largest set against the partition (estimated
// time limits capped at its MaxTime), every member against Slurm's node states and
// reservations (an unavailable member refuses the round or, when asked, is swapped for an
// available node of its group), and every set script against `sbatch --test-only`.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/jobgen/round.hpp"
#include "hetscale/jobgen/round_files.hpp"
#include "hetscale/study/slurm_query.hpp"

namespace hetscale::study {

/// A fault in a value given on the command line rather than in a file (the CLI exits 2).
class OptionValueError : public Error {
 public:
  using Error::Error;
};

/// How a round is checked and what its faults say.
struct RoundCheck {
  std::string partition_named_at;    // where the partition is named: the spec's "file:line:col", or an option
  bool partition_by_option = false;  // named by a command-line option: its faults throw OptionValueError
  bool replace_unavailable = false;  // swap unavailable members instead of refusing the round
  std::string refusal;               // follows the unavailable members in the error: what is not done, what helps
  std::string note_prefix = "note: ";  // of the lines written to `notes`
};

struct CheckedRound {
  jobgen::Round round;      // with the replacements, its time limits capped at the partition's MaxTime
  std::string unreachable;  // why Slurm could not be asked (nothing checked); empty when it answered
};

/// "set 2 member n3 is DRAINED (reason "x"); set 3 member n5 is DOWN ...; " + refusal.
std::string unavailable_message(const std::vector<jobgen::UnavailableMember>& unavailable,
                                const std::string& refusal);

/// "n3 (group full, DRAINED ...) replaced by n2 in sets 1-2 (C1 = 3, C2 = 6 Mflops)": a
/// swap, with the marked speeds of the sets it changed in `replaced` (the round after it).
std::string replacement_line(const jobgen::NodeReplacement& replacement, const jobgen::Round& replaced);

/// The round against what Slurm answered (no Slurm asked here): `nodes` its node states,
/// `partition` its partition (ignored when the spec names none). A partition Slurm does
/// not have, a set too large for it or a node it lacks throws ConfigError at the spec's
/// key; an unavailable member throws Error (unavailable_message) unless replaced, each
/// swap written to `out` (replacement_line). A partition Slurm could not be asked about
/// is a note; node states it could not be asked about leave the round unchecked
/// (CheckedRound::unreachable).
CheckedRound check_round(jobgen::Round round, const RoundCheck& check, const NodeStatesQuery& nodes,
                         const PartitionQuery& partition, std::ostream& out, std::ostream& notes);

/// check_round with Slurm's answers (query_node_states, query_partition of the round's
/// partition when Slurm answered).
CheckedRound check_round_against_slurm(jobgen::Round round, const RoundCheck& check, std::ostream& out,
                                       std::ostream& notes);

/// Every set script among `files` as Slurm would take it (`sbatch --test-only`, in a
/// scratch directory of its own): a refusal (unknown qos, account, partition or
/// reservation, a feature no node has, an option sbatch does not know) throws ConfigError
/// with Slurm's words at the spec's key (OptionValueError "<option>: ..." for a partition
/// named by an option). Returns why Slurm could not be asked (nothing tested), empty when
/// every script was tested.
std::string test_set_scripts(const jobgen::Round& round, const std::vector<jobgen::GeneratedFile>& files,
                             const RoundCheck& check);

}  // namespace hetscale::study

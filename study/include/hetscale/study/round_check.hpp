// A planned round against the running Slurm before it is written or submitted, for
// hetscale jobgen and hetscale study: the largest set against the partition (estimated
// time limits capped at its MaxTime), every member against Slurm's node states and
// reservations (an unavailable member refuses the round or, when asked, is swapped for an
// available node of its group), and every set script against `sbatch --test-only`. Where
// Slurm cannot be asked, `hetscale jobgen` goes on with a note and the study refuses.
#pragma once

#include <string>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/base/say.hpp"
#include "hetscale/jobgen/node_availability.hpp"
#include "hetscale/jobgen/round.hpp"
#include "hetscale/jobgen/round_files.hpp"
#include "hetscale/slurm/queries.hpp"

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
  std::string note_prefix = "note: ";  // of the notes said
  bool require_slurm = false;        // where Slurm cannot be asked: an Error instead of a note
};

/// How `hetscale jobgen` checks a round: round 0 may swap unavailable members
/// (`replace_unavailable`, --replace-unavailable), a later round runs on the sets measured
/// before; `partition_option` names the option that gave the partition (empty: the spec's
/// [slurm] partition); where Slurm cannot be asked, a note says what was not checked.
RoundCheck jobgen_round_check(const jobgen::Round& round, const std::string& partition_option,
                              bool replace_unavailable);

/// How the study checks a round: round 0 may swap unavailable members (the study spec's
/// replace_unavailable), a later round runs on the sets measured before; Slurm must answer.
RoundCheck study_round_check(const jobgen::Round& round, bool replace_unavailable);

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
/// swap said as a result (replacement_line). A partition Slurm could not be asked about
/// is a note; node states it could not be asked about leave the round unchecked
/// (CheckedRound::unreachable), said in a note or, with check.require_slurm, thrown.
CheckedRound check_round(jobgen::Round round, const RoundCheck& check, const slurm::NodeStatesQuery& nodes,
                         const slurm::PartitionQuery& partition, const Say& say);

/// check_round with Slurm's answers (slurm::query_node_states, slurm::query_partition of the round's
/// partition when Slurm answered).
CheckedRound check_round_against_slurm(jobgen::Round round, const RoundCheck& check, const Say& say);

/// Every set script among `files` as Slurm would take it (`sbatch --test-only`, in a
/// scratch directory of its own): a refusal (unknown qos, account, partition or
/// reservation, a feature no node has, an option sbatch does not know) throws ConfigError
/// with Slurm's words at the spec's key (OptionValueError "<option>: ..." for a partition
/// named by an option). Where Slurm cannot be asked nothing is tested: a note says so or,
/// with check.require_slurm, an Error.
void test_set_scripts(const jobgen::Round& round, const std::vector<jobgen::GeneratedFile>& files,
                      const RoundCheck& check, const Say& say);

}  // namespace hetscale::study

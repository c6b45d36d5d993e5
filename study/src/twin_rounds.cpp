#include "hetscale/study/twin_rounds.hpp"

#include <utility>

#include "hetscale/study/rounds.hpp"
#include "hetscale/twin/conduct.hpp"

namespace hetscale::study {

std::optional<twin::SimulatedRound> next_twin_round(const std::string& db, const twin::SimulatedRound& previous,
                                                    std::optional<std::uint32_t> max_rounds, const Say& say) {
  RefinementInput input = refinement_from_database(db, previous.round.spec.name);
  if (max_rounds) input.latest.spec.refine.max_rounds = *max_rounds;
  twin::twin_refinement_spec(input.latest, previous);
  jobgen::Round refined = next_round(input.latest, input.runs, say);
  (void)twin::begin_next_set(refined, input.runs, say);  // a set its first round left out
  return twin::next_simulated_round(previous, std::move(refined), say);
}

}  // namespace hetscale::study

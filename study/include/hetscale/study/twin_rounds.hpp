// The next round of a twin study, planned from its runs in the database: what `hetscale
// twin refine` and the study's twin chain run (docs/twin.md, "Refining a twin study").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "hetscale/base/say.hpp"
#include "hetscale/twin/simulated_round.hpp"

namespace hetscale::study {

/// The twin experiment of `previous` (its latest round) refined from the runs of every
/// round collected into `db`: each set refined as `jobgen --refine --db` refines it (the
/// spec's precision only where the twin's runs vary, twin::twin_refinement_spec), then the
/// next larger set begun once the sets below it read their targets (twin::begin_next_set),
/// simulated as `previous` was. `max_rounds` replaces the spec's [refine] max_rounds. None,
/// and "nothing to refine" said, when no set has sizes to run.
std::optional<twin::SimulatedRound> next_twin_round(const std::string& db, const twin::SimulatedRound& previous,
                                                    std::optional<std::uint32_t> max_rounds, const Say& say);

}  // namespace hetscale::study

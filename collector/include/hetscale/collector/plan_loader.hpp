// Loading a plan file (docs/plan-file.md): site, groups, nodes, benchmark history,
// experiment, machine sets and their members, in one transaction. Loading it again
// changes nothing; a newer plan of the same experiment updates it.
#pragma once

#include "hetscale/collector/pg.hpp"
#include "hetscale/study_plan.hpp"

namespace hetscale::collector {

/// Throws pg::DbError.
void load_plan(pg::Connection& conn, const StudyPlan& plan);

}  // namespace hetscale::collector

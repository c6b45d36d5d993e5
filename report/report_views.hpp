// Reads the report's data from the documented views only (docs/dashboards.md), so that
// `hetscale report` works with the read-only role hetscale_reader, like a dashboard.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hetscale/collector/pg.hpp"
#include "report_data.hpp"

namespace hetscale::cli {

/// Schema version the views come from (migration 0009: TH and SH from availability).
inline constexpr int kReportSchemaVersion = 9;

/// Schema version from which run_efficiency has the runs' engine (migration 0008): older
/// databases have no twin runs, so their reports pair no twins.
inline constexpr int kTwinSchemaVersion = 8;

/// Names of the experiments that have rows in any of the views, sorted.
std::vector<std::string> report_experiments(pg::Connection& conn);

/// Every view row of the named experiments (all experiments with data when `names` is
/// empty; then also partitions computed from input files) and every node. Throws Error for
/// a name that has no rows, listing the experiments that have, and for a database older
/// than the views.
///
/// An experiment named E + "-twin" whose runs are all twin runs (engine 'simgrid') is the
/// twin of E when E is in the report (report::TwinPair), whether or not it was named itself.
/// `twins` (experiment -> twin) pairs explicitly instead: the experiment is in the report
/// and the given twin, whose runs must all be twin runs, is its twin.
report::ReportData read_report_data(pg::Connection& conn, const std::vector<std::string>& names,
                                    const std::map<std::string, std::string>& twins = {});

}  // namespace hetscale::cli

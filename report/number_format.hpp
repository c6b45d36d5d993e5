// Numbers and figures as the report's page shows them: at most four significant digits, in
// one style for tables, charts and the summary. The downloads keep full precision.
#pragma once

#include <string>
#include <vector>

#include "hetscale/collector/report_views.hpp"

namespace hetscale::report {

using collector::OptionalInterval;
using collector::OptionalNumber;

/// At most `digits` significant digits, trailing zeros dropped: groups of three digits
/// separated by ',' from 10,000 on ("434,300"), and a power of ten from 10^6 on and below
/// 10^-3 ("4.301×10¹⁴", "10⁶", "2.5×10⁻⁵"); "n/a" when not finite.
std::string shown_number(double value, int digits = 4);

/// A fraction as a signed percentage of at most three significant digits: "+7.1%",
/// "-16.7%", "+200%"; "0%" below 0.005% either way; "n/a" when not finite.
std::string shown_percent(double fraction);

/// A figure that may carry an interval as the page shows it: hetscale::interval_text (the
/// one rule of every output, docs/dashboards.md) with shown_number's numbers, "0.735 [0.61,
/// 0.86]", "0.02 (too few runs)" (the interval's short reason; its detail is the table's
/// footnote); the bare value when the view gives no interval; "n/a" when there is no value.
/// `unit`, when given, follows the figure.
std::string shown_figure(const OptionalNumber& value, const OptionalInterval& interval = {},
                         const std::string& unit = "");

/// What the brackets of `intervals` are, for a heading, as the views store them: "intervals:
/// 95% (Student t interval of the mean)", "intervals: 95% (stratified residual bootstrap,
/// percentile; 2000 resamples)", each distinct level, method and resample count once (" and "
/// between); empty when none has an interval.
std::string interval_caption(const std::vector<OptionalInterval>& intervals);

}  // namespace hetscale::report

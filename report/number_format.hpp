// Numbers and figures as the report's page shows them: at most four significant digits, in
// one style for tables, charts and the summary. The downloads keep full precision.
#pragma once

#include <string>

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

/// The one text of a figure that may carry an interval (docs/dashboards.md): the value
/// (shown_number), then " [low, high]" when the interval has a bound ("open" for one beyond
/// the measured sizes: " [0.61, open]"), or " (why)" when
/// the view says why it has none (e.g. too few runs); the bare value when the view gives no
/// interval; "n/a" when there is no value. `unit`, when given, follows the figure.
std::string shown_figure(const OptionalNumber& value, const OptionalInterval& interval = {},
                         const std::string& unit = "");

}  // namespace hetscale::report

#include "output.hpp"

#include <map>

namespace hetscale::cli {

void add_format_option(CLI::App& command, TableFormat& format) {
  const std::map<std::string, TableFormat> names{
      {"table", TableFormat::table}, {"json", TableFormat::json}, {"csv", TableFormat::csv}};
  command.add_option("--format", format, "Output format: table, json or csv")
      ->transform(CLI::CheckedTransformer(names, CLI::ignore_case))
      ->default_str("table");
}

Say print_lines(Context& context) {
  return [&context](LineKind kind, const std::string& line) {
    if (kind == LineKind::note)
      context.err << line << std::flush;
    else
      context.out << line;
  };
}

}  // namespace hetscale::cli

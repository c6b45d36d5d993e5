#include "load_checks.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <vector>

#include "hetscale/base/sha256.hpp"
#include "hetscale/collector/run_loader.hpp"
#include "hetscale/site/run_record_reader.hpp"

namespace hetscale::test {

ExpectedLoad expected_load(const std::filesystem::path& file, pg::Connection& conn) {
  const RunRecordFile records = read_run_records(file, OnInvalid::fail);
  ExpectedLoad out;
  std::vector<std::string> keys;
  double compute = 0;
  for (const NumberedRunRecord& r : records.records) {
    keys.push_back(to_hex(sha256(collector::run_identity(r.record))));
    for (const RankTiming& t : r.record.ranks) {
      ++out.rank_rows;
      out.rank_sum += t.rank;
      compute += t.compute_seconds;
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  out.runs = static_cast<long long>(keys.size());
  std::string joined;
  for (const std::string& k : keys) joined.append(joined.empty() ? "" : ",").append(k);
  out.keys_md5 = std::string(conn.exec("SELECT md5($1)", {joined}).text(0, 0));
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3f", compute);
  out.compute_sum = buffer;
  return out;
}

ExpectedLoad stored_load(pg::Connection& conn) {
  const pg::Result r = conn.exec(R"sql(
    WITH ranks AS (
      SELECT DISTINCT ON (t.run_id, t.rank) t.rank, t.compute_seconds
      FROM hetscale.rank_timings t JOIN hetscale.runs USING (run_id)
      ORDER BY t.run_id, t.rank)
    SELECT (SELECT count(*) FROM hetscale.runs),
           (SELECT count(*) FROM ranks),
           (SELECT md5(coalesce(string_agg(encode(run_key, 'hex'), ',' ORDER BY run_key), ''))
              FROM hetscale.runs),
           (SELECT coalesce(sum(rank), 0) FROM ranks),
           (SELECT to_char(coalesce(sum(compute_seconds::numeric), 0), 'FM999999999990.000')
              FROM ranks),
           (SELECT count(*) FROM hetscale.rank_timings))sql");
  ExpectedLoad out;
  out.runs = r.integer(0, 0);
  // Every stored rank row counts once only if it is distinct and belongs to a stored run.
  out.rank_rows = r.integer(0, 1) == r.integer(0, 5) ? r.integer(0, 1) : -r.integer(0, 5);
  out.keys_md5 = std::string(r.text(0, 2));
  out.rank_sum = r.integer(0, 3);
  out.compute_sum = std::string(r.text(0, 4));
  return out;
}

std::pair<long long, long long> stored_counts(pg::Connection& conn) {
  const pg::Result r = conn.exec(
      "SELECT (SELECT count(*) FROM hetscale.runs), (SELECT count(*) FROM hetscale.rank_timings)");
  return {r.integer(0, 0), r.integer(0, 1)};
}

}  // namespace hetscale::test

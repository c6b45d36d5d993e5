// Names resolve in pg_catalog in every session hetscale opens and in db/add_login.sql, so a
// function or operator that a user plants in a writable schema `public` (as PostgreSQL up
// to 14 lets everyone) never runs in another role's session; migration 19 takes the right
// to create there away where the migrating role can, and `hetscale db migrate` says what
// to run where it cannot and names what others planted there before (docs/admin.md,
// "PostgreSQL settings").
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "cli_runner.hpp"
#include "hetscale/collector/migrations.hpp"
#include "hetscale/collector/plan_loader.hpp"
#include "hetscale/site/round_plan.hpp"
#include "record_text.hpp"
#include "support/process.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;
using cli::testing::hetscale;

const fs::path plan_fixture = fs::path(HETSCALE_FIXTURES_DIR) / "plans/mm-small.json";

// psql as `uri` with no settings of hetscale's: the session's search_path is the server's
// default ("$user", public), as in an administrator's own psql.
std::string psql(const std::string& uri, const std::string& sql) {
  const CommandResult r =
      run_command({"psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", uri, "-c", sql});
  if (!r.ok()) throw std::runtime_error("psql: " + r.describe());
  return r.out;
}

// What a writer plants in `public`, each of them recording in public.hijacked whose session
// ran it and, in a superuser's, making its author a superuser: exact-type overloads of
// pg_catalog's format(text, VARIADIC "any") and hashtextextended(text, bigint), and an
// operator > (double precision, integer), which CHECKs and views compare with.
std::string planted(const std::string& author) {
  return R"sql(
    CREATE TABLE public.hijacked (who name, what text);
    GRANT INSERT ON public.hijacked TO PUBLIC;
    CREATE FUNCTION public.hijack(what text) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO public.hijacked VALUES (current_user, what);
      IF (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        EXECUTE 'ALTER ROLE )sql" +
         author + R"sql( SUPERUSER';
      END IF;
    END $$;
    CREATE FUNCTION public.format(text, text) RETURNS text LANGUAGE plpgsql AS $$
    BEGIN PERFORM public.hijack('format'); RETURN pg_catalog.format($1, $2); END $$;
    CREATE FUNCTION public.hashtextextended(text, integer) RETURNS bigint LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM public.hijack('hashtextextended');
      RETURN pg_catalog.hashtextextended($1, $2);
    END $$;
    CREATE FUNCTION public.greater(double precision, integer) RETURNS boolean LANGUAGE plpgsql
    AS $$ BEGIN PERFORM public.hijack('>'); RETURN $1 > $2::double precision; END $$;
    CREATE OPERATOR public.> (LEFTARG = double precision, RIGHTARG = integer,
                              FUNCTION = public.greater);)sql";
}

std::string runs_file(const fs::path& dir, const std::string& name, int first_serial) {
  std::vector<nlohmann::json> runs;
  for (int i = 0; i < 2; ++i)
    runs.push_back(
        record_json("mm-small", 100 << i, 0, 0, 2e6 * (1 << (3 * i)), 1, 100, 2, first_serial + i));
  const fs::path file = dir / (name + ".jsonl");
  write_lines(file, dump_all(runs));
  return file.string();
}

TEST(SearchPath, ASessionsSearchPathIsPinnedWhateverTheConnectionAsks) {
  TestDatabase db;
  const TestLogin user(db, "search_path", "");
  db.connect().exec("ALTER ROLE " + user.name() + " SET search_path = public, pg_catalog");
  EXPECT_EQ(psql(user.uri(), "SHOW search_path"), "public, pg_catalog\n");  // as it asks
  for (const std::string& uri : {user.uri(), user.uri() + "?options=-csearch_path%3Dpublic"}) {
    pg::Connection conn = pg::Connection::open(uri);
    EXPECT_EQ(conn.exec("SHOW search_path").text(0, 0), "pg_catalog, pg_temp") << uri;
  }
}

TEST(SearchPath, FunctionsAndOperatorsPlantedInPublicNeverRunInOthersSessions) {
  TestDatabase db;
  db.connect().exec("GRANT CREATE ON SCHEMA public TO PUBLIC");  // PostgreSQL 14's default
  const TestLogin mallory(db, "mallory", "");
  const TestLogin bob(db, "planted_bob", "");
  const TestLogin alice(db, "planted_alice", "");
  pg::Connection::open(mallory.uri()).exec(planted(mallory.name()));

  // Set up as docs/admin.md says: the superuser migrates and adds the logins; the
  // administrator stores the site; users collect, and so does the administrator.
  auto r = hetscale({"db", "migrate", "--db", db.uri()});
  ASSERT_EQ(r.code, 0) << r.err;
  // Migration 19 took PUBLIC's right to create in public; what was planted before is named.
  EXPECT_THAT(r.err, ::testing::StartsWith(
                         "hetscale db migrate: warning: schema public holds functions or "
                         "operators that neither its owner nor a superuser owns"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (const std::string object :
       {"public.format(text,text)", "public.hashtextextended(text,integer)",
        "public.hijack(text)", "public.greater(double precision,integer)",
        "public.>(double precision,integer)"})
    EXPECT_THAT(r.err, ::testing::HasSubstr(object + " (" + mallory.name() + ")")) << object;
  EXPECT_THAT(r.err, ::testing::EndsWith("; drop those the centre did not create on purpose\n"));
  mallory.add_as("writer");
  bob.add_as("writer");
  alice.add_as("admin");
  collector::store_site(alice.uri(), load_round_plan(plan_fixture).site, {});
  const fs::path dir =
      fs::temp_directory_path() / ("hetscale-planted-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  r = hetscale({"collect", "--db", bob.uri(), plan_fixture.string(), runs_file(dir, "bob", 0)});
  EXPECT_EQ(r.code, 0) << r.err;
  r = hetscale(
      {"collect", "--db", alice.uri(), plan_fixture.string(), runs_file(dir, "alice", 10)});
  EXPECT_EQ(r.code, 0) << r.err;
  fs::remove_all(dir);

  const std::string hijacked =
      "SELECT coalesce(string_agg(who || ':' || what, ' ' ORDER BY what, who), 'none') "
      "FROM public.hijacked";
  EXPECT_EQ(db.scalar(hijacked), "none");
  EXPECT_EQ(db.scalar("SELECT rolsuper FROM pg_roles WHERE rolname = '" + mallory.name() + "'"),
            "f");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM hetscale.runs"), "4");
  // Nothing of hetscale's (a view, a CHECK, a policy) is bound to a planted name.
  EXPECT_EQ(db.scalar(R"(
      SELECT count(*) FROM pg_depend d
      WHERE ((d.refclassid = 'pg_proc'::regclass
              AND d.refobjid IN (SELECT oid FROM pg_proc WHERE pronamespace = 'public'::regnamespace))
          OR (d.refclassid = 'pg_operator'::regclass
              AND d.refobjid IN (SELECT oid FROM pg_operator
                                 WHERE oprnamespace = 'public'::regnamespace)))
        AND d.classid <> 'pg_operator'::regclass)"),
            "0");
  EXPECT_EQ(db.scalar("SELECT has_schema_privilege('public', 'public', 'CREATE')"), "f");

  // The planted names are live: a session that does not pin its search_path runs them
  // (the administrator's own psql, as hetscale_admin).
  psql(alice.uri(), "SELECT format('%I', 'x'::text), hashtextextended('x', 0), 1.5::float8 > 0");
  EXPECT_EQ(db.scalar(hijacked),
            "hetscale_admin:> hetscale_admin:format hetscale_admin:hashtextextended");
}

TEST(SearchPath, NoFunctionOfHetscalesResolvesThroughTheCallersSearchPath) {
  TestDatabase db;
  db.migrate();
  EXPECT_EQ(db.scalar(R"(
      SELECT count(*) || ' ' || coalesce(string_agg(proname, ','), '') FROM pg_proc
      WHERE pronamespace = 'hetscale'::regnamespace
        AND NOT coalesce(proconfig, '{}') @> '{"search_path=pg_catalog, pg_temp"}')"),
            "0 ");
  EXPECT_NE(db.scalar("SELECT count(*) FROM pg_proc WHERE pronamespace = 'hetscale'::regnamespace"),
            "0");
}

// A database whose schema public PUBLIC may write in, migrated to version 18 by the
// superuser; then the administrator migrates it on.
class PublicSchema : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.connect().exec("GRANT CREATE ON SCHEMA public TO PUBLIC");
    pg::Connection conn = db_.connect();
    collector::migrate(conn, 18);
    admin_.add_as("admin");
  }
  [[nodiscard]] std::string database() const { return db_.scalar("SELECT current_database()"); }
  [[nodiscard]] std::string public_writable() const {
    return db_.scalar("SELECT has_schema_privilege('public', 'public', 'CREATE')");
  }

  TestDatabase db_;
  TestLogin admin_{db_, "public_admin", ""};
};

TEST_F(PublicSchema, MigrateRevokesCreateWhereTheAdministratorOwnsTheDatabase) {
  db_.connect().exec("ALTER DATABASE " + database() + " OWNER TO hetscale_admin");
  auto r = hetscale({"db", "migrate", "--db", admin_.uri()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "database at schema version 27 (was 18; applied 19, 20, 21, 22, 23, 24, 25, 26, 27)\n");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(public_writable(), "f");

  // A right given to one of hetscale's logins later is named, with its REVOKE.
  const TestLogin writer(db_, "public_writer", "");
  writer.add_as("writer");
  db_.connect().exec("GRANT CREATE ON SCHEMA public TO " + writer.name());
  r = hetscale({"db", "migrate", "--db", admin_.uri()});
  EXPECT_EQ(r.out, "database at schema version 27: nothing to apply\n");
  EXPECT_EQ(r.err, "hetscale db migrate: warning: " + writer.name() +
                       " may create objects in schema public, where a function or operator can "
                       "take over a name that other users' sessions call (docs/admin.md, "
                       "\"PostgreSQL settings\"); as its owner (hetscale_admin) run: REVOKE CREATE "
                       "ON SCHEMA public FROM " +
                       writer.name() + ";\n");
  db_.connect().exec("REVOKE CREATE ON SCHEMA public FROM " + writer.name());
}

TEST_F(PublicSchema, MigrateWarnsWhereItCannotRevoke) {
  const std::string warning =
      "hetscale db migrate: warning: PUBLIC may create objects in schema public, where a "
      "function or operator can take over a name that other users' sessions call "
      "(docs/admin.md, \"PostgreSQL settings\"); as its owner (postgres) run: REVOKE CREATE ON "
      "SCHEMA public FROM PUBLIC;\n";
  auto r = hetscale({"db", "migrate", "--db", admin_.uri()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "database at schema version 27 (was 18; applied 19, 20, 21, 22, 23, 24, 25, 26, 27)\n");
  EXPECT_EQ(r.err, warning);
  EXPECT_EQ(public_writable(), "t");
  r = hetscale({"db", "migrate", "--db", admin_.uri()});
  EXPECT_EQ(r.err, warning);  // every time, until the owner changes it
  // What it says to run, run by the owner, is enough.
  psql(db_.uri(), "REVOKE CREATE ON SCHEMA public FROM PUBLIC;");
  r = hetscale({"db", "migrate", "--db", admin_.uri()});
  EXPECT_EQ(r.err, "");
}

}  // namespace
}  // namespace hetscale::test

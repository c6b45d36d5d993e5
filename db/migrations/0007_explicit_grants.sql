-- Explicit rights (docs/schema.md, "Roles"). Migration 2 gave hetscale_writer SELECT,
-- INSERT and UPDATE on every table, schema_migrations included, and default privileges
-- for every table created later. Here the writer keeps only what the collector, analyze,
-- equalize, predict and groups do; history tables are append-only for it; the migration
-- bookkeeping is read-only for it. No default privileges remain: every later migration
-- grants what it adds, explicitly.
REVOKE ALL ON ALL TABLES IN SCHEMA hetscale FROM hetscale_writer, hetscale_reader;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA hetscale FROM hetscale_writer, hetscale_reader;
ALTER DEFAULT PRIVILEGES IN SCHEMA hetscale REVOKE ALL ON TABLES FROM hetscale_writer, hetscale_reader;
ALTER DEFAULT PRIVILEGES IN SCHEMA hetscale REVOKE ALL ON SEQUENCES FROM hetscale_writer, hetscale_reader;

-- Both roles read everything: tables, views and the applied schema version.
GRANT SELECT ON ALL TABLES IN SCHEMA hetscale TO hetscale_writer, hetscale_reader;

-- Upserted by plan loading and `hetscale groups` (INSERT ... ON CONFLICT DO UPDATE).
GRANT INSERT, UPDATE ON
  hetscale.sites, hetscale.groups, hetscale.nodes, hetscale.experiments,
  hetscale.machine_sets, hetscale.machine_set_members, hetscale.machine_set_groups,
  hetscale.plan_rounds
  TO hetscale_writer;

-- History: added to, never changed or removed by the writer.
GRANT INSERT ON
  hetscale.benchmark_history, hetscale.runs, hetscale.rank_timings, hetscale.slurm_jobs,
  hetscale.predictions
  TO hetscale_writer;

-- Results that analyze and equalize replace.
GRANT INSERT, DELETE ON
  hetscale.required_work, hetscale.partitions, hetscale.partition_shares
  TO hetscale_writer;

-- Run ids (reserved by the collector), other identities, prediction batch numbers.
GRANT USAGE ON ALL SEQUENCES IN SCHEMA hetscale TO hetscale_writer;

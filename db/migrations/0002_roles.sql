-- Roles (docs/schema.md): hetscale_writer for the collector and `hetscale analyze`,
-- hetscale_reader for dashboards (read-only). Roles belong to the whole server, so
-- another database may have created them already.
DO $$
BEGIN
  CREATE ROLE hetscale_writer NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;
END
$$;
DO $$
BEGIN
  CREATE ROLE hetscale_reader NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;
END
$$;

GRANT USAGE ON SCHEMA hetscale TO hetscale_writer, hetscale_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA hetscale TO hetscale_reader;
GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA hetscale TO hetscale_writer;
GRANT DELETE ON hetscale.required_work TO hetscale_writer;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA hetscale TO hetscale_writer;
-- Objects created by later migrations (run by the same owner) get the same rights.
ALTER DEFAULT PRIVILEGES IN SCHEMA hetscale GRANT SELECT ON TABLES TO hetscale_reader;
ALTER DEFAULT PRIVILEGES IN SCHEMA hetscale GRANT SELECT, INSERT, UPDATE ON TABLES TO hetscale_writer;
ALTER DEFAULT PRIVILEGES IN SCHEMA hetscale GRANT USAGE ON SEQUENCES TO hetscale_writer;

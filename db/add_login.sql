-- A database login for one user or service (docs/admin.md, "Database users"). Run by the
-- PostgreSQL superuser in the migrated hetscale database (the package hetscale installs
-- this file as /usr/share/hetscale/db/add_login.sql):
--
--   psql -X -v ON_ERROR_STOP=1 -d hetscale -v login=bob -v kind=writer -f add_login.sql
--
-- kind writer: a user who runs `hetscale collect`, `analyze`, `equalize --db`, `predict`.
--   The login is a member of no role: it is listed in hetscale.writer_logins and gets
--   hetscale_writer's rights granted to itself (hetscale.grant_writer_rights(), which
--   `hetscale db migrate` runs again after every migration). It cannot SET ROLE to a role
--   shared with other users, so every row it writes is its own.
-- kind reader: dashboards (Grafana) and anyone who only reads: a member of hetscale_reader.
-- kind admin: an administrator: a member of hetscale_admin, whose sessions in this
--   database act as hetscale_admin (the owner), so that what she migrates is the owner's.
--
-- The login is created when absent (without a password: peer or GSSAPI authentication;
-- the dashboards' login gets one with ALTER ROLE ... PASSWORD). Run again for an existing
-- login, it gives it the memberships of its kind and takes those of the other kinds.
--
-- Names resolve in pg_catalog only: run by the superuser, this script must never call a
-- function or operator someone else created (a `public.format(text, text)` would be
-- chosen over pg_catalog's format and run with the superuser's rights).
SET search_path = pg_catalog, pg_temp;
SELECT set_config('hetscale.add_login', :'login', false),
       set_config('hetscale.add_login_kind', :'kind', false);
DO $$
DECLARE
  who text := current_setting('hetscale.add_login');
  kind text := current_setting('hetscale.add_login_kind');
  shared text;
BEGIN
  IF kind NOT IN ('writer', 'reader', 'admin') THEN
    RAISE EXCEPTION 'add_login: kind must be writer, reader or admin, not "%"', kind;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = who) THEN
    EXECUTE format('CREATE ROLE %I LOGIN', who);
  END IF;
  -- Memberships of the other kinds, and hetscale_writer itself: never held by a login.
  FOREACH shared IN ARRAY ARRAY['hetscale_writer', 'hetscale_reader', 'hetscale_admin'] LOOP
    IF EXISTS (SELECT FROM pg_auth_members
               WHERE roleid = shared::regrole AND member = who::regrole) THEN
      EXECUTE format('REVOKE %I FROM %I', shared, who);
    END IF;
  END LOOP;
  EXECUTE format('ALTER ROLE %I IN DATABASE %I RESET role', who, current_database());
  CASE kind
    WHEN 'writer' THEN
      INSERT INTO hetscale.writer_logins (login) VALUES (who) ON CONFLICT DO NOTHING;
    WHEN 'reader' THEN
      EXECUTE format('GRANT hetscale_reader TO %I', who);
    WHEN 'admin' THEN
      EXECUTE format('GRANT hetscale_admin TO %I', who);
      EXECUTE format('ALTER ROLE %I IN DATABASE %I SET role = hetscale_admin', who,
                     current_database());
  END CASE;
  IF kind <> 'writer' THEN
    DELETE FROM hetscale.writer_logins WHERE login = who;
  END IF;
  -- The writer's rights for every writer login (a reader or admin now holds none of them).
  EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA hetscale FROM %I', who);
  EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA hetscale FROM %I', who);
  PERFORM hetscale.grant_writer_rights();
END
$$;

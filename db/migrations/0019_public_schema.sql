-- Nobody but its owner creates objects in the schema `public` (docs/admin.md, "PostgreSQL
-- settings"). Functions and operators resolve through search_path, which has `public` in
-- every session that does not set it: a function or operator a user creates there (an
-- exact-type overload of a pg_catalog one, `public.format(text, text)`) runs in the session
-- of whoever calls the name, an administrator's psql included. PUBLIC may create there by
-- default up to PostgreSQL 14, and every database upgraded from one keeps that.
--
-- hetscale's own sessions resolve names in pg_catalog only (search_path = pg_catalog,
-- pg_temp, set by the collector on every connection); this takes the right away where the
-- role migrating can: a superuser, or a member of the schema's owner (PostgreSQL 15's
-- pg_database_owner: the database's owner). Elsewhere the schema is left as it is and
-- `hetscale db migrate` warns, with the statement to run as its owner.
DO $$
BEGIN
  IF pg_has_role(current_user, (SELECT nspowner FROM pg_namespace WHERE nspname = 'public'),
                 'USAGE') THEN
    REVOKE CREATE ON SCHEMA public FROM PUBLIC, hetscale_writer, hetscale_reader;
  END IF;
END
$$;

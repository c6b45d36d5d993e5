-- Writer logins hold the writer's rights themselves, not through membership of
-- hetscale_writer (docs/admin.md, "Database users"). Any member of a role may SET ROLE to
-- it (PostgreSQL 15), and rows belong to current_user: a user acting as a shared role
-- would write rows that belong to everyone acting as it, past the per-user row-level
-- security. So a writer login is a member of no role: it is listed in
-- hetscale.writer_logins, and hetscale.grant_writer_rights() grants each login listed,
-- itself, exactly the rights hetscale_writer has on the tables, views, columns and
-- sequences of the schema. db/add_login.sql (run by the superuser) creates a login and
-- lists it; `hetscale db migrate` runs the function after applying migrations, so that
-- rights a migration gives to or takes from hetscale_writer reach every writer login.
-- hetscale_writer itself keeps the rights, as their template.
CREATE TABLE hetscale.writer_logins (
  login  name PRIMARY KEY
);
ALTER TABLE hetscale.writer_logins OWNER TO hetscale_admin;
GRANT SELECT ON hetscale.writer_logins TO hetscale_writer, hetscale_reader;

CREATE FUNCTION hetscale.grant_writer_rights() RETURNS integer
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  who name;
  object record;
  logins integer := 0;
BEGIN
  FOR who IN
    SELECT r.rolname FROM hetscale.writer_logins w JOIN pg_roles r ON r.rolname = w.login
    WHERE r.rolcanlogin
    ORDER BY 1
  LOOP
    EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA hetscale FROM %I', who);
    EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA hetscale FROM %I', who);
    EXECUTE format('GRANT USAGE ON SCHEMA hetscale TO %I', who);
    FOR object IN
      SELECT c.oid::regclass AS relation, c.relkind, a.privilege_type
      FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) a
      WHERE c.relnamespace = 'hetscale'::regnamespace
        AND a.grantee = 'hetscale_writer'::regrole
    LOOP
      EXECUTE format('GRANT %s ON %s %s TO %I', object.privilege_type,
                     CASE WHEN object.relkind = 'S' THEN 'SEQUENCE' ELSE 'TABLE' END,
                     object.relation, who);
    END LOOP;
    FOR object IN
      SELECT c.oid::regclass AS relation, t.attname, a.privilege_type
      FROM pg_attribute t JOIN pg_class c ON c.oid = t.attrelid
      CROSS JOIN LATERAL aclexplode(t.attacl) a
      WHERE c.relnamespace = 'hetscale'::regnamespace AND NOT t.attisdropped
        AND a.grantee = 'hetscale_writer'::regrole
    LOOP
      EXECUTE format('GRANT %s (%I) ON TABLE %s TO %I', object.privilege_type, object.attname,
                     object.relation, who);
    END LOOP;
    logins := logins + 1;
  END LOOP;
  RETURN logins;
END
$$;
REVOKE ALL ON FUNCTION hetscale.grant_writer_rights() FROM PUBLIC;
ALTER FUNCTION hetscale.grant_writer_rights() OWNER TO hetscale_admin;

SELECT hetscale.grant_writer_rights();

-- What each group's nodes have, as the site table says it (docs/site-table.md, `[[group]]`
-- `fingerprint` and `hardware`, `[[group.cpu_kind]]`): stored by `hetscale groups --db`
-- (collector::store_site) with the rest of the site, so that the report's node map and the
-- dashboards show it (docs/schema.md, "groups" and "group_cpu_kinds"). NULL where the site
-- table gives none (declared speeds, a table written by hand, a database loaded before).
-- Plan loading leaves both as they are: a plan carries the groups' names and speeds only.
ALTER TABLE hetscale.groups
  ADD COLUMN fingerprint text CHECK (fingerprint <> ''),
  ADD COLUMN hardware    text CHECK (hardware <> '');

-- One row per kind of core of a group's hybrid nodes, in the site table's order (least
-- efficient first): the kind's CPUs (OS indices, on every node of the group), hwloc's
-- efficiency rank and core type where known, and the kind's own marked speed per processor.
-- Replaced whole each time the group is stored. The centre's machines, as groups: no
-- row-level security, written by the administrator only (migration 13).
CREATE TABLE hetscale.group_cpu_kinds (
  group_id      bigint NOT NULL REFERENCES hetscale.groups ON DELETE CASCADE,
  kind          integer NOT NULL CHECK (kind >= 0),
  cpus          bigint[] NOT NULL
                CHECK (cardinality(cpus) >= 1 AND 0 <= ALL (cpus) AND 4294967295 >= ALL (cpus)),
  efficiency    integer CHECK (efficiency >= 0),
  core_type     text CHECK (core_type <> ''),
  marked_speed  double precision NOT NULL CHECK (marked_speed > 0),
  PRIMARY KEY (group_id, kind)
);
ALTER TABLE hetscale.group_cpu_kinds OWNER TO hetscale_admin;
GRANT SELECT ON hetscale.group_cpu_kinds TO hetscale_writer, hetscale_reader;

-- As in 0004_partitions_predictions.sql (security_invoker since 0011_owners.sql), with the
-- group's fingerprint, its hardware line and its number of kinds of core at its end.
CREATE OR REPLACE VIEW hetscale.node_map WITH (security_invoker = true) AS
SELECT s.name AS site,
       g.name AS "group",
       g.marked_speed AS group_marked_speed,
       n.name AS host,
       n.processors,
       n.marked_speed,
       s.speed_unit,
       n.state,
       g.fingerprint AS group_fingerprint,
       g.hardware AS group_hardware,
       (SELECT pg_catalog.count(*)::integer FROM hetscale.group_cpu_kinds k
        WHERE k.group_id = g.group_id) AS group_cpu_kinds
FROM hetscale.nodes n
JOIN hetscale.sites s USING (site_id)
JOIN hetscale.groups g ON g.group_id = n.group_id;

-- Every kind of core of every group, named by site and group, for the report and the
-- dashboards.
CREATE VIEW hetscale.group_cpu_kind_speeds WITH (security_invoker = true) AS
SELECT s.name AS site,
       g.name AS "group",
       k.kind,
       k.cpus,
       pg_catalog.cardinality(k.cpus) AS cpu_count,
       k.efficiency,
       k.core_type,
       k.marked_speed,
       g.marked_speed AS group_marked_speed,
       s.speed_unit
FROM hetscale.group_cpu_kinds k
JOIN hetscale.groups g USING (group_id)
JOIN hetscale.sites s USING (site_id);
ALTER VIEW hetscale.group_cpu_kind_speeds OWNER TO hetscale_admin;
GRANT SELECT ON hetscale.node_map, hetscale.group_cpu_kind_speeds TO hetscale_writer, hetscale_reader;

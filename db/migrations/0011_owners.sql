-- One database for many users and clusters (docs/schema.md, "Owners and row-level
-- security"; docs/admin.md, "Database users"). Run by a superuser: it creates a role and
-- hands the schema's objects to it.
--
-- experiments.owner: the database role that created the experiment (at a centre the Unix
-- user, through peer or GSSAPI authentication). Rows stored before this migration belong
-- to the role that applies it.
-- experiments.cluster: the Slurm cluster the study ran on: the `slurm.cluster` of the
-- first run record that names one (the collector fills it in while it is ''); '' when no
-- record named one (plan files name no cluster).
-- Names are unique per (cluster, owner, name): two users' `mm-scaling` are two experiments.
ALTER TABLE hetscale.experiments
  ADD COLUMN owner text NOT NULL DEFAULT current_user,
  ADD COLUMN cluster text NOT NULL DEFAULT '';
ALTER TABLE hetscale.experiments
  DROP CONSTRAINT experiments_name_key,
  ADD CONSTRAINT experiments_cluster_owner_name_key UNIQUE (cluster, owner, name);
-- Lookups by name, the owner's own first (collector's find_experiment()).
CREATE INDEX experiments_name ON hetscale.experiments (name);

-- A run's natural key is unique within its experiment: the same record loaded by two users
-- (the key covers the experiment's name, not its owner) is a run of each.
ALTER TABLE hetscale.runs
  DROP CONSTRAINT runs_run_key_key,
  ADD CONSTRAINT runs_experiment_run_key_key UNIQUE (experiment_id, run_key);

-- Partitions computed from an input file have no experiment: they carry their owner.
ALTER TABLE hetscale.partitions ADD COLUMN owner text NOT NULL DEFAULT current_user;
UPDATE hetscale.partitions p SET owner = e.owner
FROM hetscale.experiments e WHERE e.experiment_id = p.experiment_id;

-- hetscale_admin owns the schema and every object in it: its members migrate (connected
-- with the role hetscale_admin set, docs/admin.md) and, as the owner, see and change every
-- row (row-level security does not apply to a table's owner).
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'hetscale_admin') THEN
    CREATE ROLE hetscale_admin NOLOGIN;
  END IF;
END
$$;
DO $$
DECLARE
  object record;
BEGIN
  EXECUTE format('GRANT CONNECT, CREATE, TEMPORARY ON DATABASE %I TO hetscale_admin',
                 current_database());
  ALTER SCHEMA hetscale OWNER TO hetscale_admin;
  -- Tables (with their indexes and identity sequences), views, standalone sequences.
  FOR object IN
    SELECT c.relkind, c.relname FROM pg_class c
    WHERE c.relnamespace = 'hetscale'::regnamespace
      AND (c.relkind IN ('r', 'p', 'v', 'm')
           OR (c.relkind = 'S' AND NOT EXISTS (
                 SELECT FROM pg_depend d
                 WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                   AND d.deptype IN ('a', 'i'))))
  LOOP
    EXECUTE format('ALTER %s hetscale.%I OWNER TO hetscale_admin',
                   CASE object.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                                       WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END,
                   object.relname);
  END LOOP;
END
$$;

-- Row-level security. Every role reads every row (the reader for dashboards, the writer
-- for comparisons and for finding its own experiment among equal names); a row is
-- written (INSERT, UPDATE, DELETE, as far as migration 7 grants them) only by the owner
-- of its experiment. Each table has a SELECT policy for all and one owner policy for every
-- command, so a writer's INSERT must satisfy the owner policy and its UPDATE or DELETE
-- meets the other users' rows as if they were not there (0 rows affected).
ALTER TABLE hetscale.experiments ENABLE ROW LEVEL SECURITY;
CREATE POLICY experiments_read ON hetscale.experiments FOR SELECT USING (true);
CREATE POLICY experiments_owner ON hetscale.experiments
  USING (owner = current_user) WITH CHECK (owner = current_user);

ALTER TABLE hetscale.runs ENABLE ROW LEVEL SECURITY;
CREATE POLICY runs_read ON hetscale.runs FOR SELECT USING (true);
CREATE POLICY runs_owner ON hetscale.runs
  USING (EXISTS (SELECT FROM hetscale.experiments e
                 WHERE e.experiment_id = runs.experiment_id AND e.owner = current_user))
  WITH CHECK (EXISTS (SELECT FROM hetscale.experiments e
                      WHERE e.experiment_id = runs.experiment_id AND e.owner = current_user));

ALTER TABLE hetscale.rank_timings ENABLE ROW LEVEL SECURITY;
CREATE POLICY rank_timings_read ON hetscale.rank_timings FOR SELECT USING (true);
CREATE POLICY rank_timings_owner ON hetscale.rank_timings
  USING (EXISTS (SELECT FROM hetscale.runs r JOIN hetscale.experiments e USING (experiment_id)
                 WHERE r.run_id = rank_timings.run_id AND e.owner = current_user))
  WITH CHECK (EXISTS (SELECT FROM hetscale.runs r
                      JOIN hetscale.experiments e USING (experiment_id)
                      WHERE r.run_id = rank_timings.run_id AND e.owner = current_user));

ALTER TABLE hetscale.machine_sets ENABLE ROW LEVEL SECURITY;
CREATE POLICY machine_sets_read ON hetscale.machine_sets FOR SELECT USING (true);
CREATE POLICY machine_sets_owner ON hetscale.machine_sets
  USING (EXISTS (SELECT FROM hetscale.experiments e
                 WHERE e.experiment_id = machine_sets.experiment_id
                   AND e.owner = current_user))
  WITH CHECK (EXISTS (SELECT FROM hetscale.experiments e
                      WHERE e.experiment_id = machine_sets.experiment_id
                        AND e.owner = current_user));

ALTER TABLE hetscale.machine_set_members ENABLE ROW LEVEL SECURITY;
CREATE POLICY machine_set_members_read ON hetscale.machine_set_members
  FOR SELECT USING (true);
CREATE POLICY machine_set_members_owner ON hetscale.machine_set_members
  USING (EXISTS (SELECT FROM hetscale.machine_sets s
                 JOIN hetscale.experiments e USING (experiment_id)
                 WHERE s.machine_set_id = machine_set_members.machine_set_id
                   AND e.owner = current_user))
  WITH CHECK (EXISTS (SELECT FROM hetscale.machine_sets s
                      JOIN hetscale.experiments e USING (experiment_id)
                      WHERE s.machine_set_id = machine_set_members.machine_set_id
                        AND e.owner = current_user));

ALTER TABLE hetscale.machine_set_groups ENABLE ROW LEVEL SECURITY;
CREATE POLICY machine_set_groups_read ON hetscale.machine_set_groups FOR SELECT USING (true);
CREATE POLICY machine_set_groups_owner ON hetscale.machine_set_groups
  USING (EXISTS (SELECT FROM hetscale.machine_sets s
                 JOIN hetscale.experiments e USING (experiment_id)
                 WHERE s.machine_set_id = machine_set_groups.machine_set_id
                   AND e.owner = current_user))
  WITH CHECK (EXISTS (SELECT FROM hetscale.machine_sets s
                      JOIN hetscale.experiments e USING (experiment_id)
                      WHERE s.machine_set_id = machine_set_groups.machine_set_id
                        AND e.owner = current_user));

ALTER TABLE hetscale.plan_rounds ENABLE ROW LEVEL SECURITY;
CREATE POLICY plan_rounds_read ON hetscale.plan_rounds FOR SELECT USING (true);
CREATE POLICY plan_rounds_owner ON hetscale.plan_rounds
  USING (EXISTS (SELECT FROM hetscale.experiments e
                 WHERE e.experiment_id = plan_rounds.experiment_id
                   AND e.owner = current_user))
  WITH CHECK (EXISTS (SELECT FROM hetscale.experiments e
                      WHERE e.experiment_id = plan_rounds.experiment_id
                        AND e.owner = current_user));

ALTER TABLE hetscale.required_work ENABLE ROW LEVEL SECURITY;
CREATE POLICY required_work_read ON hetscale.required_work FOR SELECT USING (true);
CREATE POLICY required_work_owner ON hetscale.required_work
  USING (EXISTS (SELECT FROM hetscale.experiments e
                 WHERE e.experiment_id = required_work.experiment_id
                   AND e.owner = current_user))
  WITH CHECK (EXISTS (SELECT FROM hetscale.experiments e
                      WHERE e.experiment_id = required_work.experiment_id
                        AND e.owner = current_user));

ALTER TABLE hetscale.predictions ENABLE ROW LEVEL SECURITY;
CREATE POLICY predictions_read ON hetscale.predictions FOR SELECT USING (true);
CREATE POLICY predictions_owner ON hetscale.predictions
  USING (EXISTS (SELECT FROM hetscale.experiments e
                 WHERE e.experiment_id = predictions.experiment_id
                   AND e.owner = current_user))
  WITH CHECK (EXISTS (SELECT FROM hetscale.experiments e
                      WHERE e.experiment_id = predictions.experiment_id
                        AND e.owner = current_user));

-- A partition is its owner's; one of an experiment also needs the experiment to be theirs.
ALTER TABLE hetscale.partitions ENABLE ROW LEVEL SECURITY;
CREATE POLICY partitions_read ON hetscale.partitions FOR SELECT USING (true);
CREATE POLICY partitions_owner ON hetscale.partitions
  USING (owner = current_user)
  WITH CHECK (owner = current_user
              AND (experiment_id IS NULL
                   OR EXISTS (SELECT FROM hetscale.experiments e
                              WHERE e.experiment_id = partitions.experiment_id
                                AND e.owner = current_user)));

ALTER TABLE hetscale.partition_shares ENABLE ROW LEVEL SECURITY;
CREATE POLICY partition_shares_read ON hetscale.partition_shares FOR SELECT USING (true);
CREATE POLICY partition_shares_owner ON hetscale.partition_shares
  USING (EXISTS (SELECT FROM hetscale.partitions p
                 WHERE p.partition_id = partition_shares.partition_id
                   AND p.owner = current_user))
  WITH CHECK (EXISTS (SELECT FROM hetscale.partitions p
                      WHERE p.partition_id = partition_shares.partition_id
                        AND p.owner = current_user));

-- A Slurm job is its user's: a writer adds only completions of its own jobs (the Slurm
-- user is the database role at a centre); the centre-wide jobcomp log or sacct of all
-- users is loaded by the admin.
ALTER TABLE hetscale.slurm_jobs ENABLE ROW LEVEL SECURITY;
CREATE POLICY slurm_jobs_read ON hetscale.slurm_jobs FOR SELECT USING (true);
CREATE POLICY slurm_jobs_owner ON hetscale.slurm_jobs
  USING (user_name = current_user) WITH CHECK (user_name = current_user);

-- sites, groups, nodes, benchmark_history, availability_history and speed_units describe
-- the centre's machines, not a study: shared by all writers, without row-level security
-- (plan loading upserts the site and nodes of every user's plan; the history tables are
-- append-only for the writer).

-- Views read with the rights and row-level security of the caller, not of their owner.
ALTER VIEW hetscale.run_efficiency SET (security_invoker = true);
ALTER VIEW hetscale.set_efficiency_curve SET (security_invoker = true);
ALTER VIEW hetscale.set_required_work SET (security_invoker = true);
ALTER VIEW hetscale.set_psi SET (security_invoker = true);
ALTER VIEW hetscale.node_map SET (security_invoker = true);
ALTER VIEW hetscale.weights_comparison SET (security_invoker = true);
ALTER VIEW hetscale.latest_partitions SET (security_invoker = true);
ALTER VIEW hetscale.capacity_forecast SET (security_invoker = true);
ALTER VIEW hetscale.run_slurm_jobs SET (security_invoker = true);
ALTER VIEW hetscale.node_time_variability SET (security_invoker = true);
ALTER VIEW hetscale.set_time_variability_spread SET (security_invoker = true);
ALTER VIEW hetscale.node_availability_th SET (security_invoker = true);
ALTER VIEW hetscale.set_availability_sh SET (security_invoker = true);

-- Rights of every table and view changed here, as migration 7 set them (restated).
GRANT SELECT ON
  hetscale.experiments, hetscale.runs, hetscale.rank_timings, hetscale.machine_sets,
  hetscale.machine_set_members, hetscale.machine_set_groups, hetscale.plan_rounds,
  hetscale.required_work, hetscale.predictions, hetscale.partitions,
  hetscale.partition_shares, hetscale.slurm_jobs,
  hetscale.run_efficiency, hetscale.set_efficiency_curve, hetscale.set_required_work,
  hetscale.set_psi, hetscale.node_map, hetscale.weights_comparison,
  hetscale.latest_partitions, hetscale.capacity_forecast, hetscale.run_slurm_jobs,
  hetscale.node_time_variability, hetscale.set_time_variability_spread,
  hetscale.node_availability_th, hetscale.set_availability_sh
  TO hetscale_writer, hetscale_reader;
GRANT INSERT, UPDATE ON
  hetscale.experiments, hetscale.machine_sets, hetscale.machine_set_members,
  hetscale.machine_set_groups, hetscale.plan_rounds
  TO hetscale_writer;
GRANT INSERT ON
  hetscale.runs, hetscale.rank_timings, hetscale.slurm_jobs, hetscale.predictions
  TO hetscale_writer;
GRANT INSERT, DELETE ON
  hetscale.required_work, hetscale.partitions, hetscale.partition_shares
  TO hetscale_writer;

-- What one user can do to the rows that other users' results depend on (docs/schema.md,
-- "Owners and row-level security"; docs/admin.md, "Database users").
--
-- The centre's machines (sites, groups, nodes and their benchmark and availability
-- histories) are the administrator's: `hetscale groups --db` (collector::store_site) stores
-- them, as hetscale_admin. A writer reads them; its plan files name a stored site and its
-- nodes, and plan loading checks that the plan says what is stored instead of rewriting it
-- (docs/collector.md, "Plans").
REVOKE INSERT, UPDATE, DELETE ON
  hetscale.sites, hetscale.groups, hetscale.nodes, hetscale.benchmark_history,
  hetscale.availability_history
  FROM hetscale_writer;

-- Run ids come from the identity alone for a writer: it inserts every column of a run but
-- run_id (and loaded_at, the time of its load), and cannot draw from the identity's
-- sequence. GENERATED ALWAYS refuses an id in INSERT unless OVERRIDING SYSTEM VALUE names
-- a column the inserter has the right to, which a writer has not. The owner (members of
-- hetscale_admin) still reserves ids and COPYs them, which COPY accepts.
ALTER TABLE hetscale.runs ALTER COLUMN run_id SET GENERATED ALWAYS;
REVOKE INSERT ON hetscale.runs FROM hetscale_writer;
GRANT INSERT (
  run_key, experiment_id, code, workload, parameters, work, wall_seconds, marked_speed,
  speed_unit, weights_source, set_index, repetition, slurm_job_id, slurm_array_job_id,
  slurm_array_task_id, slurm_step_id, node_list, start_time, end_time, verified,
  fingerprint, source_file, source_line, engine, platform_hash, slurm_cluster)
  ON hetscale.runs TO hetscale_writer;
REVOKE USAGE, SELECT, UPDATE ON SEQUENCE hetscale.runs_run_id_seq FROM hetscale_writer;

-- A Slurm job row is keyed by its user too: one user's row for another user's job id
-- (which row-level security lets it write only under its own name) no longer takes the
-- key of the real job's row.
ALTER TABLE hetscale.slurm_jobs
  DROP CONSTRAINT slurm_jobs_pkey,
  ADD PRIMARY KEY (cluster, job_id, user_name, start_time);

-- The join of runs to their jobs takes the row of the experiment's owner first (the Slurm
-- user is the database role at a centre), then the latest start.
CREATE OR REPLACE VIEW hetscale.run_slurm_jobs WITH (security_invoker = true) AS
SELECT r.run_id,
       r.experiment_id,
       e.name AS experiment,
       r.set_index,
       r.repetition,
       r.slurm_job_id,
       r.slurm_array_job_id,
       r.slurm_array_task_id,
       r.slurm_step_id,
       j.state AS job_state,
       j.exit_code,
       j.exit_signal,
       j.partition,
       j.node_list AS job_node_list,
       j.node_count,
       j.proc_count,
       j.start_time AS job_start_time,
       j.end_time AS job_end_time,
       r.engine,
       r.platform_hash,
       COALESCE(r.slurm_cluster, j.cluster) AS cluster,
       e.owner AS experiment_owner,
       e.cluster AS experiment_cluster
FROM hetscale.runs r
JOIN hetscale.experiments e USING (experiment_id)
LEFT JOIN LATERAL (
  SELECT * FROM hetscale.slurm_jobs s
  WHERE s.job_id = r.slurm_job_id
    AND (r.slurm_cluster IS NULL OR s.cluster = r.slurm_cluster)
  ORDER BY s.user_name = e.owner DESC, s.start_time DESC
  LIMIT 1
) j ON true
WHERE r.slurm_job_id IS NOT NULL;
GRANT SELECT ON hetscale.run_slurm_jobs TO hetscale_writer, hetscale_reader;

-- What users write that only they and the administrators read (docs/schema.md, "Private
-- columns"; docs/admin.md, "Who reads what"). The command lines of a user's studies
-- (`code` of runs and experiments: a kernel's name or the user's own command), the
-- experiment spec and plan of each round (the command, paths in the user's directories),
-- and a Slurm job's working directory and every field of its accounting record (its submit
-- line, comment, environment-derived paths; the administrator loads every user's jobs)
-- are private: a login reads them of its own rows only (a dashboard's login, which owns
-- none, not at all). Every other column stays readable by both, as migration 7 made it.
--
-- Column privileges take SELECT on the private columns away: the writer and reader keep
-- SELECT on every other column of these four tables. The views own_experiments, own_runs,
-- own_plan_rounds and own_slurm_jobs give each caller every column of its own rows (the
-- experiment's owner, the job's user) and an administrator (a member of hetscale_admin, or
-- a superuser) every row; they read with their owner's rights (not security_invoker) and
-- are security barriers, so that no function of the caller's sees a row before the
-- filter. hetscale_admin owns the tables: it reads every column of every row anyway.

REVOKE SELECT ON hetscale.experiments, hetscale.runs, hetscale.plan_rounds, hetscale.slurm_jobs
  FROM hetscale_writer, hetscale_reader;
GRANT SELECT (experiment_id, name, workload, parameter, target_efficiency, site_id,
              plan_created, owner, cluster)
  ON hetscale.experiments TO hetscale_writer, hetscale_reader;
GRANT SELECT (run_id, run_key, experiment_id, workload, parameters, work, wall_seconds,
              marked_speed, speed_unit, weights_source, set_index, repetition, slurm_job_id,
              slurm_array_job_id, slurm_array_task_id, slurm_step_id, node_list, start_time,
              end_time, verified, fingerprint, source_file, source_line, loaded_at, engine,
              platform_hash, slurm_cluster, weights_digest, timed_by, exit_status,
              ranks_timed_by, node_times)
  ON hetscale.runs TO hetscale_writer, hetscale_reader;
GRANT SELECT (experiment_id, round, refine_steps, refine_tolerance, refine_max_rounds,
              plan_created, loaded_at)
  ON hetscale.plan_rounds TO hetscale_writer, hetscale_reader;
GRANT SELECT (job_id, start_time, end_time, submit_time, eligible_time, array_job_id,
              array_task_id, job_name, user_name, state, partition, time_limit, node_list,
              node_count, proc_count, exit_code, exit_signal, source_file, source_line,
              loaded_at, cluster)
  ON hetscale.slurm_jobs TO hetscale_writer, hetscale_reader;

CREATE VIEW hetscale.own_experiments WITH (security_barrier = true) AS
SELECT e.* FROM hetscale.experiments e
WHERE e.owner = current_user OR pg_has_role(current_user, 'hetscale_admin', 'MEMBER');

CREATE VIEW hetscale.own_runs WITH (security_barrier = true) AS
SELECT r.* FROM hetscale.runs r
WHERE EXISTS (SELECT FROM hetscale.experiments e
              WHERE e.experiment_id = r.experiment_id AND e.owner = current_user)
   OR pg_has_role(current_user, 'hetscale_admin', 'MEMBER');

CREATE VIEW hetscale.own_plan_rounds WITH (security_barrier = true) AS
SELECT p.* FROM hetscale.plan_rounds p
WHERE EXISTS (SELECT FROM hetscale.experiments e
              WHERE e.experiment_id = p.experiment_id AND e.owner = current_user)
   OR pg_has_role(current_user, 'hetscale_admin', 'MEMBER');

CREATE VIEW hetscale.own_slurm_jobs WITH (security_barrier = true) AS
SELECT j.* FROM hetscale.slurm_jobs j
WHERE j.user_name = current_user OR pg_has_role(current_user, 'hetscale_admin', 'MEMBER');

ALTER VIEW hetscale.own_experiments OWNER TO hetscale_admin;
ALTER VIEW hetscale.own_runs OWNER TO hetscale_admin;
ALTER VIEW hetscale.own_plan_rounds OWNER TO hetscale_admin;
ALTER VIEW hetscale.own_slurm_jobs OWNER TO hetscale_admin;
GRANT SELECT ON hetscale.own_experiments, hetscale.own_runs, hetscale.own_plan_rounds,
  hetscale.own_slurm_jobs
  TO hetscale_writer, hetscale_reader;

-- As in 0013_shared_rows.sql, with the job's columns named: `SELECT *` would read the
-- private ones, which the caller (security_invoker) may not.
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
  SELECT s.state, s.exit_code, s.exit_signal, s.partition, s.node_list, s.node_count,
         s.proc_count, s.start_time, s.end_time, s.cluster
  FROM hetscale.slurm_jobs s
  WHERE s.job_id = r.slurm_job_id
    AND (r.slurm_cluster IS NULL OR s.cluster = r.slurm_cluster)
  ORDER BY s.user_name = e.owner DESC, s.start_time DESC
  LIMIT 1
) j ON true
WHERE r.slurm_job_id IS NOT NULL;
GRANT SELECT ON hetscale.run_slurm_jobs TO hetscale_writer, hetscale_reader;

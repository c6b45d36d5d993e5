-- What ran each run (the run record's optional `engine` and `platform_hash`,
-- docs/run-record.md; documented in docs/schema.md): so that runs of the SimGrid twin
-- kernels are told apart from real ones.
--
-- engine: a record without the key is a Slurm run, so every run has an engine and the
-- column is NOT NULL with the default 'slurm' (rows stored before this migration get it).
-- The CHECK holds the values core's is_run_engine() accepts.
-- platform_hash: NULL unless the record has one; the CHECK is core's is_platform_hash():
-- one or more hexadecimal digits, either case, stored as written.
ALTER TABLE hetscale.runs
  ADD COLUMN engine text NOT NULL DEFAULT 'slurm'
    CONSTRAINT runs_engine_check CHECK (engine IN ('slurm', 'mpirun', 'simgrid')),
  ADD COLUMN platform_hash text
    CONSTRAINT runs_platform_hash_check CHECK (platform_hash ~ '^[0-9a-fA-F]+$');

-- The views with one row per run carry both, as their last columns (CREATE OR REPLACE
-- VIEW adds columns only at the end). The views keep their grants (migration 7), and the
-- table grants cover the new columns: nothing new to grant.
CREATE OR REPLACE VIEW hetscale.run_efficiency AS
SELECT r.run_id,
       r.experiment_id,
       e.name AS experiment,
       r.set_index,
       r.repetition,
       r.parameters,
       (r.parameters ->> e.parameter)::double precision AS parameter_value,
       r.work,
       r.wall_seconds,
       c.marked_speed,
       c.speed_unit,
       r.work / r.wall_seconds AS achieved_speed,
       r.work / (r.wall_seconds * c.marked_speed * u.ops_per_second) AS speed_efficiency,
       r.start_time,
       r.engine,
       r.platform_hash
FROM hetscale.runs r
JOIN hetscale.experiments e USING (experiment_id)
LEFT JOIN hetscale.sites s ON s.site_id = e.site_id
LEFT JOIN hetscale.machine_sets ms
       ON ms.experiment_id = r.experiment_id AND ms.set_index = r.set_index
CROSS JOIN LATERAL (
  SELECT COALESCE(NULLIF(r.marked_speed, 0), ms.marked_speed) AS marked_speed,
         COALESCE(NULLIF(r.speed_unit, ''), s.speed_unit) AS speed_unit
) c
LEFT JOIN hetscale.speed_units u ON u.unit = c.speed_unit;

CREATE OR REPLACE VIEW hetscale.run_slurm_jobs AS
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
       r.platform_hash
FROM hetscale.runs r
JOIN hetscale.experiments e USING (experiment_id)
LEFT JOIN LATERAL (
  SELECT * FROM hetscale.slurm_jobs s
  WHERE s.job_id = r.slurm_job_id
  ORDER BY s.start_time DESC
  LIMIT 1
) j ON true
WHERE r.slurm_job_id IS NOT NULL;

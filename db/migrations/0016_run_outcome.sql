-- Who timed a run and how its step ended (docs/run-record.md, docs/schema.md).
--
-- runs.timed_by: the run record's optional `timed_by`: 'program' (the code timed itself;
-- also every record without the key) or 'step' (`hetscale record step` timed the job
-- step from outside).
-- runs.exit_status: the record's optional `exit_status`, the step's exit status; NULL when
-- the record has none (a code that wrote its own record). A run whose exit status is known
-- and not 0 failed: it stays stored, and run_efficiency leaves it out, so that it never
-- counts towards E_s (nor the curves, required work, psi, partitions and forecasts that
-- read run_efficiency).
ALTER TABLE hetscale.runs
  ADD COLUMN timed_by text NOT NULL DEFAULT 'program'
    CONSTRAINT runs_timed_by_check CHECK (timed_by IN ('program', 'step')),
  ADD COLUMN exit_status integer
    CONSTRAINT runs_exit_status_check CHECK (exit_status BETWEEN 0 AND 255);

-- A writer inserts them with the other columns of its runs (0013_shared_rows.sql).
GRANT INSERT (timed_by, exit_status) ON hetscale.runs TO hetscale_writer;

-- As in 0012_view_owners.sql, without the failed runs.
CREATE OR REPLACE VIEW hetscale.run_efficiency WITH (security_invoker = true) AS
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
       r.platform_hash,
       e.owner AS experiment_owner,
       e.cluster AS experiment_cluster
FROM hetscale.runs r
JOIN hetscale.experiments e USING (experiment_id)
LEFT JOIN hetscale.sites s ON s.site_id = e.site_id
LEFT JOIN hetscale.machine_sets ms
       ON ms.experiment_id = r.experiment_id AND ms.set_index = r.set_index
CROSS JOIN LATERAL (
  SELECT COALESCE(NULLIF(r.marked_speed, 0), ms.marked_speed) AS marked_speed,
         COALESCE(NULLIF(r.speed_unit, ''), s.speed_unit) AS speed_unit
) c
LEFT JOIN hetscale.speed_units u ON u.unit = c.speed_unit
WHERE coalesce(r.exit_status, 0) = 0;

-- `hetscale analyze --tolerance`: a set whose runs do not bracket the target but whose
-- nearest measured mean E_s is within the tolerance gets status within_tolerance, with
-- that measured parameter and its work (so psi is computed from it). `found` keeps its
-- meaning: read off the fitted curve between measured points.
-- `hetscale collect --jobcomp`: Slurm job completions (jobcomp/filetxt) and the view
-- joining runs to the state of their job (docs/schema.md).

ALTER TABLE hetscale.required_work
  DROP CONSTRAINT required_work_status_check,
  DROP CONSTRAINT required_work_check,
  ADD CONSTRAINT required_work_status_check CHECK (status IN
    ('found', 'below_range', 'above_range', 'too_few_points', 'within_tolerance')),
  ADD CONSTRAINT required_work_parameter_check CHECK
    ((status IN ('found', 'within_tolerance')) = (work IS NOT NULL AND parameter_value IS NOT NULL));

-- One row per line of a jobcomp/filetxt file. Slurm writes one line per job when it ends;
-- a requeued job ends again with a later start, hence the key (job_id, start_time), so
-- that loading a file again adds nothing. Times are as Slurm wrote them: the local time
-- of slurmctld, without a zone. Every field of the line is kept in `fields`.
CREATE TABLE hetscale.slurm_jobs (
  job_id         bigint NOT NULL CHECK (job_id > 0),
  start_time     timestamp NOT NULL,
  end_time       timestamp,
  submit_time    timestamp,
  eligible_time  timestamp,
  array_job_id   bigint,
  array_task_id  bigint,
  job_name       text NOT NULL,
  user_name      text NOT NULL,
  state          text NOT NULL,
  partition      text NOT NULL,
  time_limit     text NOT NULL,
  node_list      text,
  node_count     integer CHECK (node_count >= 0),
  proc_count     integer CHECK (proc_count >= 0),
  work_dir       text NOT NULL,
  exit_code      integer,
  exit_signal    integer,
  fields         jsonb NOT NULL,
  source_file    text NOT NULL,
  source_line    integer NOT NULL,
  loaded_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (job_id, start_time)
);
CREATE INDEX slurm_jobs_array ON hetscale.slurm_jobs (array_job_id, array_task_id);

-- Each run with a Slurm job id and the completion of that job (its last start when it
-- was requeued); the job columns are NULL until the job's completion is loaded.
CREATE VIEW hetscale.run_slurm_jobs AS
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
       j.end_time AS job_end_time
FROM hetscale.runs r
JOIN hetscale.experiments e USING (experiment_id)
LEFT JOIN LATERAL (
  SELECT * FROM hetscale.slurm_jobs s
  WHERE s.job_id = r.slurm_job_id
  ORDER BY s.start_time DESC
  LIMIT 1
) j ON true
WHERE r.slurm_job_id IS NOT NULL;

-- Slurm job ids are unique only within a cluster (docs/schema.md): every stored job
-- reference carries the cluster's name, and the join of runs to their jobs uses it.
--
-- runs.slurm_cluster: the run record's `slurm.cluster` (SLURM_CLUSTER_NAME); NULL when the
-- record does not name it (outside Slurm, or a record written before kernels recorded it).
ALTER TABLE hetscale.runs
  ADD COLUMN slurm_cluster text
    CONSTRAINT runs_slurm_cluster_check CHECK (slurm_cluster <> '');

-- slurm_jobs.cluster: from sacct's `cluster`, or the jobcomp line's Cluster= (the loader
-- puts the name it was given, or slurmctld's ClusterName, where the line says "unknown").
-- Rows stored before this migration take their line's Cluster= field.
ALTER TABLE hetscale.slurm_jobs ADD COLUMN cluster text;
UPDATE hetscale.slurm_jobs SET cluster = COALESCE(NULLIF(fields ->> 'Cluster', ''), 'unknown');
ALTER TABLE hetscale.slurm_jobs
  ALTER COLUMN cluster SET NOT NULL,
  ADD CONSTRAINT slurm_jobs_cluster_check CHECK (cluster <> ''),
  DROP CONSTRAINT slurm_jobs_pkey,
  ADD PRIMARY KEY (cluster, job_id, start_time);
DROP INDEX hetscale.slurm_jobs_array;
CREATE INDEX slurm_jobs_array ON hetscale.slurm_jobs (cluster, array_job_id, array_task_id);

-- The join: a run that names its cluster meets that cluster's job only; a run that does
-- not (older records) meets the job of that id on any cluster, the latest start first.
-- The job's cluster is the view's new last column.
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
       r.platform_hash,
       COALESCE(r.slurm_cluster, j.cluster) AS cluster
FROM hetscale.runs r
JOIN hetscale.experiments e USING (experiment_id)
LEFT JOIN LATERAL (
  SELECT * FROM hetscale.slurm_jobs s
  WHERE s.job_id = r.slurm_job_id
    AND (r.slurm_cluster IS NULL OR s.cluster = r.slurm_cluster)
  ORDER BY s.start_time DESC
  LIMIT 1
) j ON true
WHERE r.slurm_job_id IS NOT NULL;

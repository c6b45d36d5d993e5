-- Experiments are unique per (cluster, owner, name) since migration 11: two users'
-- `mm-scaling` are two experiments. Every view with an `experiment` column also carries
-- the experiment's owner and cluster (docs/schema.md, docs/dashboards.md), as its last
-- columns `experiment_owner` and `experiment_cluster` (CREATE OR REPLACE VIEW adds columns
-- only at the end), so that dashboards and `hetscale report` tell such experiments apart.
-- They are NULL where `experiment` is NULL (partitions computed from input files).
--
-- CREATE OR REPLACE VIEW replaces a view's options: each keeps security_invoker as
-- migration 11 set it, and its owner hetscale_admin. The views that aggregate group by
-- the new columns too (they depend on experiment_id alone: the groups stay the same).

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
LEFT JOIN hetscale.speed_units u ON u.unit = c.speed_unit;

CREATE OR REPLACE VIEW hetscale.set_efficiency_curve WITH (security_invoker = true) AS
SELECT experiment_id,
       experiment,
       set_index,
       parameter_value,
       count(*) AS runs,
       avg(work) AS work,
       avg(speed_efficiency) AS speed_efficiency,
       min(speed_efficiency) AS min_speed_efficiency,
       max(speed_efficiency) AS max_speed_efficiency,
       stddev_samp(speed_efficiency) AS stddev_speed_efficiency,
       experiment_owner,
       experiment_cluster
FROM hetscale.run_efficiency
WHERE set_index IS NOT NULL AND parameter_value IS NOT NULL AND speed_efficiency IS NOT NULL
GROUP BY experiment_id, experiment, experiment_owner, experiment_cluster, set_index,
         parameter_value;

CREATE OR REPLACE VIEW hetscale.set_required_work WITH (security_invoker = true) AS
SELECT w.experiment_id,
       e.name AS experiment,
       w.set_index,
       w.node_count,
       w.marked_speed,
       w.target_efficiency,
       w.status,
       w.parameter_value,
       w.work,
       w.nearest_efficiency,
       w.explanation,
       w.computed_at,
       e.owner AS experiment_owner,
       e.cluster AS experiment_cluster
FROM hetscale.required_work w
JOIN hetscale.experiments e USING (experiment_id);

CREATE OR REPLACE VIEW hetscale.set_psi WITH (security_invoker = true) AS
SELECT experiment_id, experiment, target_efficiency,
       set_index, next_set_index,
       marked_speed, next_marked_speed,
       work, next_work,
       (next_marked_speed * work) / (marked_speed * next_work) AS psi,
       experiment_owner, experiment_cluster
FROM (
  SELECT experiment_id, experiment, experiment_owner, experiment_cluster, target_efficiency,
         set_index, marked_speed, work,
         lead(set_index) OVER w AS next_set_index,
         lead(marked_speed) OVER w AS next_marked_speed,
         lead(work) OVER w AS next_work
  FROM hetscale.set_required_work
  WINDOW w AS (PARTITION BY experiment_id, target_efficiency ORDER BY set_index)
) pairs
WHERE next_set_index IS NOT NULL;

CREATE OR REPLACE VIEW hetscale.node_time_variability WITH (security_invoker = true) AS
WITH per_rank AS (
  SELECT r.experiment_id, r.set_index, r.parameters, t.host,
         COALESCE(NULLIF(t.compute_seconds, 0), t.wall_seconds) AS seconds,
         COALESCE(NULLIF(t.compute_seconds, 0), t.wall_seconds) / (t.weight * r.work)
           AS seconds_per_op
  FROM hetscale.rank_timings t
  JOIN hetscale.runs r USING (run_id)
  WHERE t.weight > 0 AND r.set_index IS NOT NULL
), per_configuration AS (
  SELECT experiment_id, set_index, host, parameters,
         count(*) AS runs,
         avg(seconds) AS mean_seconds,
         stddev_samp(seconds_per_op) / avg(seconds_per_op) AS cv
  FROM per_rank
  GROUP BY experiment_id, set_index, host, parameters
  HAVING count(*) >= 2 AND avg(seconds_per_op) > 0
)
SELECT p.experiment_id,
       e.name AS experiment,
       p.set_index,
       p.host,
       count(*) AS configurations,
       sum(p.runs) AS runs,
       avg(p.cv) AS cv,
       avg(p.cv * sqrt(p.mean_seconds)) AS time_variability_per_sqrt_s,
       e.owner AS experiment_owner,
       e.cluster AS experiment_cluster
FROM per_configuration p
JOIN hetscale.experiments e USING (experiment_id)
GROUP BY p.experiment_id, e.name, e.owner, e.cluster, p.set_index, p.host;

CREATE OR REPLACE VIEW hetscale.set_time_variability_spread WITH (security_invoker = true) AS
SELECT experiment_id, experiment, set_index,
       count(*) AS nodes,
       max(time_variability_per_sqrt_s) AS max_time_variability_per_sqrt_s,
       avg(time_variability_per_sqrt_s) AS mean_time_variability_per_sqrt_s,
       max(time_variability_per_sqrt_s) - avg(time_variability_per_sqrt_s) AS spread,
       experiment_owner,
       experiment_cluster
FROM hetscale.node_time_variability
GROUP BY experiment_id, experiment, experiment_owner, experiment_cluster, set_index;

CREATE OR REPLACE VIEW hetscale.set_availability_sh WITH (security_invoker = true) AS
SELECT ms.experiment_id,
       e.name AS experiment,
       ms.set_index,
       count(*) AS nodes,
       count(a.th) AS measured_nodes,
       max(a.th) AS max_th,
       avg(a.th) AS mean_th,
       max(a.th) - avg(a.th) AS sh,
       e.owner AS experiment_owner,
       e.cluster AS experiment_cluster
FROM hetscale.machine_sets ms
JOIN hetscale.experiments e USING (experiment_id)
JOIN hetscale.machine_set_members m USING (machine_set_id)
LEFT JOIN hetscale.node_availability_th a USING (node_id)
GROUP BY ms.experiment_id, e.name, e.owner, e.cluster, ms.set_index;

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
  ORDER BY s.start_time DESC
  LIMIT 1
) j ON true
WHERE r.slurm_job_id IS NOT NULL;

CREATE OR REPLACE VIEW hetscale.weights_comparison WITH (security_invoker = true) AS
SELECT r.experiment_id,
       e.name AS experiment,
       r.set_index,
       (r.parameters ->> e.parameter)::double precision AS parameter_value,
       r.weights_source,
       count(*) AS runs,
       avg(r.wall_seconds) AS mean_wall_seconds,
       stddev_samp(r.wall_seconds) AS stddev_wall_seconds,
       e.owner AS experiment_owner,
       e.cluster AS experiment_cluster
FROM hetscale.runs r
JOIN hetscale.experiments e USING (experiment_id)
WHERE r.set_index IS NOT NULL
GROUP BY r.experiment_id, e.name, e.owner, e.cluster, r.set_index, parameter_value,
         r.weights_source;

CREATE OR REPLACE VIEW hetscale.latest_partitions WITH (security_invoker = true) AS
SELECT p.partition_id, p.experiment_id, e.name AS experiment, p.set_index, p.method,
       p.seconds, p.node_list, p.degree_of_equalization,
       p.simulated_tau, p.simulated_sigma, p.simulated_risk, p.created_at,
       sh.host, sh.share, sh.mean_seconds_per_op, sh.sd_seconds_per_op, sh.expected_seconds,
       e.owner AS experiment_owner, e.cluster AS experiment_cluster
FROM (
  SELECT DISTINCT ON (experiment_id, set_index, method) *
  FROM hetscale.partitions
  ORDER BY experiment_id, set_index, method, created_at DESC, partition_id DESC
) p
LEFT JOIN hetscale.experiments e USING (experiment_id)
JOIN hetscale.partition_shares sh USING (partition_id);

CREATE OR REPLACE VIEW hetscale.capacity_forecast WITH (security_invoker = true) AS
SELECT p.batch, p.position, p.experiment_id, e.name AS experiment, p.target_efficiency,
       p.kind, p.label, p.set_index, p.node_count, p.marked_speed,
       p.predicted_parameter, p.predicted_work, p.predicted_psi,
       p.measured_parameter, p.measured_work, p.relative_error, p.model, p.created_at,
       e.owner AS experiment_owner, e.cluster AS experiment_cluster
FROM hetscale.predictions p
JOIN hetscale.experiments e USING (experiment_id)
WHERE p.batch = (SELECT max(q.batch) FROM hetscale.predictions q
                 WHERE q.experiment_id = p.experiment_id
                   AND q.target_efficiency = p.target_efficiency);

-- Rights of every view replaced here, as migrations 7 and 11 set them (restated).
GRANT SELECT ON
  hetscale.run_efficiency, hetscale.set_efficiency_curve, hetscale.set_required_work,
  hetscale.set_psi, hetscale.node_time_variability, hetscale.set_time_variability_spread,
  hetscale.set_availability_sh, hetscale.run_slurm_jobs, hetscale.weights_comparison,
  hetscale.latest_partitions, hetscale.capacity_forecast
  TO hetscale_writer, hetscale_reader;

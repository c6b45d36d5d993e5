-- Views (the formulas of docs/science.md sections 1 and 3; documented in docs/schema.md).

-- E_s = W / (T C): C is the run's marked speed (or its set's, from the plan, when the
-- run did not know it), converted from the speed unit to operations per second.
CREATE VIEW hetscale.run_efficiency AS
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
       r.start_time
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

-- One point of a set's E_s curve per parameter value (repetitions averaged).
CREATE VIEW hetscale.set_efficiency_curve AS
SELECT experiment_id,
       experiment,
       set_index,
       parameter_value,
       count(*) AS runs,
       avg(work) AS work,
       avg(speed_efficiency) AS speed_efficiency,
       min(speed_efficiency) AS min_speed_efficiency,
       max(speed_efficiency) AS max_speed_efficiency,
       stddev_samp(speed_efficiency) AS stddev_speed_efficiency
FROM hetscale.run_efficiency
WHERE set_index IS NOT NULL AND parameter_value IS NOT NULL AND speed_efficiency IS NOT NULL
GROUP BY experiment_id, experiment, set_index, parameter_value;

-- Required work per set at a target (stored by `hetscale analyze`), with names.
CREATE VIEW hetscale.set_required_work AS
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
       w.computed_at
FROM hetscale.required_work w
JOIN hetscale.experiments e USING (experiment_id);

-- psi(C, C') = (C' W) / (C W') between consecutive sets at the same target; NULL when
-- either set's required work is unknown.
CREATE VIEW hetscale.set_psi AS
SELECT experiment_id, experiment, target_efficiency,
       set_index, next_set_index,
       marked_speed, next_marked_speed,
       work, next_work,
       (next_marked_speed * work) / (marked_speed * next_work) AS psi
FROM (
  SELECT experiment_id, experiment, target_efficiency, set_index, marked_speed, work,
         lead(set_index) OVER w AS next_set_index,
         lead(marked_speed) OVER w AS next_marked_speed,
         lead(work) OVER w AS next_work
  FROM hetscale.set_required_work
  WINDOW w AS (PARTITION BY experiment_id, target_efficiency ORDER BY set_index)
) pairs
WHERE next_set_index IS NOT NULL;

-- TH of a node within a set: relative spread (sample standard deviation / mean) of its
-- rank's seconds per operation (compute time, or wall time when the code did not split
-- it, over weight x W) across repetitions of one configuration, averaged over the
-- configurations (parameter values) repeated at least twice.
CREATE VIEW hetscale.node_temporal_heterogeneity AS
WITH per_rank AS (
  SELECT r.experiment_id, r.set_index, r.parameters, t.host,
         COALESCE(NULLIF(t.compute_seconds, 0), t.wall_seconds) / (t.weight * r.work)
           AS seconds_per_op
  FROM hetscale.rank_timings t
  JOIN hetscale.runs r USING (run_id)
  WHERE t.weight > 0 AND r.set_index IS NOT NULL
), per_configuration AS (
  SELECT experiment_id, set_index, host, parameters,
         count(*) AS runs,
         stddev_samp(seconds_per_op) / avg(seconds_per_op) AS th
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
       avg(p.th) AS th
FROM per_configuration p
JOIN hetscale.experiments e USING (experiment_id)
GROUP BY p.experiment_id, e.name, p.set_index, p.host;

-- SH = max_i TH_i - mean_i TH_i over the nodes of a set.
CREATE VIEW hetscale.set_spatial_heterogeneity AS
SELECT experiment_id, experiment, set_index,
       count(*) AS nodes,
       max(th) AS max_th,
       avg(th) AS mean_th,
       max(th) - avg(th) AS sh
FROM hetscale.node_temporal_heterogeneity
GROUP BY experiment_id, experiment, set_index;

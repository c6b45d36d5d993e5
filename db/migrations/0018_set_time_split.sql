-- Where a size's run time goes (docs/dashboards.md): per set and parameter value, the mean
-- run time T, the mean compute time of each run's slowest rank (the largest
-- rank_timings.compute_seconds of the run) and the mean of what is left of T beyond it:
-- communication and waiting. Over the runs of set_efficiency_curve (failed runs left out by
-- run_efficiency) whose ranks timed their compute: a run whose ranks all have
-- compute_seconds 0 (timed from outside) or that has no rank rows is not counted.
CREATE VIEW hetscale.set_time_split WITH (security_invoker = true) AS
SELECT r.experiment_id,
       r.experiment,
       r.set_index,
       r.parameter_value,
       count(*) AS runs,
       avg(r.wall_seconds) AS wall_seconds,
       avg(t.slowest_compute_seconds) AS slowest_compute_seconds,
       avg(r.wall_seconds - t.slowest_compute_seconds) AS outside_compute_seconds,
       r.experiment_owner,
       r.experiment_cluster
FROM hetscale.run_efficiency r
CROSS JOIN LATERAL (
  SELECT max(k.compute_seconds) AS slowest_compute_seconds
  FROM hetscale.rank_timings k WHERE k.run_id = r.run_id
) t
WHERE r.set_index IS NOT NULL AND r.parameter_value IS NOT NULL
  AND r.speed_efficiency IS NOT NULL AND t.slowest_compute_seconds > 0
GROUP BY r.experiment_id, r.experiment, r.experiment_owner, r.experiment_cluster,
         r.set_index, r.parameter_value;

ALTER VIEW hetscale.set_time_split OWNER TO hetscale_admin;
GRANT SELECT ON hetscale.set_time_split TO hetscale_writer, hetscale_reader;

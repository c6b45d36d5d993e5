-- Availability measured on the nodes themselves (`hetscale classify --availability`,
-- stored by `hetscale groups --db`; docs/schema.md): the node's delivered speed sampled in
-- short windows, relative to its marked speed. TH_i = sigma_Ai / a_i and SH = max_i TH_i -
-- mean_i TH_i come from these (docs/science.md section 3), not from run times.
CREATE TABLE hetscale.availability_history (
  node_id              bigint NOT NULL REFERENCES hetscale.nodes,
  benchmark            text NOT NULL,
  observed_at          timestamptz NOT NULL,
  period_seconds       double precision NOT NULL CHECK (period_seconds > 0),
  window_seconds       double precision NOT NULL CHECK (window_seconds > 0),
  reference_speed      double precision NOT NULL CHECK (reference_speed > 0),
  reference            text NOT NULL CHECK (reference IN ('measured', 'given')),
  mean_availability    double precision NOT NULL CHECK (mean_availability >= 0),
  sd_availability      double precision NOT NULL CHECK (sd_availability >= 0),
  th                   double precision NOT NULL CHECK (th >= 0),
  correlation_seconds  double precision CHECK (correlation_seconds >= 0),
  series               double precision[] NOT NULL,
  PRIMARY KEY (node_id, benchmark, observed_at)
);

-- History: added to, never changed or removed by the writer (as benchmark_history).
GRANT SELECT ON hetscale.availability_history TO hetscale_writer, hetscale_reader;
GRANT INSERT ON hetscale.availability_history TO hetscale_writer;

-- The views of migration 3 named TH and SH took the spread of run times, which shrinks as
-- runs get longer: they are renamed for what they measure, the run-time variability.
DROP VIEW hetscale.set_spatial_heterogeneity;
DROP VIEW hetscale.node_temporal_heterogeneity;

-- Run-time variability of a node within a set: per configuration (parameter values)
-- repeated at least twice, the coefficient of variation of its rank's seconds per
-- operation (compute time, or wall time when the code did not split it, over weight x W)
-- times the square root of its mean seconds; averaged over the configurations. Under the
-- unit-interval model sigma_T / t = TH / sqrt(t), so this estimates TH (per sqrt(second))
-- whatever the run length, which the bare CV (`cv`, kept) does not.
CREATE VIEW hetscale.node_time_variability AS
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
       avg(p.cv * sqrt(p.mean_seconds)) AS time_variability_per_sqrt_s
FROM per_configuration p
JOIN hetscale.experiments e USING (experiment_id)
GROUP BY p.experiment_id, e.name, p.set_index, p.host;

-- Spread of that figure over a set's nodes: max - mean, the run-time counterpart of SH.
CREATE VIEW hetscale.set_time_variability_spread AS
SELECT experiment_id, experiment, set_index,
       count(*) AS nodes,
       max(time_variability_per_sqrt_s) AS max_time_variability_per_sqrt_s,
       avg(time_variability_per_sqrt_s) AS mean_time_variability_per_sqrt_s,
       max(time_variability_per_sqrt_s) - avg(time_variability_per_sqrt_s) AS spread
FROM hetscale.node_time_variability
GROUP BY experiment_id, experiment, set_index;

-- TH_i of a node: its newest availability measurement (any benchmark).
CREATE VIEW hetscale.node_availability_th AS
SELECT DISTINCT ON (h.node_id)
       h.node_id,
       s.name AS site,
       n.name AS node,
       h.benchmark,
       h.observed_at,
       h.mean_availability AS a,
       h.sd_availability AS sigma_a,
       h.th,
       h.correlation_seconds,
       h.window_seconds,
       h.period_seconds
FROM hetscale.availability_history h
JOIN hetscale.nodes n USING (node_id)
JOIN hetscale.sites s USING (site_id)
ORDER BY h.node_id, h.observed_at DESC;

-- SH = max_i TH_i - mean_i TH_i over a machine set's nodes, from their availability.
-- `measured_nodes` < `nodes` when some members have no availability measurement: SH is
-- then over the measured ones only (NULL when none is).
CREATE VIEW hetscale.set_availability_sh AS
SELECT ms.experiment_id,
       e.name AS experiment,
       ms.set_index,
       count(*) AS nodes,
       count(a.th) AS measured_nodes,
       max(a.th) AS max_th,
       avg(a.th) AS mean_th,
       max(a.th) - avg(a.th) AS sh
FROM hetscale.machine_sets ms
JOIN hetscale.experiments e USING (experiment_id)
JOIN hetscale.machine_set_members m USING (machine_set_id)
LEFT JOIN hetscale.node_availability_th a USING (node_id)
GROUP BY ms.experiment_id, e.name, ms.set_index;

GRANT SELECT ON hetscale.node_time_variability, hetscale.set_time_variability_spread,
  hetscale.node_availability_th, hetscale.set_availability_sh
  TO hetscale_writer, hetscale_reader;

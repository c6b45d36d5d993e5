-- Partitions written by `hetscale equalize`, forecasts written by `hetscale predict`,
-- and the views the report and centre dashboards read (docs/schema.md, docs/dashboards.md).

-- One partition of a set's work over its nodes (docs/science.md section 3): step 1
-- (`proportional`, shares proportional to mean speed), step 2 solved exactly
-- (`equalized`) or through its linearisation (`equalized_linear`). experiment_id is
-- NULL for a partition computed from an input file rather than from collected runs.
CREATE TABLE hetscale.partitions (
  partition_id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  experiment_id           bigint REFERENCES hetscale.experiments,
  set_index               integer CHECK (set_index >= 0),
  method                  text NOT NULL
                          CHECK (method IN ('proportional', 'equalized', 'equalized_linear')),
  seconds                 double precision NOT NULL CHECK (seconds > 0),
  node_list               text NOT NULL,
  degree_of_equalization  double precision,
  simulated_tau           double precision,
  simulated_sigma         double precision,
  simulated_risk          double precision,
  file_name               text,
  created_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX partitions_experiment_set ON hetscale.partitions (experiment_id, set_index);

-- A node's share of the work in a partition, and the per-unit timing it came from.
CREATE TABLE hetscale.partition_shares (
  partition_id         bigint NOT NULL REFERENCES hetscale.partitions ON DELETE CASCADE,
  host                 text NOT NULL,
  share                double precision NOT NULL CHECK (share >= 0),
  mean_seconds_per_op  double precision CHECK (mean_seconds_per_op > 0),
  sd_seconds_per_op    double precision CHECK (sd_seconds_per_op >= 0),
  expected_seconds     double precision,
  PRIMARY KEY (partition_id, host)
);

-- Forecasts of `hetscale predict` for one experiment and target: measured sets (with
-- the measured figures beside the predicted ones), the site's next doublings, and
-- what-if sets. psi is against the previous row of the same prediction run (`batch`),
-- ordered by `position`.
CREATE TABLE hetscale.predictions (
  batch                bigint NOT NULL,
  position             integer NOT NULL CHECK (position >= 0),
  experiment_id        bigint NOT NULL REFERENCES hetscale.experiments,
  target_efficiency    double precision NOT NULL CHECK (target_efficiency > 0),
  kind                 text NOT NULL CHECK (kind IN ('measured', 'doubling', 'what_if')),
  label                text NOT NULL,
  set_index            integer CHECK (set_index >= 0),
  node_count           integer NOT NULL CHECK (node_count > 0),
  marked_speed         double precision NOT NULL CHECK (marked_speed > 0),
  predicted_parameter  double precision,
  predicted_work       double precision,
  predicted_psi        double precision,
  measured_parameter   double precision,
  measured_work        double precision,
  relative_error       double precision,
  model                text NOT NULL,
  created_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (batch, position)
);
CREATE SEQUENCE hetscale.prediction_batches;
GRANT USAGE ON SEQUENCE hetscale.prediction_batches TO hetscale_writer;
GRANT DELETE ON hetscale.partitions, hetscale.partition_shares TO hetscale_writer;

-- Every node of every site, for the report's node map and dashboards.
CREATE VIEW hetscale.node_map AS
SELECT s.name AS site,
       g.name AS "group",
       g.marked_speed AS group_marked_speed,
       n.name AS host,
       n.processors,
       n.marked_speed,
       s.speed_unit,
       n.state
FROM hetscale.nodes n
JOIN hetscale.sites s USING (site_id)
JOIN hetscale.groups g ON g.group_id = n.group_id;

-- Mean run time per set, parameter value and weights source (marked, equalized, equal,
-- ...): the measured gain of equalized over marked-speed partitions.
CREATE VIEW hetscale.weights_comparison AS
SELECT r.experiment_id,
       e.name AS experiment,
       r.set_index,
       (r.parameters ->> e.parameter)::double precision AS parameter_value,
       r.weights_source,
       count(*) AS runs,
       avg(r.wall_seconds) AS mean_wall_seconds,
       stddev_samp(r.wall_seconds) AS stddev_wall_seconds
FROM hetscale.runs r
JOIN hetscale.experiments e USING (experiment_id)
WHERE r.set_index IS NOT NULL
GROUP BY r.experiment_id, e.name, r.set_index, parameter_value, r.weights_source;

-- The newest partition per experiment, set and method, with its shares.
CREATE VIEW hetscale.latest_partitions AS
SELECT p.partition_id, p.experiment_id, e.name AS experiment, p.set_index, p.method,
       p.seconds, p.node_list, p.degree_of_equalization,
       p.simulated_tau, p.simulated_sigma, p.simulated_risk, p.created_at,
       sh.host, sh.share, sh.mean_seconds_per_op, sh.sd_seconds_per_op, sh.expected_seconds
FROM (
  SELECT DISTINCT ON (experiment_id, set_index, method) *
  FROM hetscale.partitions
  ORDER BY experiment_id, set_index, method, created_at DESC, partition_id DESC
) p
LEFT JOIN hetscale.experiments e USING (experiment_id)
JOIN hetscale.partition_shares sh USING (partition_id);

-- The newest prediction run per experiment and target.
CREATE VIEW hetscale.capacity_forecast AS
SELECT p.batch, p.position, p.experiment_id, e.name AS experiment, p.target_efficiency,
       p.kind, p.label, p.set_index, p.node_count, p.marked_speed,
       p.predicted_parameter, p.predicted_work, p.predicted_psi,
       p.measured_parameter, p.measured_work, p.relative_error, p.model, p.created_at
FROM hetscale.predictions p
JOIN hetscale.experiments e USING (experiment_id)
WHERE p.batch = (SELECT max(q.batch) FROM hetscale.predictions q
                 WHERE q.experiment_id = p.experiment_id
                   AND q.target_efficiency = p.target_efficiency);

-- Intervals of the measured figures (docs/science.md, "Intervals of the measured figures";
-- docs/schema.md). Written by `hetscale analyze` in the transaction that writes
-- required_work; the views show them beside each figure.
--
-- required_work: the 95% interval of the required parameter (the stratified residual
-- bootstrap) and of the work W at its bounds; a bound beyond the measured sizes is NULL,
-- and interval_note says why, as it says why there is no interval at all. interval_method
-- is NULL in rows stored before this migration.
ALTER TABLE hetscale.required_work
  ADD COLUMN parameter_low       double precision,
  ADD COLUMN parameter_high      double precision,
  ADD COLUMN work_low            double precision,
  ADD COLUMN work_high           double precision,
  ADD COLUMN interval_level      double precision
    CONSTRAINT required_work_interval_level_check CHECK (interval_level > 0 AND interval_level < 1),
  ADD COLUMN interval_method     text,
  ADD COLUMN interval_resamples  integer
    CONSTRAINT required_work_interval_resamples_check CHECK (interval_resamples > 0),
  ADD COLUMN interval_note       text;

-- Per set and parameter value: the runs' mean E_s with its Student t interval (NULL with
-- fewer than 2 runs, interval_note '1 run'), as of the runs analyze read.
CREATE TABLE hetscale.efficiency_intervals (
  experiment_id      bigint NOT NULL REFERENCES hetscale.experiments,
  set_index          integer NOT NULL CHECK (set_index >= 0),
  parameter_value    double precision NOT NULL,
  runs               integer NOT NULL CHECK (runs > 0),
  speed_efficiency   double precision NOT NULL,
  speed_efficiency_low   double precision,
  speed_efficiency_high  double precision,
  interval_level     double precision NOT NULL CHECK (interval_level > 0 AND interval_level < 1),
  interval_method    text NOT NULL,
  interval_note      text,
  computed_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (experiment_id, set_index, parameter_value),
  CHECK ((speed_efficiency_low IS NULL) = (speed_efficiency_high IS NULL))
);

-- Per consecutive pair of stored sets at a target (the pairs of set_psi): psi's interval
-- from the two sets' bootstrap replicates, paired index-wise.
CREATE TABLE hetscale.psi_intervals (
  experiment_id       bigint NOT NULL REFERENCES hetscale.experiments,
  target_efficiency   double precision NOT NULL CHECK (target_efficiency > 0),
  set_index           integer NOT NULL CHECK (set_index >= 0),
  next_set_index      integer NOT NULL CHECK (next_set_index > set_index),
  psi_low             double precision,
  psi_high            double precision,
  interval_level      double precision NOT NULL CHECK (interval_level > 0 AND interval_level < 1),
  interval_method     text NOT NULL,
  interval_resamples  integer CHECK (interval_resamples > 0),
  interval_note       text,
  computed_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (experiment_id, target_efficiency, set_index)
);

ALTER TABLE hetscale.efficiency_intervals OWNER TO hetscale_admin;
ALTER TABLE hetscale.psi_intervals OWNER TO hetscale_admin;

-- Rows of an experiment are its owner's, as required_work's (0011_owners.sql).
ALTER TABLE hetscale.efficiency_intervals ENABLE ROW LEVEL SECURITY;
CREATE POLICY efficiency_intervals_read ON hetscale.efficiency_intervals FOR SELECT USING (true);
CREATE POLICY efficiency_intervals_owner ON hetscale.efficiency_intervals
  USING (EXISTS (SELECT FROM hetscale.experiments e
                 WHERE e.experiment_id = efficiency_intervals.experiment_id
                   AND e.owner = current_user))
  WITH CHECK (EXISTS (SELECT FROM hetscale.experiments e
                      WHERE e.experiment_id = efficiency_intervals.experiment_id
                        AND e.owner = current_user));

ALTER TABLE hetscale.psi_intervals ENABLE ROW LEVEL SECURITY;
CREATE POLICY psi_intervals_read ON hetscale.psi_intervals FOR SELECT USING (true);
CREATE POLICY psi_intervals_owner ON hetscale.psi_intervals
  USING (EXISTS (SELECT FROM hetscale.experiments e
                 WHERE e.experiment_id = psi_intervals.experiment_id
                   AND e.owner = current_user))
  WITH CHECK (EXISTS (SELECT FROM hetscale.experiments e
                      WHERE e.experiment_id = psi_intervals.experiment_id
                        AND e.owner = current_user));

-- As in 0012_view_owners.sql, with the stored interval of each point as its last columns:
-- NULL bounds and a note when the point's runs are not the runs analyze read (runs loaded
-- since, or never analyzed).
CREATE OR REPLACE VIEW hetscale.set_efficiency_curve WITH (security_invoker = true) AS
SELECT c.experiment_id,
       c.experiment,
       c.set_index,
       c.parameter_value,
       c.runs,
       c.work,
       c.speed_efficiency,
       c.min_speed_efficiency,
       c.max_speed_efficiency,
       c.stddev_speed_efficiency,
       c.experiment_owner,
       c.experiment_cluster,
       i.speed_efficiency_low,
       i.speed_efficiency_high,
       CASE WHEN i.experiment_id IS NULL
            THEN 'not analyzed since these runs were loaded: run hetscale analyze'
            ELSE i.interval_note END AS speed_efficiency_interval_note,
       i.interval_level,
       i.interval_method
FROM (
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
           parameter_value
) c
LEFT JOIN hetscale.efficiency_intervals i
       ON i.experiment_id = c.experiment_id AND i.set_index = c.set_index
      AND i.parameter_value = c.parameter_value AND i.runs = c.runs;

-- As in 0012_view_owners.sql, with the intervals as its last columns.
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
       e.cluster AS experiment_cluster,
       w.parameter_low,
       w.parameter_high,
       w.work_low,
       w.work_high,
       w.interval_level,
       w.interval_method,
       w.interval_resamples,
       CASE WHEN w.interval_method IS NULL
            THEN 'no interval stored: run hetscale analyze again'
            ELSE w.interval_note END AS interval_note
FROM hetscale.required_work w
JOIN hetscale.experiments e USING (experiment_id);

-- As in 0012_view_owners.sql, with psi's interval as its last columns.
CREATE OR REPLACE VIEW hetscale.set_psi WITH (security_invoker = true) AS
SELECT pairs.experiment_id, pairs.experiment, pairs.target_efficiency,
       pairs.set_index, pairs.next_set_index,
       pairs.marked_speed, pairs.next_marked_speed,
       pairs.work, pairs.next_work,
       (pairs.next_marked_speed * pairs.work) / (pairs.marked_speed * pairs.next_work) AS psi,
       pairs.experiment_owner, pairs.experiment_cluster,
       i.psi_low,
       i.psi_high,
       CASE WHEN i.experiment_id IS NULL
            THEN 'no interval stored: run hetscale analyze again'
            ELSE i.interval_note END AS psi_interval_note
FROM (
  SELECT experiment_id, experiment, experiment_owner, experiment_cluster, target_efficiency,
         set_index, marked_speed, work,
         lead(set_index) OVER w AS next_set_index,
         lead(marked_speed) OVER w AS next_marked_speed,
         lead(work) OVER w AS next_work
  FROM hetscale.set_required_work
  WINDOW w AS (PARTITION BY experiment_id, target_efficiency ORDER BY set_index)
) pairs
LEFT JOIN hetscale.psi_intervals i
       ON i.experiment_id = pairs.experiment_id
      AND i.target_efficiency = pairs.target_efficiency
      AND i.set_index = pairs.set_index AND i.next_set_index = pairs.next_set_index
WHERE pairs.next_set_index IS NOT NULL;

GRANT SELECT ON hetscale.efficiency_intervals, hetscale.psi_intervals
  TO hetscale_writer, hetscale_reader;
GRANT INSERT, DELETE ON hetscale.efficiency_intervals, hetscale.psi_intervals
  TO hetscale_writer;
-- Rights of every view replaced here, as migrations 7, 11 and 12 set them (restated).
GRANT SELECT ON hetscale.set_efficiency_curve, hetscale.set_required_work, hetscale.set_psi
  TO hetscale_writer, hetscale_reader;

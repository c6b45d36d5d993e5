-- The short reason a figure has no interval, beside the note that details it, and the
-- level, method and resamples of psi's interval in set_psi (docs/science.md section 5;
-- docs/schema.md). A table cell shows the reason ("0.61 (1 run)", "1200 (too few runs)"),
-- the report's footnote the note. Written by `hetscale analyze` with the intervals.
ALTER TABLE hetscale.required_work ADD COLUMN interval_reason text;
ALTER TABLE hetscale.efficiency_intervals ADD COLUMN interval_reason text;
ALTER TABLE hetscale.psi_intervals ADD COLUMN interval_reason text;

-- Rows stored before: the note's words before its colon where it says why there is no
-- interval ("too few runs: 1 run at 800 ..." -> "too few runs"); none where a bound is
-- there or the note says why a bound is open (an interval open at both ends).
UPDATE hetscale.required_work SET interval_reason = split_part(interval_note, ':', 1)
WHERE interval_note IS NOT NULL AND parameter_low IS NULL AND parameter_high IS NULL
  AND interval_note NOT LIKE '%bound open:%';
UPDATE hetscale.efficiency_intervals SET interval_reason = split_part(interval_note, ':', 1)
WHERE interval_note IS NOT NULL AND speed_efficiency_low IS NULL;
UPDATE hetscale.psi_intervals SET interval_reason = split_part(interval_note, ':', 1)
WHERE interval_note IS NOT NULL AND psi_low IS NULL AND psi_high IS NULL
  AND interval_note NOT LIKE '%bound open:%';

-- As in 0021_intervals.sql, with the reason as its last column.
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
       i.interval_method,
       CASE WHEN i.experiment_id IS NULL THEN 'not analyzed'
            ELSE i.interval_reason END AS speed_efficiency_interval_reason
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

-- As in 0021_intervals.sql, with the reason as its last column.
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
            ELSE w.interval_note END AS interval_note,
       CASE WHEN w.interval_method IS NULL THEN 'not analyzed'
            ELSE w.interval_reason END AS interval_reason
FROM hetscale.required_work w
JOIN hetscale.experiments e USING (experiment_id);

-- As in 0021_intervals.sql, with the level, method, resamples and reason of psi's interval
-- as its last columns.
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
            ELSE i.interval_note END AS psi_interval_note,
       i.interval_level,
       i.interval_method,
       i.interval_resamples,
       CASE WHEN i.experiment_id IS NULL THEN 'not analyzed'
            ELSE i.interval_reason END AS psi_interval_reason
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

-- Rights of every view replaced here, as migrations 7, 11, 12 and 21 set them (restated).
GRANT SELECT ON hetscale.set_efficiency_curve, hetscale.set_required_work, hetscale.set_psi
  TO hetscale_writer, hetscale_reader;

-- The short reason a forecast row's figure has no interval, beside the note that details
-- it, as 0023_interval_reasons.sql gives the measured figures (docs/schema.md). A table
-- cell shows the reason ("1234 (too few runs)"), the report's footnote and the text
-- output of `hetscale predict` the note. Written by `hetscale predict` with the intervals.
ALTER TABLE hetscale.predictions
  ADD COLUMN interval_reason     text,
  ADD COLUMN psi_interval_reason text;

-- Rows stored before: the reason `hetscale predict` gives for the note's cause ("no
-- interval: 2 runs for 3 fitted coefficients ..." -> "too few runs", "... no parameter at
-- the target" -> "no parameter"), else the note's words before its colon; none where a
-- bound is there or the note says why a bound is open (an interval open at both ends).
UPDATE hetscale.predictions
SET interval_reason = CASE WHEN interval_note LIKE '%fitted coefficients%' THEN 'too few runs'
                           WHEN interval_note LIKE '%no parameter at the target%' THEN 'no parameter'
                           ELSE split_part(interval_note, ':', 1) END
WHERE interval_note IS NOT NULL AND predicted_parameter_low IS NULL
  AND predicted_parameter_high IS NULL AND interval_note NOT LIKE '%bound open:%';
UPDATE hetscale.predictions
SET psi_interval_reason = CASE WHEN psi_interval_note LIKE '%fitted coefficients%'
                               THEN 'too few runs'
                               ELSE split_part(psi_interval_note, ':', 1) END
WHERE psi_interval_note IS NOT NULL AND predicted_psi_low IS NULL AND predicted_psi_high IS NULL
  AND psi_interval_note NOT LIKE '%bound open:%';

-- As in 0022_forecast_intervals.sql, with the reasons as its last columns.
CREATE OR REPLACE VIEW hetscale.capacity_forecast WITH (security_invoker = true) AS
SELECT p.batch, p.position, p.experiment_id, e.name AS experiment, p.target_efficiency,
       p.kind, p.label, p.set_index, p.node_count, p.marked_speed,
       p.predicted_parameter, p.predicted_work, p.predicted_psi,
       p.measured_parameter, p.measured_work, p.relative_error, p.model, p.created_at,
       e.owner AS experiment_owner, e.cluster AS experiment_cluster,
       p.predicted_parameter_low,
       p.predicted_parameter_high,
       p.predicted_work_low,
       p.predicted_work_high,
       p.predicted_psi_low,
       p.predicted_psi_high,
       p.interval_level,
       p.interval_method,
       p.interval_resamples,
       CASE WHEN p.interval_method IS NULL
            THEN 'no interval stored: run hetscale predict again'
            ELSE p.interval_note END AS interval_note,
       CASE WHEN p.interval_method IS NULL AND p.predicted_psi IS NOT NULL
            THEN 'no interval stored: run hetscale predict again'
            ELSE p.psi_interval_note END AS psi_interval_note,
       CASE WHEN p.interval_method IS NULL THEN 'not stored'
            ELSE p.interval_reason END AS interval_reason,
       CASE WHEN p.interval_method IS NULL AND p.predicted_psi IS NOT NULL THEN 'not stored'
            ELSE p.psi_interval_reason END AS psi_interval_reason
FROM hetscale.predictions p
JOIN hetscale.experiments e USING (experiment_id)
WHERE p.batch = (SELECT max(q.batch) FROM hetscale.predictions q
                 WHERE q.experiment_id = p.experiment_id
                   AND q.target_efficiency = p.target_efficiency);

-- Rights of the view replaced here, as migrations 7, 11, 12 and 22 set them (restated).
GRANT SELECT ON hetscale.capacity_forecast TO hetscale_writer, hetscale_reader;

-- Intervals of the forecast rows (docs/science.md, "Intervals of the forecast";
-- docs/schema.md). Written by `hetscale predict` with the rows of its batch; the view
-- capacity_forecast shows them beside each figure.
--
-- predictions: the 90% prediction interval of the required parameter (the residual
-- bootstrap of the time model with run noise), of the work W at the parameter's replicates
-- and of psi against the row psi is against; a bound beyond the parameter range searched is
-- NULL, and interval_note (parameter and work) or psi_interval_note says why, as they say
-- why there is no interval at all. interval_method is NULL in rows stored before this
-- migration.
ALTER TABLE hetscale.predictions
  ADD COLUMN predicted_parameter_low   double precision,
  ADD COLUMN predicted_parameter_high  double precision,
  ADD COLUMN predicted_work_low        double precision,
  ADD COLUMN predicted_work_high       double precision,
  ADD COLUMN predicted_psi_low         double precision,
  ADD COLUMN predicted_psi_high        double precision,
  ADD COLUMN interval_level            double precision
    CONSTRAINT predictions_interval_level_check CHECK (interval_level > 0 AND interval_level < 1),
  ADD COLUMN interval_method           text,
  ADD COLUMN interval_resamples        integer
    CONSTRAINT predictions_interval_resamples_check CHECK (interval_resamples > 0),
  ADD COLUMN interval_note             text,
  ADD COLUMN psi_interval_note         text;

-- As in 0012_view_owners.sql, with the intervals as its last columns.
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
            ELSE p.psi_interval_note END AS psi_interval_note
FROM hetscale.predictions p
JOIN hetscale.experiments e USING (experiment_id)
WHERE p.batch = (SELECT max(q.batch) FROM hetscale.predictions q
                 WHERE q.experiment_id = p.experiment_id
                   AND q.target_efficiency = p.target_efficiency);

-- Rights of the view replaced here, as migrations 7, 11 and 12 set them (restated).
GRANT SELECT ON hetscale.capacity_forecast TO hetscale_writer, hetscale_reader;

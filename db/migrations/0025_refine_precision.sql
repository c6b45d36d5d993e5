-- The precision and budget of runs per set a round's refinement asks ([refine] precision
-- and max_runs_per_set; docs/experiment-spec.md, "Repetitions by precision"), stored beside
-- the round's other [refine] settings and readable by the writer and the reader as those
-- are (the plan itself is private, migration 20), and appended to set_required_work from
-- the experiment's latest plan, so that the report and the dashboards say whether each set
-- reached it (docs/schema.md, docs/dashboards.md). Written by plan loading.
ALTER TABLE hetscale.plan_rounds
  ADD COLUMN refine_precision         double precision
    CHECK (refine_precision > 0 AND refine_precision < 1),
  ADD COLUMN refine_max_runs_per_set  integer CHECK (refine_max_runs_per_set > 0),
  ADD CHECK (refine_precision IS NOT NULL OR refine_max_runs_per_set IS NULL);

-- Rounds loaded before: what their plan says.
UPDATE hetscale.plan_rounds
SET refine_precision = (plan -> 'experiment' -> 'refine' ->> 'precision')::double precision,
    refine_max_runs_per_set = (plan -> 'experiment' -> 'refine' ->> 'max_runs_per_set')::integer
WHERE plan -> 'experiment' -> 'refine' ? 'precision';

GRANT SELECT (refine_precision, refine_max_runs_per_set)
  ON hetscale.plan_rounds TO hetscale_writer, hetscale_reader;

-- As in 0020_private_columns.sql, with the new columns at its end.
CREATE OR REPLACE VIEW hetscale.own_plan_rounds WITH (security_barrier = true) AS
SELECT p.* FROM hetscale.plan_rounds p
WHERE EXISTS (SELECT FROM hetscale.experiments e
              WHERE e.experiment_id = p.experiment_id AND e.owner = current_user)
   OR pg_has_role(current_user, 'hetscale_admin', 'MEMBER');

-- As in 0023_interval_reasons.sql, with the latest plan's precision and budget as its last
-- columns (NULL when it asks no precision).
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
            ELSE w.interval_reason END AS interval_reason,
       p.refine_precision AS precision,
       p.refine_max_runs_per_set AS max_runs_per_set
FROM hetscale.required_work w
JOIN hetscale.experiments e USING (experiment_id)
LEFT JOIN LATERAL (
  SELECT r.refine_precision, r.refine_max_runs_per_set FROM hetscale.plan_rounds r
  WHERE r.experiment_id = w.experiment_id
  ORDER BY r.plan_created DESC NULLS LAST, r.round DESC
  LIMIT 1
) p ON true;

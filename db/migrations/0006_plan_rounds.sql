-- Every round of an experiment as its plan file recorded it (docs/plan-file.md): the
-- first study is round 0, the k-th `hetscale jobgen --refine` round is round k. With the
-- spec's TOML text and [refine] settings, `hetscale jobgen --refine --db URI --experiment
-- NAME` plans the next round from the database alone, and `hetscale analyze` takes the
-- refine tolerance from the latest round. Plan files of older jobgens carry no round
-- number and add no row here.

CREATE TABLE hetscale.plan_rounds (
  experiment_id      bigint NOT NULL REFERENCES hetscale.experiments,
  round              integer NOT NULL CHECK (round >= 0),
  spec_path          text,
  spec_text          text,
  refine_steps       double precision[],
  refine_tolerance   double precision CHECK (refine_tolerance > 0 AND refine_tolerance < 1),
  refine_max_rounds  integer CHECK (refine_max_rounds >= 0),
  plan               jsonb NOT NULL,
  plan_created       timestamptz,
  loaded_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (experiment_id, round),
  CHECK ((spec_path IS NULL) = (spec_text IS NULL)),
  CHECK ((refine_steps IS NULL) = (refine_tolerance IS NULL)
         AND (refine_tolerance IS NULL) = (refine_max_rounds IS NULL))
);

-- hetscale schema, tables (DESIGN.md contract 3.5; documented in docs/schema.md).
-- Never edit this file once it is in main: add a new numbered migration instead.

-- Units marked speeds are quoted in, in base units (operations, bytes) per second; the
-- same list as core's known_speed_units() (core/src/units.cpp).
CREATE TABLE hetscale.speed_units (
  unit            text PRIMARY KEY,
  ops_per_second  double precision NOT NULL CHECK (ops_per_second > 0)
);
INSERT INTO hetscale.speed_units (unit, ops_per_second) VALUES
  ('flops', 1), ('Kflops', 1e3), ('Mflops', 1e6), ('Gflops', 1e9), ('Tflops', 1e12),
  ('Pflops', 1e15),
  ('flop/s', 1), ('Kflop/s', 1e3), ('Mflop/s', 1e6), ('Gflop/s', 1e9), ('Tflop/s', 1e12),
  ('Pflop/s', 1e15),
  ('op/s', 1), ('Kop/s', 1e3), ('Mop/s', 1e6), ('Gop/s', 1e9), ('Top/s', 1e12),
  ('B/s', 1), ('KB/s', 1e3), ('MB/s', 1e6), ('GB/s', 1e9), ('TB/s', 1e12),
  ('KiB/s', 1024), ('MiB/s', 1048576), ('GiB/s', 1073741824), ('TiB/s', 1099511627776);

CREATE TABLE hetscale.sites (
  site_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name        text NOT NULL UNIQUE,
  speed_unit  text NOT NULL,
  benchmark   text NOT NULL
);

CREATE TABLE hetscale.groups (
  group_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  site_id       bigint NOT NULL REFERENCES hetscale.sites,
  name          text NOT NULL,
  marked_speed  double precision NOT NULL CHECK (marked_speed > 0),
  UNIQUE (site_id, name)
);

CREATE TABLE hetscale.nodes (
  node_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  site_id       bigint NOT NULL REFERENCES hetscale.sites,
  name          text NOT NULL,
  group_id      bigint NOT NULL REFERENCES hetscale.groups,
  processors    integer NOT NULL CHECK (processors > 0),
  marked_speed  double precision NOT NULL CHECK (marked_speed > 0),
  state         text NOT NULL CHECK (state IN ('ok', 'degraded', 'excluded')),
  UNIQUE (site_id, name)
);

-- Every marked speed seen for a node, by the time of the plan that carried it.
CREATE TABLE hetscale.benchmark_history (
  node_id       bigint NOT NULL REFERENCES hetscale.nodes,
  benchmark     text NOT NULL,
  observed_at   timestamptz NOT NULL,
  marked_speed  double precision NOT NULL CHECK (marked_speed > 0),
  PRIMARY KEY (node_id, benchmark, observed_at)
);

-- Created by the first run record or plan file naming it; the plan fills the rest.
CREATE TABLE hetscale.experiments (
  experiment_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name               text NOT NULL UNIQUE,
  code               text,
  workload           text,
  parameter          text,
  target_efficiency  double precision CHECK (target_efficiency > 0 AND target_efficiency <= 1),
  site_id            bigint REFERENCES hetscale.sites,
  plan_created       timestamptz
);

CREATE TABLE hetscale.machine_sets (
  machine_set_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  experiment_id     bigint NOT NULL REFERENCES hetscale.experiments,
  set_index         integer NOT NULL CHECK (set_index >= 0),
  node_count        integer NOT NULL CHECK (node_count > 0),
  marked_speed      double precision NOT NULL CHECK (marked_speed > 0),
  parameter_values  double precision[] NOT NULL,
  UNIQUE (experiment_id, set_index)
);

CREATE TABLE hetscale.machine_set_members (
  machine_set_id  bigint NOT NULL REFERENCES hetscale.machine_sets,
  node_id         bigint NOT NULL REFERENCES hetscale.nodes,
  PRIMARY KEY (machine_set_id, node_id)
);

CREATE TABLE hetscale.machine_set_groups (
  machine_set_id  bigint NOT NULL REFERENCES hetscale.machine_sets,
  group_id        bigint NOT NULL REFERENCES hetscale.groups,
  node_count      integer NOT NULL CHECK (node_count >= 0),
  PRIMARY KEY (machine_set_id, group_id)
);

-- One row per run record. run_key is the natural key: SHA-256 of the record's
-- identifying fields (docs/schema.md), so loading a record again adds nothing.
CREATE TABLE hetscale.runs (
  run_id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_key              bytea NOT NULL UNIQUE,
  experiment_id        bigint NOT NULL REFERENCES hetscale.experiments,
  code                 text NOT NULL,
  workload             text NOT NULL,
  parameters           jsonb NOT NULL,
  work                 double precision NOT NULL CHECK (work > 0),
  wall_seconds         double precision NOT NULL CHECK (wall_seconds > 0),
  marked_speed         double precision NOT NULL CHECK (marked_speed >= 0),
  speed_unit           text NOT NULL,
  weights_source       text NOT NULL,
  set_index            integer CHECK (set_index >= 0),
  repetition           integer NOT NULL CHECK (repetition >= 0),
  slurm_job_id         bigint,
  slurm_array_job_id   bigint,
  slurm_array_task_id  bigint,
  slurm_step_id        bigint,
  node_list            text NOT NULL,
  start_time           timestamptz,
  end_time             timestamptz,
  verified             boolean NOT NULL,
  fingerprint          jsonb NOT NULL,
  source_file          text NOT NULL,
  source_line          integer NOT NULL,
  loaded_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX runs_experiment_set ON hetscale.runs (experiment_id, set_index);

CREATE TABLE hetscale.rank_timings (
  run_id                 bigint NOT NULL REFERENCES hetscale.runs,
  rank                   integer NOT NULL CHECK (rank >= 0),
  host                   text NOT NULL,
  weight                 double precision NOT NULL CHECK (weight >= 0),
  marked_speed           double precision NOT NULL CHECK (marked_speed >= 0),
  compute_seconds        double precision NOT NULL CHECK (compute_seconds >= 0),
  communication_seconds  double precision NOT NULL CHECK (communication_seconds >= 0),
  wall_seconds           double precision NOT NULL CHECK (wall_seconds >= 0),
  PRIMARY KEY (run_id, rank)
);

-- Written by `hetscale analyze`: the parameter and work at which each set's fitted
-- E_s curve (core's EfficiencyCurve) reaches a target, and the set's marked speed used.
CREATE TABLE hetscale.required_work (
  experiment_id       bigint NOT NULL REFERENCES hetscale.experiments,
  set_index           integer NOT NULL CHECK (set_index >= 0),
  target_efficiency   double precision NOT NULL CHECK (target_efficiency > 0),
  node_count          integer NOT NULL CHECK (node_count > 0),
  marked_speed        double precision NOT NULL CHECK (marked_speed > 0),
  status              text NOT NULL
                      CHECK (status IN ('found', 'below_range', 'above_range', 'too_few_points')),
  parameter_value     double precision,
  work                double precision,
  nearest_efficiency  double precision,
  explanation         text NOT NULL,
  computed_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (experiment_id, set_index, target_efficiency),
  CHECK ((status = 'found') = (work IS NOT NULL AND parameter_value IS NOT NULL))
);

-- Network probes: hetscale-commbench's output loaded by `hetscale collect` (docs/schema.md,
-- "network_probes"; the file's keys in docs/contracts.md). One row per probe file, the
-- file's JSON kept whole and its main figures as columns, so that a forecast reads the
-- network of a set from the database.
--
-- A probe belongs to the experiment it names (experiment_id), or, naming none, to its
-- site alone (site, the site table's name; '' when it was run without one): one probe of a
-- set of nodes serves every experiment with a machine set on them. Its set is its node list and process
-- count; machine_set is the index the probe was told (none when it was not). engine is
-- what ran it, as runs.engine: slurm, simgrid (the twin) or mpirun. probe_key is the
-- SHA-256 of the file's text: loading a file again adds nothing; a new measurement of the
-- same set is a new row (measured_at tells them apart).
--
-- The figures (NULL when the probe has no such part): between nodes (remote_*) and within a
-- node (local_*) the first segment's latency and the last segment's bandwidth of the
-- piecewise fit of point-to-point times, and its number of segments; the most concurrent
-- flows of the saturation test and the share of a lone flow's bandwidth each of them got;
-- each flow's bandwidth in the all-to-all; the collectives timed; the probe's duration.
CREATE TABLE hetscale.network_probes (
  probe_id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  probe_key               bytea NOT NULL,
  owner                   text NOT NULL DEFAULT current_user,
  experiment_id           bigint REFERENCES hetscale.experiments,
  site                    text NOT NULL,
  engine                  text NOT NULL CHECK (engine IN ('slurm', 'mpirun', 'simgrid')),
  machine_set             integer CHECK (machine_set >= 0),
  node_list               text[] NOT NULL CHECK (cardinality(node_list) >= 1),
  processes               integer NOT NULL CHECK (processes >= 2),
  slurm_job_id            bigint,
  measured_at             timestamptz,
  load                    text NOT NULL,
  remote_latency_us       double precision,
  remote_bandwidth_mbps   double precision CHECK (remote_bandwidth_mbps > 0),
  remote_segments         integer CHECK (remote_segments >= 1),
  local_latency_us        double precision,
  local_bandwidth_mbps    double precision CHECK (local_bandwidth_mbps > 0),
  local_segments          integer CHECK (local_segments >= 1),
  saturation_flows        integer CHECK (saturation_flows >= 1),
  saturation_share        double precision CHECK (saturation_share > 0 AND saturation_share <= 1),
  alltoall_per_flow_mbps  double precision CHECK (alltoall_per_flow_mbps > 0),
  collectives             integer NOT NULL CHECK (collectives >= 0),
  elapsed_seconds         double precision NOT NULL CHECK (elapsed_seconds >= 0),
  document                jsonb NOT NULL,
  source_file             text NOT NULL,
  loaded_at               timestamptz NOT NULL DEFAULT now(),
  UNIQUE (owner, probe_key)
);
CREATE INDEX network_probes_experiment ON hetscale.network_probes (experiment_id);
CREATE INDEX network_probes_site ON hetscale.network_probes (site, engine, processes);
ALTER TABLE hetscale.network_probes OWNER TO hetscale_admin;

-- A probe is its owner's; one of an experiment also needs the experiment to be theirs (as
-- a partition, migration 11). Every role reads every probe.
ALTER TABLE hetscale.network_probes ENABLE ROW LEVEL SECURITY;
CREATE POLICY network_probes_read ON hetscale.network_probes FOR SELECT USING (true);
CREATE POLICY network_probes_owner ON hetscale.network_probes
  USING (owner = current_user)
  WITH CHECK (owner = current_user
              AND (experiment_id IS NULL
                   OR EXISTS (SELECT FROM hetscale.experiments e
                              WHERE e.experiment_id = network_probes.experiment_id
                                AND e.owner = current_user)));

-- A writer adds probes (every column but the identity and the load time) and never changes
-- them: a probe is a measurement, added to and never rewritten.
GRANT SELECT ON hetscale.network_probes TO hetscale_writer, hetscale_reader;
GRANT INSERT (
  probe_key, owner, experiment_id, site, engine, machine_set, node_list, processes, slurm_job_id,
  measured_at, load, remote_latency_us, remote_bandwidth_mbps, remote_segments, local_latency_us,
  local_bandwidth_mbps, local_segments, saturation_flows, saturation_share, alltoall_per_flow_mbps,
  collectives, elapsed_seconds, document, source_file)
  ON hetscale.network_probes TO hetscale_writer;

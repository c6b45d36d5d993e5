-- The tasks' own times of a step timed from outside (docs/run-record.md, docs/schema.md).
--
-- runs.ranks_timed_by: the run record's optional `ranks_timed_by`, who timed the ranks'
-- wall_seconds when the code did not: 'step' (nominal, every rank the step's T) or 'spank'
-- (each task from its start to its exit in slurmstepd, the SPANK plugin's task times).
-- NULL: the program timed its ranks itself.
-- runs.node_times: the record's optional `node_times`, a JSON array of
-- {host, tasks, start_time, end_time, wall_seconds}: the step's start to end on every
-- node, from the same task times. NULL when not known.
ALTER TABLE hetscale.runs
  ADD COLUMN ranks_timed_by text
    CONSTRAINT runs_ranks_timed_by_check CHECK (ranks_timed_by IN ('step', 'spank')),
  ADD COLUMN node_times jsonb
    CONSTRAINT runs_node_times_check CHECK (jsonb_typeof(node_times) = 'array');

-- Step-timed runs loaded before this migration had nominal rank times.
UPDATE hetscale.runs SET ranks_timed_by = 'step' WHERE timed_by = 'step';

-- A writer inserts them with the other columns of its runs (0013_shared_rows.sql).
GRANT INSERT (ranks_timed_by, node_times) ON hetscale.runs TO hetscale_writer;

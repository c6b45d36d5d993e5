-- What each run's weights came from (docs/run-record.md, docs/admin.md).
--
-- runs.weights_digest: the run record's optional `weights_digest`: the SHA-256 (64
-- lower-case hex digits) of the site table rows and the partition the SPANK plugin used
-- (HETSCALE_WEIGHTS_DIGEST), or several joined by ',' when the step's nodes read different
-- versions. NULL when the record has none (weights not from the plugin, older records).
ALTER TABLE hetscale.runs
  ADD COLUMN weights_digest text
    CONSTRAINT runs_weights_digest_check
      CHECK (weights_digest ~ '^[0-9a-f]{64}(,[0-9a-f]{64})*$');

-- A writer inserts it with the other columns of its runs (0013_shared_rows.sql).
GRANT INSERT (weights_digest) ON hetscale.runs TO hetscale_writer;

/**
 * The results database's schema, as versioned migrations applied in order when a database is opened
 * (embedded or server: one SQL dialect, PostgreSQL's). A migration is never edited once released: a
 * change is a new one. A database whose version is newer than SCHEMA_VERSION is refused, not written.
 *
 * Every table hangs off `runs`; a case is keyed by (run_id, position), its place in the run, since a
 * case id may repeat across suites. Times are timestamptz, money is USD, durations are milliseconds.
 */
export interface Migration {
  version: number;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE runs (
  id              text PRIMARY KEY,
  -- What recorded it: run, record, vitest, merge or import.
  source          text NOT NULL,
  suite           text NOT NULL,
  suites          jsonb NOT NULL,
  started_at      timestamptz NOT NULL,
  finished_at     timestamptz NOT NULL,
  recorded_at     timestamptz NOT NULL DEFAULT now(),
  git_commit      text,
  git_branch      text,
  git_dirty       boolean,
  agent_cli       text,
  agent_version   text,
  model           text,
  recorded_model  text,
  variant         text,
  variant_gated   boolean,
  -- Set on one shard's results; a merged run has none and counts the shards it joined.
  shard_index     integer,
  shard_count     integer,
  merged_shards   integer,
  ci              boolean NOT NULL,
  node_version    text,
  platform        text,
  -- The case set: how many, and a hash of their ids in order (runs over the same cases share it).
  case_count      integer NOT NULL,
  case_set        text NOT NULL,
  passed          integer NOT NULL,
  failed          integer NOT NULL,
  errored         integer NOT NULL,
  skipped         integer NOT NULL,
  trial_count     integer NOT NULL,
  duration_ms     double precision NOT NULL,
  cost_usd        double precision,
  results_version integer NOT NULL,
  -- Where the run's files are: its results folder, latest.json's history copy, report.html.
  results_dir     text,
  results_file    text,
  report_file     text,
  -- False until every row of the run is written (they are written in one transaction).
  complete        boolean NOT NULL DEFAULT false
);
CREATE INDEX runs_finished_at ON runs (finished_at);

-- Every case ever recorded, once: what the history of a case (its last runs) starts from.
CREATE TABLE case_keys (
  suite   text NOT NULL,
  case_id text NOT NULL,
  PRIMARY KEY (suite, case_id)
);

CREATE TABLE cases (
  run_id        text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  position      integer NOT NULL,
  case_id       text NOT NULL,
  name          text NOT NULL,
  -- '' for a case outside any suite.
  suite         text NOT NULL,
  -- Copied from the run, for a case's last runs read from one index: when the run finished, and
  -- whether it is a whole run (not one shard of a run: the merged run counts instead).
  finished_at   timestamptz NOT NULL,
  whole_run     boolean NOT NULL,
  file          text,
  tags          jsonb NOT NULL,
  status        text NOT NULL,
  trial_count   integer NOT NULL,
  passed_trials integer NOT NULL,
  duration_ms   double precision NOT NULL,
  cost_usd      double precision,
  error         text,
  PRIMARY KEY (run_id, position)
);
CREATE INDEX cases_history ON cases (suite, case_id, finished_at DESC) WHERE whole_run AND status <> 'skipped';

CREATE TABLE trials (
  run_id            text NOT NULL,
  position          integer NOT NULL,
  trial             integer NOT NULL,
  status            text NOT NULL,
  -- How the agent's run ended (completed, max_turns, api_error, timeout, ...), when known.
  outcome           text,
  error             text,
  -- live, replay, cassette or stored; the recording it replayed, when known.
  origin            text,
  recording         text,
  agent_run_id      text,
  -- The trial's run folder (events, stream, the run): what a trajectory diff reads.
  run_folder        text,
  agent_cli         text,
  agent_version     text,
  model             text,
  cost_usd          double precision,
  recorded_cost_usd double precision,
  input_tokens      bigint,
  output_tokens     bigint,
  cache_read_tokens bigint,
  turns             integer,
  tool_calls        integer,
  duration_ms       double precision,
  PRIMARY KEY (run_id, position, trial),
  FOREIGN KEY (run_id, position) REFERENCES cases (run_id, position) ON DELETE CASCADE
);

CREATE TABLE scores (
  run_id    text NOT NULL,
  position  integer NOT NULL,
  trial     integer NOT NULL,
  seq       integer NOT NULL,
  scorer    text NOT NULL,
  score     double precision NOT NULL,
  passed    boolean NOT NULL,
  threshold double precision,
  PRIMARY KEY (run_id, position, trial, seq),
  FOREIGN KEY (run_id, position, trial) REFERENCES trials (run_id, position, trial) ON DELETE CASCADE
);

CREATE TABLE violations (
  run_id    text NOT NULL,
  position  integer NOT NULL,
  seq       integer NOT NULL,
  -- The trial it happened in, when the results say.
  trial     integer,
  scorer    text,
  rule      text NOT NULL,
  type      text NOT NULL,
  severity  text NOT NULL,
  message   text NOT NULL,
  expected  boolean NOT NULL,
  -- Where in the trial's run (an event index), when the rule pointed at one.
  pointer   jsonb,
  PRIMARY KEY (run_id, position, seq),
  FOREIGN KEY (run_id, position) REFERENCES cases (run_id, position) ON DELETE CASCADE
);

-- A trial's trajectory: its tool calls in order, when the results carried the trial's run (a
-- trial's first divergent step between two runs is a comparison of these rows).
CREATE TABLE steps (
  run_id      text NOT NULL,
  position    integer NOT NULL,
  trial       integer NOT NULL,
  seq         integer NOT NULL,
  event_index integer NOT NULL,
  agent       text NOT NULL,
  tool        text NOT NULL,
  tool_use_id text,
  input       jsonb NOT NULL,
  is_error    boolean,
  PRIMARY KEY (run_id, position, trial, seq),
  FOREIGN KEY (run_id, position, trial) REFERENCES trials (run_id, position, trial) ON DELETE CASCADE
);
`,
  },
  {
    // Flaky cases are told apart by the code they ran (see code-hash.ts): a case's verdicts are
    // compared only across runs of the same case file (and the same recording, or agent and model).
    version: 2,
    sql: `
ALTER TABLE cases ADD COLUMN code_hash text;
CREATE INDEX cases_code ON cases (case_id, code_hash);
`,
  },
  {
    // A run's rows are written (and an incomplete run's deleted) only by Store.record, table by
    // table in one transaction. The foreign keys' per-row checks cost more than the rows themselves
    // (10,000 steps: about 300 ms of checks against 100 ms of writing), so they are not declared.
    version: 3,
    sql: `
ALTER TABLE cases DROP CONSTRAINT cases_run_id_fkey;
ALTER TABLE trials DROP CONSTRAINT trials_run_id_position_fkey;
ALTER TABLE scores DROP CONSTRAINT scores_run_id_position_trial_fkey;
ALTER TABLE violations DROP CONSTRAINT violations_run_id_position_fkey;
ALTER TABLE steps DROP CONSTRAINT steps_run_id_position_trial_fkey;
`,
  },
  {
    // Each run gets a small number (the order runs were recorded in) that its cases carry: `evals
    // history` names a case's runs by it, a few bytes instead of a 32-character id, read with the
    // case's row off the cases_history index (over 100 runs x 1,000 cases, 1.2 MB of text became 0.3).
    version: 4,
    sql: `
ALTER TABLE runs ADD COLUMN seq serial;
ALTER TABLE runs ADD CONSTRAINT runs_seq_key UNIQUE (seq);
ALTER TABLE cases ADD COLUMN run_seq integer;
UPDATE cases c SET run_seq = r.seq FROM runs r WHERE r.id = c.run_id;
ALTER TABLE cases ALTER COLUMN run_seq SET NOT NULL;
`,
  },
];

/** The schema version this package writes: the last migration's. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

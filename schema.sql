-- phpcmp database schema: the source of truth.  The daemon embeds this file
-- and applies it at startup (server/db.c).
--
-- Layout: a preamble run on every open, outside any transaction, then
-- forward-only migration steps, each introduced by a line
--     -- @migration N: what it does
-- A step is applied only when PRAGMA user_version < N, inside one
-- transaction, and ends by setting user_version to N, so re-running the
-- whole file is harmless and an interrupted step leaves nothing behind.
-- Never edit a step that has shipped: add a new one.
--
-- Timestamps are UTC ISO 8601 text ("2026-11-29T21:00:00Z").

PRAGMA journal_mode = WAL;
PRAGMA foreign_keys = ON;

-- @migration 1: builds, cases, runs, comparisons, results
CREATE TABLE IF NOT EXISTS builds (
	id          INTEGER PRIMARY KEY,
	name        TEXT NOT NULL,
	php_version TEXT NOT NULL DEFAULT '',
	lib_path    TEXT NOT NULL,
	prefix      TEXT NOT NULL,
	sha256      TEXT NOT NULL,
	first_seen  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	last_seen   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	UNIQUE (name, sha256)
);

-- A case is stored once per distinct content (and source): a stored case
-- run again by a later run, or the same case POSTed again, gets a new
-- comparison, not a new case, so its history is in one place.
-- content_hash only speeds up that lookup; the content itself is compared.
CREATE TABLE IF NOT EXISTS cases (
	id           INTEGER PRIMARY KEY,
	title        TEXT NOT NULL,
	code         TEXT NOT NULL,
	setup        TEXT,
	flags        INTEGER NOT NULL DEFAULT 0,
	depth        INTEGER NOT NULL DEFAULT 512,
	expect       TEXT,
	iterations   INTEGER NOT NULL DEFAULT 0,
	source       TEXT,              -- path under cases/; NULL when submitted
	content_hash TEXT NOT NULL,
	created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX IF NOT EXISTS cases_content ON cases (content_hash);
CREATE INDEX IF NOT EXISTS cases_source ON cases (source, id);

-- params: the suite's parameters as JSON ("{}" for stored), so later suites
-- (generated: seed, count; measure) need no new columns.
CREATE TABLE IF NOT EXISTS runs (
	id            INTEGER PRIMARY KEY,
	suite         TEXT NOT NULL,
	params        TEXT NOT NULL DEFAULT '{}',
	status        TEXT NOT NULL DEFAULT 'queued'
	              CHECK (status IN ('queued', 'running', 'done', 'failed',
	                                'cancelled', 'interrupted')),
	base_build_id INTEGER REFERENCES builds (id),
	head_build_id INTEGER REFERENCES builds (id),
	total         INTEGER NOT NULL DEFAULT 0,
	done          INTEGER NOT NULL DEFAULT 0,
	same          INTEGER NOT NULL DEFAULT 0,
	differ        INTEGER NOT NULL DEFAULT 0,
	created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	started_at    TEXT,
	finished_at   TEXT,
	error         TEXT
);
CREATE INDEX IF NOT EXISTS runs_status ON runs (status, id);

-- One comparison per case per run (run_id NULL: a submitted case, which may
-- be compared any number of times).
CREATE TABLE IF NOT EXISTS comparisons (
	id         INTEGER PRIMARY KEY,
	case_id    INTEGER NOT NULL REFERENCES cases (id),
	run_id     INTEGER REFERENCES runs (id),
	verdict    TEXT NOT NULL CHECK (verdict IN ('same', 'differ')),
	differs    TEXT NOT NULL DEFAULT '',   -- "output,error_code"
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	UNIQUE (run_id, case_id)
);
CREATE INDEX IF NOT EXISTS comparisons_case ON comparisons (case_id, id);
CREATE INDEX IF NOT EXISTS comparisons_run_verdict ON comparisons (run_id, verdict, case_id);

CREATE TABLE IF NOT EXISTS results (
	comparison_id   INTEGER NOT NULL REFERENCES comparisons (id),
	role            TEXT NOT NULL CHECK (role IN ('base', 'head')),
	build_id        INTEGER NOT NULL REFERENCES builds (id),
	status          TEXT NOT NULL CHECK (status IN ('ok', 'error', 'crash', 'timeout')),
	signal          INTEGER,
	output          BLOB,               -- NULL when json_encode returned false
	output_is_false INTEGER NOT NULL DEFAULT 0,
	error_code      INTEGER NOT NULL DEFAULT 0,
	error_msg       TEXT,
	exc_class       TEXT,
	exc_msg         TEXT,
	printed         BLOB NOT NULL DEFAULT x'',
	warnings        TEXT NOT NULL DEFAULT '',
	failure         TEXT,
	instructions    INTEGER,            -- per call; NULL when not measured
	wall_ms         REAL,
	PRIMARY KEY (comparison_id, role)
) WITHOUT ROWID;

PRAGMA user_version = 1;

-- @migration 2: exact instruction counts and the callgrind dumps behind them
-- instr_total: instructions of all `iterations` measured calls (instructions
-- per call = instr_total / cases.iterations); dump_file: the callgrind
-- output file that holds that count, for callgrind_annotate / KCachegrind.
ALTER TABLE results ADD COLUMN instr_total INTEGER;
ALTER TABLE results ADD COLUMN dump_file TEXT;
CREATE INDEX IF NOT EXISTS cases_workloads ON cases (source, id) WHERE iterations > 0;

PRAGMA user_version = 2;

-- @migration 3: generated runs: a run's summary, every case's result hash, which generated case a case is
-- summary: what a suite has to say about a run beyond its counts, as JSON
-- (generated: coverage, corpus hashes, speed, the first mismatches); NULL if nothing.
ALTER TABLE runs ADD COLUMN summary TEXT;
-- Every generated case's result, as the hand-made method's "id flags error md5"
-- files keep it: `hashes` is `count` 8-byte little-endian result hashes (of
-- status, output, json_last_error(), its message, exception; server/common/gen.h),
-- one per index from `start`, as the base build answered.  Where the head
-- answered differently the case also has a comparison with both results in full.
CREATE TABLE IF NOT EXISTS generated_batches (
	run_id INTEGER NOT NULL REFERENCES runs (id),
	seed   INTEGER NOT NULL,
	start  INTEGER NOT NULL,
	count  INTEGER NOT NULL,
	hashes BLOB NOT NULL,
	PRIMARY KEY (run_id, seed, start)
) WITHOUT ROWID;
-- A stored case that is a generated one: (generator version, seed, index)
-- regenerates it (POST /api/generated).
CREATE TABLE IF NOT EXISTS generated_cases (
	case_id INTEGER PRIMARY KEY REFERENCES cases (id),
	version INTEGER NOT NULL,
	seed    INTEGER NOT NULL,
	idx     INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS generated_cases_ref ON generated_cases (version, seed, idx);

PRAGMA user_version = 3;

-- @migration 4: API tokens (server/auth.c)
-- `phpcmp token add NAME` prints a token once; only its SHA-256 is kept.
-- name: the person or CI job it belongs to (unique among active tokens).
-- A revoked token stays, so a request with it is told it was revoked.
CREATE TABLE IF NOT EXISTS tokens (
	id           INTEGER PRIMARY KEY,
	name         TEXT NOT NULL,
	hash         TEXT NOT NULL UNIQUE,   -- hex SHA-256 of the token's text
	created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	last_used_at TEXT,                   -- to the minute
	revoked_at   TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS tokens_active_name ON tokens (name) WHERE revoked_at IS NULL;

PRAGMA user_version = 4;

-- @migration 5: triage — buckets of alike mismatches, their state, who changed what
-- A bucket is every mismatch with the same key (server/bucket.c: which
-- fields differ, statuses, error codes, exception classes, the shape of the
-- first differing output bytes, the flags that matter).  Keys hold no ids or
-- times, so a later run's mismatches join the bucket, and its triage, of the
-- same difference found earlier.  mismatches / first_* / last_* are kept up
-- to date as comparisons are stored (one upsert each), so listings never
-- count over comparisons.
CREATE TABLE IF NOT EXISTS buckets (
	id                  INTEGER PRIMARY KEY,
	key                 TEXT NOT NULL UNIQUE,
	state               TEXT NOT NULL DEFAULT 'new'
	                    CHECK (state IN ('new', 'confirmed', 'expected', 'ignored', 'fixed')),
	assignee            TEXT,
	notes               TEXT NOT NULL DEFAULT '',
	mismatches          INTEGER NOT NULL DEFAULT 0,   -- comparisons in it, every run
	first_comparison_id INTEGER NOT NULL,             -- the representative
	last_comparison_id  INTEGER NOT NULL,
	first_run_id        INTEGER,                      -- NULL: first seen in a submitted case
	last_run_id         INTEGER,
	first_seen          TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	last_seen           TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	updated_at          TEXT,                         -- last triage change
	updated_by          TEXT,
	-- When set to fixed: the newest comparison and run then.  A mismatch
	-- stored later (in a later run, or submitted) is a reappearance.
	fixed_comparison_mark INTEGER,
	fixed_run_mark        INTEGER,
	reappeared_comparison_id INTEGER,                 -- the first one, until the state changes again
	reappeared_run_id   INTEGER,
	reappeared_at       TEXT
);
CREATE INDEX IF NOT EXISTS buckets_last ON buckets (last_comparison_id);

-- Per run (0: submitted cases): how many of its mismatches are in the bucket.
CREATE TABLE IF NOT EXISTS bucket_runs (
	run_id              INTEGER NOT NULL,
	bucket_id           INTEGER NOT NULL REFERENCES buckets (id),
	mismatches          INTEGER NOT NULL DEFAULT 0,
	first_comparison_id INTEGER NOT NULL,             -- the run's representative
	PRIMARY KEY (run_id, bucket_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS bucket_runs_bucket ON bucket_runs (bucket_id, run_id);

ALTER TABLE comparisons ADD COLUMN bucket_id INTEGER REFERENCES buckets (id);
CREATE INDEX IF NOT EXISTS comparisons_bucket ON comparisons (bucket_id, id) WHERE bucket_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS comparisons_bucket_run ON comparisons (bucket_id, run_id, id) WHERE bucket_id IS NOT NULL;
-- Mismatches stored before this migration get their bucket at startup.
CREATE INDEX IF NOT EXISTS comparisons_unbucketed ON comparisons (id)
	WHERE verdict = 'differ' AND bucket_id IS NULL;

-- The audit trail: every triage change (by: the person; "phpcmp" for the
-- daemon's own notes, e.g. a fixed bucket seen again).  changes is JSON:
-- {"state":["new","confirmed"],"assignee":[null,"bob"],"notes":["","..."]}.
CREATE TABLE IF NOT EXISTS triage_events (
	id            INTEGER PRIMARY KEY,
	bucket_id     INTEGER NOT NULL REFERENCES buckets (id),
	at            TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	by            TEXT NOT NULL,
	action        TEXT NOT NULL CHECK (action IN ('triage', 'reappeared')),
	changes       TEXT NOT NULL DEFAULT '{}',
	run_id        INTEGER,
	comparison_id INTEGER
);
CREATE INDEX IF NOT EXISTS triage_events_bucket ON triage_events (bucket_id, id);

PRAGMA user_version = 5;

-- @migration 6: php-src's .phpt tests (server/daemon/engine/phptrun.c, docs/phpt.md)
-- One row per test of a phpt run: its --TEST-- name and the verdict between
-- the builds (regression: PASS on the base, FAIL/BORK/crash/timeout on the
-- head; improvement: the reverse; differ: other different statuses, or
-- both FAIL with different output).  test: the file's name in the run's
-- folder, or the path given in "files".
CREATE TABLE IF NOT EXISTS phpt_tests (
	run_id  INTEGER NOT NULL REFERENCES runs (id),
	test    TEXT NOT NULL,
	name    TEXT NOT NULL DEFAULT '',
	verdict TEXT NOT NULL CHECK (verdict IN ('same', 'regression', 'improvement', 'differ')),
	PRIMARY KEY (run_id, test)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS phpt_tests_verdict ON phpt_tests (run_id, verdict, test);

-- Each build's result of a test: run-tests.php's status (or phpcmp's own
-- crash / timeout), why (skip, bork, xfail reason; the crash), the FILE
-- section's output as the SAPI wrote it and run-tests' .diff for a FAIL
-- (each kept up to 256 KiB).
CREATE TABLE IF NOT EXISTS phpt_results (
	run_id  INTEGER NOT NULL,
	test    TEXT NOT NULL,
	role    TEXT NOT NULL CHECK (role IN ('base', 'head')),
	status  TEXT NOT NULL CHECK (status IN ('PASS', 'FAIL', 'SKIP', 'BORK', 'XFAIL', 'XPASS',
	                                        'crash', 'timeout', 'error')),
	reason  TEXT,
	output  BLOB,
	diff    TEXT,
	wall_ms REAL,
	signal  INTEGER,
	PRIMARY KEY (run_id, test, role),
	FOREIGN KEY (run_id, test) REFERENCES phpt_tests (run_id, test)
) WITHOUT ROWID;

PRAGMA user_version = 6;

-- @migration 7: identical outputs of the builds stored once
-- output_same = 1: this result's output is the base result's (same
-- comparison), byte for byte; output is then NULL.  Readers take it with
-- RESULT_OUTPUT_SQL (server/daemon/store/db_internal.h).
ALTER TABLE results ADD COLUMN output_same INTEGER NOT NULL DEFAULT 0;

PRAGMA user_version = 7;

-- @migration 8: a base and several candidates
-- results: a role per build position ("base", "head" = the first candidate,
-- "cand2".."cand7"), no longer only base and head (SQLite cannot drop a
-- CHECK: the table is rebuilt with its rows).
CREATE TABLE results_new (
	comparison_id   INTEGER NOT NULL REFERENCES comparisons (id),
	role            TEXT NOT NULL CHECK (role = 'base' OR role = 'head' OR role GLOB 'cand[2-7]'),
	build_id        INTEGER NOT NULL REFERENCES builds (id),
	status          TEXT NOT NULL CHECK (status IN ('ok', 'error', 'crash', 'timeout')),
	signal          INTEGER,
	output          BLOB,
	output_is_false INTEGER NOT NULL DEFAULT 0,
	error_code      INTEGER NOT NULL DEFAULT 0,
	error_msg       TEXT,
	exc_class       TEXT,
	exc_msg         TEXT,
	printed         BLOB NOT NULL DEFAULT x'',
	warnings        TEXT NOT NULL DEFAULT '',
	failure         TEXT,
	instructions    INTEGER,
	wall_ms         REAL,
	instr_total     INTEGER,
	dump_file       TEXT,
	output_same     INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (comparison_id, role)
) WITHOUT ROWID;
INSERT INTO results_new SELECT comparison_id, role, build_id, status, signal, output, output_is_false,
	error_code, error_msg, exc_class, exc_msg, printed, warnings, failure, instructions, wall_ms,
	instr_total, dump_file, output_same FROM results;
DROP TABLE results;
ALTER TABLE results_new RENAME TO results;
-- A run's builds in order, base first, as a JSON array of builds.id
-- (base_build_id / head_build_id stay: the first two).
ALTER TABLE runs ADD COLUMN builds TEXT;
UPDATE runs SET builds = json_array(base_build_id, head_build_id)
	WHERE base_build_id IS NOT NULL AND head_build_id IS NOT NULL;
-- The candidate a bucket's mismatches are of (its role's build name when it
-- is not the first candidate; NULL: the first, the two-build "head").
ALTER TABLE buckets ADD COLUMN candidate TEXT;

PRAGMA user_version = 8;

-- @migration 9: phpt runs on every build, their regressions in buckets
-- phpt_results gets a role per build position like results
-- (migration 8), the verdict of that candidate against the base (NULL on
-- the base) and the bucket a regression or improvement is in (a bucket per
-- candidate, test and status pair: bucket_phpt_key in server/daemon/model/bucket.c).
CREATE TABLE phpt_results_new (
	run_id    INTEGER NOT NULL,
	test      TEXT NOT NULL,
	role      TEXT NOT NULL CHECK (role = 'base' OR role = 'head' OR role GLOB 'cand[2-7]'),
	status    TEXT NOT NULL CHECK (status IN ('PASS', 'FAIL', 'SKIP', 'BORK', 'XFAIL', 'XPASS',
	                                          'crash', 'timeout', 'error')),
	reason    TEXT,
	output    BLOB,
	diff      TEXT,
	wall_ms   REAL,
	signal    INTEGER,
	verdict   TEXT CHECK (verdict IS NULL OR verdict IN ('same', 'regression', 'improvement', 'differ')),
	bucket_id INTEGER REFERENCES buckets (id),
	PRIMARY KEY (run_id, test, role),
	FOREIGN KEY (run_id, test) REFERENCES phpt_tests (run_id, test)
) WITHOUT ROWID;
INSERT INTO phpt_results_new (run_id, test, role, status, reason, output, diff, wall_ms, signal, verdict)
	SELECT r.run_id, r.test, r.role, r.status, r.reason, r.output, r.diff, r.wall_ms, r.signal,
	       CASE WHEN r.role = 'head' THEN t.verdict END
	FROM phpt_results r LEFT JOIN phpt_tests t ON t.run_id = r.run_id AND t.test = r.test;
DROP TABLE phpt_results;
ALTER TABLE phpt_results_new RENAME TO phpt_results;
CREATE INDEX IF NOT EXISTS phpt_results_bucket ON phpt_results (bucket_id, run_id) WHERE bucket_id IS NOT NULL;
-- The test file as it was run (its sections: GET /api/runs/{id}/phpt?test=).
ALTER TABLE phpt_tests ADD COLUMN source BLOB;

PRAGMA user_version = 9;

-- @migration 10: coverage of ext/json for a run (docs/coverage.md)
-- One row per coverage build of a run made with "coverage": true: gcovr's
-- figures for json_encoder.c and json.c (files: a JSON array, per function,
-- with the unreached lines and branches), or why there are none (error).
-- gcovr's own HTML, Cobertura XML and JSON stay in the state dir
-- (STATE/coverage/run-N/ROLE/).
CREATE TABLE IF NOT EXISTS coverage (
	run_id     INTEGER NOT NULL REFERENCES runs (id),
	role       TEXT NOT NULL,
	build      TEXT NOT NULL,
	files      TEXT CHECK (files IS NULL OR json_valid(files)),
	error      TEXT,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	PRIMARY KEY (run_id, role)
) WITHOUT ROWID;

PRAGMA user_version = 10;

-- @migration 11: generated mismatches listed in bulk, stored in full on demand
-- Every mismatch of a generated run, in the order found: (seed, idx) makes
-- it again, so its full results need not be stored to be shown.  One row
-- per mismatching case, written with its batch in one transaction.
-- candidates: the roles whose digests differ from the base's ("head",
-- "head,cand3", ...).  signature is what the digests say
-- (server/daemon/engine/genrun.c: per differing candidate, the fields that differ
-- and the base's and candidate's status, error code, exception), the key
-- of the bounded sample stored in full during the run; digests: every
-- build's 32-byte record, base first, in the run's build order.  case_id:
-- the stored case (with every result in full and a comparison in this run)
-- once it is materialised -- during the run for a sample, on demand
-- (GET /api/runs/{id}/cases) for the rest.
CREATE TABLE IF NOT EXISTS generated_mismatches (
	seq         INTEGER PRIMARY KEY,
	run_id      INTEGER NOT NULL REFERENCES runs (id),
	seed        INTEGER NOT NULL,
	idx         INTEGER NOT NULL,
	signature   TEXT NOT NULL DEFAULT '',
	candidates  TEXT NOT NULL DEFAULT '',
	digests     BLOB,
	case_id     INTEGER REFERENCES cases (id),
	UNIQUE (run_id, seed, idx)
);
CREATE INDEX IF NOT EXISTS generated_mismatches_run ON generated_mismatches (run_id, seq);
CREATE INDEX IF NOT EXISTS generated_mismatches_signature
	ON generated_mismatches (run_id, signature, seq);
-- Runs before this step stored every mismatch in full.
INSERT OR IGNORE INTO generated_mismatches (run_id, seed, idx, case_id)
	SELECT m.run_id, g.seed, g.idx, g.case_id FROM generated_cases g
	JOIN comparisons m ON m.case_id = g.case_id WHERE m.run_id IS NOT NULL ORDER BY m.id;

PRAGMA user_version = 11;

-- @migration 12: reduction of mismatches to minimal reproducers (server/daemon/engine/reduce.c, docs/triage.md)
-- One row per mismatch reduced: a bucket's
-- representative and a bounded sample of its other members.  state:
-- done (reduced; the case in case_id), not_reproduced (its case run again
-- did not show the same signature), unsupported (nothing to reduce with).
-- signature: the bucket key without flags (server/daemon/model/bucket.c), what
-- every accepted step kept; root_key: signature + the reduced case's
-- canonical form (value source, flags by name, depth): mismatches whose
-- reduction lands on the same minimal case share it.  confirmation: the
-- reduced case run again in a new request and on newly started workers of
-- both builds: confirmed (the same signature both times), flaky (not
-- every time), state-dependent (only in the reducer's long-lived workers).
-- outputs: JSON, per build role, what the reduced case gave.
CREATE TABLE IF NOT EXISTS reductions (
	id            INTEGER PRIMARY KEY,
	bucket_id     INTEGER NOT NULL REFERENCES buckets (id),
	comparison_id INTEGER NOT NULL UNIQUE REFERENCES comparisons (id),
	representative INTEGER NOT NULL DEFAULT 0,   -- the bucket's first mismatch
	state         TEXT NOT NULL CHECK (state IN ('done', 'not_reproduced', 'unsupported')),
	found_as      TEXT NOT NULL DEFAULT '',      -- the original's title ("generated v1 seed 1 #132")
	signature     TEXT,
	root_key      TEXT,
	case_id       INTEGER REFERENCES cases (id),
	code          TEXT,
	setup         TEXT,
	flags         INTEGER,
	depth         INTEGER,
	outputs       TEXT,
	steps         INTEGER NOT NULL DEFAULT 0,    -- simplifications accepted
	executions    INTEGER NOT NULL DEFAULT 0,    -- cases run (each on both builds)
	seconds       REAL NOT NULL DEFAULT 0,
	complete      INTEGER NOT NULL DEFAULT 0,    -- 1: a fixpoint, 0: the budget ran out
	confirmation  TEXT CHECK (confirmation IN ('confirmed', 'flaky', 'state-dependent')),
	-- the reduced case's confirmed results: a comparison in no bucket
	reduced_comparison_id INTEGER REFERENCES comparisons (id),
	created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX IF NOT EXISTS reductions_bucket ON reductions (bucket_id, id);
CREATE INDEX IF NOT EXISTS reductions_root ON reductions (root_key, bucket_id);
CREATE INDEX IF NOT EXISTS reductions_reduced ON reductions (reduced_comparison_id)
	WHERE reduced_comparison_id IS NOT NULL;
-- One bucket per root cause: a bucket whose representative reduced to the
-- same root key as an older bucket's joins it (root_id = that bucket; NULL:
-- a root of its own, or not reduced yet).  Its rows, mismatches and triage
-- stay; listings show the root with its joined buckets' mismatches.
ALTER TABLE buckets ADD COLUMN root_id INTEGER REFERENCES buckets (id);

PRAGMA user_version = 12;

-- @migration 13: memory-error, the status of a sanitizer build's report (docs/sandbox.md)
-- A case on an AddressSanitizer/UBSan build (scripts/build-php.sh --flavour
-- asan) whose run had a sanitizer report is a memory-error whatever its
-- output; the report is its failure (phpt: its reason).  Both status CHECKs
-- gain it (SQLite cannot change a CHECK: the tables are rebuilt with their rows).
CREATE TABLE results_new (
	comparison_id   INTEGER NOT NULL REFERENCES comparisons (id),
	role            TEXT NOT NULL CHECK (role = 'base' OR role = 'head' OR role GLOB 'cand[2-7]'),
	build_id        INTEGER NOT NULL REFERENCES builds (id),
	status          TEXT NOT NULL CHECK (status IN ('ok', 'error', 'crash', 'timeout', 'memory-error')),
	signal          INTEGER,
	output          BLOB,
	output_is_false INTEGER NOT NULL DEFAULT 0,
	error_code      INTEGER NOT NULL DEFAULT 0,
	error_msg       TEXT,
	exc_class       TEXT,
	exc_msg         TEXT,
	printed         BLOB NOT NULL DEFAULT x'',
	warnings        TEXT NOT NULL DEFAULT '',
	failure         TEXT,
	instructions    INTEGER,
	wall_ms         REAL,
	instr_total     INTEGER,
	dump_file       TEXT,
	output_same     INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (comparison_id, role)
) WITHOUT ROWID;
INSERT INTO results_new SELECT comparison_id, role, build_id, status, signal, output, output_is_false,
	error_code, error_msg, exc_class, exc_msg, printed, warnings, failure, instructions, wall_ms,
	instr_total, dump_file, output_same FROM results;
DROP TABLE results;
ALTER TABLE results_new RENAME TO results;
CREATE TABLE phpt_results_new (
	run_id    INTEGER NOT NULL,
	test      TEXT NOT NULL,
	role      TEXT NOT NULL CHECK (role = 'base' OR role = 'head' OR role GLOB 'cand[2-7]'),
	status    TEXT NOT NULL CHECK (status IN ('PASS', 'FAIL', 'SKIP', 'BORK', 'XFAIL', 'XPASS',
	                                          'crash', 'timeout', 'error', 'memory-error')),
	reason    TEXT,
	output    BLOB,
	diff      TEXT,
	wall_ms   REAL,
	signal    INTEGER,
	verdict   TEXT CHECK (verdict IS NULL OR verdict IN ('same', 'regression', 'improvement', 'differ')),
	bucket_id INTEGER REFERENCES buckets (id),
	PRIMARY KEY (run_id, test, role),
	FOREIGN KEY (run_id, test) REFERENCES phpt_tests (run_id, test)
) WITHOUT ROWID;
INSERT INTO phpt_results_new SELECT run_id, test, role, status, reason, output, diff, wall_ms, signal,
	verdict, bucket_id FROM phpt_results;
DROP TABLE phpt_results;
ALTER TABLE phpt_results_new RENAME TO phpt_results;
CREATE INDEX IF NOT EXISTS phpt_results_bucket ON phpt_results (bucket_id, run_id) WHERE bucket_id IS NOT NULL;

PRAGMA user_version = 13;

-- @migration 14: case errors, a case whose own code does not compile (docs/cases.md)
-- error: the case error as JSON ({"message","section","line","column","role","build"},
-- lines and columns the user's own), NULL for a case that compiled on every
-- build.  Such a comparison's verdict reads "error" whatever `verdict` holds
-- (the builds' comparison, kept), it joins no bucket, and a run counts it in
-- `errors`, not in same or differ.
ALTER TABLE comparisons ADD COLUMN error TEXT;
ALTER TABLE runs ADD COLUMN errors INTEGER NOT NULL DEFAULT 0;

PRAGMA user_version = 14;

-- @migration 15: a reduction per mismatch and candidate (server/daemon/engine/reduce.c, docs/triage.md)
-- One case may differ on several candidates, each mismatch in that
-- candidate's bucket: each is reduced on its own candidate.  A reduction was
-- unique by comparison alone, so the first candidate's reduction stood for
-- every other's (their buckets showed another build's minimal case, and
-- stayed pending).  candidate: the bucket's candidate build name ('' for a
-- database from before candidates had names).  signature is now the reduced
-- case's own (what its root is keyed by); the reduction keeps the kind of
-- mismatch (bucket_reduction_target), no longer its shape.
CREATE TABLE reductions_new (
	id            INTEGER PRIMARY KEY,
	bucket_id     INTEGER NOT NULL REFERENCES buckets (id),
	comparison_id INTEGER NOT NULL REFERENCES comparisons (id),
	candidate     TEXT NOT NULL DEFAULT '',
	representative INTEGER NOT NULL DEFAULT 0,
	state         TEXT NOT NULL CHECK (state IN ('done', 'not_reproduced', 'unsupported')),
	found_as      TEXT NOT NULL DEFAULT '',
	signature     TEXT,
	root_key      TEXT,
	case_id       INTEGER REFERENCES cases (id),
	code          TEXT,
	setup         TEXT,
	flags         INTEGER,
	depth         INTEGER,
	outputs       TEXT,
	steps         INTEGER NOT NULL DEFAULT 0,
	executions    INTEGER NOT NULL DEFAULT 0,
	seconds       REAL NOT NULL DEFAULT 0,
	complete      INTEGER NOT NULL DEFAULT 0,
	confirmation  TEXT CHECK (confirmation IN ('confirmed', 'flaky', 'state-dependent')),
	reduced_comparison_id INTEGER REFERENCES comparisons (id),
	created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	UNIQUE (comparison_id, candidate)
);
INSERT INTO reductions_new SELECT r.id, r.bucket_id, r.comparison_id,
	coalesce((SELECT b.candidate FROM buckets b WHERE b.id = r.bucket_id), ''), r.representative,
	r.state, r.found_as, r.signature, r.root_key, r.case_id, r.code, r.setup, r.flags, r.depth,
	r.outputs, r.steps, r.executions, r.seconds, r.complete, r.confirmation,
	r.reduced_comparison_id, r.created_at FROM reductions r;
DROP TABLE reductions;
ALTER TABLE reductions_new RENAME TO reductions;
CREATE INDEX IF NOT EXISTS reductions_bucket ON reductions (bucket_id, id);
CREATE INDEX IF NOT EXISTS reductions_root ON reductions (root_key, bucket_id);
CREATE INDEX IF NOT EXISTS reductions_reduced ON reductions (reduced_comparison_id)
	WHERE reduced_comparison_id IS NOT NULL;

PRAGMA user_version = 15;

-- @migration 16: bounds on the reducer's and the measurer's work (issue 19, docs/triage.md, docs/api.md)
-- A reduction may now be skipped (beyond --reduce-max-pending buckets of
-- submitted cases waiting; runs' buckets are not cut) or too_slow (its original
-- ran past --reduce-case-timeout-ms where the run's own limit let it end).
-- results.iterations: the calls a measured result really made (a submitted
-- case's requested count is capped by --measure-budget-ms; NULL: not measured).
CREATE TABLE reductions_new (
	id            INTEGER PRIMARY KEY,
	bucket_id     INTEGER NOT NULL REFERENCES buckets (id),
	comparison_id INTEGER NOT NULL REFERENCES comparisons (id),
	candidate     TEXT NOT NULL DEFAULT '',
	representative INTEGER NOT NULL DEFAULT 0,
	state         TEXT NOT NULL CHECK (state IN ('done', 'not_reproduced', 'unsupported',
	                                             'skipped', 'too_slow')),
	found_as      TEXT NOT NULL DEFAULT '',
	signature     TEXT,
	root_key      TEXT,
	case_id       INTEGER REFERENCES cases (id),
	code          TEXT,
	setup         TEXT,
	flags         INTEGER,
	depth         INTEGER,
	outputs       TEXT,
	steps         INTEGER NOT NULL DEFAULT 0,
	executions    INTEGER NOT NULL DEFAULT 0,
	seconds       REAL NOT NULL DEFAULT 0,
	complete      INTEGER NOT NULL DEFAULT 0,
	confirmation  TEXT CHECK (confirmation IN ('confirmed', 'flaky', 'state-dependent')),
	reduced_comparison_id INTEGER REFERENCES comparisons (id),
	created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	UNIQUE (comparison_id, candidate)
);
INSERT INTO reductions_new SELECT id, bucket_id, comparison_id, candidate, representative, state,
	found_as, signature, root_key, case_id, code, setup, flags, depth, outputs, steps, executions,
	seconds, complete, confirmation, reduced_comparison_id, created_at FROM reductions;
DROP TABLE reductions;
ALTER TABLE reductions_new RENAME TO reductions;
CREATE INDEX IF NOT EXISTS reductions_bucket ON reductions (bucket_id, id);
CREATE INDEX IF NOT EXISTS reductions_root ON reductions (root_key, bucket_id);
CREATE INDEX IF NOT EXISTS reductions_reduced ON reductions (reduced_comparison_id)
	WHERE reduced_comparison_id IS NOT NULL;
ALTER TABLE results ADD COLUMN iterations INTEGER;

PRAGMA user_version = 16;

-- @migration 17: an index for the reducer's lookups of older roots (docs/triage.md)
-- An older root's minimal case looked up by its source (db_reduce_find_root:
-- the reducer's explanations, after every reduction): without an index every
-- lookup read every reduction, ~9 ms each at 1,300 reductions.
CREATE INDEX IF NOT EXISTS reductions_minimal ON reductions (code, flags, depth)
	WHERE representative = 1 AND state = 'done';

PRAGMA user_version = 17;

-- @migration 18: results and phpt_results are rowid tables
-- Their rows hold whole outputs (megabytes: a candidate reading past its
-- buffer).  In a WITHOUT ROWID table a row is a cell of the key's B-tree, and
-- finding where a new row goes reads every big row on the way whole (SQLite
-- assembles a cell's overflow to compare its key): storing 300 pairs with a
-- 2 MB output took 14.5 s against 4.5 s in a rowid table, and 35 % of the
-- reducer's time on such a candidate.  Now the rows are in rowid order and
-- the key is a small index of its own (the same PRIMARY KEY, same lookups).
CREATE TABLE results_new (
	comparison_id   INTEGER NOT NULL REFERENCES comparisons (id),
	role            TEXT NOT NULL CHECK (role = 'base' OR role = 'head' OR role GLOB 'cand[2-7]'),
	build_id        INTEGER NOT NULL REFERENCES builds (id),
	status          TEXT NOT NULL CHECK (status IN ('ok', 'error', 'crash', 'timeout', 'memory-error')),
	signal          INTEGER,
	output          BLOB,
	output_is_false INTEGER NOT NULL DEFAULT 0,
	error_code      INTEGER NOT NULL DEFAULT 0,
	error_msg       TEXT,
	exc_class       TEXT,
	exc_msg         TEXT,
	printed         BLOB NOT NULL DEFAULT x'',
	warnings        TEXT NOT NULL DEFAULT '',
	failure         TEXT,
	instructions    INTEGER,
	wall_ms         REAL,
	instr_total     INTEGER,
	dump_file       TEXT,
	output_same     INTEGER NOT NULL DEFAULT 0,
	iterations      INTEGER,
	PRIMARY KEY (comparison_id, role)
);
INSERT INTO results_new SELECT comparison_id, role, build_id, status, signal, output, output_is_false,
	error_code, error_msg, exc_class, exc_msg, printed, warnings, failure, instructions, wall_ms,
	instr_total, dump_file, output_same, iterations FROM results ORDER BY comparison_id, role;
DROP TABLE results;
ALTER TABLE results_new RENAME TO results;
CREATE TABLE phpt_results_new (
	run_id    INTEGER NOT NULL,
	test      TEXT NOT NULL,
	role      TEXT NOT NULL CHECK (role = 'base' OR role = 'head' OR role GLOB 'cand[2-7]'),
	status    TEXT NOT NULL CHECK (status IN ('PASS', 'FAIL', 'SKIP', 'BORK', 'XFAIL', 'XPASS',
	                                          'crash', 'timeout', 'error', 'memory-error')),
	reason    TEXT,
	output    BLOB,
	diff      TEXT,
	wall_ms   REAL,
	signal    INTEGER,
	verdict   TEXT CHECK (verdict IS NULL OR verdict IN ('same', 'regression', 'improvement', 'differ')),
	bucket_id INTEGER REFERENCES buckets (id),
	PRIMARY KEY (run_id, test, role),
	FOREIGN KEY (run_id, test) REFERENCES phpt_tests (run_id, test)
);
INSERT INTO phpt_results_new SELECT run_id, test, role, status, reason, output, diff, wall_ms, signal,
	verdict, bucket_id FROM phpt_results ORDER BY run_id, test, role;
DROP TABLE phpt_results;
ALTER TABLE phpt_results_new RENAME TO phpt_results;
CREATE INDEX IF NOT EXISTS phpt_results_bucket ON phpt_results (bucket_id, run_id) WHERE bucket_id IS NOT NULL;

PRAGMA user_version = 18;

-- @migration 19: reviews — phpcmp review --url's verdicts kept by the daemon (docs/review.md)
-- One per review run on this daemon: its label, the builds it registered
-- (JSON [{"name","daemon_name","commit","patches"}], the review's names and
-- the daemon's), its runs (JSON {"generated":ID,"stored":ID,"phpt":ID,
-- "measure":ID}), the verdict and the report as the command wrote it
-- (Markdown), so the team reads what a CI job's review said where it
-- triages the runs.
CREATE TABLE IF NOT EXISTS reviews (
	id         INTEGER PRIMARY KEY,
	label      TEXT NOT NULL,
	verdict    TEXT NOT NULL CHECK (verdict IN ('same', 'differ')),
	builds     TEXT NOT NULL DEFAULT '[]',
	runs       TEXT NOT NULL DEFAULT '{}',
	report_md  TEXT NOT NULL,
	created_by TEXT,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

PRAGMA user_version = 19;

-- @migration 20: unsupported, a case a build cannot run (docs/cases.md, issue 45)
-- A case that compiled on some builds and not on others, or a stored case
-- whose --MIN-PHP-- is newer than a build's PHP, is unsupported on those
-- builds: their results are status error with the failure "unsupported:
-- <why>", left out of the verdict.  unsupported: how many builds of the
-- comparison; its verdict reads "unsupported" when the others agree (a
-- `verdict` of 'same').  A run counts such cases in `unsupported`.
ALTER TABLE comparisons ADD COLUMN unsupported INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN unsupported INTEGER NOT NULL DEFAULT 0;

PRAGMA user_version = 20;

-- @migration 21: a stored case's --EXPECTF-- (docs/cases.md)
-- expect holds run-tests.php's pattern (%d %s %f...), matched as run-tests
-- matches an EXPECTF section (phpt_expectf_match), not the exact bytes.
ALTER TABLE cases ADD COLUMN expectf INTEGER NOT NULL DEFAULT 0;

PRAGMA user_version = 21;

-- @migration 22: released PHP's answers to a case (issue 49, docs/api.md "Released PHP")
-- One row per case, reference runtime (php-7.4 ... php-8.5, kind "reference")
-- and that runtime's exact PHP version, so a runtime re-installed at another
-- version is asked again.  The result's columns are a build's (results),
-- without instruction counts: a reference measures none.  runtime: what the
-- worker said it is ("php-wasm 3.1.56 (node v20.20.2)").  A worker that did
-- not start leaves no row (it is asked again next time).
CREATE TABLE IF NOT EXISTS reference_results (
	case_id         INTEGER NOT NULL REFERENCES cases (id),
	name            TEXT NOT NULL,
	php_version     TEXT NOT NULL,
	runtime         TEXT NOT NULL DEFAULT '',
	status          TEXT NOT NULL,
	signal          INTEGER,
	output          BLOB,
	output_is_false INTEGER NOT NULL DEFAULT 0,
	error_code      INTEGER NOT NULL DEFAULT 0,
	error_msg       TEXT,
	exc_class       TEXT,
	exc_msg         TEXT,
	printed         BLOB NOT NULL DEFAULT x'',
	warnings        TEXT NOT NULL DEFAULT '',
	failure         TEXT,
	wall_ms         REAL,
	created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	PRIMARY KEY (case_id, name, php_version)
) WITHOUT ROWID;

PRAGMA user_version = 22;

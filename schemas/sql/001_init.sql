-- 001_init.sql — keynode's service schema: task sets and versioned tasks, runs with their
-- append-only events and key-node results, replay results, task health and its transitions,
-- alerts and their deliveries, the semantic-verdict cache and the replay job queue; plus the
-- SQL functions that build the API's JSON shapes (services/http/API.md) so every caller gets
-- the same shape. Applied by kn_store_migrate in one transaction (schemas/sql/README.md).

-- RFC 3339 in UTC with milliseconds, the timestamp format of every API answer.
CREATE FUNCTION kn_ts(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

CREATE TABLE tasksets (
	id        bigserial PRIMARY KEY,
	name      text NOT NULL UNIQUE,
	source    text,
	loaded_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- A task is (set, task id as in its file); its definitions are versions.
CREATE TABLE tasks (
	id              bigserial PRIMARY KEY,
	taskset_id      bigint NOT NULL REFERENCES tasksets ON DELETE CASCADE,
	task_key        text NOT NULL,
	current_version bigint,
	active          boolean NOT NULL DEFAULT true,   -- false: absent from the set's last load
	UNIQUE (taskset_id, task_key)
);
CREATE INDEX tasks_key ON tasks (task_key);

-- definition is kn_store_task_json (json, not jsonb: the canonical key order is kept);
-- hash is sha256 of that text, so an unchanged task keeps its version.
CREATE TABLE task_versions (
	id         bigserial PRIMARY KEY,
	task_id    bigint NOT NULL REFERENCES tasks ON DELETE CASCADE,
	version    int NOT NULL,
	hash       text NOT NULL,
	definition json NOT NULL,
	intent     text NOT NULL,
	start_url  text,
	site       text,          -- host of start_url, for ?site=
	key_nodes  int NOT NULL,
	created    timestamptz NOT NULL DEFAULT clock_timestamp(),
	UNIQUE (task_id, version)
);
ALTER TABLE tasks ADD FOREIGN KEY (current_version) REFERENCES task_versions DEFERRABLE INITIALLY DEFERRED;

CREATE TABLE runs (
	id           text PRIMARY KEY,
	task_version bigint NOT NULL REFERENCES task_versions,
	kind         text NOT NULL CHECK (kind IN ('agent', 'replay')),
	browser      text,
	started      timestamptz NOT NULL,
	ended        timestamptz,
	status       text NOT NULL DEFAULT 'running',
	steps        int,
	reached      int,
	total        int,
	score        double precision,
	completion   boolean,
	efficiency   double precision,
	result       json
);
CREATE INDEX runs_by_version_started ON runs (task_version, started DESC);
CREATE INDEX runs_started ON runs (started DESC);

-- Append-only; (run_id, seq) makes a retried insert a no-op. run_id is deliberately not a
-- foreign key: the per-row check cost 2-3x in insert throughput (tests/bench/RESULTS.md); the
-- batch insert (kn_store_events_append) checks the run once per batch instead, holding it
-- FOR KEY SHARE.
CREATE TABLE events (
	run_id text NOT NULL,
	seq    bigint NOT NULL CHECK (seq >= 1),
	line   json NOT NULL,
	PRIMARY KEY (run_id, seq)
);

CREATE TABLE keynode_results (
	run_id          text NOT NULL REFERENCES runs ON DELETE CASCADE,
	node_id         text NOT NULL,
	function        text,
	score           double precision,
	reached_at_step int,
	PRIMARY KEY (run_id, node_id)
);

CREATE TABLE jobs (
	id           bigserial PRIMARY KEY,
	task_version bigint NOT NULL REFERENCES task_versions,
	schedule     text NOT NULL DEFAULT '',
	state        text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done')),
	worker       text,
	lease_until  timestamptz,
	attempts     int NOT NULL DEFAULT 0,
	created      timestamptz NOT NULL DEFAULT clock_timestamp(),
	finished     timestamptz,
	replay_id    bigint
);
-- Claimable jobs, oldest first.
CREATE INDEX jobs_claimable ON jobs (id) WHERE state <> 'done';

CREATE TABLE replay_results (
	id           bigserial PRIMARY KEY,
	task_version bigint NOT NULL REFERENCES task_versions,
	run_id       text REFERENCES runs ON DELETE SET NULL,
	job_id       bigint REFERENCES jobs ON DELETE SET NULL,
	status       text NOT NULL CHECK (status IN ('passed', 'broken', 'error')),
	report       jsonb,
	screenshot   bytea,
	created      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX replay_results_by_version ON replay_results (task_version, created DESC);

-- Health is per task (across its versions).
CREATE TABLE task_health (
	task_id              bigint PRIMARY KEY REFERENCES tasks ON DELETE CASCADE,
	state                text NOT NULL CHECK (state IN ('unknown', 'healthy', 'flaky', 'broken', 'recovered', 'error')),
	consecutive_failures int NOT NULL DEFAULT 0,
	since                timestamptz NOT NULL DEFAULT clock_timestamp(),
	updated              timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE health_transitions (
	id         bigserial PRIMARY KEY,
	task_id    bigint NOT NULL REFERENCES tasks ON DELETE CASCADE,
	from_state text NOT NULL,
	to_state   text NOT NULL,
	at         timestamptz NOT NULL DEFAULT clock_timestamp(),
	evidence   jsonb
);
CREATE INDEX health_transitions_by_task ON health_transitions (task_id, at DESC);

CREATE TABLE alerts (
	id         bigserial PRIMARY KEY,
	dedupe_key text NOT NULL,
	severity   text NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
	title      text NOT NULL,
	detail     jsonb,
	created    timestamptz NOT NULL DEFAULT clock_timestamp(),
	acked_at   timestamptz
);
-- At most one open (unacknowledged) alert per dedupe key.
CREATE UNIQUE INDEX alerts_open_dedupe ON alerts (dedupe_key) WHERE acked_at IS NULL;
CREATE INDEX alerts_created ON alerts (created DESC);

CREATE TABLE alert_deliveries (
	id       bigserial PRIMARY KEY,
	alert_id bigint NOT NULL REFERENCES alerts ON DELETE CASCADE,
	channel  text NOT NULL,
	ok       boolean NOT NULL,
	attempts int NOT NULL,
	detail   text,
	at       timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX alert_deliveries_by_alert ON alert_deliveries (alert_id, at);

-- The LLM judge's cache. key is sha256 of the length-prefixed (model, prompt, rule, input), so
-- inputs of any length index; the columns are kept and compared too.
CREATE TABLE verdicts (
	key     text PRIMARY KEY,
	model   text NOT NULL,
	prompt  int NOT NULL,
	rule    text NOT NULL,
	input   text NOT NULL,
	score   double precision NOT NULL,
	reason  text,
	created timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE FUNCTION kn_verdict_key(model text, prompt int, rule text, input text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT encode(sha256(convert_to(format('%s:%s|%s|%s:%s|%s:%s', length(model), model, prompt,
	       length(rule), rule, length(input), input), 'UTF8')), 'hex')
$$;

-- ---- the API's JSON shapes (services/http/API.md) ----------------------------------------

-- RUN_SUMMARY
CREATE FUNCTION kn_run_summary(r runs) RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', r.id,
		'task', (SELECT t.task_key FROM task_versions v JOIN tasks t ON t.id = v.task_id WHERE v.id = r.task_version),
		'kind', r.kind, 'status', r.status, 'steps', r.steps, 'reached', r.reached, 'total', r.total,
		'score', r.score, 'completion', r.completion, 'efficiency', r.efficiency,
		'started', kn_ts(r.started), 'ended', kn_ts(r.ended))
$$;

-- REPLAY (as listed under a task and by GET /api/replays)
CREATE FUNCTION kn_replay_summary(p replay_results) RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', p.id,
		'task', (SELECT t.task_key FROM task_versions v JOIN tasks t ON t.id = v.task_id WHERE v.id = p.task_version),
		'status', p.status, 'run', p.run_id, 'job', p.job_id, 'created', kn_ts(p.created),
		'drift', p.report -> 'drift', 'broken', p.report -> 'broken',
		'screenshot', p.screenshot IS NOT NULL)
$$;

-- ALERT
CREATE FUNCTION kn_alert_json(a alerts) RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', a.id, 'severity', a.severity, 'title', a.title,
		'detail', COALESCE(a.detail, '{}'::jsonb), 'dedupe_key', a.dedupe_key,
		'created', kn_ts(a.created), 'acked', a.acked_at IS NOT NULL,
		'deliveries', COALESCE((SELECT json_agg(json_build_object('channel', d.channel, 'ok', d.ok,
			'attempts', d.attempts) ORDER BY d.at, d.id) FROM alert_deliveries d WHERE d.alert_id = a.id),
			'[]'::json))
$$;

-- Object a with the members of object b appended, keeping a's text and key order (json, not
-- jsonb, so stored definitions and results read back as they were written).
CREATE FUNCTION kn_json_merge(a json, b json) RETURNS json LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN a IS NULL OR json_typeof(a) <> 'object' THEN b
		WHEN NOT EXISTS (SELECT 1 FROM json_object_keys(a)) THEN b
		WHEN NOT EXISTS (SELECT 1 FROM json_object_keys(b)) THEN a
		ELSE (regexp_replace(a::text, '\}\s*$', '') || ',' || regexp_replace(b::text, '^\s*\{', ''))::json END
$$;

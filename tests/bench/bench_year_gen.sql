-- bench_year_gen.sql — a year of a Mind2Web-Live-sized keynode operation, generated in SQL
-- (tests/bench/bench_year.sh runs it with psql after uploading the task set through `keynode serve`).
-- Every row is shaped like what keynode writes: nightly replays of every active task (a replay run with
-- its events, key-node results, run result, the replay result with its report and, when it failed, a
-- screenshot, the done replay job, a trace row), agent batches (K attempts per task as agent jobs, each
-- with its agent run, events, key-node results and agent_results row), task health with its
-- transitions, alerts with their deliveries, schedule fires and one reference workflow per task.
-- The JSON is copied from real keynode output (tests/data/runs/m2w-test/*.jsonl for events,
-- tests/data/schema-valid/ for run results and replay reports), spread over :days days ending now.
-- psql variables: days, batches, repeat; evlines (event lines, one a line), run_result, replay_report,
-- agent_result (JSON), workflow (YAML text), shot (base64 of the screenshot) — set by the caller.
\set ON_ERROR_STOP on
SET synchronous_commit = off;

-- the real event lines, one per row, in file order
CREATE TEMP TABLE pool_ev (i serial, line json);
INSERT INTO pool_ev (line) SELECT l::json FROM regexp_split_to_table(:'evlines', E'\n') WITH ORDINALITY x (l, o)
WHERE l <> '' ORDER BY o;
CREATE TEMP TABLE consts AS SELECT
	now() - make_interval(days => :days) AS t0,
	(SELECT count(*) FROM pool_ev)::int AS npool,
	:'run_result'::json AS run_result,
	:'replay_report'::jsonb AS replay_report,
	:'agent_result'::jsonb AS agent_result,
	:'workflow'::text AS workflow,
	-- an incompressible screenshot (a real PNG does not compress either)
	decode(:'shot', 'base64') AS shot;

-- the tasks: ordinal, id, first and current version, key nodes
CREATE TEMP TABLE ytask AS
SELECT row_number() OVER (ORDER BY t.id)::int AS n, t.id AS task_id, t.task_key,
       (SELECT min(v.id) FROM task_versions v WHERE v.task_id = t.id) AS v1, t.current_version AS vcur,
       v.key_nodes, v.site
FROM tasks t JOIN task_versions v ON v.id = t.current_version WHERE t.active;

-- a deterministic pseudo-random number in [0, 100) from a text seed
CREATE FUNCTION pg_temp.pct(seed text) RETURNS int LANGUAGE sql IMMUTABLE AS
$$ SELECT abs(hashtext(seed)) % 100 $$;

-- ---- nightly replays ---------------------------------------------------------------------------
-- status: a task is broken for a whole week now and then (3 % of task-weeks: the site changed), else
-- an error (2 %) or blocked (2 %) night, else passed
CREATE TEMP TABLE yreplay AS
SELECT row_number() OVER (ORDER BY d, t.n)::bigint AS rid, d, t.n, t.task_id, t.key_nodes,
       CASE WHEN d < :days / 2 THEN t.v1 ELSE t.vcur END AS tv,
       'r-' || substr(md5('replay-' || t.n || '-' || d), 1, 16) AS run_id,
       (SELECT t0 FROM consts) + make_interval(days => d, hours => 2, secs => t.n * 20) AS started,
       CASE WHEN pg_temp.pct('wk' || t.n || '-' || (d / 7)) < 3 THEN 'broken'
            WHEN pg_temp.pct('e' || t.n || '-' || d) < 2 THEN 'error'
            WHEN pg_temp.pct('e' || t.n || '-' || d) < 4 THEN 'blocked'
            ELSE 'passed' END AS status,
       5 + pg_temp.pct('len' || t.n) % 8 AS nev
FROM generate_series(0, :days - 1) d CROSS JOIN ytask t;

-- ---- agent batches -----------------------------------------------------------------------------
INSERT INTO agent_batches (id, agent, repeat, retries, created)
SELECT b, 'm2w-agent', :repeat, 1, (SELECT t0 FROM consts) + (b - 1) * make_interval(days => :days) / :batches
FROM generate_series(1, :batches) b;
SELECT setval(pg_get_serial_sequence('agent_batches', 'id'), :batches);

CREATE TEMP TABLE yattempt AS
SELECT row_number() OVER (ORDER BY b.id, t.n, k)::bigint AS aid, b.id AS batch, t.n, t.task_id,
       t.vcur AS tv, t.key_nodes, k AS attempt_no,
       'r-' || substr(md5('agent-' || b.id || '-' || t.n || '-' || k), 1, 16) AS run_id,
       b.created + make_interval(secs => (t.n * :repeat + k) * 30) AS started,
       CASE WHEN pg_temp.pct('ae' || b.id || '-' || t.n || '-' || k) < 4 THEN 'error'
            WHEN pg_temp.pct('ae' || b.id || '-' || t.n || '-' || k) < 6 THEN 'blocked'
            ELSE 'done' END AS status,
       pg_temp.pct('ac' || b.id || '-' || t.n || '-' || k) < 35 AS completed,
       5 + pg_temp.pct('an' || b.id || '-' || t.n || '-' || k) % 21 AS nev
FROM agent_batches b CROSS JOIN ytask t CROSS JOIN generate_series(1, :repeat) k;

-- ---- jobs: replay jobs first, then agent jobs ---------------------------------------------------
INSERT INTO jobs (id, task_version, schedule, state, worker, lease_until, attempts, created, finished, replay_id)
SELECT rid, tv, 'nightly', 'done', 'worker-' || (n % 2 + 1), started + interval '2 min', 1,
       started - interval '1 min', started + interval '45 s', rid
FROM yreplay;
INSERT INTO jobs (id, task_version, schedule, state, worker, lease_until, attempts, created, finished,
                  kind, batch, agent, attempt_no)
SELECT (SELECT count(*) FROM yreplay) + aid, tv, '', 'done', 'worker-' || (n % 2 + 1),
       started + interval '5 min', 1, started - interval '1 min', started + interval '3 min', 'agent', batch,
       'm2w-agent', attempt_no
FROM yattempt;
SELECT setval(pg_get_serial_sequence('jobs', 'id'), (SELECT max(id) FROM jobs));

-- ---- runs (replay runs, then agent runs), their events and key-node results --------------------
CREATE TEMP TABLE yrun AS
SELECT run_id, tv, 'replay' AS kind, started, nev, key_nodes,
       CASE status WHEN 'passed' THEN key_nodes ELSE key_nodes / 2 END AS reached, n FROM yreplay
UNION ALL
SELECT run_id, tv, 'agent', started, nev, key_nodes,
       CASE WHEN completed THEN key_nodes ELSE key_nodes * pg_temp.pct(run_id) / 100 END, n FROM yattempt;

INSERT INTO runs (id, task_version, kind, browser, started, ended, status, steps, reached, total, score,
                  completion, efficiency, result)
SELECT r.run_id, r.tv, r.kind, 'chromium', r.started, r.started + make_interval(secs => r.nev * 4), 'finished',
       r.nev, r.reached, r.key_nodes, r.reached::float8 / greatest(r.key_nodes, 1), r.reached = r.key_nodes,
       r.nev::float8 / 6,
       kn_json_merge(json_build_object('task', (SELECT task_key FROM ytask WHERE n = r.n), 'run', r.run_id),
                     (SELECT run_result FROM consts))
FROM yrun r;

INSERT INTO events (run_id, seq, line)
SELECT r.run_id, s, p.line
FROM yrun r CROSS JOIN generate_series(1, r.nev) s
JOIN pool_ev p ON p.i = 1 + (abs(hashtext(r.run_id)) + s) % (SELECT npool FROM consts);

INSERT INTO keynode_results (run_id, node_id, function, score, reached_at_step)
SELECT r.run_id, 'k' || k, CASE k % 3 WHEN 0 THEN 'url_included_match' WHEN 1 THEN 'url_exactly_match'
       ELSE 'element_value_exactly_match' END,
       CASE WHEN k <= r.reached THEN 1 ELSE 0 END, CASE WHEN k <= r.reached THEN least(k * 2, r.nev) END
FROM yrun r CROSS JOIN generate_series(1, greatest(r.key_nodes, 1)) k;

-- ---- replay results, agent results -------------------------------------------------------------
INSERT INTO replay_results (id, task_version, run_id, job_id, status, report, screenshot, created)
SELECT rid, tv, run_id, rid, status,
       (SELECT replay_report FROM consts) || jsonb_build_object('run', run_id, 'status', status),
       CASE WHEN status IN ('broken', 'error') THEN (SELECT shot FROM consts) END,
       started + interval '45 s'
FROM yreplay;
SELECT setval(pg_get_serial_sequence('replay_results', 'id'), (SELECT max(id) FROM replay_results));

INSERT INTO agent_results (job_id, batch, task_version, attempt_no, worker, status, completed, score, result,
                           created, retried)
SELECT (SELECT count(*) FROM yreplay) + aid, batch, tv, attempt_no, 'worker-' || (n % 2 + 1), status,
       completed AND status = 'done', CASE WHEN completed THEN 1 ELSE pg_temp.pct(run_id)::float8 / 100 END,
       -- "task" as a worker's result.json has it (the statistics leave out a result without one)
       (SELECT agent_result FROM consts) || jsonb_build_object('run', run_id, 'task', tv::text, 'status',
         CASE status WHEN 'done' THEN 'finished' ELSE status END),
       started + interval '3 min', CASE WHEN status = 'error' THEN 1 ELSE 0 END
FROM yattempt;

-- a trace for every failed replay (serve/worker --trace failures)
INSERT INTO traces (run_id, path, kind, status, steps, shots, skipped, bytes, indexed)
SELECT run_id, '/var/lib/keynode/traces/' || run_id, 'replay', status, nev, nev, 0, 180000 * nev,
       started + interval '50 s'
FROM yreplay WHERE status <> 'passed';

-- ---- health: each change of a task's replay outcome is a transition; alerts for broken/error ----
CREATE TEMP TABLE ytrans AS
SELECT task_id, n, started + interval '46 s' AS at, prev, st FROM (
	SELECT task_id, n, started,
	       CASE status WHEN 'passed' THEN 'healthy' ELSE status END AS st,
	       lag(CASE status WHEN 'passed' THEN 'healthy' ELSE status END, 1, 'unknown')
	         OVER (PARTITION BY task_id ORDER BY d) AS prev, run_id
	FROM yreplay) x
WHERE st <> prev;
INSERT INTO health_transitions (task_id, from_state, to_state, at, evidence)
SELECT task_id, prev, st, at, jsonb_build_object('replay', n, 'status', st, 'consecutive_failures', 1)
FROM ytrans;
INSERT INTO task_health (task_id, state, consecutive_failures, since, updated)
SELECT DISTINCT ON (task_id) task_id, st, CASE WHEN st = 'healthy' THEN 0 ELSE 1 END, at, at
FROM ytrans ORDER BY task_id, at DESC;

INSERT INTO alerts (dedupe_key, severity, title, detail, created, acked_at)
SELECT 'health:' || task_id, CASE st WHEN 'broken' THEN 'critical' ELSE 'warning' END,
       'task ' || (SELECT task_key FROM ytask y WHERE y.task_id = x.task_id) || ' is ' || st,
       jsonb_build_object('task', (SELECT task_key FROM ytask y WHERE y.task_id = x.task_id), 'state', st,
         'from', prev, 'drift_page', '#/tasks/' || task_id || '/drift'),
       at, CASE WHEN row_number() OVER (PARTITION BY task_id ORDER BY at DESC) > 1 THEN at + interval '9 h' END
FROM ytrans x WHERE st IN ('broken', 'error');
INSERT INTO alert_deliveries (alert_id, channel, ok, attempts, detail, at)
SELECT id, 'webhook', true, 1, NULL, created + interval '1 s' FROM alerts;

INSERT INTO schedule_fires (schedule, fire_time, fired_at, jobs)
SELECT 'nightly', (SELECT t0 FROM consts) + make_interval(days => d, hours => 2),
       (SELECT t0 FROM consts) + make_interval(days => d, hours => 2), (SELECT count(*) FROM ytask)
FROM generate_series(0, :days - 1) d;

INSERT INTO task_workflows (task_id, version, task_version, recorded_at, uploaded, steps, viewport, hash, body)
SELECT task_id, 1, v1, '2026-01-05T10:00:00Z', (SELECT t0 FROM consts), 6, '1280x720',
       md5((SELECT workflow FROM consts) || task_key), (SELECT workflow FROM consts)
FROM ytask;

ANALYZE;

-- 130_year.sql — a year of data (tests/bench/bench_year.sh): retention and paged
-- listings. `keynode prune` (services/store/store_prune.c) deletes the events of finished runs older
-- than keynode.yaml's `retention:` in batches and marks each such run with events_pruned, so the API
-- can say why a run has no events and the next batch never looks at it again; it clears old failure
-- screenshots the same way. The listings page by keyset ((started, id), (created, id)), which needs
-- the id in the index.
ALTER TABLE runs ADD COLUMN events_pruned timestamptz;   -- NULL: the run's events are all kept
-- prune's candidates: finished runs whose events are kept, oldest first per kind
CREATE INDEX runs_events_kept ON runs (kind, started) WHERE events_pruned IS NULL AND ended IS NOT NULL;
-- GET /api/runs?before=RUN: the newest page and every older one by the index
CREATE INDEX runs_started_id ON runs (started DESC, id DESC);
DROP INDEX runs_started;
-- a task's runs, newest first, per version: GET /api/tasks' last_run, the task's runs, ?task= pages
-- (without it the planner walked runs_started down to each task's newest run: ~2,000 rows a task)
CREATE INDEX runs_by_version_started_id ON runs (task_version, started DESC, id DESC);
DROP INDEX runs_by_version_started;
-- GET /api/alerts (open ones) and ?all=1, paged by (created, id)
CREATE INDEX alerts_open_created ON alerts (created DESC, id DESC) WHERE acked_at IS NULL;
CREATE INDEX alerts_created_id ON alerts (created DESC, id DESC);
DROP INDEX alerts_created;
-- prune's candidates among the replay screenshots
CREATE INDEX replay_results_screenshots ON replay_results (created) WHERE screenshot IS NOT NULL;

-- 190_batch_stats.sql — a finished agent batch's page and statistics computed once (a batch's
-- page and a comparison of two batches on a year of data, tests/bench/bench_year.sh). A batch whose every
-- job is done never changes on its own: GET /api/agent-runs/{id} (its answer as served, "page") and the
-- slim results its statistics and comparisons read ("results", kn_store_agent_batch_results_json) are
-- stored here by the first serve that computes them (services/store/store_batch_stats.c) and read back
-- as one row. Any later change of what they are made from — a job of the batch inserted, claimed again,
-- done again or deleted, an attempt stored, replaced or deleted, the site of a version it ran — marks the
-- row dirty in the changing transaction (a new token, both texts NULL; an upsert, so a reader computing
-- at the same time either waits for that transaction or finds its token changed and stores nothing).
-- Views on another snapshot (?version=, ?snapshot=: rescores) are never cached. No foreign key: a
-- deleted batch's jobs mark its row dirty while the batch row goes (a dirty row is never served).
CREATE SEQUENCE agent_batch_stats_token;
CREATE TABLE agent_batch_stats (
	batch    bigint PRIMARY KEY,
	token    bigint NOT NULL,
	page     text,
	results  text,
	computed timestamptz
);

CREATE FUNCTION kn_batch_stats_dirty() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
	IF TG_TABLE_NAME = 'task_versions' THEN
		INSERT INTO agent_batch_stats (batch, token)
			SELECT x.batch, nextval('agent_batch_stats_token') FROM (SELECT DISTINCT j.batch FROM jobs j
			WHERE j.task_version = NEW.id AND j.batch IS NOT NULL) x
			ON CONFLICT (batch) DO UPDATE SET token = EXCLUDED.token, page = NULL, results = NULL, computed = NULL;
		RETURN NULL;
	END IF;
	r := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
	IF r.batch IS NOT NULL THEN
		INSERT INTO agent_batch_stats (batch, token) VALUES (r.batch, nextval('agent_batch_stats_token'))
			ON CONFLICT (batch) DO UPDATE SET token = EXCLUDED.token, page = NULL, results = NULL, computed = NULL;
	END IF;
	RETURN NULL;
END $$;

-- replay jobs (no batch) never call it: the replay queue's claims pay nothing
CREATE TRIGGER jobs_batch_stats AFTER INSERT OR UPDATE OF state, worker, attempts, task_version, batch, attempt_no
	ON jobs FOR EACH ROW WHEN (NEW.batch IS NOT NULL) EXECUTE FUNCTION kn_batch_stats_dirty();
CREATE TRIGGER jobs_batch_stats_delete AFTER DELETE ON jobs FOR EACH ROW WHEN (OLD.batch IS NOT NULL)
	EXECUTE FUNCTION kn_batch_stats_dirty();
CREATE TRIGGER agent_results_batch_stats AFTER INSERT OR UPDATE OR DELETE ON agent_results
	FOR EACH ROW EXECUTE FUNCTION kn_batch_stats_dirty();
CREATE TRIGGER task_versions_batch_stats AFTER UPDATE OF site ON task_versions
	FOR EACH ROW EXECUTE FUNCTION kn_batch_stats_dirty();

-- 200_batch_rows.sql — a finished agent batch's attempts kept packed (a comparison of two
-- batches of a year's data spent most of its time reading 2 × 0.9 MB of stored JSON back into
-- attempts). `rows` holds what services/runner/rundir_batch.c reads of the batch — its plan and every
-- attempt's numbers — in the compact text of services/runner/run_rows.h (≈ a third of the JSON's size,
-- read without a JSON parser), under the same token and rules as `page` (190_batch_stats.sql).
-- `results` (the JSON) is no longer read by this keynode: emptied here; a serve of an older keynode
-- still running during an upgrade computes and stores it again as before, and the trigger keeps
-- clearing all three texts on any change.
-- Inserted jobs mark their batches once per statement, not once per row: making a batch of 542 tasks
-- × 3 upserted its row 1,626 times in the inserting transaction (the insert took 330 ms, 55–75
-- ms with one upsert per statement, measured on the year of tests/bench/bench_year.sh).
ALTER TABLE agent_batch_stats ADD COLUMN rows text;
UPDATE agent_batch_stats SET results = NULL WHERE results IS NOT NULL;

-- the one place a batch's row is marked: a new token, every text NULL (upserted; each batch once)
CREATE FUNCTION kn_batch_stats_mark(batches bigint[]) RETURNS void LANGUAGE sql AS $$
	INSERT INTO agent_batch_stats (batch, token)
		SELECT b, nextval('agent_batch_stats_token') FROM (SELECT DISTINCT b FROM unnest(batches) b
		WHERE b IS NOT NULL) x
		ON CONFLICT (batch) DO UPDATE SET token = EXCLUDED.token, page = NULL, results = NULL, rows = NULL,
		computed = NULL
$$;

CREATE OR REPLACE FUNCTION kn_batch_stats_dirty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_TABLE_NAME = 'task_versions' THEN
		PERFORM kn_batch_stats_mark(ARRAY(SELECT j.batch FROM jobs j WHERE j.task_version = NEW.id));
	ELSIF TG_OP = 'DELETE' THEN
		PERFORM kn_batch_stats_mark(ARRAY[OLD.batch]);
	ELSE
		PERFORM kn_batch_stats_mark(ARRAY[NEW.batch]);
	END IF;
	RETURN NULL;
END $$;

CREATE FUNCTION kn_batch_stats_dirty_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM kn_batch_stats_mark(ARRAY(SELECT batch FROM inserted_jobs));
	RETURN NULL;
END $$;

DROP TRIGGER jobs_batch_stats ON jobs;
CREATE TRIGGER jobs_batch_stats AFTER UPDATE OF state, worker, attempts, task_version, batch, attempt_no
	ON jobs FOR EACH ROW WHEN (NEW.batch IS NOT NULL) EXECUTE FUNCTION kn_batch_stats_dirty();
CREATE TRIGGER jobs_batch_stats_insert AFTER INSERT ON jobs REFERENCING NEW TABLE AS inserted_jobs
	FOR EACH STATEMENT EXECUTE FUNCTION kn_batch_stats_dirty_inserted();

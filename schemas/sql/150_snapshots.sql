-- 150_snapshots.sql — task-set snapshots and rescores (schemas/sql/README.md).
-- A snapshot is one state of a task set: the current version of each of its active tasks, with a
-- content hash over them. A new one is taken at the commit of any transaction that changed a
-- task's current version or its active flag (an upload, an applied repair, an edit: every path that
-- writes tasks), once per set and transaction, and only when the hash differs from the set's latest
-- snapshot. Runs, replays and agent batches record the snapshot they were scored against; rescores
-- keep a stored run's score on another task version beside its original result.

CREATE TABLE taskset_snapshots (
	id         bigserial PRIMARY KEY,
	taskset_id bigint NOT NULL REFERENCES tasksets ON DELETE CASCADE,
	version    int NOT NULL,            -- 1, 2, … per set
	hash       text NOT NULL,           -- kn_taskset_hash at the time it was taken
	tasks      int NOT NULL,
	created    timestamptz NOT NULL DEFAULT clock_timestamp(),
	UNIQUE (taskset_id, version)
);

CREATE TABLE taskset_snapshot_tasks (
	snapshot     bigint NOT NULL REFERENCES taskset_snapshots ON DELETE CASCADE,
	task_id      bigint NOT NULL REFERENCES tasks ON DELETE CASCADE,
	task_version bigint NOT NULL REFERENCES task_versions ON DELETE CASCADE,
	PRIMARY KEY (snapshot, task_id)
);
-- The latest snapshot holding a task version (a run's, a replay's).
CREATE INDEX taskset_snapshot_tasks_by_version ON taskset_snapshot_tasks (task_version, snapshot DESC);

-- sha256 over "TASK_KEY<TAB>VERSION_HASH" lines of the set's active tasks, ordered by task key
-- (bytewise), joined by newlines: the same tasks at the same definitions give the same hash.
CREATE FUNCTION kn_taskset_hash(set_id bigint) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT encode(sha256(convert_to(COALESCE(string_agg(t.task_key || E'\t' || v.hash, E'\n'
		ORDER BY t.task_key COLLATE "C"), ''), 'UTF8')), 'hex')
	FROM tasks t JOIN task_versions v ON v.id = t.current_version
	WHERE t.taskset_id = set_id AND t.active
$$;

-- The part of a task definition the scorer reads (key nodes, answer, reference length — the step
-- budget and efficiency —, purchase) hashed: two versions with the same one score the same events
-- the same way; GET /api/agent-runs/compare pairs tasks on it.
CREATE FUNCTION kn_task_scoring_hash(definition json) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT encode(sha256(convert_to(json_build_array(definition -> 'key_nodes', definition -> 'answer',
		definition -> 'reference_length', definition -> 'purchase')::text, 'UTF8')), 'hex')
$$;

-- Take a snapshot of set_id when its hash differs from its latest one; returns the latest
-- snapshot's id (NULL for a set without an active task). The set's row is locked so two
-- transactions committing changes to one set take their snapshots one after the other.
CREATE FUNCTION kn_taskset_snapshot_take(set_id bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	h text;
	last_id bigint;
	last_hash text;
	n int;
	sid bigint;
BEGIN
	PERFORM 1 FROM tasksets WHERE id = set_id FOR UPDATE;
	SELECT count(*) INTO n FROM tasks WHERE taskset_id = set_id AND active AND current_version IS NOT NULL;
	SELECT id, hash INTO last_id, last_hash FROM taskset_snapshots WHERE taskset_id = set_id
		ORDER BY version DESC LIMIT 1;
	IF n = 0 THEN
		RETURN last_id;
	END IF;
	h := kn_taskset_hash(set_id);
	IF last_hash = h THEN
		RETURN last_id;
	END IF;
	INSERT INTO taskset_snapshots (taskset_id, version, hash, tasks)
		SELECT set_id, COALESCE(max(version), 0) + 1, h, n FROM taskset_snapshots WHERE taskset_id = set_id
		RETURNING id INTO sid;
	INSERT INTO taskset_snapshot_tasks (snapshot, task_id, task_version)
		SELECT sid, t.id, t.current_version FROM tasks t
		WHERE t.taskset_id = set_id AND t.active AND t.current_version IS NOT NULL;
	RETURN sid;
END
$$;

-- At commit (deferred), once per set and transaction: the first row event of a set takes the
-- snapshot of the set as the transaction leaves it; the others find the mark and do nothing.
CREATE FUNCTION kn_tasks_snapshot_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	k text := 'keynode.snapshot_' || NEW.taskset_id;
BEGIN
	IF current_setting(k, true) = txid_current()::text THEN
		RETURN NULL;
	END IF;
	PERFORM set_config(k, txid_current()::text, true);
	PERFORM kn_taskset_snapshot_take(NEW.taskset_id);
	RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER tasks_snapshot_insert AFTER INSERT ON tasks
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION kn_tasks_snapshot_trigger();
CREATE CONSTRAINT TRIGGER tasks_snapshot_update AFTER UPDATE OF current_version, active ON tasks
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	WHEN (OLD.current_version IS DISTINCT FROM NEW.current_version OR OLD.active IS DISTINCT FROM NEW.active)
	EXECUTE FUNCTION kn_tasks_snapshot_trigger();

-- What each run, replay and batch was scored against. NULL: recorded before this migration
-- against a version no snapshot holds.
ALTER TABLE runs ADD COLUMN snapshot bigint REFERENCES taskset_snapshots;
ALTER TABLE replay_results ADD COLUMN snapshot bigint REFERENCES taskset_snapshots;
ALTER TABLE agent_batches ADD COLUMN snapshot bigint REFERENCES taskset_snapshots;

-- SNAPSHOT_REF of services/http/API.md: {"id", "taskset", "version", "hash"}; NULL for NULL.
CREATE FUNCTION kn_snapshot_ref(snapshot bigint) RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', x.id, 'taskset', s.name, 'version', x.version, 'hash', x.hash)
	FROM taskset_snapshots x JOIN tasksets s ON s.id = x.taskset_id WHERE x.id = snapshot
$$;

-- A run or replay inserted without a snapshot gets the latest one holding its task version.
CREATE FUNCTION kn_fill_snapshot() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.snapshot IS NULL THEN
		NEW.snapshot := (SELECT s.snapshot FROM taskset_snapshot_tasks s
			WHERE s.task_version = NEW.task_version ORDER BY s.snapshot DESC LIMIT 1);
	END IF;
	RETURN NEW;
END
$$;
CREATE TRIGGER runs_snapshot BEFORE INSERT ON runs FOR EACH ROW EXECUTE FUNCTION kn_fill_snapshot();
CREATE TRIGGER replay_results_snapshot BEFORE INSERT ON replay_results
	FOR EACH ROW EXECUTE FUNCTION kn_fill_snapshot();

-- A stored run re-scored from its stored events against a task version (POST /api/rescore): the
-- run's own result stays as it was; one row per (run, version), a later rescore replaces it.
CREATE TABLE rescores (
	run_id       text NOT NULL REFERENCES runs ON DELETE CASCADE,
	task_version bigint NOT NULL REFERENCES task_versions ON DELETE CASCADE,
	status       text NOT NULL,
	steps        int NOT NULL,
	reached      double precision NOT NULL,
	total        int NOT NULL,
	score        double precision NOT NULL,
	completion   boolean NOT NULL,
	efficiency   double precision NOT NULL,
	result       json NOT NULL,      -- the run result (docs/formats.md §3) on that version
	created      timestamptz NOT NULL DEFAULT clock_timestamp(),
	PRIMARY KEY (run_id, task_version)
);
CREATE INDEX rescores_by_version ON rescores (task_version);

-- Every set gets its first snapshot now (runs and replays stored before keep snapshot NULL: a year
-- of runs is not rewritten under the migration's lock).
SELECT kn_taskset_snapshot_take(id) FROM tasksets ORDER BY id;

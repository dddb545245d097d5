-- 180_record_jobs.sql — workflows re-recorded from the dashboard (services/live/README.md
-- "Recording"). POST /api/tasks/{id}/recordings queues one; a worker claims it (FOR UPDATE SKIP LOCKED),
-- opens a fresh tab at the task's start page shown live and taken over by the maintainer, records what
-- they do, and at "finish" replays the workflow at once and stores it as a new workflow version
-- (task_changes kind 'workflow', evidence_replay: that replay) — or nothing, saying why.
-- Not a `jobs` row: a recording is a person's demonstration, never retried by another worker after a
-- lost lease (what was shown is gone with the worker), and it takes finish/cancel requests while it runs.
-- state: queued → recording → validating → stored | failed; cancelled (asked, or idle too long).
-- want: what serve asked the worker (finish, cancel), polled by the worker while it records (polled: when
-- it last looked; a recording whose worker stopped looking for 15 s is ended by serve's next request).
CREATE TABLE recordings (
	id               bigserial PRIMARY KEY,
	task_id          bigint NOT NULL REFERENCES tasks ON DELETE CASCADE,
	task_version     bigint NOT NULL REFERENCES task_versions,
	task_ref         text NOT NULL,
	author           text,
	reason           text,
	state            text NOT NULL DEFAULT 'queued'
	                 CHECK (state IN ('queued', 'recording', 'validating', 'stored', 'failed', 'cancelled')),
	want             text CHECK (want IN ('finish', 'cancel')),
	worker           text,
	steps            int,
	workflow_version int,
	replay           bigint REFERENCES replay_results ON DELETE SET NULL,
	replay_status    text,
	detail           text,
	created          timestamptz NOT NULL DEFAULT clock_timestamp(),
	started          timestamptz,
	polled           timestamptz,
	ended            timestamptz
);
CREATE INDEX recordings_queued ON recordings (id) WHERE state = 'queued';
CREATE INDEX recordings_by_task ON recordings (task_id, id DESC);

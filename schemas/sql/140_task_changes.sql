-- 140_task_changes.sql - the maintenance log of tasks: one row per new task version or
-- workflow version, written in the same transaction as the version itself (services/store/store_changes.c),
-- so a version never exists without its row nor a row without its version. kind: upload (a changed
-- task in POST /api/tasksets), repair (a repair proposal applied, POST /api/tasks/{id}/repairs), edit
-- (a key node or a step edited, POST /api/tasks/{id}/edits), workflow (a workflow uploaded,
-- POST /api/workflows). task_version: the task version current after the change (for a workflow
-- version, the one it was recorded against); workflow_version: the task_workflows version it made
-- (NULL: a task version). evidence_replay: the replay that verified an applied proposal; override:
-- an unverified proposal applied on purpose. diff: {"key_nodes": [...], "steps": [...]}, each entry
-- {id | step, before, after} (keynode/task_diff.h). validation_job: the replay queued to check it.
CREATE TABLE task_changes (
	id               bigserial PRIMARY KEY,
	task_id          bigint NOT NULL REFERENCES tasks ON DELETE CASCADE,
	kind             text NOT NULL CHECK (kind IN ('upload', 'repair', 'edit', 'workflow')),
	task_version     bigint NOT NULL REFERENCES task_versions,
	workflow_version int,
	author           text,
	reason           text,
	evidence_replay  bigint REFERENCES replay_results ON DELETE SET NULL,
	override         boolean NOT NULL DEFAULT false,
	validation_job   bigint,
	diff             json NOT NULL,
	created          timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX task_changes_by_task ON task_changes (task_id, id DESC);

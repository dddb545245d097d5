-- 040_workflows.sql - reference workflows uploaded through the API (POST /api/workflows),
-- versioned per task: each upload of a changed workflow is the task's next workflow version, kept
-- with the task version it was recorded against (the task's current version at upload) so that a
-- later change of the task shows which workflow predates it. body is the YAML as uploaded
-- (schemas/workflow.schema.json), hash its sha256: re-uploading the same text keeps its version.
CREATE TABLE task_workflows (
	id           bigserial PRIMARY KEY,
	task_id      bigint NOT NULL REFERENCES tasks ON DELETE CASCADE,
	version      int NOT NULL,
	task_version bigint NOT NULL REFERENCES task_versions,
	recorded_at  text,        -- the file's recorded_at, as written (NULL: the file does not say)
	uploaded     timestamptz NOT NULL DEFAULT clock_timestamp(),
	steps        int NOT NULL,
	viewport     text,
	hash         text NOT NULL,
	body         text NOT NULL,
	UNIQUE (task_id, version)
);
CREATE INDEX task_workflows_latest ON task_workflows (task_id, version DESC);

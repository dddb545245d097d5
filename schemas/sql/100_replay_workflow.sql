-- 100_replay_workflow.sql - which reference workflow a replay drove: the worker puts it in
-- the report as "workflow" ({"source": "stored", "version", "task_version", "recorded_at"} for a
-- workflow uploaded through POST /api/workflows, {"source": "file", "file"} for `worker --workflows
-- DIR`, {"source": "inline"} for the task's own steps); workflow_version is the stored workflow's
-- version (task_workflows.version), NULL when another source was replayed.
ALTER TABLE replay_results ADD COLUMN workflow_version int
	GENERATED ALWAYS AS (CASE WHEN jsonb_typeof(report -> 'workflow' -> 'version') = 'number'
	                     THEN (report -> 'workflow' ->> 'version')::int END) STORED;

-- REPLAY gains "workflow" (the report's), after "screenshot"
CREATE OR REPLACE FUNCTION kn_replay_summary(p replay_results) RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', p.id,
		'task', (SELECT t.task_key FROM task_versions v JOIN tasks t ON t.id = v.task_id WHERE v.id = p.task_version),
		'status', p.status, 'run', p.run_id, 'job', p.job_id, 'created', kn_ts(p.created),
		'drift', p.report -> 'drift', 'broken', p.report -> 'broken', 'blocked', p.report -> 'blocked',
		'screenshot', p.screenshot IS NOT NULL, 'workflow', p.report -> 'workflow')
$$;

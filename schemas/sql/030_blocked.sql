-- 030_blocked.sql - "blocked is not broken" (services/replay/blocked.h): a replay whose site refused
-- service (401/403/429/5xx, a challenge page, a CAPTCHA, a consent wall, a geo redirect) is stored with
-- status 'blocked', and a task's health can be 'blocked' (never counted towards broken).
ALTER TABLE replay_results DROP CONSTRAINT replay_results_status_check;
ALTER TABLE replay_results ADD CONSTRAINT replay_results_status_check
	CHECK (status IN ('passed', 'broken', 'error', 'blocked'));
ALTER TABLE task_health DROP CONSTRAINT task_health_state_check;
ALTER TABLE task_health ADD CONSTRAINT task_health_state_check
	CHECK (state IN ('unknown', 'healthy', 'flaky', 'broken', 'recovered', 'error', 'blocked'));

-- REPLAY gains "blocked" (the report's evidence of what refused service), after "broken"
CREATE OR REPLACE FUNCTION kn_replay_summary(p replay_results) RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', p.id,
		'task', (SELECT t.task_key FROM task_versions v JOIN tasks t ON t.id = v.task_id WHERE v.id = p.task_version),
		'status', p.status, 'run', p.run_id, 'job', p.job_id, 'created', kn_ts(p.created),
		'drift', p.report -> 'drift', 'broken', p.report -> 'broken', 'blocked', p.report -> 'blocked',
		'screenshot', p.screenshot IS NOT NULL)
$$;

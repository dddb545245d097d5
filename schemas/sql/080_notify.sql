-- 080_notify.sql — change notifications for the caches of `keynode serve` (services/runs/api_async.c).
-- Every committed statement that can change GET /api/tasks (tasks, their versions and sets, task
-- health, runs — the "last_run"), /metrics' health and replay gauges (replay_results) sends one
-- NOTIFY on the channel keynode_change (PostgreSQL folds equal notifications of one transaction and
-- delivers them at commit). A serve LISTENs on it over a connection of its own and drops its cached
-- listings on each, and on every reconnect. Events (the hot write path) send none.
CREATE FUNCTION kn_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('keynode_change', '');
	RETURN NULL;
END
$$;
CREATE TRIGGER tasksets_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tasksets
	FOR EACH STATEMENT EXECUTE FUNCTION kn_notify_change();
CREATE TRIGGER tasks_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tasks
	FOR EACH STATEMENT EXECUTE FUNCTION kn_notify_change();
CREATE TRIGGER task_versions_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON task_versions
	FOR EACH STATEMENT EXECUTE FUNCTION kn_notify_change();
CREATE TRIGGER task_health_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON task_health
	FOR EACH STATEMENT EXECUTE FUNCTION kn_notify_change();
CREATE TRIGGER runs_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON runs
	FOR EACH STATEMENT EXECUTE FUNCTION kn_notify_change();
CREATE TRIGGER replay_results_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON replay_results
	FOR EACH STATEMENT EXECUTE FUNCTION kn_notify_change();

-- 210_unjudged.sql - a judge outage is never the agent's failure (docs/scoring.md "Unjudged"): an agent
-- attempt whose run depends on a semantic judgement that failed (the judge's HTTP error, timeout,
-- unparsable answer, a score outside [0, 1]) is stored with status 'unjudged', left out of a batch's
-- metrics like 'error' and 'blocked' and counted apart (GET /api/agent-runs/{id} metrics.unjudged). Each
-- attempt's result says whose a non-success is (result.json attempt.fault: agent, site, infrastructure,
-- judge), which the batch page counts (metrics.faults).
ALTER TABLE agent_results DROP CONSTRAINT agent_results_status_check;
ALTER TABLE agent_results ADD CONSTRAINT agent_results_status_check
	CHECK (status IN ('done', 'error', 'blocked', 'unjudged'));
-- the stored pages were computed without those counts: computed again on their next read
SELECT kn_batch_stats_mark(array_agg(batch)) FROM agent_batch_stats;

-- 170_batch_listing.sql — the agent-run pages on a year of data (tests/bench/bench_year.sh):
-- GET /api/agent-runs counted each batch's attempts by joining every job to its result (81,000 rows
-- for a page of 50 batches of 1,626 attempts: seconds). Its counts now come from the results' own
-- index (status and completion in it: an index-only scan) and, for what is still queued or running,
-- from the jobs of a batch that are not done (a small partial index). /metrics' replay gauge counted
-- the replay results per status by reading the whole table (1.4 GB on the year: ~1 s when cold): an
-- index on status makes it an index-only scan.
DROP INDEX agent_results_by_batch;
CREATE INDEX agent_results_by_batch ON agent_results (batch, task_version, attempt_no) INCLUDE (status, completed);
CREATE INDEX jobs_batch_open ON jobs (batch) WHERE state <> 'done' AND batch IS NOT NULL;
CREATE INDEX replay_results_status ON replay_results (status);

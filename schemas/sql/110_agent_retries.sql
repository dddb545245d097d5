-- 110_agent_retries.sql - infrastructure errors of agent jobs are retried, as `keynode run
-- --retries`: a start page that does not load, a browser that crashes, an agent that cannot start make an
-- attempt `error`; the worker runs it again, up to the batch's retries, before it stores the result.
ALTER TABLE agent_batches ADD COLUMN retries int NOT NULL DEFAULT 1 CHECK (retries BETWEEN 0 AND 10);
-- how many infrastructure errors came before the stored result (0: the first try's)
ALTER TABLE agent_results ADD COLUMN retried int NOT NULL DEFAULT 0;

-- 060_agent_jobs.sql - agent attempts as jobs of the replay queue (services/scheduler/README.md
-- "Agent jobs"). POST /api/agent-runs makes a batch: K attempts of each task, one job each, kind 'agent',
-- naming the agent by the name workers know it under (keynode.yaml `agents:`), never by a command line.
-- A worker claims only the agent jobs of the agents it has, with the same lease, heartbeat and
-- completion check as a replay job; the attempt's result is stored in agent_results in the same
-- transaction that marks the job done, once per job (its primary key).
CREATE TABLE agent_batches (
	id       bigserial PRIMARY KEY,
	agent    text NOT NULL,
	repeat   int NOT NULL CHECK (repeat BETWEEN 1 AND 1000),
	created  timestamptz NOT NULL DEFAULT clock_timestamp()
);

ALTER TABLE jobs ADD COLUMN kind text NOT NULL DEFAULT 'replay' CHECK (kind IN ('replay', 'agent'));
ALTER TABLE jobs ADD COLUMN batch bigint REFERENCES agent_batches ON DELETE CASCADE;
ALTER TABLE jobs ADD COLUMN agent text;
ALTER TABLE jobs ADD COLUMN attempt_no int;   -- agent jobs: 1..repeat
ALTER TABLE jobs ADD CONSTRAINT jobs_agent_fields
	CHECK (kind = 'replay' OR (batch IS NOT NULL AND agent IS NOT NULL AND attempt_no >= 1));
CREATE INDEX jobs_by_batch ON jobs (batch, id) WHERE batch IS NOT NULL;
-- Claimable agent jobs by agent name, oldest first.
CREATE INDEX jobs_agent_claimable ON jobs (agent, id) WHERE state <> 'done' AND kind = 'agent';

CREATE TABLE agent_results (
	job_id       bigint PRIMARY KEY REFERENCES jobs ON DELETE CASCADE,
	batch        bigint NOT NULL REFERENCES agent_batches ON DELETE CASCADE,
	task_version bigint NOT NULL REFERENCES task_versions,
	attempt_no   int NOT NULL,
	worker       text NOT NULL,
	status       text NOT NULL CHECK (status IN ('done', 'error', 'blocked')),
	completed    boolean NOT NULL,
	score        double precision NOT NULL,
	result       jsonb NOT NULL,   -- result.json of the attempt (run result + "attempt")
	created      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX agent_results_by_batch ON agent_results (batch, task_version, attempt_no);

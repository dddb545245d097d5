-- 020_run_owner.sql — which `keynode serve` process runs a live run, for crash recovery.
-- A serve instance holds the session advisory lock kn_owner_lock(owner) for its whole life; at
-- start a serve ends every run left live (ended IS NULL) by an owner whose lock it can take (that
-- process is gone), scoring it from its stored events (services/runs/recover.c).
ALTER TABLE runs ADD COLUMN owner text;
CREATE INDEX runs_live_by_owner ON runs (owner) WHERE ended IS NULL AND owner IS NOT NULL;

CREATE FUNCTION kn_owner_lock(owner text) RETURNS bigint
	LANGUAGE sql IMMUTABLE STRICT
	AS $$ SELECT hashtextextended('keynode-serve:' || owner, 0) $$;

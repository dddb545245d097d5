-- 120_serve_instances.sql — where each live `keynode serve` process takes calls from other serves
--. A serve inserts its row at start (owner: its id, as in runs.owner; address:
-- http.advertise or its listen address, HOST:PORT) and deletes it at a clean stop; a serve that
-- receives a call for a live run owned by another serve forwards it to that row's address
-- (services/runs/forward.c). A killed serve's row is deleted by the orphan sweep of a surviving
-- serve once its owner lock (020_run_owner.sql) can be taken.
CREATE TABLE serve_instances (
	owner text PRIMARY KEY,
	address text NOT NULL,
	started timestamptz NOT NULL DEFAULT now()
);

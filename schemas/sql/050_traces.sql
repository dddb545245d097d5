-- 050_traces.sql - the run traces `keynode serve --trace` keeps on disk (services/trace): one
-- index row per trace folder, written when its index.json appears and removed when retention
-- (--trace-keep-days) deletes the folder. The files stay the truth; the row lets SQL find and size them.
CREATE TABLE IF NOT EXISTS traces (
	run_id   text PRIMARY KEY,
	path     text NOT NULL,
	kind     text NOT NULL CHECK (kind IN ('run', 'replay')),
	status   text NOT NULL,
	steps    integer NOT NULL CHECK (steps >= 0),
	shots    integer NOT NULL CHECK (shots >= 0),
	skipped  integer NOT NULL CHECK (skipped >= 0),
	bytes    bigint NOT NULL CHECK (bytes >= 0),
	indexed  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS traces_indexed ON traces (indexed);

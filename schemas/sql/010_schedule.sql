-- 010_schedule.sql - one row per schedule fire that enqueued its jobs (services/scheduler). The
-- primary key (schedule, fire_time) is what keeps several `serve` instances from enqueueing one fire
-- twice: each inserts the row and its jobs in one transaction, and only the first insert wins
-- (kn_store_schedule_fire). Numbered 010 to leave 002-009 to the core store migrations.
CREATE TABLE schedule_fires (
	schedule  text NOT NULL,
	fire_time timestamptz NOT NULL,
	fired_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
	catch_up  boolean NOT NULL DEFAULT false,  -- fired late, for a fire missed while no scheduler ran
	jobs      int NOT NULL DEFAULT 0,
	PRIMARY KEY (schedule, fire_time)
);

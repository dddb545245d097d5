-- 220_judge.sql - which judge a stored score was made by (docs/scoring.md "Judge fingerprint"): the
-- judge fingerprint of a run's result ({backend, model, prompt_sha256, threshold, mode,
-- keynode_version}; the result's "judge") kept in a column beside it, and likewise for each rescore,
-- so runs judged by different judges can be told apart without reading every result. NULL: the
-- result was stored before fingerprints (the judge is unknown).
ALTER TABLE runs ADD COLUMN judge jsonb;
ALTER TABLE rescores ADD COLUMN judge jsonb;
UPDATE runs SET judge = result::jsonb -> 'judge'
	WHERE result IS NOT NULL AND jsonb_typeof(result::jsonb -> 'judge') = 'object';
UPDATE rescores SET judge = result::jsonb -> 'judge'
	WHERE jsonb_typeof(result::jsonb -> 'judge') = 'object';

-- request_record only grows: vacuum it after 2 % new rows (default 20 %), so the visibility map stays
-- current and the events total and the windows stay index-only scans instead of visiting every row.
ALTER TABLE "request_record" SET (autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);

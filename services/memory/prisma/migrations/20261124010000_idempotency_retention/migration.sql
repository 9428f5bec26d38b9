-- (No semicolons in comments: the pg adapter splits migration scripts on them.)
-- Idempotency entries expire after IDEMPOTENCY_RETENTION_HOURS and are pruned oldest first, in
-- batches: this index finds them without reading the table. Entries are written in time order, so
-- it only ever grows at its right edge.
CREATE INDEX "idempotency_entry_created_at_idx" ON "idempotency_entry"("created_at");

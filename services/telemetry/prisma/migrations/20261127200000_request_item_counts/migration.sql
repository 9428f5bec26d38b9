-- A batch write's record carries its items' counts (accepted, replayed, conflict, invalid,
-- failed), null on every other request. Adding a nullable column rewrites no row.
ALTER TABLE "request_record" ADD COLUMN "item_counts" JSONB;

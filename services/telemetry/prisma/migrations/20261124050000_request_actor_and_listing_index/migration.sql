-- Who made a request, within its tenant: the API key (its id) and the user.
-- AlterTable
ALTER TABLE "request_record" ADD COLUMN     "key_id" TEXT,
ADD COLUMN     "user_id" TEXT;


-- The events listing leaves out reads of the history itself. A partial index with that very
-- predicate lets the listing and its total be index-only scans (Prisma's schema cannot express it).
CREATE INDEX "request_record_listed_idx" ON "request_record"("tenant_id", "occurred_at" DESC, "record_id" DESC)
  WHERE NOT ("method" = 'GET' AND "route" = '/api/v1/infrastructure/events');

-- (No semicolons in comments: the pg adapter splits migration scripts on them.)
-- A namespace deletion becomes a job: the DELETE creates it, its records are hidden from reads at
-- once, and the memory service's deletion worker removes them in bounded batches, each committing its
-- counts and keyset cursors here. Authored with prisma migrate diff from the previous schema, then
-- given defaults for rows left by the step-by-step deletion it replaces (they become running jobs,
-- which the worker finishes) and the partial unique index Prisma cannot express.

-- CreateEnum
CREATE TYPE "DeletionStatus" AS ENUM ('in_progress', 'completed');

-- AlterTable
ALTER TABLE "namespace_deletion" DROP CONSTRAINT "namespace_deletion_pkey",
ADD COLUMN     "batches" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "cursor_event_id" TEXT,
ADD COLUMN     "cursor_memory_id" UUID,
ADD COLUMN     "cursor_occurred_at" TIMESTAMPTZ(3),
ADD COLUMN     "cursor_term" TEXT,
ADD COLUMN     "finished_at" TIMESTAMPTZ(3),
ADD COLUMN     "id" UUID NOT NULL DEFAULT gen_random_uuid(),
ADD COLUMN     "phase" TEXT NOT NULL DEFAULT 'postings',
ADD COLUMN     "postings" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "records_total" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "request_id" TEXT NOT NULL DEFAULT 'migrated',
ADD COLUMN     "status" "DeletionStatus" NOT NULL DEFAULT 'in_progress',
ADD CONSTRAINT "namespace_deletion_pkey" PRIMARY KEY ("id");

ALTER TABLE "namespace_deletion" ALTER COLUMN "id" DROP DEFAULT, ALTER COLUMN "request_id" DROP DEFAULT;

-- What a migrated job started with: what its earlier steps removed and what is left.
UPDATE "namespace_deletion" d SET "records_total" = d."records" + (
  SELECT count(*) FROM "memory_record" r WHERE r."tenant_id" = d."tenant_id" AND r."namespace" = d."namespace");

-- CreateIndex
CREATE INDEX "namespace_deletion_tenant_id_namespace_idx" ON "namespace_deletion"("tenant_id", "namespace");

-- CreateIndex
CREATE INDEX "namespace_deletion_status_updated_at_idx" ON "namespace_deletion"("status", "updated_at");

-- One running deletion per tenant and namespace: a second DELETE finds it rather than starting another.
CREATE UNIQUE INDEX "namespace_deletion_running_idx" ON "namespace_deletion"("tenant_id", "namespace") WHERE "status" = 'in_progress';

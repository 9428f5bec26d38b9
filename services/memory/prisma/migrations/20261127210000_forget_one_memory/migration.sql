-- Forgetting one memory: its tombstone, and the relation lookups by memory id it needs.
-- CreateTable
CREATE TABLE "forgotten_memory" (
    "memory_id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "receipt" JSONB NOT NULL,
    "forgotten_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "forgotten_memory_pkey" PRIMARY KEY ("memory_id")
);

-- CreateIndex
CREATE INDEX "forgotten_memory_forgotten_at_idx" ON "forgotten_memory"("forgotten_at");

-- CreateIndex
CREATE INDEX "supersession_relation_superseding_memory_id_idx" ON "supersession_relation"("superseding_memory_id");

-- CreateIndex
CREATE INDEX "supersession_relation_target_memory_id_idx" ON "supersession_relation"("target_memory_id");


-- CreateEnum
CREATE TYPE "RelationStatus" AS ENUM ('superseded', 'unresolved');

-- CreateTable
CREATE TABLE "memory_record" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "text" TEXT NOT NULL,
    "terms" TEXT[],
    "source" JSONB,
    "request_id" TEXT NOT NULL,
    "retained_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "superseded_at" TIMESTAMPTZ(3),

    CONSTRAINT "memory_record_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "supersession_relation" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "superseding_event_id" TEXT NOT NULL,
    "superseding_memory_id" UUID NOT NULL,
    "target_event_id" TEXT NOT NULL,
    "target_memory_id" UUID,
    "status" "RelationStatus" NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "supersession_relation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_entry" (
    "tenant_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "response" JSONB,
    "request_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_entry_pkey" PRIMARY KEY ("tenant_id","key")
);

-- CreateTable
CREATE TABLE "outbox_message" (
    "id" UUID NOT NULL,
    "subject" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "outbox_message_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "memory_record_tenant_id_namespace_event_id_key" ON "memory_record"("tenant_id", "namespace", "event_id");

-- CreateIndex
CREATE INDEX "supersession_relation_tenant_id_namespace_idx" ON "supersession_relation"("tenant_id", "namespace");

-- CreateIndex
CREATE INDEX "idempotency_entry_tenant_id_namespace_idx" ON "idempotency_entry"("tenant_id", "namespace");

-- CreateIndex
CREATE INDEX "outbox_message_published_at_created_at_idx" ON "outbox_message"("published_at", "created_at");


-- Recall: scoped lexical lookups (tenant, namespace, terms && cue) served by one GIN index.
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE INDEX "memory_record_scope_terms_gin" ON "memory_record" USING GIN ("tenant_id", "namespace", "terms");

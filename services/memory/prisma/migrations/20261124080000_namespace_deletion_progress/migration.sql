-- A namespace too large for one transaction is deleted in steps (namespace-deletion.ts), each
-- committed. This row adds up what the steps removed, so the call that finishes can report the whole
-- deletion, and is removed by that call.
CREATE TABLE "namespace_deletion" (
    "tenant_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "records" BIGINT NOT NULL DEFAULT 0,
    "relations" BIGINT NOT NULL DEFAULT 0,
    "idempotency_entries" BIGINT NOT NULL DEFAULT 0,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "namespace_deletion_pkey" PRIMARY KEY ("tenant_id","namespace")
);

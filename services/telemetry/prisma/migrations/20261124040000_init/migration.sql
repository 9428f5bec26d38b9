-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "request_record" (
    "record_id" UUID NOT NULL,
    "request_id" TEXT NOT NULL,
    "tenant_id" TEXT,
    "method" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "operation" TEXT,
    "status" INTEGER NOT NULL,
    "outcome" TEXT NOT NULL,
    "state" TEXT,
    "error_code" TEXT,
    "latency_ms" DOUBLE PRECISION NOT NULL,
    "units" INTEGER NOT NULL,
    "billing_state" TEXT NOT NULL,
    "namespace_ref" TEXT,
    "deployment_version" TEXT NOT NULL,
    "gateway_instance" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "request_record_pkey" PRIMARY KEY ("record_id")
);

-- CreateTable
CREATE TABLE "dropped_record_report" (
    "message_id" TEXT NOT NULL,
    "gateway_instance" TEXT NOT NULL,
    "dropped" INTEGER NOT NULL,
    "reported_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dropped_record_report_pkey" PRIMARY KEY ("message_id")
);

-- CreateTable
CREATE TABLE "usage_dead_letter" (
    "stream_sequence" BIGINT NOT NULL,
    "reason" TEXT NOT NULL,
    "dead_lettered_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "usage_dead_letter_pkey" PRIMARY KEY ("stream_sequence")
);

-- CreateIndex
CREATE INDEX "request_record_tenant_id_occurred_at_record_id_idx" ON "request_record"("tenant_id", "occurred_at" DESC, "record_id" DESC);

-- CreateIndex
CREATE INDEX "dropped_record_report_reported_at_idx" ON "dropped_record_report"("reported_at");

-- CreateIndex
CREATE INDEX "usage_dead_letter_dead_lettered_at_idx" ON "usage_dead_letter"("dead_lettered_at");


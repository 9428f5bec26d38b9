-- The anomaly watch's open anomalies, and the outbox its anomaly.raised events are committed to.
-- CreateTable
CREATE TABLE "outbox_message" (
    "id" UUID NOT NULL,
    "subject" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "attempts" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "outbox_message_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "raised_anomaly" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "observed" DOUBLE PRECISION NOT NULL,
    "threshold" DOUBLE PRECISION NOT NULL,
    "raised_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "cleared_at" TIMESTAMPTZ(3),

    CONSTRAINT "raised_anomaly_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "outbox_message_pending_idx" ON "outbox_message"("attempts", "created_at");

-- CreateIndex
CREATE INDEX "raised_anomaly_cleared_at_idx" ON "raised_anomaly"("cleared_at");

-- At most one open anomaly per tenant and name: two watch passes (two instances) cannot both raise it.
CREATE UNIQUE INDEX "raised_anomaly_open_key" ON "raised_anomaly"("tenant_id", "name") WHERE "cleared_at" IS NULL;

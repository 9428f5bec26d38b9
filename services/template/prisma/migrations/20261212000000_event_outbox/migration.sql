-- Events for the webhooks service, committed with the change they announce and relayed to
-- JetStream by the shared outbox relay (the same table as memory's outbox).
-- CreateTable
CREATE TABLE "outbox_message" (
    "id" UUID NOT NULL,
    "subject" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "attempts" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "outbox_message_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "outbox_message_pending_idx" ON "outbox_message"("attempts", "created_at");


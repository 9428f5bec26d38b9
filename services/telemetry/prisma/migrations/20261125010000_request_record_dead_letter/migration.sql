-- Request records (or whole batch messages) the consumer could not store, dead-lettered one by one
-- so the rest of their batch is stored. Counted by the request_record_dead_letters anomaly.
-- CreateTable
CREATE TABLE "request_record_dead_letter" (
    "letter_id" TEXT NOT NULL,
    "gateway_instance" TEXT,
    "record_index" INTEGER,
    "reason" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "dead_lettered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "request_record_dead_letter_pkey" PRIMARY KEY ("letter_id")
);

-- CreateIndex
CREATE INDEX "request_record_dead_letter_dead_lettered_at_idx" ON "request_record_dead_letter"("dead_lettered_at");


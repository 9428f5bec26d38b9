-- The scheduler reads each endpoint's oldest due deliveries, not the oldest due overall.
-- DropIndex
DROP INDEX "webhook_delivery_next_attempt_at_idx";

-- CreateIndex
CREATE INDEX "webhook_delivery_endpoint_id_next_attempt_at_idx" ON "webhook_delivery"("endpoint_id", "next_attempt_at");

-- Invoice period roll-up: a closed month's recorded charges become invoiced under one invoice.

-- AlterTable
ALTER TABLE "charge" ADD COLUMN     "invoice_id" UUID;

-- CreateTable
CREATE TABLE "invoice" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "period_end" TIMESTAMPTZ(3) NOT NULL,
    "charge_count" INTEGER NOT NULL,
    "total_micro_usd" BIGINT NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "invoice_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "invoice_tenant_id_period_start_key" ON "invoice"("tenant_id", "period_start");

-- AddForeignKey
ALTER TABLE "charge" ADD CONSTRAINT "charge_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoice"("id") ON DELETE SET NULL ON UPDATE CASCADE;


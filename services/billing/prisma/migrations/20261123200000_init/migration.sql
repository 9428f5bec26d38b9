-- Billing ledger: price lists, usage records from memory, charges and their history.

-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "ChargeState" AS ENUM ('recorded', 'invoiced', 'unbilled', 'void');

-- CreateTable
CREATE TABLE "pricing_version" (
    "version" TEXT NOT NULL,
    "effective_from" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "pricing_version_pkey" PRIMARY KEY ("version")
);

-- CreateTable
CREATE TABLE "price_item" (
    "version" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "unit_price_micro_usd" BIGINT NOT NULL,

    CONSTRAINT "price_item_pkey" PRIMARY KEY ("version","operation")
);

-- CreateTable
CREATE TABLE "usage_record" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "units" INTEGER NOT NULL,
    "idempotency_key" TEXT,
    "pricing_version" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_record_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "charge" (
    "id" UUID NOT NULL,
    "usage_record_id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "units" INTEGER NOT NULL,
    "amount_micro_usd" BIGINT NOT NULL,
    "pricing_version" TEXT NOT NULL,
    "state" "ChargeState" NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "charge_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "charge_event" (
    "id" UUID NOT NULL,
    "charge_id" UUID NOT NULL,
    "from_state" "ChargeState",
    "to_state" "ChargeState" NOT NULL,
    "actor_user_id" TEXT,
    "reason" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "charge_event_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "usage_record_tenant_id_occurred_at_idx" ON "usage_record"("tenant_id", "occurred_at");

-- CreateIndex
CREATE UNIQUE INDEX "charge_usage_record_id_key" ON "charge"("usage_record_id");

-- CreateIndex
CREATE INDEX "charge_tenant_id_occurred_at_idx" ON "charge"("tenant_id", "occurred_at");

-- CreateIndex
CREATE INDEX "charge_tenant_id_state_occurred_at_idx" ON "charge"("tenant_id", "state", "occurred_at");

-- CreateIndex
CREATE INDEX "charge_event_charge_id_at_idx" ON "charge_event"("charge_id", "at");

-- AddForeignKey
ALTER TABLE "price_item" ADD CONSTRAINT "price_item_version_fkey" FOREIGN KEY ("version") REFERENCES "pricing_version"("version") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "charge" ADD CONSTRAINT "charge_usage_record_id_fkey" FOREIGN KEY ("usage_record_id") REFERENCES "usage_record"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "charge_event" ADD CONSTRAINT "charge_event_charge_id_fkey" FOREIGN KEY ("charge_id") REFERENCES "charge"("id") ON DELETE RESTRICT ON UPDATE CASCADE;


-- The first sandbox price list (memory stamps its version on every usage record): a write costs
-- 0.0001 USD a unit, a recall 0.00005 USD
INSERT INTO "pricing_version" ("version", "effective_from") VALUES ('sandbox-2026-11', '2026-11-01T00:00:00Z');
INSERT INTO "price_item" ("version", "operation", "unit_price_micro_usd") VALUES
  ('sandbox-2026-11', 'memory.write', 100),
  ('sandbox-2026-11', 'memory.recall', 50);

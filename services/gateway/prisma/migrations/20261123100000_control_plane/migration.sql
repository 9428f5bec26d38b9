-- Control plane: accounts that log in, browser sessions, key permissions and rotation, customer-owned
-- storage settings, a consent audit trail, operator tokens and shared rate-limit counters.

-- CreateEnum
CREATE TYPE "UserStatus" AS ENUM ('active', 'disabled');

-- Emails become login names: lower-case, unique across tenants (a later duplicate loses its address)
UPDATE "app_user" SET "email" = lower(trim("email")) WHERE "email" IS NOT NULL;
UPDATE "app_user" u SET "email" = NULL
 WHERE "email" IS NOT NULL
   AND EXISTS (SELECT 1 FROM "app_user" o WHERE o."email" = u."email" AND (o."created_at", o."id") < (u."created_at", u."id"));

-- AlterTable
ALTER TABLE "app_user" ADD COLUMN     "password_hash" TEXT,
ADD COLUMN     "status" "UserStatus" NOT NULL DEFAULT 'active';

-- AlterTable
ALTER TABLE "storage_connection" ADD COLUMN     "secret_ciphertext" TEXT,
ADD COLUMN     "settings" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- AlterTable
ALTER TABLE "api_key" ADD COLUMN     "last_used_at" TIMESTAMPTZ(3),
ADD COLUMN     "permissions" TEXT[] NOT NULL DEFAULT ARRAY['memory:write', 'memory:recall', 'memory:delete', 'telemetry:read']::TEXT[],
ADD COLUMN     "rotated_from_id" UUID;
-- CreateTable
CREATE TABLE "consent_event" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "purpose" TEXT NOT NULL DEFAULT 'private_memory',
    "state" "ConsentState" NOT NULL,
    "actor_user_id" UUID,
    "request_id" TEXT,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "consent_event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "browser_session" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "browser_session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "operator_token" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "created_by_user_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "operator_token_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE UNLOGGED TABLE "rate_limit_counter" (
    "key" VARCHAR(255) NOT NULL,
    "points" INTEGER NOT NULL DEFAULT 0,
    "expire" BIGINT,

    CONSTRAINT "rate_limit_counter_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "consent_event_tenant_id_user_id_occurred_at_idx" ON "consent_event"("tenant_id", "user_id", "occurred_at");

-- CreateIndex
CREATE INDEX "browser_session_user_id_idx" ON "browser_session"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "operator_token_prefix_key" ON "operator_token"("prefix");

-- CreateIndex
CREATE UNIQUE INDEX "operator_token_secret_hash_key" ON "operator_token"("secret_hash");

-- CreateIndex
CREATE INDEX "operator_token_tenant_id_idx" ON "operator_token"("tenant_id");

-- CreateIndex
CREATE UNIQUE INDEX "app_user_email_key" ON "app_user"("email");

-- AddForeignKey
ALTER TABLE "browser_session" ADD CONSTRAINT "browser_session_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "app_user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "operator_token" ADD CONSTRAINT "operator_token_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Consent given before this migration gets its audit row (actor unknown)
INSERT INTO "consent_event" ("id", "tenant_id", "user_id", "purpose", "state", "occurred_at")
SELECT md5(c."tenant_id"::text || c."user_id"::text || c."purpose")::uuid, c."tenant_id", c."user_id", c."purpose", c."state", c."updated_at"
  FROM "consent" c;

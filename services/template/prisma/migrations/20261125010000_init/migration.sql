-- Templates: private templates and their versions, the marketplace, template memories and their creation requests.
-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "template" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "current_version" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "template_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "template_version" (
    "template_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "description" TEXT NOT NULL,
    "fields" JSONB NOT NULL,
    "format" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "template_version_pkey" PRIMARY KEY ("template_id","version")
);

-- CreateTable
CREATE TABLE "marketplace_template" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "keywords" TEXT[],
    "version" TEXT NOT NULL,
    "fields" JSONB NOT NULL,
    "format" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "marketplace_template_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "template_memory" (
    "memory_id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "template_id" UUID,
    "marketplace_template_id" TEXT,
    "template_name" TEXT NOT NULL,
    "template_version" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "text" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "template_memory_pkey" PRIMARY KEY ("memory_id")
);

-- CreateTable
CREATE TABLE "memory_request" (
    "tenant_id" TEXT NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "memory_request_pkey" PRIMARY KEY ("tenant_id","idempotency_key")
);

-- CreateIndex
CREATE UNIQUE INDEX "template_tenant_id_name_key" ON "template"("tenant_id", "name");

-- CreateIndex
CREATE INDEX "marketplace_template_category_name_idx" ON "marketplace_template"("category", "name");

-- CreateIndex
CREATE INDEX "template_memory_tenant_id_namespace_idx" ON "template_memory"("tenant_id", "namespace");

-- CreateIndex
CREATE INDEX "memory_request_tenant_id_namespace_idx" ON "memory_request"("tenant_id", "namespace");

-- AddForeignKey
ALTER TABLE "template_version" ADD CONSTRAINT "template_version_template_id_fkey" FOREIGN KEY ("template_id") REFERENCES "template"("id") ON DELETE CASCADE ON UPDATE CASCADE;


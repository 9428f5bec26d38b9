-- A namespace deletion's fence in the template service (namespace_fence), and a cancelled job's counts
-- (import_job.final_counts), kept when its rows go with the namespace.
-- AlterTable
ALTER TABLE "import_job" ADD COLUMN     "final_counts" JSONB;

-- CreateTable
CREATE TABLE "namespace_fence" (
    "tenant_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "namespace_fence_pkey" PRIMARY KEY ("tenant_id","namespace")
);

-- The pending template memory, stored with the request's claim before the memory write: data that
-- cannot be stored is refused before anything is retained or billed, and a retry finishes from here.
-- Claims made before this migration have none (null): their retries render afresh, as before.
-- AlterTable
ALTER TABLE "memory_request" ADD COLUMN     "data" JSONB,
ADD COLUMN     "marketplace_template_id" TEXT,
ADD COLUMN     "source" TEXT,
ADD COLUMN     "template_id" UUID,
ADD COLUMN     "template_name" TEXT,
ADD COLUMN     "template_version" TEXT,
ADD COLUMN     "text" TEXT;


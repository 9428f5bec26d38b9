-- The spec's template `version` is the author's label, and the server's counter becomes the revision
-- (template_version.version, the ETag of updates). Existing versions keep the label they showed:
-- their revision's number. Memories record the revision they were made with, next to the label.

-- AlterTable
ALTER TABLE "template_version" ADD COLUMN     "label" TEXT;
UPDATE "template_version" SET "label" = "version"::text;
ALTER TABLE "template_version" ALTER COLUMN "label" SET NOT NULL;

-- AlterTable
ALTER TABLE "template_memory" ADD COLUMN     "template_revision" INTEGER;
UPDATE "template_memory" SET "template_revision" = "template_version"::integer
 WHERE "source" = 'private' AND "template_version" ~ '^[0-9]{1,9}$';

-- AlterTable
ALTER TABLE "memory_request" ADD COLUMN     "template_revision" INTEGER;
UPDATE "memory_request" SET "template_revision" = "template_version"::integer
 WHERE "source" = 'private' AND "template_version" ~ '^[0-9]{1,9}$';

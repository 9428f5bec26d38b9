-- AlterTable
ALTER TABLE "import_job" ADD COLUMN     "dataset_config" TEXT,
ADD COLUMN     "dataset_id" TEXT,
ADD COLUMN     "dataset_revision" TEXT,
ADD COLUMN     "dataset_rows" INTEGER,
ADD COLUMN     "dataset_split" TEXT,
ADD COLUMN     "error_code" TEXT,
ADD COLUMN     "error_message" TEXT,
ADD COLUMN     "hub_token_sealed" TEXT,
ALTER COLUMN "file_name" DROP NOT NULL,
ALTER COLUMN "file_kind" DROP NOT NULL;


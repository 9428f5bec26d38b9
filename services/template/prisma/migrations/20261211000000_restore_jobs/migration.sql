-- Restore an export: restore jobs ride on the import job machinery, told apart by kind.
ALTER TABLE "import_job" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'import';
ALTER TABLE "import_job" ADD COLUMN "from_namespace" TEXT;
ALTER TABLE "import_job" ADD COLUMN "restore_rows" INTEGER;
ALTER TABLE "import_row" ADD COLUMN "event_id" TEXT;

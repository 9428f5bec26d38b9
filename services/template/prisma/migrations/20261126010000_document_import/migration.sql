-- Document import: jobs, the chunks of an upload being received, and the rows read from it.
CREATE TABLE "import_job" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "file_name" TEXT NOT NULL,
    "file_kind" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "template_name" TEXT,
    "marketplace_template_id" TEXT,
    "estimate" JSONB,
    "scope" JSONB,
    "request_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "import_job_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "import_chunk" (
    "import_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "import_chunk_pkey" PRIMARY KEY ("import_id","seq")
);

CREATE TABLE "import_row" (
    "import_id" UUID NOT NULL,
    "row_number" INTEGER NOT NULL,
    "values" JSONB,
    "state" TEXT NOT NULL,
    "reason" TEXT,
    "message" TEXT,
    "memory_id" TEXT,

    CONSTRAINT "import_row_pkey" PRIMARY KEY ("import_id","row_number")
);

CREATE INDEX "import_job_state_idx" ON "import_job"("state");
CREATE INDEX "import_row_import_id_state_idx" ON "import_row"("import_id", "state");

ALTER TABLE "import_chunk" ADD CONSTRAINT "import_chunk_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "import_job"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "import_row" ADD CONSTRAINT "import_row_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "import_job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

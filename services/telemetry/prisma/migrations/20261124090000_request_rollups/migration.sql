-- (No semicolons in comments or function bodies: the pg adapter splits migration scripts on them.)
-- Per-minute rollups of request records, kept as records are stored (request-record-repository.ts),
-- so metrics, anomalies and status read O(minutes x operations), not every request of the window
-- (at 1,000 req/s a 60-minute window is 3.6M records). Whole minutes of a window come from here,
-- its two partial edge minutes from the records themselves (window-aggregates.ts).

-- Latency buckets: bucket b holds [0.01 ms x 1.02^b, 0.01 ms x 1.02^(b+1)), so a bucket's geometric
-- middle is within 1 % of every latency in it. 1,000 buckets reach past an hour.
CREATE FUNCTION telemetry_latency_bucket(ms double precision) RETURNS smallint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT least(999, floor(ln(greatest(ms, 0.01) / 0.01) / ln(1.02)))::smallint $$;

CREATE TABLE "request_rollup" (
    "tenant_id" TEXT NOT NULL,
    "minute" TIMESTAMPTZ(3) NOT NULL,
    "operation" TEXT NOT NULL,
    "deployment_version" TEXT NOT NULL,
    "requests" INTEGER NOT NULL,
    "accepted" INTEGER NOT NULL,
    "errors" INTEGER NOT NULL,
    "server_errors" INTEGER NOT NULL,
    "timeouts" INTEGER NOT NULL,
    "blocked" INTEGER NOT NULL,
    "max_latency_ms" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "request_rollup_pkey" PRIMARY KEY ("tenant_id","minute","operation","deployment_version")
);

CREATE TABLE "latency_rollup" (
    "tenant_id" TEXT NOT NULL,
    "minute" TIMESTAMPTZ(3) NOT NULL,
    "operation" TEXT NOT NULL,
    "bucket" SMALLINT NOT NULL,
    "requests" INTEGER NOT NULL,

    CONSTRAINT "latency_rollup_pkey" PRIMARY KEY ("tenant_id","minute","operation","bucket")
);

CREATE INDEX "request_rollup_minute_idx" ON "request_rollup"("minute");
CREATE INDEX "latency_rollup_minute_idx" ON "latency_rollup"("minute");

INSERT INTO "request_rollup"
SELECT tenant_id, date_trunc('minute', occurred_at), coalesce(operation, method || ' ' || route), deployment_version,
       count(*), count(*) FILTER (WHERE outcome = 'accepted'), count(*) FILTER (WHERE outcome = 'failed'),
       count(*) FILTER (WHERE status >= 500), count(*) FILTER (WHERE error_code = 'upstream_timeout'),
       count(*) FILTER (WHERE outcome = 'blocked'), max(latency_ms)
  FROM "request_record" WHERE tenant_id IS NOT NULL
 GROUP BY 1, 2, 3, 4;

INSERT INTO "latency_rollup"
SELECT tenant_id, date_trunc('minute', occurred_at), coalesce(operation, method || ' ' || route),
       telemetry_latency_bucket(latency_ms), count(*)
  FROM "request_record" WHERE tenant_id IS NOT NULL
 GROUP BY 1, 2, 3, 4;

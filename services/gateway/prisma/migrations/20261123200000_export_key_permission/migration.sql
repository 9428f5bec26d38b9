-- Export takes its own key permission (export:read) instead of memory:recall, so a key holds no more
-- than its user's role allows. New keys get it by default (within the role).
ALTER TABLE "api_key" ALTER COLUMN "permissions" SET DEFAULT ARRAY['memory:write', 'memory:recall', 'memory:delete', 'telemetry:read', 'export:read']::TEXT[];

-- Keys that could export before (memory:recall) keep that ability where their user's role holds it.
UPDATE "api_key" k
   SET "permissions" = array_append(k."permissions", 'export:read')
  FROM "app_user" u
 WHERE u."id" = k."user_id"
   AND u."role" IN ('owner', 'admin')
   AND 'memory:recall' = ANY (k."permissions")
   AND NOT ('export:read' = ANY (k."permissions"));

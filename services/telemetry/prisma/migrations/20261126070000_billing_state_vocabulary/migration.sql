-- Request records use the spec's billing vocabulary (billable, no_data, void): `not_metered`,
-- which gateways wrote before, is `no_data` (nothing billable was measured).
UPDATE "request_record" SET "billing_state" = 'no_data' WHERE "billing_state" = 'not_metered';

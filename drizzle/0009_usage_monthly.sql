CREATE TABLE "usage_monthly" (
	"account_id" text NOT NULL,
	"month" date NOT NULL,
	"key_id" text DEFAULT '' NOT NULL,
	"billed_tokens" bigint DEFAULT 0 NOT NULL,
	"cost_usd" double precision DEFAULT 0 NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_monthly_account_id_month_key_id_pk" PRIMARY KEY("account_id","month","key_id")
);
--> statement-breakpoint
CREATE FUNCTION "usage_monthly_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- In one order for every batch, so that two batches touching the same months lock their rows
	-- in the same order and never deadlock.
	INSERT INTO "usage_monthly" AS m ("account_id", "month", "key_id", "billed_tokens", "cost_usd", "requests")
	SELECT "account_id", (date_trunc('month', "created_at" AT TIME ZONE 'UTC'))::date, coalesce("key_id", ''),
		coalesce(sum("input_tokens" + "output_tokens") FILTER (WHERE NOT "cache_hit" AND "endpoint" <> 'count_tokens'), 0),
		sum("cost_usd"), count(*)
	FROM "added" GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
	ON CONFLICT ("account_id", "month", "key_id") DO UPDATE SET
		"billed_tokens" = m."billed_tokens" + excluded."billed_tokens",
		"cost_usd" = m."cost_usd" + excluded."cost_usd",
		"requests" = m."requests" + excluded."requests";
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "usage_monthly_add" AFTER INSERT ON "usage_records" REFERENCING NEW TABLE AS "added"
	FOR EACH STATEMENT EXECUTE FUNCTION "usage_monthly_add"();
--> statement-breakpoint
-- The rows stored before this migration. The trigger above already holds the table against inserts
-- until this transaction commits, so no row is missed or counted twice.
INSERT INTO "usage_monthly" ("account_id", "month", "key_id", "billed_tokens", "cost_usd", "requests")
SELECT "account_id", (date_trunc('month', "created_at" AT TIME ZONE 'UTC'))::date, coalesce("key_id", ''),
	coalesce(sum("input_tokens" + "output_tokens") FILTER (WHERE NOT "cache_hit" AND "endpoint" <> 'count_tokens'), 0),
	sum("cost_usd"), count(*)
FROM "usage_records" GROUP BY 1, 2, 3;

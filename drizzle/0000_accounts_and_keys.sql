CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"plan" text NOT NULL,
	"default_tier" text DEFAULT 'normal' NOT NULL,
	"suspended" boolean DEFAULT false NOT NULL,
	"email" text,
	"requests_per_minute" integer,
	"concurrent_requests" integer,
	"tokens_per_month" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "accounts_plan_check" CHECK ("accounts"."plan" in ('Starter', 'Pro', 'Enterprise')),
	CONSTRAINT "accounts_default_tier_check" CHECK ("accounts"."default_tier" in ('fast', 'normal', 'smart', 'smart-plus'))
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_account_id_idx" ON "api_keys" USING btree ("account_id");
CREATE TABLE "routing_decisions" (
	"key" text PRIMARY KEY NOT NULL,
	"task_class" text NOT NULL,
	"model" text NOT NULL,
	"effort" text NOT NULL,
	"rule" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_records" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"request_id" text NOT NULL,
	"account_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"endpoint" text NOT NULL,
	"tier" text NOT NULL,
	"model" text,
	"effort" text,
	"source" text,
	"cache_hit" boolean DEFAULT false NOT NULL,
	"status" integer NOT NULL,
	"latency_ms" double precision NOT NULL,
	"ttfb_ms" double precision,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cache_read_tokens" bigint DEFAULT 0 NOT NULL,
	"cache_write_tokens" bigint DEFAULT 0 NOT NULL,
	"reasoning_tokens" bigint DEFAULT 0 NOT NULL,
	"cost_usd" double precision DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_records_request_id_unique" UNIQUE("request_id")
);
--> statement-breakpoint
ALTER TABLE "usage_records" ADD CONSTRAINT "usage_records_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "routing_decisions_expires_idx" ON "routing_decisions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "usage_records_account_created_idx" ON "usage_records" USING btree ("account_id","created_at");
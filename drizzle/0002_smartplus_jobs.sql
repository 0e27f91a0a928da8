CREATE TABLE "smartplus_conversations" (
	"key" text PRIMARY KEY NOT NULL,
	"job_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "smartplus_job_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"job_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "smartplus_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"state" text DEFAULT 'awaiting_upload' NOT NULL,
	"task" text NOT NULL,
	"model" text NOT NULL,
	"effort" text NOT NULL,
	"phase" text,
	"file_count" integer,
	"upload_bytes" bigint,
	"error" text,
	"summary" text,
	"worker" text,
	"lease_until" timestamp with time zone,
	"claims" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"queued_at" timestamp with time zone,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "smartplus_jobs_state_check" CHECK ("smartplus_jobs"."state" in ('awaiting_upload', 'queued', 'running', 'ready', 'failed', 'expired'))
);
--> statement-breakpoint
ALTER TABLE "smartplus_conversations" ADD CONSTRAINT "smartplus_conversations_job_id_smartplus_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."smartplus_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "smartplus_job_tokens" ADD CONSTRAINT "smartplus_job_tokens_job_id_smartplus_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."smartplus_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "smartplus_jobs" ADD CONSTRAINT "smartplus_jobs_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "smartplus_conversations_job_idx" ON "smartplus_conversations" USING btree ("job_id");--> statement-breakpoint
CREATE INDEX "smartplus_job_tokens_job_idx" ON "smartplus_job_tokens" USING btree ("job_id");--> statement-breakpoint
CREATE INDEX "smartplus_jobs_queue_idx" ON "smartplus_jobs" USING btree ("state","queued_at");--> statement-breakpoint
CREATE INDEX "smartplus_jobs_expires_idx" ON "smartplus_jobs" USING btree ("expires_at");
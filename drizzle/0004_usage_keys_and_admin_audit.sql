CREATE TABLE "admin_audit" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "admin_audit_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor" text NOT NULL,
	"address" text,
	"action" text NOT NULL,
	"account_id" text,
	"key_id" text,
	"before" jsonb,
	"after" jsonb
);
--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "key_id" text;--> statement-breakpoint
CREATE INDEX "admin_audit_account_idx" ON "admin_audit" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "usage_records_created_brin_idx" ON "usage_records" USING brin ("created_at");
ALTER TABLE "usage_records" DROP CONSTRAINT "usage_records_account_id_accounts_id_fk";--> statement-breakpoint
ALTER TABLE "usage_records" DROP COLUMN "id";--> statement-breakpoint
ALTER TABLE "usage_records" DROP CONSTRAINT "usage_records_request_id_unique";--> statement-breakpoint
ALTER TABLE "usage_records" ADD PRIMARY KEY ("request_id");

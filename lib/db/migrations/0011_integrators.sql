DROP INDEX "verifications_external_idx";--> statement-breakpoint
ALTER TABLE "verifications" ADD COLUMN "external_metadata_raw" text;--> statement-breakpoint
ALTER TABLE "verifications" ADD COLUMN "return_url" text;--> statement-breakpoint
CREATE INDEX "verifications_sync_idx" ON "verifications" USING btree ("workspace_id","mode","updated_at","id");--> statement-breakpoint
CREATE INDEX "verifications_external_sync_idx" ON "verifications" USING btree ("workspace_id","mode","external_id","updated_at","id");
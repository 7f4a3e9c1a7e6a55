ALTER TABLE "verifications" ADD COLUMN "external_metadata_sealed" "bytea";--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "data_sealed" "bytea";--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD COLUMN "response_sealed" "bytea";--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "body_sealed" "bytea";--> statement-breakpoint
CREATE INDEX "verifications_unsealed_metadata_idx" ON "verifications" USING btree ("id") WHERE "verifications"."external_metadata" is not null or "verifications"."external_metadata_raw" is not null;--> statement-breakpoint
CREATE INDEX "audit_log_unsealed_note_idx" ON "audit_log" USING btree ("id") WHERE "audit_log"."verification_id" is not null and "audit_log"."data" ? 'note' and "audit_log"."data" ->> 'note' is not null;--> statement-breakpoint
CREATE INDEX "webhook_attempts_unsealed_idx" ON "webhook_attempts" USING btree ("id") WHERE "webhook_attempts"."response_body" is not null;--> statement-breakpoint
CREATE INDEX "webhook_events_unsealed_idx" ON "webhook_events" USING btree ("id") WHERE "webhook_events"."body_sealed" is null and "webhook_events"."body" ~ '"(external_metadata":[[:space:]]*[{]|device_signals":)';
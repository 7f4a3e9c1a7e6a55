ALTER TABLE "pipeline_jobs" ADD COLUMN "traceparent" text;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "traceparent" text;
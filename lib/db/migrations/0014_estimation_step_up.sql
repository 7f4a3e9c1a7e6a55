ALTER TABLE "workspaces" ADD COLUMN "estimation_fallback" text DEFAULT 'review' NOT NULL;--> statement-breakpoint
ALTER TABLE "verifications" ADD COLUMN "step_up" text;--> statement-breakpoint
-- Hand-written: every writer held to the values the code knows (docs/api.md "Step-up to a document").
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_estimation_fallback_check" CHECK ("estimation_fallback" IN ('review', 'document'));--> statement-breakpoint
ALTER TABLE "verifications" ADD CONSTRAINT "verifications_step_up_check" CHECK ("step_up" IS NULL OR "step_up" IN ('document'));

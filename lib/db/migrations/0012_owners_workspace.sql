CREATE TABLE "admin_invites" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"accepted_at" timestamp with time zone,
	"accepted_by" text,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "admin_invites_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
ALTER TABLE "secret_keys" ADD COLUMN "last_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "admin_invites" ADD CONSTRAINT "admin_invites_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "admin_invites_workspace_idx" ON "admin_invites" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "verifications_ws_completed_idx" ON "verifications" USING btree ("workspace_id","mode","completed_at","status","reason","submitted_at");--> statement-breakpoint
CREATE INDEX "webhook_events_workspace_idx" ON "webhook_events" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "webhook_events_workspace_failed_idx" ON "webhook_events" USING btree ("workspace_id","created_at","id") WHERE "webhook_events"."state" = 'failed';
CREATE TABLE "usage_days" (
	"workspace_id" text NOT NULL,
	"mode" text NOT NULL,
	"day" date NOT NULL,
	"created" integer NOT NULL,
	"decisions" jsonb NOT NULL,
	"durations" jsonb NOT NULL,
	CONSTRAINT "usage_days_workspace_id_mode_day_pk" PRIMARY KEY("workspace_id","mode","day")
);
--> statement-breakpoint
CREATE TABLE "usage_rollups" (
	"workspace_id" text PRIMARY KEY NOT NULL,
	"rolled_through" date,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "usage_days" ADD CONSTRAINT "usage_days_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD CONSTRAINT "usage_rollups_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;
CREATE EXTENSION IF NOT EXISTS vector;
--> statement-breakpoint
CREATE TABLE "secret_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"mode" text NOT NULL,
	"secret_ciphertext" text NOT NULL,
	"last_four" text NOT NULL,
	"is_active" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"activated_at" timestamp with time zone,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"api_key" text NOT NULL,
	"flow" text DEFAULT 'age' NOT NULL,
	"check_method" text DEFAULT 'estimation' NOT NULL,
	"age_threshold" integer DEFAULT 18 NOT NULL,
	"allow_duplicates" boolean DEFAULT false NOT NULL,
	"duplicate_threshold" real DEFAULT 0.68 NOT NULL,
	"webhook_url" text,
	"rate_limit_per_minute" integer DEFAULT 60 NOT NULL,
	"media_retention_days" integer DEFAULT 30 NOT NULL,
	"enforce_signature" boolean DEFAULT true NOT NULL,
	"allow_placeholder_signature" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workspaces_api_key_unique" UNIQUE("api_key")
);
--> statement-breakpoint
CREATE TABLE "media" (
	"id" text PRIMARY KEY NOT NULL,
	"verification_id" text NOT NULL,
	"type" text NOT NULL,
	"side" text,
	"document_type" text,
	"status" text DEFAULT 'uploaded' NOT NULL,
	"content_type" text NOT NULL,
	"byte_size" integer NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"analysis" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "verifications" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"mode" text NOT NULL,
	"status" text DEFAULT 'created' NOT NULL,
	"flow" text NOT NULL,
	"check_method" text,
	"external_id" text,
	"external_metadata" jsonb,
	"capture_token" text NOT NULL,
	"attempts_used" integer DEFAULT 0 NOT NULL,
	"reason" text,
	"result" jsonb,
	"duplicate_check" jsonb,
	"idempotency_key" text,
	"idempotency_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"submitted_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"status_changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "verifications_capture_token_unique" UNIQUE("capture_token")
);
--> statement-breakpoint
CREATE TABLE "consent_records" (
	"id" text PRIMARY KEY NOT NULL,
	"verification_id" text NOT NULL,
	"consent_version_id" integer NOT NULL,
	"version" text NOT NULL,
	"text_sha256" text NOT NULL,
	"accepted_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "consent_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"version" text NOT NULL,
	"text" text NOT NULL,
	"text_sha256" text NOT NULL,
	"is_active" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "admin_users" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "admin_users_email_unique" UNIQUE("email")
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text,
	"verification_id" text,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"request_id" text,
	"data" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"seconds" bigint[] NOT NULL,
	"counts" integer[] NOT NULL
);
--> statement-breakpoint
ALTER TABLE "secret_keys" ADD CONSTRAINT "secret_keys_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "media" ADD CONSTRAINT "media_verification_id_verifications_id_fk" FOREIGN KEY ("verification_id") REFERENCES "public"."verifications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verifications" ADD CONSTRAINT "verifications_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consent_records" ADD CONSTRAINT "consent_records_verification_id_verifications_id_fk" FOREIGN KEY ("verification_id") REFERENCES "public"."verifications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consent_records" ADD CONSTRAINT "consent_records_consent_version_id_consent_versions_id_fk" FOREIGN KEY ("consent_version_id") REFERENCES "public"."consent_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "secret_keys_workspace_idx" ON "secret_keys" USING btree ("workspace_id");--> statement-breakpoint
CREATE UNIQUE INDEX "secret_keys_one_active_idx" ON "secret_keys" USING btree ("workspace_id") WHERE "secret_keys"."is_active" and "secret_keys"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "media_verification_idx" ON "media" USING btree ("verification_id","type","side","created_at");--> statement-breakpoint
CREATE INDEX "verifications_workspace_idx" ON "verifications" USING btree ("workspace_id","mode","created_at");--> statement-breakpoint
CREATE INDEX "verifications_external_idx" ON "verifications" USING btree ("workspace_id","mode","external_id");--> statement-breakpoint
CREATE INDEX "verifications_timer_idx" ON "verifications" USING btree ("status","status_changed_at");--> statement-breakpoint
CREATE UNIQUE INDEX "verifications_idempotency_idx" ON "verifications" USING btree ("workspace_id","mode","idempotency_key") WHERE "verifications"."idempotency_key" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "consent_records_verification_version_idx" ON "consent_records" USING btree ("verification_id","consent_version_id");--> statement-breakpoint
CREATE UNIQUE INDEX "consent_versions_one_active_idx" ON "consent_versions" USING btree ("is_active") WHERE "consent_versions"."is_active";--> statement-breakpoint
CREATE INDEX "audit_log_workspace_idx" ON "audit_log" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "audit_log_verification_idx" ON "audit_log" USING btree ("verification_id","created_at");
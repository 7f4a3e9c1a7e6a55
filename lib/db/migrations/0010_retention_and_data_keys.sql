CREATE TABLE "data_keys" (
	"verification_id" text PRIMARY KEY NOT NULL,
	"kek_id" text NOT NULL,
	"wrapped" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "erasure_receipts" (
	"id" text PRIMARY KEY NOT NULL,
	"verification_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"trigger" text NOT NULL,
	"key_id" text NOT NULL,
	"payload" text NOT NULL,
	"signature" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "erasure_receipts_verification_id_unique" UNIQUE("verification_id")
);
--> statement-breakpoint
CREATE TABLE "signing_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"algorithm" text NOT NULL,
	"public_key" text NOT NULL,
	"private_key_sealed" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "media_blobs" ADD COLUMN "sealed_by" text DEFAULT 'encryption_key' NOT NULL;--> statement-breakpoint
ALTER TABLE "verifications" ADD COLUMN "result_sealed" "bytea";--> statement-breakpoint
ALTER TABLE "verifications" ADD COLUMN "data_erased_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "data_keys" ADD CONSTRAINT "data_keys_verification_id_verifications_id_fk" FOREIGN KEY ("verification_id") REFERENCES "public"."verifications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "erasure_receipts" ADD CONSTRAINT "erasure_receipts_verification_id_verifications_id_fk" FOREIGN KEY ("verification_id") REFERENCES "public"."verifications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "erasure_receipts" ADD CONSTRAINT "erasure_receipts_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "data_keys_kek_idx" ON "data_keys" USING btree ("kek_id");--> statement-breakpoint
CREATE INDEX "erasure_receipts_workspace_idx" ON "erasure_receipts" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "signing_keys_one_active_idx" ON "signing_keys" USING btree ("active") WHERE "signing_keys"."active";--> statement-breakpoint
CREATE INDEX "media_blobs_legacy_idx" ON "media_blobs" USING btree ("media_id") WHERE "media_blobs"."sealed_by" = 'encryption_key';--> statement-breakpoint
CREATE INDEX "verifications_retention_idx" ON "verifications" USING btree ("completed_at") WHERE "verifications"."data_erased_at" is null and "verifications"."completed_at" is not null;--> statement-breakpoint
CREATE INDEX "verifications_unsealed_result_idx" ON "verifications" USING btree ("id") WHERE "verifications"."result" ? 'person' or ("verifications"."result" -> 'document') ?| array['number_masked', 'expiry_date', 'issuing_country'];--> statement-breakpoint
-- Custom SQL (not generated): retention is at most 365 days (lib/retention/policy.ts). Settings above it are
-- brought down to it, then a CHECK holds every writer to 0..365.
UPDATE "workspaces" SET "media_retention_days" = 365 WHERE "media_retention_days" > 365;--> statement-breakpoint
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_media_retention_days_check" CHECK ("media_retention_days" BETWEEN 0 AND 365);

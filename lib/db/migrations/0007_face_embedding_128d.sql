-- The face description changes model (Human's faceres, 1024-d → face-api's dlib ResNet on an aligned chip, 128-d;
-- lib/faces/describe.ts). The two spaces cannot be compared, so stored faces keep their old vector in
-- legacy_embedding and get embedding = NULL until `npm run ops -- faces:reembed` describes them again from their
-- stored selfie (lib/faces/reembed.ts). A NULL embedding is not indexed and takes no part in duplicate search
-- or blocklist matching.
DROP INDEX "face_embeddings_hnsw_idx";--> statement-breakpoint
ALTER TABLE "face_embeddings" RENAME COLUMN "embedding" TO "legacy_embedding";--> statement-breakpoint
ALTER TABLE "face_embeddings" ALTER COLUMN "legacy_embedding" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "face_embeddings" ADD COLUMN "embedding" vector(128);--> statement-breakpoint
ALTER TABLE "blocklist_entries" RENAME COLUMN "embedding" TO "legacy_embedding";--> statement-breakpoint
ALTER TABLE "blocklist_entries" ALTER COLUMN "legacy_embedding" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "blocklist_entries" ADD COLUMN "embedding" vector(128);--> statement-breakpoint
-- Same graph parameters as migration 0006 (m 32, ef_construction 128), on the new column.
CREATE INDEX "face_embeddings_hnsw_idx" ON "face_embeddings" USING hnsw ("embedding" vector_cosine_ops) WITH (m=32,ef_construction=128);--> statement-breakpoint
-- The old default (0.68) was a cosine of the old description; on the new one every pair of people is above it.
-- Workspaces still on it move to the new default (lib/pipeline/thresholds.ts, DEFAULT_DUPLICATE_THRESHOLD).
UPDATE "workspaces" SET "duplicate_threshold" = 0.945 WHERE abs("duplicate_threshold" - 0.68) < 1e-6;--> statement-breakpoint
-- Active liveness (hosted capture page), the workspace setting that requires it, and where each medium came from.
CREATE TABLE "liveness_challenges" (
	"id" text PRIMARY KEY NOT NULL,
	"verification_id" text NOT NULL,
	"nonce_sha256" text NOT NULL,
	"steps" jsonb NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone,
	"outcome" jsonb,
	"embedding" vector(128),
	CONSTRAINT "liveness_challenges_nonce_sha256_unique" UNIQUE("nonce_sha256")
);
--> statement-breakpoint
CREATE TABLE "liveness_frames" (
	"challenge_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"sha256" text NOT NULL,
	"embedding" vector(128),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workspaces" ALTER COLUMN "duplicate_threshold" SET DEFAULT 0.945;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "require_active_liveness" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "media" ADD COLUMN "source" text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE "liveness_challenges" ADD CONSTRAINT "liveness_challenges_verification_id_verifications_id_fk" FOREIGN KEY ("verification_id") REFERENCES "public"."verifications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "liveness_frames" ADD CONSTRAINT "liveness_frames_challenge_id_liveness_challenges_id_fk" FOREIGN KEY ("challenge_id") REFERENCES "public"."liveness_challenges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "liveness_challenges_verification_idx" ON "liveness_challenges" USING btree ("verification_id","issued_at");--> statement-breakpoint
CREATE INDEX "liveness_frames_sha256_idx" ON "liveness_frames" USING btree ("sha256");--> statement-breakpoint
CREATE INDEX "liveness_frames_workspace_idx" ON "liveness_frames" USING btree ("workspace_id");
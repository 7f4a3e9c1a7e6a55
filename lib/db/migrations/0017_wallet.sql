CREATE TABLE "wallet_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"verification_id" text NOT NULL,
	"protocol" text NOT NULL,
	"origin" text NOT NULL,
	"nonce" text NOT NULL,
	"encryption_info" text,
	"element" text NOT NULL,
	"public_jwk" text NOT NULL,
	"private_key_sealed" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"outcome" text
);
--> statement-breakpoint
CREATE TABLE "wallet_trust_anchors" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text,
	"subject" text NOT NULL,
	"country" text NOT NULL,
	"not_before" timestamp with time zone NOT NULL,
	"not_after" timestamp with time zone NOT NULL,
	"fingerprint_sha256" text NOT NULL,
	"der" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "wallet" text DEFAULT 'off' NOT NULL;--> statement-breakpoint
ALTER TABLE "wallet_requests" ADD CONSTRAINT "wallet_requests_verification_id_verifications_id_fk" FOREIGN KEY ("verification_id") REFERENCES "public"."verifications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_trust_anchors" ADD CONSTRAINT "wallet_trust_anchors_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "wallet_requests_verification_idx" ON "wallet_requests" USING btree ("verification_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "wallet_trust_anchors_scope_idx" ON "wallet_trust_anchors" USING btree (coalesce("workspace_id", ''),"fingerprint_sha256");--> statement-breakpoint
CREATE INDEX "wallet_trust_anchors_workspace_idx" ON "wallet_trust_anchors" USING btree ("workspace_id");--> statement-breakpoint
-- Hand-written: every writer held to the values the code knows (docs/wallet.md).
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_wallet_check" CHECK ("wallet" IN ('off', 'offer'));--> statement-breakpoint
ALTER TABLE "wallet_requests" ADD CONSTRAINT "wallet_requests_protocol_check" CHECK ("protocol" IN ('openid4vp-v1-unsigned', 'org-iso-mdoc'));

ALTER TABLE "verifications" DROP CONSTRAINT "verifications_capture_token_unique";--> statement-breakpoint
ALTER TABLE "verifications" ADD COLUMN "capture_token_hash" text;--> statement-breakpoint
ALTER TABLE "verifications" ADD COLUMN "capture_token_ciphertext" text;--> statement-breakpoint
-- Hand-written: the links already handed out keep working. Their tokens are hashed here and the clear text
-- dropped; they were never encrypted (the key is not in the database), so their `url` is not shown again.
UPDATE "verifications" SET "capture_token_hash" = encode(sha256(convert_to("capture_token", 'UTF8')), 'hex');--> statement-breakpoint
ALTER TABLE "verifications" ALTER COLUMN "capture_token_hash" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "verifications" DROP COLUMN "capture_token";--> statement-breakpoint
ALTER TABLE "verifications" ADD CONSTRAINT "verifications_capture_token_hash_unique" UNIQUE("capture_token_hash");

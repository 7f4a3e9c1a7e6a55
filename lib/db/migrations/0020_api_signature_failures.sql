CREATE TABLE "api_signature_failures" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" integer NOT NULL,
	"window_started_at" bigint NOT NULL
);

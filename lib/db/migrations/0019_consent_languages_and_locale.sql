CREATE TABLE "consent_texts" (
	"consent_version_id" integer NOT NULL,
	"locale" text NOT NULL,
	"text" text NOT NULL,
	"text_sha256" text NOT NULL,
	CONSTRAINT "consent_texts_consent_version_id_locale_pk" PRIMARY KEY("consent_version_id","locale")
);
--> statement-breakpoint
ALTER TABLE "verifications" ADD COLUMN "locale" text;--> statement-breakpoint
ALTER TABLE "consent_records" ADD COLUMN "locale" text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE "consent_texts" ADD CONSTRAINT "consent_texts_consent_version_id_consent_versions_id_fk" FOREIGN KEY ("consent_version_id") REFERENCES "public"."consent_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- Hand-written: every consent version published before languages existed had one text, in English; it becomes
-- that version's English text here (same bytes, same SHA-256), so every version is read the same way.
INSERT INTO "consent_texts" ("consent_version_id", "locale", "text", "text_sha256") SELECT "id", 'en', "text", "text_sha256" FROM "consent_versions";

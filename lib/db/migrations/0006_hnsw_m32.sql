DROP INDEX "face_embeddings_hnsw_idx";--> statement-breakpoint
CREATE INDEX "face_embeddings_hnsw_idx" ON "face_embeddings" USING hnsw ("embedding" vector_cosine_ops) WITH (m=32,ef_construction=128);
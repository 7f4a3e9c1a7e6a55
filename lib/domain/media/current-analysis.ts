/**
 * A stored medium's analysis as the current models make it. An analysis made at upload by an older version
 * (lib/domain/media/version.ts: a different face description or age model) is made again from the stored bytes and
 * saved back, so the pipeline never compares faces across two models.
 */
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { media } from '@/lib/db/schema';
import { analysisPool } from './pool';
import type { Analysis } from './types';
import { ANALYSIS_VERSION } from './version';

type Row = typeof media.$inferSelect;
export type Measured = Omit<Analysis, 'stored'>;

export async function currentAnalysis(db: DbOrTx, row: Row, bytes: Uint8Array): Promise<Measured> {
  const stored = row.analysis as (Measured & { checks?: unknown }) | null;
  if (stored?.version === ANALYSIS_VERSION) return stored;
  const { stored: _bytes, ...fresh } = await analysisPool().analyze(bytes, row.type as 'selfie' | 'document');
  void _bytes;
  await db
    .update(media)
    .set({ analysis: { ...fresh, checks: stored?.checks ?? null } })
    .where(eq(media.id, row.id));
  return fresh;
}

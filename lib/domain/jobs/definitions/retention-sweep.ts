/**
 * Retention (lib/domain/retention/sweep.ts): erases the data of verifications past their workspace's retention (and of
 * cases left waiting for the maximum), then moves data written before data keys under one. Batched, each batch
 * locked with SKIP LOCKED, so every server may run it; a run stops after its time budget and the next continues.
 */
import { sweepRetention } from '../../retention/sweep';
import { defineJob } from '../job';

export const retentionSweep = defineJob({
  id: 'retention-sweep',
  description: 'erase the photos, analyses, embeddings and personal fields of verifications past their retention',
  cron: '* * * * *',
  run: async (ctx) => ({ result: await sweepRetention(ctx.db, { now: ctx.now() }) }),
});

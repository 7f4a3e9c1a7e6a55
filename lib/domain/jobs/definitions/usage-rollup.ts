/**
 * The usage page's daily roll-up (lib/domain/usage/days.ts): totals each closed UTC day of each workspace once, an
 * hour after midnight, into usage_days. Every ten minutes; a workspace's first roll-up (after the upgrade that
 * added it, or for a new workspace) totals its whole history, each later one the days since. A workspace at a
 * time, locked with SKIP LOCKED, so every server may run it.
 */
import { rollUpUsage } from '../../usage/days';
import { defineJob } from '../job';

export const usageRollup = defineJob({
  id: 'usage-rollup',
  description:
    "total each workspace's closed days (verifications created, decisions, times to decide) for the usage page",
  cron: '*/10 * * * *',
  run: async (ctx) => ({ result: await rollUpUsage(ctx.db, { now: ctx.now(), budgetMs: 45_000 }) }),
});

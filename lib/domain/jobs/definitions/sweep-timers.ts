/** Inactivity timers: created → expired, started / resubmission_requested → abandoned after 7 days. */
import { sweepTimers } from '../../verifications/timers';
import { defineJob } from '../job';

export const sweepInactivityTimers = defineJob({
  id: 'sweep-inactivity-timers',
  description: 'expire and abandon verifications inactive for 7 days',
  cron: '* * * * *',
  run: async (ctx) => ({ result: await sweepTimers(ctx.db, ctx.now()) }),
});

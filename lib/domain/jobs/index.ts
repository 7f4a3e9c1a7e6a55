/**
 * The one list of background jobs. The Inngest functions (inngest/functions) and the in-process runner
 * (lib/domain/jobs/local-runner.ts) are both generated from it; a new job is a file in definitions/ and a line here.
 */
import type { JobDefinition } from './job';
import { decideSubmission } from './definitions/decide-submission';
import { deliverWebhook } from './definitions/deliver-webhook';
import { sweepInactivityTimers } from './definitions/sweep-timers';
import { retentionSweep } from './definitions/retention-sweep';
import { usageRollup } from './definitions/usage-rollup';

export const JOBS: readonly JobDefinition[] = [
  decideSubmission,
  deliverWebhook,
  sweepInactivityTimers,
  retentionSweep,
  usageRollup,
] as JobDefinition[];

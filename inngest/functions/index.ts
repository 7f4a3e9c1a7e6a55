/**
 * Inngest functions: thin wrappers over the lib/ functions the in-process runner also calls. Every body
 * is idempotent (rows are claimed with SKIP LOCKED and decided with conditional updates), so Inngest's
 * retries and the safety-net crons can never decide or deliver twice.
 */
import { getDb } from '@/db/client';
import { processSubmission, runDueJobs } from '@/lib/pipeline';
import { sweepTimers } from '@/lib/verifications/timers';
import { deliverDueWebhooks } from '@/lib/webhooks/deliver';
import { EVENTS, inngest } from '../client';

/** A submission's decision, started by the event sent after the submit committed. */
export const processSubmittedVerification = inngest.createFunction(
  { id: 'process-submitted-verification', triggers: [{ event: EVENTS.submitted }], retries: 3 },
  async ({ event, step }) => {
    const verificationId = String(event.data.verificationId);
    const outcome = await step.run('decide', () => processSubmission({ db: getDb() }, verificationId));
    if (outcome && outcome.status !== 'retrying') await step.run('deliver-webhooks', () => deliverDueWebhooks({ db: getDb() }));
    return outcome;
  },
);

/** Safety net: any job whose event was lost, or whose retry time came, is processed within a minute. */
export const pipelineSafetyNet = inngest.createFunction(
  { id: 'pipeline-safety-net', triggers: [{ cron: '* * * * *' }] },
  async ({ step }) => step.run('run-due-jobs', () => runDueJobs({ db: getDb() }, 50)),
);

/** Webhook delivery: on each new event, and every minute for retries that came due. */
export const deliverWebhooks = inngest.createFunction(
  { id: 'deliver-webhooks', triggers: [{ event: EVENTS.webhookEnqueued }, { cron: '* * * * *' }] },
  async ({ step }) => step.run('deliver-due', () => deliverDueWebhooks({ db: getDb() }, 100)),
);

/** Inactivity timers: created → expired, started / resubmission_requested → abandoned after 7 days. */
export const inactivityTimers = inngest.createFunction(
  { id: 'inactivity-timers', triggers: [{ cron: '*/5 * * * *' }] },
  async ({ step }) => step.run('sweep', () => sweepTimers(getDb())),
);

export const functions = [processSubmittedVerification, pipelineSafetyNet, deliverWebhooks, inactivityTimers];

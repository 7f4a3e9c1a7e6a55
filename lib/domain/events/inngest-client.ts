/**
 * The Inngest client. Inngest runs the background work when INNGEST_EVENT_KEY or INNGEST_DEV is set; its
 * functions are generated from the one list of jobs (lib/domain/jobs, inngest/functions), as is the in-process
 * runner that does the same work otherwise.
 */
import { Inngest } from 'inngest';

export const inngest = new Inngest({ id: 'open-verify' });

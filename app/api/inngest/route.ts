import { serve } from 'inngest/next';
import { inngest } from '@/lib/domain/events/inngest-client';
import { functions } from '@/inngest/functions';
import { env } from '@/lib/core/env';
import { notFoundRoute } from '@/lib/api/route';

// Inngest (cloud or self-hosted) calls this endpoint to run the functions; requests are signed with
// INNGEST_SIGNING_KEY outside dev mode. Without Inngest configured (no INNGEST_SIGNING_KEY and no INNGEST_DEV:
// the in-process runner does the work) there is no such endpoint: 404 in the error envelope.
const inngestServe = serve({ client: inngest, functions });
const configured = () => Boolean(env().INNGEST_SIGNING_KEY || env().INNGEST_DEV);

type Args = Parameters<typeof inngestServe.GET>;
export const GET = (...a: Args) => (configured() ? inngestServe.GET(...a) : notFoundRoute());
export const POST = (...a: Args) => (configured() ? inngestServe.POST(...a) : notFoundRoute());
export const PUT = (...a: Args) => (configured() ? inngestServe.PUT(...a) : notFoundRoute());

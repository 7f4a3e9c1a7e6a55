import { serve } from 'inngest/next';
import { inngest } from '@/lib/domain/events/inngest-client';
import { functions } from '@/inngest/functions';

// Inngest (cloud or self-hosted) calls this endpoint to run the functions; requests are signed with
// INNGEST_SIGNING_KEY outside dev mode.
export const { GET, POST, PUT } = serve({ client: inngest, functions });

/**
 * The hosted capture page inside another site (docs/sdks.md "Embedding the flow"). A verification's page may be
 * framed by exactly the origins its workspace lists in `embed_origins` (loopback `http://` ones for test-mode
 * verifications only): the proxy (proxy.ts) puts them in `frame-ancestors`. The page sends its events only to the
 * origin the embed SDK named in the link's `embed` parameter, and only when that origin is one of them.
 */
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { verifications, workspaces } from '@/lib/db/schema';
import { embedOriginsFor } from '../../core/embed-origins';
import { CAPTURE_TOKEN_RE, captureTokenHash } from './auth';

/** The link's query parameter by which the embed SDK names the page that framed it (or opened it in a new tab). */
export const EMBED_PARAM = 'embed';

/** The origins that may frame the page of this capture link: none for a link that opens nothing. */
export async function embedOriginsForToken(db: DbOrTx, token: string): Promise<string[]> {
  if (!CAPTURE_TOKEN_RE.test(token)) return [];
  const [r] = await db
    .select({ mode: verifications.mode, origins: workspaces.embedOrigins })
    .from(verifications)
    .innerJoin(workspaces, eq(workspaces.id, verifications.workspaceId))
    .where(eq(verifications.captureTokenHash, captureTokenHash(token)))
    .limit(1);
  return r ? embedOriginsFor(r.origins, r.mode) : [];
}

/** Where the page's events go: the `embed` origin when this verification's workspace allows it, else nowhere. */
export function embedTarget(
  found: { v: { id: string; mode: 'test' | 'live' }; workspace: { embedOrigins: string[] } },
  claimed: string | string[] | undefined,
): { origin: string; verificationId: string } | null {
  if (typeof claimed !== 'string') return null;
  return embedOriginsFor(found.workspace.embedOrigins, found.v.mode).includes(claimed)
    ? { origin: claimed, verificationId: found.v.id }
    : null;
}

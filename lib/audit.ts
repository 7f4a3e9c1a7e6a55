import type { DbOrTx } from '@/db/client';
import { newId } from './ids';
import { hot } from '@/db/hot-queries';

/** Appends to the audit log, in the caller's transaction so the entry and the change land together. */
export async function audit(
  db: DbOrTx,
  e: { workspaceId?: string | null; verificationId?: string | null; actor: string; action: string; requestId?: string; data?: unknown },
) {
  await hot(db, 'insertAudit').execute({
    id: newId('aud'),
    workspaceId: e.workspaceId ?? null,
    verificationId: e.verificationId ?? null,
    actor: e.actor,
    action: e.action,
    requestId: e.requestId ?? null,
    data: e.data ?? null,
  });
}

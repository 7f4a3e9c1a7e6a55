import type { DbOrTx } from '@/lib/db/client';
import { newId } from '../../core/ids';
import { hot } from '@/lib/db/hot-queries';
import { DataKeyDestroyedError, ensureDataKey } from '../personal-data/data-keys';
import { AAD, PERSONAL_AUDIT_FIELDS, sealText } from '../personal-data/personal';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Appends to the audit log, in the caller's transaction so the entry and the change land together. What an
 * admin writes about the person of a verification (a note) is stored under that verification's data key, not
 * in `data` (docs/privacy.md, "What is stored"): the entry stays, the note goes with the data.
 */
export async function audit(
  db: DbOrTx,
  e: {
    workspaceId?: string | null;
    verificationId?: string | null;
    actor: string;
    action: string;
    requestId?: string;
    data?: unknown;
  },
) {
  const id = newId('aud');
  let data = e.data ?? null;
  let dataSealed: Buffer | null = null;
  if (
    e.verificationId &&
    isObj(data) &&
    PERSONAL_AUDIT_FIELDS.some((f) => typeof (data as Record<string, unknown>)[f] === 'string')
  ) {
    const personal = Object.fromEntries(
      PERSONAL_AUDIT_FIELDS.filter((f) => typeof (data as Record<string, unknown>)[f] === 'string').map((f) => [
        f,
        (data as Record<string, unknown>)[f],
      ]),
    );
    data = Object.fromEntries(Object.entries(data).filter(([k]) => !(k in personal)));
    try {
      dataSealed = sealText(await ensureDataKey(db, e.verificationId), AAD.audit(id), JSON.stringify(personal));
    } catch (err) {
      // Written about a verification whose data was erased: the note is not kept.
      if (!(err instanceof DataKeyDestroyedError)) throw err;
    }
  }
  await hot(db, 'insertAudit').execute({
    id,
    workspaceId: e.workspaceId ?? null,
    verificationId: e.verificationId ?? null,
    actor: e.actor,
    action: e.action,
    requestId: e.requestId ?? null,
    data,
    dataSealed,
  });
}

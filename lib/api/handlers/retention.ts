/** The /v1 handler of the erasure extension (docs/api.md "Data retention and erasure"). */
import type { ApiContext, HandlerResult } from '../route';
import { eraseVerificationData } from '../../domain/retention/request';
import { caller } from './verifications';

/** DELETE /v1/verifications/{id}/data: the data erased now (or earlier), with the signed receipt. */
export async function eraseDataHandler(ctx: ApiContext<{ id: string }, unknown>): Promise<HandlerResult> {
  const c = caller(ctx);
  const out = await eraseVerificationData(ctx.db, {
    verificationId: ctx.params.id,
    scope: { workspaceId: c.workspaceId, mode: c.mode },
    actor: c.actor,
    requestId: c.requestId,
  });
  return {
    data: {
      id: out.verification.id,
      status: out.verification.status,
      data_erased_at: out.verification.dataErasedAt!.toISOString(),
      receipt: out.receipt,
    },
  };
}

/**
 * A wallet's response to one of our requests (docs/wallet.md "What a proof does to a verification"). The response
 * is decrypted and verified with what the server stored of the request (./verify.ts), outside any transaction; then,
 * in one transaction with the verification locked, the request is spent (a request answers once) and either
 * - the proof counts as one attempt and decides: `submitted` then `approved` (`age_over_NN` true) or `declined`
 *   with `age_below_threshold` (false), or `review` in test mode, where a person decides every submission; the
 *   decision's webhook is written to the outbox with it; or
 * - the refusal is audited (the case view's timeline shows it) and the verification is left as it was, still open.
 * Of the credential only the decision, the claim's value and the issuer (country and authority, from the document
 * signer's certificate) are kept: the issuer with the result's personal fields, sealed under the verification's data
 * key and erased with them.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { verifications, walletRequests, workspaces } from '@/lib/db/schema';
import type { Db } from '@/lib/db/client';
import { DomainError, notFound } from '../../core/errors';
import { audit } from '../audit/audit';
import { log } from '../../core/log';
import { metrics } from '../../core/observability/metrics';
import { getVerification, type Scope } from '../verifications/get';
import { applyTransition } from '../transitions/state-machine';
import { enqueueTransitionWebhook } from '../webhooks/outbox';
import { assertWalletProofAllowed, specOf } from './requests';
import { trustedRootsFor } from './trust';
import { verifyWalletResponse, WalletRefusal, type VerifiedClaim, type WalletRefusalReason } from './verify';
import type { WalletProtocol } from './protocol';

export type SubmitWalletResponseInput = Scope & {
  verificationId: string;
  walletRequestId: string;
  protocol: WalletProtocol;
  data: unknown;
  actor: string;
  requestId?: string;
  now?: Date;
};

/** 422 WALLET_RESPONSE_INVALID: `details.reason` says which check failed. */
export function walletResponseInvalid(reason: WalletRefusalReason, detail: string) {
  return new DomainError('WALLET_RESPONSE_INVALID', `The wallet's response was refused (${reason}): ${detail}.`, {
    reason,
  });
}

/** The result of a wallet decision: what GET shows and what is kept (docs/wallet.md "What is kept"). */
export function walletResult(claim: VerifiedClaim, protocol: WalletProtocol, threshold: number) {
  return {
    decision: claim.value ? 'pass' : 'fail',
    threshold,
    age_source: 'wallet',
    wallet: { protocol, element: claim.element, value: claim.value, issuer: claim.issuer },
  };
}

export async function submitWalletResponse(db: Db, input: SubmitWalletResponseInput) {
  const now = input.now ?? new Date();
  const { verification: v, consent } = await getVerification(db, {
    workspaceId: input.workspaceId,
    mode: input.mode,
    id: input.verificationId,
  });
  if (!consent)
    throw new DomainError('CONSENT_REQUIRED', 'The user must accept the consent text before a wallet proof is taken.');
  const [request] = await db
    .select()
    .from(walletRequests)
    .where(and(eq(walletRequests.id, input.walletRequestId), eq(walletRequests.verificationId, v.id)));
  if (!request) throw notFound('Wallet request');

  // Refusals that need no cryptography: a request answered already, one for another protocol, one past its time.
  // A spent request is refused before the status is looked at, so the same response sent twice is `replayed` even
  // when the first one decided the verification.
  let outcome: { refused: WalletRefusal } | { claim: VerifiedClaim };
  const spec = specOf(request);
  if (request.usedAt || !spec)
    outcome = {
      refused: new WalletRefusal(
        'replayed',
        'this request was answered already; ask the wallet again with a new request',
      ),
    };
  else {
    await assertWalletProofAllowed(db, v);
    if (input.protocol !== request.protocol)
      outcome = {
        refused: new WalletRefusal(
          'malformed',
          `the response is for ${input.protocol}, the request was ${request.protocol}`,
        ),
      };
    else if (now > request.expiresAt)
      outcome = {
        refused: new WalletRefusal(
          'expired',
          `the request expired at ${request.expiresAt.toISOString()}; ask the wallet again`,
        ),
      };
    else {
      try {
        outcome = {
          claim: await verifyWalletResponse({
            spec,
            data: input.data,
            anchors: await trustedRootsFor(db, v.workspaceId),
            now,
          }),
        };
      } catch (e) {
        if (!(e instanceof WalletRefusal)) log.warn('wallet response unreadable', { err: (e as Error).message });
        outcome = {
          refused: e instanceof WalletRefusal ? e : new WalletRefusal('malformed', 'the response cannot be read'),
        };
      }
    }
  }

  const decided = await db.transaction(async (tx) => {
    const [row] = await tx.select().from(verifications).where(eq(verifications.id, v.id)).for('update');
    // The request is spent by its first response, whatever it holds (a second one, even racing, is `replayed`).
    const spent = request.usedAt
      ? []
      : await tx
          .update(walletRequests)
          .set({
            usedAt: now,
            privateKeySealed: null,
            outcome: 'refused' in outcome ? outcome.refused.reason : 'verified',
          })
          .where(and(eq(walletRequests.id, request.id), isNull(walletRequests.usedAt)))
          .returning({ id: walletRequests.id });
    if (!spent.length && !('refused' in outcome && outcome.refused.reason === 'replayed')) {
      outcome = {
        refused: new WalletRefusal(
          'replayed',
          'this request was answered already; ask the wallet again with a new request',
        ),
      };
    }
    if ('refused' in outcome) {
      const r = outcome.refused;
      await audit(tx, {
        workspaceId: row.workspaceId,
        verificationId: row.id,
        actor: input.actor,
        requestId: input.requestId,
        action: 'wallet.refused',
        data: { request_id: request.id, protocol: request.protocol, reason: r.reason },
      });
      if (r.reason === 'untrusted_issuer')
        log.warn('wallet proof from an untrusted issuer', { verificationId: row.id, detail: r.detail });
      return null;
    }
    // The verification may have moved since it was read (an upload and submit, another proof): the locked row decides.
    await assertWalletProofAllowed(tx, row);
    const claim = outcome.claim;
    const [ws] = await tx
      .select({ ageThreshold: workspaces.ageThreshold })
      .from(workspaces)
      .where(eq(workspaces.id, row.workspaceId));
    const attempt = row.attemptsUsed + 1;
    await enqueueTransitionWebhook(
      tx,
      await applyTransition(tx, {
        verificationId: row.id,
        trigger: 'wallet_proof',
        now,
        patch: { attemptsUsed: attempt, submittedAt: now, reason: null },
      }),
    );
    const trigger = row.mode === 'test' ? 'wallet_review' : claim.value ? 'wallet_approve' : 'wallet_decline';
    const reason = trigger === 'wallet_decline' ? 'age_below_threshold' : null;
    const moved = await applyTransition(tx, {
      verificationId: row.id,
      trigger,
      now,
      patch: { reason, result: walletResult(claim, request.protocol, ws.ageThreshold) },
    });
    await enqueueTransitionWebhook(tx, moved);
    const next = moved.row;
    await audit(tx, {
      workspaceId: row.workspaceId,
      verificationId: row.id,
      actor: input.actor,
      requestId: input.requestId,
      action: 'verification.submitted',
      data: { attempt, status: next.status, via: 'wallet' },
    });
    await audit(tx, {
      workspaceId: row.workspaceId,
      verificationId: row.id,
      actor: 'wallet',
      requestId: input.requestId,
      action: 'verification.decided',
      data: {
        attempt,
        status: next.status,
        reason,
        wallet: { request_id: request.id, protocol: request.protocol, element: claim.element, value: claim.value },
      },
    });
    return next;
  });
  // Counted once its transaction has committed: what this response came to (docs/operating.md "Metrics").
  metrics().walletResponses.inc({
    protocol: request.protocol,
    outcome: decided ? 'verified' : (outcome as { refused: WalletRefusal }).refused.reason,
  });
  if (!decided) {
    const r = (outcome as { refused: WalletRefusal }).refused;
    throw walletResponseInvalid(r.reason, r.detail);
  }
  // Read again: the result's issuer is stored sealed and merged back by the read.
  return getVerification(db, { workspaceId: input.workspaceId, mode: input.mode, id: v.id });
}

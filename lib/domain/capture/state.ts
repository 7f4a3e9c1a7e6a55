/**
 * What the hosted capture page shows of one verification: decided statuses say what happened, never the
 * evidence behind it. Read by the page itself (app/verify/[token]) and by its GET endpoint.
 */
import { desc, eq } from 'drizzle-orm';
import { media, workspaces, type VerificationRow } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { getActiveConsent, getConsentRecord, localesOf } from '../consent';
import {
  attemptsExhausted,
  attemptsRemaining,
  missingMedia,
  needsDocument,
  WALLET_PROOF_STATUSES,
} from '../transitions/policy';
import { latestChallenge } from '../liveness/challenge';

export async function captureState(db: DbOrTx, v: VerificationRow, workspaceName: string) {
  const [consent, active, uploads, ws, challenge] = await Promise.all([
    getConsentRecord(db, v.id),
    getActiveConsent(db),
    db
      .select({ type: media.type, side: media.side, documentType: media.documentType, createdAt: media.createdAt })
      .from(media)
      .where(eq(media.verificationId, v.id))
      .orderBy(desc(media.createdAt), desc(media.id)),
    db
      .select({
        requireActiveLiveness: workspaces.requireActiveLiveness,
        wallet: workspaces.wallet,
        ageThreshold: workspaces.ageThreshold,
      })
      .from(workspaces)
      .where(eq(workspaces.id, v.workspaceId)),
    latestChallenge(db, v.id),
  ]);
  // Uploads since the last submission: what this attempt has (a resubmission starts from what is kept).
  const since = (m: { createdAt: Date }) => !v.submittedAt || m.createdAt > v.submittedAt;
  const front = uploads.find((m) => m.type === 'document' && m.side === 'front');
  return {
    status: v.status,
    mode: v.mode,
    flow: v.flow,
    check_method: v.checkMethod,
    workspace_name: workspaceName,
    needs_document: needsDocument(v),
    // The page fetches the text in its language from its path on this origin (lib/domain/consent/paths.ts; the CSP allows
    // only self), or the English one when the version has none in it, and says so.
    consent: {
      accepted: Boolean(consent),
      version: active ? { id: active.id, version: active.version, locales: localesOf(active) } : null,
    },
    media: {
      selfie: uploads.some((m) => m.type === 'selfie' && since(m)),
      document_front: Boolean(front && since(front)),
      document_back: uploads.some((m) => m.type === 'document' && m.side === 'back' && since(m)),
      document_type: front?.documentType ?? null,
    },
    missing: missingMedia(v, uploads),
    attempts_remaining: attemptsRemaining(v),
    reason: v.reason,
    // 'document' once the age estimate could not decide and the workspace asks for an ID document instead
    // (docs/api.md "Step-up to a document"): the page explains it and asks for one, keeping the selfie.
    step_up: v.stepUp,
    // Extension: the page's "Back to {host}" button when it finishes, where the integrator gave a return_url.
    return_url: v.returnUrl,
    return_host: v.returnUrl ? new URL(v.returnUrl).hostname : null,
    // The head-turn challenge before the selfie, where the workspace requires it (docs/api.md, Active liveness).
    active_liveness: {
      required: Boolean(ws[0]?.requireActiveLiveness),
      // done for this attempt: passed, or skipped for the accessible alternative
      done: Boolean(
        (challenge?.outcome?.passed || challenge?.outcome?.skipped) &&
        !(v.submittedAt && challenge.completedAt && challenge.completedAt < v.submittedAt),
      ),
    },
    // docs/wallet.md "On the hosted capture page": the workspace offers a digital ID wallet here, where it can
    // decide this verification now (the page also checks that the browser has the Digital Credentials API).
    wallet: {
      offer:
        ws[0]?.wallet === 'offer' &&
        v.flow === 'age' &&
        Boolean(consent) &&
        WALLET_PROOF_STATUSES.has(v.status) &&
        !attemptsExhausted(v),
      age: ws[0]?.ageThreshold ?? 18,
    },
    // Estimation shows the person nothing of the estimate itself: only the outcome.
  };
}

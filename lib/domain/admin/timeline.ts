/**
 * A case's history in one list, oldest first: created, consent, every upload (accepted or rejected, with
 * codes), each submit and its attempt, pipeline and reviewer decisions (with notes), blocklist changes,
 * expiry or abandonment, and the webhook events with every delivery attempt. Views are counted, not listed.
 */
import type { CaseView } from './case';
import { reasonLabel } from '../transitions/reasons';
import { STATUS_LABELS } from './evidence';
import { isLocale, LOCALE_ENGLISH_NAMES } from '../../core/i18n/locales';

export type TimelineEvent = {
  at: Date;
  title: string;
  detail?: string;
  tone: 'neutral' | 'good' | 'bad' | 'warn';
  attempts?: { at: string; text: string; ok: boolean }[];
};

/** A note about the person, or what is left of one once the data was erased (its key destroyed). */
const noteOf = (d: Record<string, unknown>) =>
  typeof d.note === 'string' && d.note
    ? `Note: ${d.note}`
    : d.personal_erased
      ? 'Note: erased with the data.'
      : undefined;

const kindOf = (d: { type?: string; side?: string | null }) =>
  d.type === 'selfie' ? 'selfie' : `document ${d.side ?? 'front'}`;

export function timeline(c: CaseView): { events: TimelineEvent[]; views: number } {
  const out: TimelineEvent[] = [];
  let views = 0;
  for (const e of c.trail) {
    const d = (e.data ?? {}) as Record<string, unknown>;
    switch (e.action) {
      case 'verification.created':
        out.push({
          at: e.createdAt,
          title: 'Created',
          detail: `by ${e.actor.startsWith('key:') ? 'the API (secret key ' + e.actor.slice(4) + ')' : e.who}`,
          tone: 'neutral',
        });
        break;
      case 'consent.accepted': {
        const rec = c.consents.find((r) => r.consentVersionId === d.consent_version_id);
        // The language of the text accepted (docs/api.md "Consent"): what the person read.
        const locale = rec?.locale ?? (typeof d.locale === 'string' ? d.locale : null);
        const language = locale ? (isLocale(locale) ? LOCALE_ENGLISH_NAMES[locale] : locale) : null;
        out.push({
          at: e.createdAt,
          title: `Consent accepted (version ${String(d.version ?? rec?.version ?? '?')}${language ? `, in ${language}` : ''})`,
          detail: rec ? `text SHA-256 ${rec.textSha256}` : undefined,
          tone: 'good',
        });
        break;
      }
      case 'media.uploaded':
        out.push({
          at: e.createdAt,
          title: `Upload accepted: ${kindOf(d as { type?: string; side?: string })}`,
          detail: d.document_type ? String(d.document_type).replace(/_/g, ' ') : undefined,
          tone: 'good',
        });
        break;
      case 'media.rejected':
        out.push({
          at: e.createdAt,
          title: `Upload rejected: ${kindOf(d as { type?: string; side?: string })} — ${String(d.code)}`,
          detail:
            Array.isArray(d.failed_checks) && d.failed_checks.length > 1
              ? `also failed: ${d.failed_checks.slice(1).join(', ')}`
              : undefined,
          tone: 'bad',
        });
        break;
      case 'verification.submitted':
        out.push({
          at: e.createdAt,
          title: `Submitted${d.via === 'wallet' ? ' with a digital ID wallet' : ''} (attempt ${String(d.attempt ?? '?')} of 5)`,
          detail: d.status ? `→ ${STATUS_LABELS[String(d.status)] ?? String(d.status)}` : undefined,
          tone: 'neutral',
        });
        break;
      // docs/wallet.md: each request to a wallet, and each response refused (the verification stays as it was).
      case 'wallet.requested':
        out.push({
          at: e.createdAt,
          title: `Digital ID wallet asked (${String(d.protocol)})`,
          detail: `${String(d.element)}, for ${String(d.origin)}`,
          tone: 'neutral',
        });
        break;
      case 'wallet.refused':
        out.push({
          at: e.createdAt,
          title: `Wallet proof refused (${String(d.protocol)}): ${String(d.reason)}`,
          detail: 'Nothing changed; the person may try again.',
          tone: 'bad',
        });
        break;
      case 'verification.decided': {
        const status = String(d.status ?? '');
        const by =
          e.actor === 'pipeline'
            ? 'The pipeline'
            : e.actor === 'wallet'
              ? 'The wallet proof'
              : e.actor === 'operator'
                ? 'An operator (command line)'
                : e.who;
        const reason = d.reason ? ` — ${reasonLabel(String(d.reason))}` : '';
        const wallet = d.wallet as { element?: string; value?: boolean; protocol?: string } | undefined;
        const detail =
          noteOf(d) ??
          (wallet
            ? `${wallet.element} = ${String(wallet.value)}, signed by the issuer (${wallet.protocol})`
            : undefined);
        out.push({
          at: e.createdAt,
          title: `${by}: ${STATUS_LABELS[status]?.toLowerCase() ?? status}${reason}`,
          detail,
          tone: status === 'approved' ? 'good' : status === 'declined' ? 'bad' : 'warn',
        });
        break;
      }
      case 'blocklist.added':
        out.push({ at: e.createdAt, title: `Added to the blocklist by ${e.who}`, detail: noteOf(d), tone: 'bad' });
        break;
      case 'blocklist.removed':
        out.push({ at: e.createdAt, title: `Removed from the blocklist by ${e.who}`, tone: 'neutral' });
        break;
      case 'verification.data_erased':
        out.push({
          at: e.createdAt,
          title: e.actor === 'system' ? 'Data erased: its retention ended' : `Data erased by ${e.who}`,
          detail: 'Photos, faces and personal fields; a signed receipt was issued.',
          tone: 'warn',
        });
        break;
      case 'verification.viewed':
      case 'media.viewed':
        views += e.action === 'verification.viewed' ? 1 : 0;
        break;
      default:
        out.push({ at: e.createdAt, title: `${e.action} by ${e.who}`, tone: 'neutral' });
    }
  }
  const v = c.verification;
  if (!c.trail.some((e) => e.action === 'verification.created'))
    out.push({ at: v.createdAt, title: 'Created', tone: 'neutral' });
  if ((v.status === 'expired' || v.status === 'abandoned') && v.completedAt) {
    out.push({
      at: v.completedAt,
      title: v.status === 'expired' ? 'Expired: no upload within 7 days' : 'Abandoned: not submitted within 7 days',
      tone: 'warn',
    });
  }
  for (const w of c.webhooks) {
    const state =
      {
        pending: w.attempts ? 'retrying' : 'queued',
        delivered: 'delivered',
        completed: 'answered with an error, not retried',
        failed: 'failed',
        skipped: 'not sent: no webhook URL set',
      }[w.state] ?? w.state;
    out.push({
      at: new Date(w.created_at),
      title: `Webhook "${w.status}": ${state}${w.attempts ? ` after ${w.attempts} attempt${w.attempts === 1 ? '' : 's'}` : ''}`,
      detail: w.next_attempt_at ? `next attempt ${w.next_attempt_at.slice(0, 19).replace('T', ' ')} UTC` : undefined,
      tone: w.state === 'delivered' ? 'good' : w.state === 'failed' ? 'bad' : 'neutral',
      attempts: w.attempt_log.map((a) => ({
        at: a.started_at,
        text: `#${a.attempt}: ${a.status_code ? `HTTP ${a.status_code}` : (a.error ?? 'no answer')}${a.latency_ms !== null ? `, ${a.latency_ms} ms` : ''} — ${a.outcome}`,
        ok: a.outcome === 'delivered',
      })),
    });
  }
  out.sort((a, b) => a.at.getTime() - b.at.getTime());
  return { events: out, views };
}

/**
 * How long a verification's data is kept. Counted from its terminal decision (approved, declined, expired,
 * abandoned: `completed_at`), per workspace (`media_retention_days`):
 *
 * - default 30 days (docs/api.md): long enough for an integrator to look into a complaint or a disputed
 *   decision, short enough that a breach exposes a month of faces, not years of them;
 * - at most 365 days. Illinois' BIPA allows at most three years after the last interaction, but that is a legal
 *   ceiling, not a purpose: GDPR's storage limitation and the UK ICO's age-assurance guidance ask for the
 *   shortest period the purpose needs, and a verification's purpose ends at its decision. A year covers an
 *   annual audit or a late dispute; past it, keeping faces only adds risk. (The duplicate check sees faces for
 *   as long as they are kept; a face to be recognised for longer belongs on the blocklist, a deliberate record
 *   of its own.)
 * - 0: erased at the first sweep after the decision.
 *
 * A verification stuck without a decision (in `submitted` or `review`) for the maximum is erased too, so no
 * face outlives the maximum whatever happens to its case.
 */
export const MAX_RETENTION_DAYS = 365;

/** Statuses in which a case waits for the pipeline or a reviewer (the inactivity timers cover the others). */
export const WAITING_STATUSES = ['submitted', 'review'] as const;

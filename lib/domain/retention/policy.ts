/**
 * How long a verification's data is kept. Counted from its terminal decision (approved, declined, expired,
 * abandoned: `completed_at`), per workspace (`media_retention_days`): default 30 days, at most 365, 0 for
 * erased at the first sweep after the decision. A verification stuck without a decision (in `submitted` or
 * `review`) for the maximum is erased too, so no face outlives the maximum whatever happens to its case.
 * Why these bounds: docs/architecture.md "Notes behind the code".
 */
export const MAX_RETENTION_DAYS = 365;

/** Statuses in which a case waits for the pipeline or a reviewer (the inactivity timers cover the others). */
export const WAITING_STATUSES = ['submitted', 'review'] as const;

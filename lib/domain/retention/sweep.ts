/**
 * The retention sweep (job `retention-sweep`, every minute under both runners; `npm run ops -- retention:run`):
 * erases the data of every verification whose retention has passed — `completed_at` + its workspace's
 * `media_retention_days` — and of every case left waiting (`submitted`, `review`) for the maximum retention.
 * In batches, each one transaction that locks its rows with FOR UPDATE SKIP LOCKED: two servers sweeping at
 * once take different rows, a row is erased once (the due condition includes `data_erased_at is null`), and a
 * stopped sweep loses nothing (the next one finds what is still due). Each run stops after a time budget so a
 * large backlog is worked off over several runs without holding one for long.
 *
 * Then it moves data written before data keys existed under one (upgrade.ts), a batch at a time.
 */
import { and, asc, eq, inArray, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import { verifications, workspaces } from '@/lib/db/schema';
import type { Db, DbOrTx } from '@/lib/db/client';
import { eraseLocked, type ErasureTarget } from './erase';
import { DAY_MS } from '../../core/time';
import { MAX_RETENTION_DAYS, WAITING_STATUSES } from './policy';
import { upgradeLegacyData, type UpgradeCounts } from './upgrade';
import { log } from '../../core/log';
import { metrics } from '../../core/observability/metrics';

export type SweepOptions = {
  now?: Date;
  /** Verifications per transaction. */
  batch?: number;
  /** Stop starting new batches after this long (the rest is left to the next run). */
  budgetMs?: number;
  /** Called with each batch while its rows are locked (tests hold a batch to show another sweeper skips it). */
  onLocked?: (ids: string[]) => Promise<void>;
  /** Skip the legacy-data upgrade (benchmarks measure erasure alone). */
  upgrade?: boolean;
  /**
   * The share of the time the sweep works (0 < pace ≤ 1): after each full batch it rests for as long again as
   * the batch took, times (1 − pace) / pace. The sweep runs beside the API, in the server's own process; on a
   * small machine a sweep at full speed takes the CPU the API's requests need (measured: npm run bench:retention).
   */
  pace?: number;
  /** How it rests (tests watch it). */
  sleep?: (ms: number) => Promise<void>;
};

export type SweepResult = { erased: number; batches: number; more: boolean; upgraded: UpgradeCounts };

/** Verifications a batch erases: 100 when the sweep runs alone at full speed (`pace` 1: the CLI, a dedicated
 * sweeper); 25 when it is paced beside the API, so that each batch's burst of work (about 15 ms here, against
 * 60 ms for 100) delays a request that arrives during it by less (bench:retention measures the GET p99). */
export const SWEEP_BATCH = 100;
export const SWEEP_BATCH_PACED = 25;
export const SWEEP_BUDGET_MS = 45_000;
export const SWEEP_PACE = 0.25;

/** Up to `limit` verifications due for erasure, locked (skipping rows another transaction holds). */
export async function lockDue(tx: DbOrTx, now: Date, limit: number): Promise<ErasureTarget[]> {
  const at = now.toISOString();
  const decided = await tx
    .select({ v: verifications, retentionDays: workspaces.mediaRetentionDays })
    .from(verifications)
    .innerJoin(workspaces, eq(workspaces.id, verifications.workspaceId))
    .where(
      and(
        isNull(verifications.dataErasedAt),
        isNotNull(verifications.completedAt),
        lte(
          verifications.completedAt,
          sql`${at}::timestamptz - make_interval(days => ${workspaces.mediaRetentionDays})`,
        ),
      ),
    )
    .orderBy(asc(verifications.completedAt))
    .limit(limit)
    .for('update', { of: verifications, skipLocked: true });
  const out: ErasureTarget[] = decided.map((r) => ({ ...r.v, retentionDays: r.retentionDays }));
  if (out.length < limit) {
    // Cases never decided: the maximum retention from their last change.
    const waiting = await tx
      .select()
      .from(verifications)
      .where(
        and(
          isNull(verifications.dataErasedAt),
          inArray(verifications.status, [...WAITING_STATUSES]),
          lte(verifications.statusChangedAt, new Date(now.getTime() - MAX_RETENTION_DAYS * DAY_MS)),
        ),
      )
      .limit(limit - out.length)
      .for('update', { skipLocked: true });
    out.push(...waiting.map((v) => ({ ...v, retentionDays: MAX_RETENTION_DAYS })));
  }
  return out;
}

export async function sweepRetention(db: Db, opts: SweepOptions = {}): Promise<SweepResult> {
  metrics().retentionSweeps.inc();
  const now = opts.now ?? new Date();
  const deadline = Date.now() + (opts.budgetMs ?? SWEEP_BUDGET_MS);
  const pace = Math.min(1, Math.max(0.05, opts.pace ?? SWEEP_PACE));
  const batch = opts.batch ?? (pace < 1 ? SWEEP_BATCH_PACED : SWEEP_BATCH);
  let erased = 0;
  let batches = 0;
  let more = false;
  for (;;) {
    const started = performance.now();
    const n = await db.transaction(async (tx) => {
      const due = await lockDue(tx, now, batch);
      if (due.length === 0) return 0;
      await opts.onLocked?.(due.map((d) => d.id));
      await eraseLocked(tx, due, { trigger: 'retention', actor: 'system', now });
      return due.length;
    });
    erased += n;
    if (n > 0) batches++;
    if (n < batch) break;
    if (Date.now() > deadline) {
      more = true;
      break;
    }
    if (pace < 1)
      await (opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))))(
        ((performance.now() - started) * (1 - pace)) / pace,
      );
  }
  const none: UpgradeCounts & { more: boolean } = {
    media: 0,
    results: 0,
    metadata: 0,
    webhook_bodies: 0,
    webhook_responses: 0,
    audit_notes: 0,
    more: false,
  };
  const { more: upgradeMore, ...upgraded } =
    opts.upgrade === false ? none : await upgradeLegacyData(db, { batch, deadline });
  const upgradedAny = Object.values(upgraded).some((n) => n > 0);
  if (erased || upgradedAny) log.info('retention sweep', { erased, batches, more, upgraded });
  return { erased, batches, more: more || upgradeMore, upgraded };
}

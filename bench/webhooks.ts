/**
 * npm run bench:webhooks [-- --db embedded|pg15] [--events N] [--decisions N]
 *
 * Deliveries per second to a local HTTPS receiver (a backlog of events drained by the deliverer), and
 * the delay between a decision (its commit) and the first delivery attempt arriving at the receiver,
 * with the in-process runner as in the server, started by the decision's event (p50/p95; target p95 < 1 s).
 */
import { eq } from 'drizzle-orm';
import { resetEnvCache } from '../lib/core/env';
import { connect } from '../lib/db/client';
import { verifications } from '../lib/db/schema';
import { selfSignedCert, startReceiver } from '../test/helpers/https-receiver';
import { benchFlags, percentile, prepare, runBench, startDatabase } from './harness';

const flags = benchFlags({ db: 'embedded', events: '400', decisions: '100' });
const DB = flags.db;
const EVENTS = Number(flags.events);
const DECISIONS = Number(flags.decisions);

async function main() {
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
  resetEnvCache();
  const db = await startDatabase(DB);
  const tls = selfSignedCert();
  const rx = await startReceiver(tls, [{ status: 200 }]);
  await prepare(db.url, { webhook_url: rx.url });
  const h = connect(db.url, { max: 10 });
  const { createVerification } = await import('../lib/domain/verifications/create');
  const { applyTransition } = await import('../lib/domain/transitions/state-machine');
  const { enqueueTransitionWebhook } = await import('../lib/domain/webhooks/outbox');
  const { deliverDueWebhooks } = await import('../lib/domain/webhooks/deliver');
  const { startLocalRunner } = await import('../lib/domain/jobs/local-runner');
  const { workspaces } = await import('../lib/db/schema');
  const [ws] = await h.db.select().from(workspaces).where(eq(workspaces.name, 'bench'));

  /** A verification waiting in review, and the admin decision that fires its webhook. */
  const inReview = async () => {
    const { row } = await createVerification(h.db, { workspace: ws, keyMode: 'test', fields: {}, actor: 'key:bench' });
    await h.db.update(verifications).set({ status: 'review' }).where(eq(verifications.id, row.id));
    return row.id;
  };
  const decide = (id: string) =>
    h.db.transaction(async (tx) =>
      enqueueTransitionWebhook(tx, await applyTransition(tx, { verificationId: id, trigger: 'admin_approve' })),
    );

  // 1. Throughput: a backlog of EVENTS decisions, drained.
  const ids = [];
  for (let i = 0; i < EVENTS; i++) ids.push(await inReview());
  for (const id of ids) await decide(id);
  const deps = { db: h.db, ca: tls.cert, allowPrivate: true };
  const t0 = performance.now();
  let sent = 0;
  while (sent < EVENTS) sent += await deliverDueWebhooks(deps, 50);
  const secs = (performance.now() - t0) / 1000;
  const delivered = rx.received.length;

  // 2. Decision → first delivery, with the in-process runner as in the server: the decision's commit sends
  // webhook/enqueued, which starts the delivery at once.
  const runner = startLocalRunner({ db: h.db, webhook: deps });
  const decidedAt = new Map<string, number>();
  const pending = [];
  for (let i = 0; i < DECISIONS; i++) pending.push(await inReview());
  const before = rx.received.length;
  for (const id of pending) {
    await decide(id);
    decidedAt.set(id, Date.now());
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
  }
  const until = Date.now() + 10_000;
  while (rx.received.length < before + DECISIONS && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  await runner.stop();
  const delays = rx.received.slice(before).map((r) => r.at - decidedAt.get(JSON.parse(r.body).verification_id)!);

  console.log(`\nbench:webhooks  database=${DB}  HTTPS receiver on loopback`);
  console.log(
    `throughput: ${delivered} deliveries in ${secs.toFixed(2)} s = ${(delivered / secs).toFixed(0)} deliveries/s (batches of 50, one runner)`,
  );
  console.log(
    `decision → first delivery (n=${delays.length}, in-process runner started by the event): p50 ${percentile(delays, 50)} ms  p95 ${percentile(delays, 95)} ms  max ${Math.max(...delays)} ms  (target p95 < 1000 ms)`,
  );
  await h.close();
  await rx.close();
  await db.stop();
}

runBench(main);

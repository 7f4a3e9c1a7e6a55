/**
 * Work that must start only once a transaction has committed: the outbox rows (a pipeline job, a webhook
 * event) are written inside it, and the event that tells a runner about them is sent after it (jobs'
 * `sendEvent`), so a runner never looks for a row that is not yet visible and a rolled-back transaction
 * announces nothing. The database client runs every outermost transaction in a scope of its own
 * (lib/db/client.ts); callbacks registered inside it run after COMMIT, in order, and are dropped on ROLLBACK.
 * Outside a transaction a callback runs at once. A callback that fails is logged by its owner: the rows are
 * in Postgres and the runners' safety nets find them anyway.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

type Callback = () => Promise<void> | void;
// On globalThis, like the pool it serves (docs/architecture.md "State of the process"): Next.js bundles the route
// handlers apart from instrumentation.ts, whose copy of lib/db/client.ts opens the transactions. With a scope per
// bundle, a route's afterCommit() saw no transaction and ran at once, inside it, and the in-process runner's job
// it started inherited that transaction's scope: the job's own transactions took it for an outer one and their
// callbacks (the decision's webhook event, its metrics) were queued on a list already flushed, and lost.
const g = globalThis as unknown as { __ovAfterCommit?: AsyncLocalStorage<Callback[]> };
const scope = (g.__ovAfterCommit ??= new AsyncLocalStorage<Callback[]>());

export function afterCommit(fn: Callback): Promise<void> | void {
  const pending = scope.getStore();
  if (pending) pending.push(fn);
  else return fn();
}

/**
 * Runs `fn` outside any transaction's scope: work that outlives the code that started it (a background job run
 * started from a request's event) must open transactions of its own, not join a list that was flushed long ago.
 */
export const outsideTransactions = <T>(fn: () => T): T => scope.exit(fn);

/** Runs `body` (which opens a transaction) and, when it resolves, the callbacks registered inside it. */
export async function transactionScope<T>(body: () => Promise<T>): Promise<T> {
  if (scope.getStore()) return body(); // nested (a savepoint): the outermost transaction flushes
  const pending: Callback[] = [];
  const result = await scope.run(pending, body);
  // Not inside the scope any more: what these callbacks do in the database commits on its own.
  for (const fn of pending) await fn();
  return result;
}

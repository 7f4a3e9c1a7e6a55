/**
 * Work that must start only once a transaction has committed: the outbox rows (a pipeline job, a webhook
 * event) are written inside it, and the event that tells a runner about them is sent after it (jobs'
 * `sendEvent`), so a runner never looks for a row that is not yet visible and a rolled-back transaction
 * announces nothing. The database client runs every outermost transaction in a scope of its own
 * (db/client.ts); callbacks registered inside it run after COMMIT, in order, and are dropped on ROLLBACK.
 * Outside a transaction a callback runs at once. A callback that fails is logged by its owner: the rows are
 * in Postgres and the runners' safety nets find them anyway.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

type Callback = () => Promise<void> | void;
const scope = new AsyncLocalStorage<Callback[]>();

export function afterCommit(fn: Callback): Promise<void> | void {
  const pending = scope.getStore();
  if (pending) pending.push(fn);
  else return fn();
}

/** Runs `body` (which opens a transaction) and, when it resolves, the callbacks registered inside it. */
export async function transactionScope<T>(body: () => Promise<T>): Promise<T> {
  if (scope.getStore()) return body(); // nested (a savepoint): the outermost transaction flushes
  const pending: Callback[] = [];
  const result = await scope.run(pending, body);
  // Not inside the scope any more: what these callbacks do in the database commits on its own.
  for (const fn of pending) await fn();
  return result;
}

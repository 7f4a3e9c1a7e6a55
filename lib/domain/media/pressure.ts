/**
 * Which workspaces are pressing the analysis: sending more uploads than they are given places for. An upload refused
 * for a full queue (the pool's waiting bounds, or the uploads in progress of lib/api/uploads-in-progress.ts) marks its
 * workspace for PRESSING_MS. The analysis pool keeps its reserve worker from such a workspace and has its running
 * job yield to another workspace's (lib/domain/media/pool.ts; docs/performance.md "Fairness between workspaces under
 * a flood"). On globalThis: the route bundles and the custom server share it.
 */
export const PRESSING_MS = 5_000;

const g = globalThis as unknown as { __ovUploadPressure?: Map<string, number> };
const refusedAt = () => (g.__ovUploadPressure ??= new Map());

/** An upload of `workspace` was refused for a full queue just now. */
export function notePressure(workspace: string, now = performance.now()) {
  const m = refusedAt();
  m.delete(workspace); // re-inserted last: the map stays in order of the latest refusal
  m.set(workspace, now);
  // Once many workspaces were refused, forget from the oldest (the map is in refusal order): every one past
  // PRESSING_MS, and more while still over the bound.
  if (m.size <= 10_000) return;
  for (const [k, at] of m) {
    if (now - at <= PRESSING_MS && m.size <= 10_000) break;
    m.delete(k);
  }
}

/** Whether an upload of `workspace` was refused for a full queue in the last PRESSING_MS. */
export function isPressing(workspace: string, now = performance.now()): boolean {
  const at = refusedAt().get(workspace);
  if (at === undefined) return false;
  if (now - at <= PRESSING_MS) return true;
  refusedAt().delete(workspace);
  return false;
}

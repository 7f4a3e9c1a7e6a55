/** A workspace that requires the head-turn challenge (created once per test file), and live verifications in it. */
import { apiClient } from '../test/helpers/api-client';
import { ops, state } from './env';

/** A workspace requiring the challenge, created once for this file. */
let ws: { apiKey: string; live: string } | null = null;
function workspace() {
  if (ws) return ws;
  const c = ops('workspace:create', '--name', 'e2e liveness');
  ops(
    'workspace:settings',
    '--workspace',
    c.workspace.id,
    '--rate-limit-per-minute',
    '100000',
    '--require-active-liveness',
    'true',
    '--age-threshold',
    '5',
  );
  ws = { apiKey: c.workspace.api_key, live: c.secret_keys.find((k: { mode: string }) => k.mode === 'live').secret };
  return ws;
}
export async function newLiveVerification() {
  const w = workspace();
  const api = apiClient(state().base, w.apiKey, w.live);
  const r = await api.json('POST', '/v1/verifications', '{}');
  return { id: r.data.id as string, url: r.data.url as string, api };
}

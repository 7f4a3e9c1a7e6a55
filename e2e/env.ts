/** What global-setup starts and writes, read by the specs: the server, its workspaces, the fake-camera files. */
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CHROMIUM_ARGS, CHROMIUM_ENV } from '../playwright.config';
import { chromiumPath } from '../test/setup/provision.mjs';
import { apiClient } from '../test/helpers/api-client';
import { childEnv, root, tsx } from '../test/helpers/server';
import { opsSync, prewarmOps } from '../test/helpers/ops-sync';

export const E2E_DIR = path.resolve(import.meta.dirname, '../.cache/e2e');
export const STATE_FILE = path.join(E2E_DIR, 'state.json');
export const FACE_Y4M = path.join(E2E_DIR, 'face.y4m');
export const DARK_Y4M = path.join(E2E_DIR, 'dark.y4m');
export const FACE_JPEG = path.join(E2E_DIR, 'face.jpg');
/** The camera turning the head: straight, left, straight, right, looped (test/helpers/head-turn.ts). */
export const TURNING_Y4M = path.join(E2E_DIR, 'turning.y4m');
/** The local HTTPS webhook receiver's key and certificate (the server trusts it: NODE_EXTRA_CA_CERTS). */
export const RECEIVER_TLS = path.join(E2E_DIR, 'receiver-tls.json');
/** The OpenID provider the admin single sign-on test starts (its port is fixed when the server starts). */
export const OIDC = {
  clientId: 'open-verify-e2e',
  clientSecret: 'e2e-client-secret-not-for-production',
  name: 'Test IdP',
};

type Ws = { id: string; apiKey: string; test: string; live: string };
export type E2eState = {
  base: string;
  dataDir: string;
  port: number;
  pid: number;
  oidcPort: number;
  estimation: Ws;
  documents: Ws;
};

export const state = (): E2eState => JSON.parse(fs.readFileSync(STATE_FILE, 'utf8'));

/** Chromium with a fake camera showing `file`; `allowCamera: false` leaves the permission prompt to deny. */
export function cameraLaunch(file: string, allowCamera = true) {
  return {
    executablePath: chromiumPath(),
    env: CHROMIUM_ENV,
    args: [
      ...CHROMIUM_ARGS,
      ...(allowCamera ? ['--use-fake-ui-for-media-stream'] : []),
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-video-capture=${file}`,
    ],
  };
}

/** A new verification through the signed API; its `url` is the capture page. */
export async function newVerification(ws: 'estimation' | 'documents', mode: 'test' | 'live', body: object = {}) {
  const s = state();
  const w = s[ws];
  const api = apiClient(s.base, w.apiKey, mode === 'test' ? w.test : w.live);
  const r = await api.json('POST', '/v1/verifications', JSON.stringify(body));
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return { id: r.data.id as string, url: r.data.url as string, api };
}

const opsEnv = () => {
  const s = state();
  return childEnv(s.dataDir, s.port, { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' });
};
const opsCommand = (args: string[]) =>
  [tsx, ['server/ops.ts', ...args, '--json'], { cwd: root, env: opsEnv() }] as const;
/**
 * The operator CLI for the e2e server, answered by main() in a worker thread with its environment
 * (test/helpers/ops-sync.ts). It blocks this process's event loop for the command's milliseconds.
 */
export function ops(...args: string[]) {
  return JSON.parse(opsSync([...args, '--json'], opsEnv()));
}
// In a test worker, the CLI's thread loads now, while the browser starts: the first ops() then blocks for
// milliseconds too, not for the seconds of that load (a blocked event loop misses the server closing an idle
// keep-alive connection, and the next request on it fails).
if (process.env.TEST_WORKER_INDEX !== undefined && fs.existsSync(STATE_FILE)) prewarmOps(opsEnv());
/**
 * The same, without blocking this process: a blocked event loop misses the server closing an idle keep-alive
 * connection, and the next request on it fails ("other side closed").
 */
export async function opsAsync(...args: string[]) {
  return JSON.parse((await promisify(execFile)(...opsCommand(args))).stdout);
}

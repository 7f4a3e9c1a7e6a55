/**
 * Provisions Debian's Chromium, the photos and fonts (test/setup/provision.mjs), builds if needed, starts the production server on an embedded database in a temporary directory,
 * creates an estimation and a document workspace, and writes the fake-camera files made from a real face
 * photo (scikit-image's astronaut, from Debian's package, fetched at test time).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { provisionOrExit } from '../test/setup/provision.mjs';
import { ensureBuild, freePort, start } from '../test/helpers/server';
import { cameraFrame } from '../test/helpers/images';
import { writeY4m, writeY4mSequence } from '../test/helpers/y4m';
import { turnedHead } from '../test/helpers/head-turn';
import { selfSignedCert } from '../test/helpers/https-receiver';
import {
  DARK_Y4M,
  E2E_DIR,
  FACE_JPEG,
  FACE_Y4M,
  OIDC,
  RECEIVER_TLS,
  STATE_FILE,
  TURNING_Y4M,
  ops,
  type E2eState,
} from './env';

export default async function globalSetup() {
  provisionOrExit(['chromium', 'photos', 'fonts']);
  ensureBuild(true);
  fs.mkdirSync(E2E_DIR, { recursive: true });
  const frame = await cameraFrame();
  fs.writeFileSync(FACE_JPEG, frame);
  await writeY4m(FACE_Y4M, frame);
  await writeY4m(DARK_Y4M, await sharp(frame).linear(0.12, 0).jpeg().toBuffer());
  // The astronaut's face box in the camera frame (her 512 px photo cropped at x 56 and scaled 1.6).
  const box = { x: 154, y: 80, w: 232, h: 232 };
  const straight = await turnedHead(frame, 0, box);
  await writeY4mSequence(
    TURNING_Y4M,
    [straight, await turnedHead(frame, 0.4, box), straight, await turnedHead(frame, -0.4, box)],
    { hold: 8, fps: 5 },
  );

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-e2e-'));
  const port = await freePort();
  // The admin tests: webhooks to a local HTTPS receiver (its certificate trusted by the server), and single
  // sign-on against an OpenID provider that e2e/admin-oidc.spec.ts starts on this port.
  fs.writeFileSync(RECEIVER_TLS, JSON.stringify(selfSignedCert()));
  fs.writeFileSync(RECEIVER_TLS + '.cert.pem', JSON.parse(fs.readFileSync(RECEIVER_TLS, 'utf8')).cert);
  const oidcPort = await freePort();
  const server = await start(dataDir, port, {
    WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
    WEBHOOK_RETRY_DELAYS: '2,2,2',
    NODE_EXTRA_CA_CERTS: RECEIVER_TLS + '.cert.pem',
    AUTH_OIDC_ISSUER: `http://127.0.0.1:${oidcPort}`,
    AUTH_OIDC_ID: OIDC.clientId,
    AUTH_OIDC_SECRET: OIDC.clientSecret,
    AUTH_OIDC_NAME: OIDC.name,
  });
  server.proc.unref();
  // The server's output after start-up, for a failing test to be read against.
  const log = path.join(E2E_DIR, 'server.log');
  fs.writeFileSync(log, server.out());
  server.proc.stdout!.on('data', (d) => fs.appendFileSync(log, d));
  server.proc.stderr!.on('data', (d) => fs.appendFileSync(log, d));
  const partial = { base: server.base, dataDir, port, pid: server.proc.pid!, oidcPort };
  fs.writeFileSync(STATE_FILE, JSON.stringify(partial));
  const ws = (checkMethod: string) => {
    const c = ops('workspace:create', '--name', `e2e ${checkMethod}`, '--check-method', checkMethod);
    ops('workspace:settings', '--workspace', c.workspace.id, '--rate-limit-per-minute', '100000');
    const secret = (mode: string) => c.secret_keys.find((k: { mode: string }) => k.mode === mode).secret;
    return { id: c.workspace.id, apiKey: c.workspace.api_key, test: secret('test'), live: secret('live') };
  };
  const state: E2eState = { ...partial, estimation: ws('estimation'), documents: ws('document_verification') };
  fs.writeFileSync(STATE_FILE, JSON.stringify(state));
}

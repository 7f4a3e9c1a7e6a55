/**
 * Provisions Debian's Chromium, the photos and fonts (scripts/test-setup/provision.mjs), builds if needed, starts the production server on an embedded database in a temporary directory,
 * creates an estimation and a document workspace, and writes the fake-camera files made from a real face
 * photo (scikit-image's astronaut, from Debian's package, fetched at test time).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { provisionOrExit } from '../scripts/test-setup/provision.mjs';
import { ensureBuild, freePort, start } from '../lib/testing/server';
import { cameraFrame } from '../lib/testing/images';
import { writeY4m, writeY4mSequence } from '../lib/testing/y4m';
import { turnedHead } from '../lib/testing/head-turn';
import { DARK_Y4M, E2E_DIR, FACE_JPEG, FACE_Y4M, STATE_FILE, TURNING_Y4M, ops, type E2eState } from './env';

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
  await writeY4mSequence(TURNING_Y4M, [straight, await turnedHead(frame, 0.4, box), straight, await turnedHead(frame, -0.4, box)], { hold: 8, fps: 5 });

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-e2e-'));
  const port = await freePort();
  const server = await start(dataDir, port);
  server.proc.unref();
  const partial = { base: server.base, dataDir, port, pid: server.proc.pid! };
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

import fs from 'node:fs';
import { STATE_FILE, state } from './env';

export default async function globalTeardown() {
  if (!fs.existsSync(STATE_FILE)) return;
  const s = state();
  try {
    process.kill(-s.pid, 'SIGINT');
  } catch {
    /* already gone */
  }
  await new Promise((r) => setTimeout(r, 1500));
  fs.rmSync(s.dataDir, { recursive: true, force: true });
  fs.rmSync(STATE_FILE);
}

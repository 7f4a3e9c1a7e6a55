/**
 * `encryption:rotate` on the embedded default while the production server runs: the server re-reads
 * $DATA_DIR/encryption.key, so signed requests, uploads and reads go on answering throughout, everything ends up
 * under the new key, `encryption:retire` removes the old one, and a restart comes back on the new key.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { apiClient } from '@/test/helpers/api-client';
import { cameraFrame } from '@/test/helpers/images';
import { keyIdOf } from '@/lib/core/crypto/keyring';
import { childEnv, ensureBuild, freePort, root, start, stop, tsx, type Server } from '@/test/helpers/server';

const run = promisify(execFile);

describe('rotating the embedded ENCRYPTION_KEY while the server runs', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-rotate-'));
  let server: Server | undefined;
  afterAll(async () => {
    if (server && server.proc.exitCode === null) await stop(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'no request fails during the rotation; afterwards every photo is readable and only the new key exists',
    { timeout: 900_000 },
    async () => {
      ensureBuild();
      const port = await freePort();
      server = await start(dataDir, port);
      const ops = async (...a: string[]) =>
        JSON.parse(
          (
            await run(tsx, ['server/ops.ts', ...a, '--json'], {
              cwd: root,
              env: childEnv(dataDir, port),
              maxBuffer: 64 << 20,
            })
          ).stdout,
        );
      const keyFile = path.join(dataDir, 'encryption.key');
      const oldKey = fs.readFileSync(keyFile, 'utf8').trim();

      const created = await ops('workspace:create', '--name', 'rotation');
      await ops('workspace:settings', '--workspace', created.workspace.id, '--rate-limit-per-minute', '100000');
      const secret = created.secret_keys.find((k: { mode: string }) => k.mode === 'test').secret;
      const api = apiClient(server.base, created.workspace.api_key, secret);
      const photo = await cameraFrame();
      const first = await api.prepare({ selfie: photo });

      // Traffic all along: signed reads and creates (each decrypts the secret keys; creates write new rows).
      const statuses: string[] = [];
      let traffic = true;
      const loop = (async () => {
        while (traffic) {
          const g = await api.json('GET', `/v1/verifications/${first}`);
          const c = await api.json('POST', '/v1/verifications', '{}');
          statuses.push(g.data ? 'ok' : JSON.stringify(g.error), c.data ? 'ok' : JSON.stringify(c.error));
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      const rotated = await ops('encryption:rotate');
      // An upload after the rotation: its data key is made under the new key, by the server that re-read the file.
      const second = await api.prepare({ selfie: photo });
      traffic = false;
      await loop;

      const newKey = fs.readFileSync(keyFile, 'utf8').trim();
      expect(newKey).not.toBe(oldKey);
      expect(rotated).toMatchObject({
        key_id: keyIdOf(Buffer.from(newKey, 'base64')),
        previous_key_ids: [keyIdOf(Buffer.from(oldKey, 'base64'))],
        not_under_primary: 0,
      });
      expect(rotated.rewrapped.data_keys).toBeGreaterThanOrEqual(1);
      expect(rotated.rewrapped.secret_keys).toBeGreaterThanOrEqual(4); // the demo workspace's two and these two
      expect(statuses.length).toBeGreaterThan(4);
      expect(statuses.filter((s) => s !== 'ok')).toEqual([]);

      const status = (await ops('encryption:status')).encryption;
      expect(status).toMatchObject({ source: 'file', primary: rotated.key_id, not_under_primary: 0 });
      expect(Object.keys(status.data_keys)).toEqual([rotated.key_id]);

      const retired = await ops('encryption:retire');
      expect(retired).toMatchObject({
        key_id: rotated.key_id,
        retired_key_ids: rotated.previous_key_ids,
        removed_from: keyFile,
      });
      expect(fs.existsSync(`${keyFile}.previous`)).toBe(false);
      expect(fs.readFileSync(keyFile, 'utf8')).not.toContain(oldKey);

      // Every photo still opens, on the server's next start too (which reads only the new key).
      expect(await stop(server)).toBe(0);
      server = await start(dataDir, port);
      for (const id of [first, second]) {
        const bundle = await ops('verification:export', '--id', id);
        const bytes = Buffer.from(bundle.media[0].photo_base64, 'base64');
        expect((await sharp(bytes).metadata()).format).toBe('jpeg');
      }
      expect((await api.json('GET', `/v1/verifications/${second}`)).data.status).toBe('started');
    },
  );
});

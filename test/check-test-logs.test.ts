/** The log search of npm run test:logs finds each kind of leak, and nothing in ordinary log lines. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { redact } from '@/lib/core/log';
import { randomEmbedding } from '@/test/helpers/retention';
import { scanDir, scanText } from './check-test-logs';

const line = (o: object) => JSON.stringify(o);
// Random values of the real shapes, fixed so that each surely has upper and lower case and digits.
const TOKEN = 'Qm9uIGFwcGV0aXQhIFRoaXMgaXMgYSB0b2tlbi4x_-Z';
const KEY = 'c3VwZXJzZWNyZXQ0MmVuY3J5cHRpb25rZXkhIUFCQ0Q=';

describe('test:logs search', () => {
  it('finds secrets, tokens, keys, faces, names and dates of birth', () => {
    const leaks = [
      line({ msg: 'x', key: 'sk_live_' + 'a1B'.repeat(18) + 'zz' }),
      line({ msg: `GET /verify/${TOKEN}` }),
      line({ msg: 'token', t: TOKEN }),
      line({ key: KEY }),
      line({ photo: randomBytes(30).toString('base64').replace(/^.{4}/, '/9j/4') }),
      line({ faces: [{ e: randomEmbedding(64) }] }),
      line({ person: 'ERIKSSON' }),
      line({ dob: '1974-08-12' }),
      line({ mrz: 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F3104159<<<<<<<<<<<<<<06' }),
    ];
    const found = leaks.map((l) => scanText('t.log', l).map((f) => f.what));
    for (const [i, f] of found.entries()) expect(f.length, leaks[i]).toBeGreaterThan(0);
  });

  it('ordinary lines pass: ids, request ids, hashes, redacted values', () => {
    const ok = [
      line({
        level: 'info',
        time: new Date().toISOString(),
        request_id: 'req_01m84jmytxrr65rcmd51a15j73',
        msg: 'webhook attempt',
        event: 'evt_01m84jmytxrr65rcmd51a15j73',
      }),
      line({
        msg: 'retention sweep',
        erased: 3,
        upgraded: { media: 0, results: 0 },
        verification_id: '01967a2e-9f0c-7000-8000-00000000abcd',
      }),
      line({ sha256: 'ab'.repeat(32), kid: 'rk_4f0c1b2a3d4e5f60', key_id: '0123456789abcdef' }),
      line(
        redact({
          msg: `/verify/${TOKEN}`,
          capture_token: TOKEN,
          data_key: KEY,
          secret_key: 'sk_live_' + 'A'.repeat(56),
          embedding: randomEmbedding(64),
          person: { surname: 'ERIKSSON' },
        }) as object,
      ),
    ];
    for (const l of ok) expect(scanText('ok.log', l), l).toEqual([]);
  });

  it('reads every file of a directory and counts its lines', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-logs-'));
    fs.writeFileSync(path.join(dir, 'vitest-1.log'), line({ msg: 'a' }) + '\n' + line({ msg: 'b' }) + '\n');
    fs.writeFileSync(path.join(dir, 'server-1.log'), line({ msg: 'OLSEN' }) + '\n');
    const r = scanDir(dir);
    expect(r.files).toEqual([
      { name: 'server-1.log', lines: 1 },
      { name: 'vitest-1.log', lines: 2 },
    ]);
    expect(r.findings).toEqual([
      { file: 'server-1.log', line: 1, what: 'personal data of a test fixture', match: 'OLSEN' },
    ]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

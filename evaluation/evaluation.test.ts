/**
 * The evaluator, on a small labelled set built at test time from the packaged photos: every face of the
 * face-api collages, astronaut and Grace Hopper (known ages), edited copies as second photos of a person,
 * simulated screen replays and prints as attacks, and a 200x200 crop below the upload minimum. Then the CLI
 * itself (npm run evaluate) on the same folder, reading the per-photo cache the first run wrote.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { analysisPool } from '../lib/domain/media/pool';
import { FACE_MATCH_THRESHOLD } from '../lib/domain/thresholds/thresholds';
import * as F from '../test/helpers/face-set';
import { csvFields, ManifestError, parseManifest, readManifest } from './manifest';
import { measureAll, measurePhoto, padToUploadMinimum, type PhotoRecord } from './measure';
import { detCurve, minTrialsFor, thresholdForFmr, wilson } from './stats';
import { scoresOf, summarize } from './summarize';
import { writeReport } from './report';

const run = promisify(execFile);

describe('manifest', () => {
  it('reads file,person,age,kind with CSV quoting; empty person and age are unknown', () => {
    const rows = parseManifest(
      'file,person,age,kind\na.jpg,alice,34,genuine\n"b,1.jpg","Smith, ""Jo""",,screen\nc.jpg,,7,\n',
      '/set',
    );
    expect(rows).toEqual([
      { file: 'a.jpg', path: '/set/a.jpg', person: 'alice', age: 34, kind: 'genuine' },
      { file: 'b,1.jpg', path: '/set/b,1.jpg', person: 'Smith, "Jo"', age: null, kind: 'screen' },
      { file: 'c.jpg', path: '/set/c.jpg', person: null, age: 7, kind: 'genuine' },
    ]);
    expect(csvFields('x,"y,z",')).toEqual(['x', 'y,z', '']);
  });

  it('refuses a missing column, a bad age, a path outside the folder and a file listed twice', () => {
    expect(() => parseManifest('file,person,kind\na.jpg,,genuine', '/s')).toThrow(ManifestError);
    expect(() => parseManifest('file,person,age,kind\na.jpg,,old,genuine', '/s')).toThrow(/age "old"/);
    expect(() => parseManifest('file,person,age,kind\n../a.jpg,,,genuine', '/s')).toThrow(/inside its folder/);
    expect(() => parseManifest('file,person,age,kind\na.jpg,,,genuine\na.jpg,,,genuine', '/s')).toThrow(/twice/);
    expect(() => parseManifest('file,person,age,kind\na.jpg,,,not an attack!', '/s')).toThrow(/kind/);
  });
});

describe('statistics', () => {
  it('Wilson interval: 0 of 10 is not 0..0, and the interval narrows with n', () => {
    const a = wilson(0, 10)!;
    expect(a.low).toBe(0);
    expect(a.high).toBeCloseTo(0.2775, 3);
    const b = wilson(5, 10)!;
    const c = wilson(50, 100)!;
    expect(b.high - b.low).toBeGreaterThan(c.high - c.low);
    expect(wilson(0, 0)).toBeNull();
  });

  it('refuses a threshold for an FMR the impostor pairs cannot show, and suggests one when they can', () => {
    const genuine = Array.from({ length: 40 }, (_, i) => 0.9 + i / 1000);
    const few = Array.from({ length: 100 }, (_, i) => i / 200);
    expect(thresholdForFmr(genuine, few, 0.001)).toMatchObject({
      suggested: null,
      refused: expect.stringContaining(`${minTrialsFor(0.001)} impostor pairs`),
    });
    const many = Array.from({ length: 4000 }, (_, i) => i / 5000);
    const t = thresholdForFmr(genuine, many, 0.001);
    expect(t.suggested).not.toBeNull();
    if (t.suggested !== null) {
      // At most 0.1 % of the impostor pairs at or above it.
      expect(many.filter((s) => s >= t.suggested!).length).toBeLessThanOrEqual(4);
      expect(t.at.fnmr.rate).toBe(0);
    }
  });

  it('DET curve: FMR falls and FNMR rises as the threshold rises', () => {
    const c = detCurve([0.7, 0.8, 0.9, 0.95], [0.1, 0.3, 0.5, 0.75]);
    for (let i = 1; i < c.length; i++) {
      expect(c[i].fmr).toBeLessThanOrEqual(c[i - 1].fmr);
      expect(c[i].fnmr).toBeGreaterThanOrEqual(c[i - 1].fnmr);
    }
  });
});

describe('npm run evaluate on a labelled set built from the packaged photos', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-eval-'));
  const cache = path.join(dir, 'cache');
  let records: PhotoRecord[];
  let expected: { genuinePairs: number; impostorPairs: number; people: number };

  beforeAll(async () => {
    await analysisPool().ready();
    const faces = await F.labelledFaces((bytes, kind) => analysisPool().analyze(bytes, kind));
    const lines = ['file,person,age,kind'];
    const perPerson: number[] = [];
    for (const f of faces.slice(0, 8)) {
      const photos = [
        { name: 'original', image: f.image },
        ...(await F.sameFaceVariants(f.image)).filter((v) => v.name === 'closer' || v.name === 'brighter'),
      ];
      for (const p of photos) {
        const file = `${f.id}-${p.name}.jpg`;
        fs.writeFileSync(path.join(dir, file), p.image);
        lines.push(`${file},${f.person},${f.knownAge ?? ''},genuine`);
      }
      perPerson.push(photos.length);
    }
    for (const f of faces.slice(2, 5)) {
      fs.writeFileSync(path.join(dir, `${f.id}-screen.jpg`), await F.screenReplay(f.image));
      fs.writeFileSync(path.join(dir, `${f.id}-print.jpg`), await F.printedHalftone(f.image));
      lines.push(`${f.id}-screen.jpg,${f.person},,screen`, `${f.id}-print.jpg,${f.person},,print`);
    }
    // A dataset crop below the upload minimum (200x200): padded, not scaled.
    fs.writeFileSync(path.join(dir, 'small.jpg'), await sharp(faces[0].image).resize(200, 200).jpeg().toBuffer());
    lines.push('small.jpg,,37,genuine');
    fs.writeFileSync(path.join(dir, 'manifest.csv'), lines.join('\n') + '\n');
    const total = perPerson.reduce((a, b) => a + b, 0);
    const genuinePairs = perPerson.reduce((a, k) => a + (k * (k - 1)) / 2, 0);
    expected = { genuinePairs, impostorPairs: (total * (total - 1)) / 2 - genuinePairs, people: perPerson.length };
    records = await measureAll(readManifest(dir), {
      analyze: (b, k) => analysisPool().analyze(b, k),
      cacheDir: cache,
      concurrency: 2,
    });
  }, 600_000);

  it('pads a photo under the upload minimum onto a canvas without scaling it, and the upload check accepts it', async () => {
    const small = await sharp(path.join(dir, 'small.jpg')).toBuffer();
    const p = await padToUploadMinimum(small);
    expect(p.padded).toBe(true);
    expect(await sharp(p.bytes).metadata()).toMatchObject({ width: 320, height: 240 });
    const r = records.find((x) => x.file === 'small.jpg')!;
    expect(r).toMatchObject({ padded: true, width: 200, height: 200 });
    expect(r.face).not.toBeNull();
  });

  it('summarises with the keys an operator scripts against, pair counts from the labels and the production threshold', () => {
    const s = summarize(records);
    expect(s.face_match).toMatchObject({
      threshold: FACE_MATCH_THRESHOLD,
      genuine_pairs: expected.genuinePairs,
      impostor_pairs: expected.impostorPairs,
    });
    expect(s.face_match.fnmr).toBeGreaterThanOrEqual(0);
    expect(s.face_match.fnmr).toBeLessThanOrEqual(1);
    expect(s.face_match.fmr).toBe(0);
    expect(s.dataset.people).toBe(expected.people + 0);
    // Too few impostor pairs to claim 0.1 %: no threshold is suggested.
    expect(s.face_match.suggested_threshold.suggested).toBeNull();
    // Ages: astronaut (37) and Grace Hopper (77), three photos each, and the small crop (37).
    expect(s.age.n).toBe(7);
    expect(s.age.mae).toBeGreaterThanOrEqual(0);
    expect(s.age.by_band.find((b) => b.band === '35–49')!.n).toBe(4);
    expect(s.age.by_band.find((b) => b.band === '65+')!.n).toBe(3);
    // No under-age person in the set: no margin can be derived from it.
    expect(s.age.margin_for_false_pass.suggested).toBeNull();
    // The simulated attacks are stopped, and named by their kind.
    expect(s.liveness.attacks.screen.stopped).toMatchObject({ k: 3, n: 3 });
    expect(s.liveness.attacks.print.stopped).toMatchObject({ k: 3, n: 3 });
    expect(s.liveness.genuine.false_rejects.n).toBeGreaterThan(20);
  });

  it('resumes from its cache: a second pass analyses nothing and gives the same records', async () => {
    const rows = readManifest(dir);
    let analysed = 0;
    const again = await Promise.all(
      rows.map((r) =>
        measurePhoto(r, { analyze: async (b, k) => (analysed++, analysisPool().analyze(b, k)), cacheDir: cache }),
      ),
    );
    expect(analysed).toBe(0);
    expect(again.every((r) => r.cached)).toBe(true);
    expect(again.map((r) => r.face?.embedding)).toEqual(records.map((r) => r.face?.embedding));
  });

  it('writes a self-contained HTML report, a PNG per chart and the JSON summary, with no file name of the set', async () => {
    const out = path.join(dir, 'report');
    const s = summarize(records);
    const written = await writeReport(out, s, scoresOf(records));
    const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
    expect(html).not.toContain('small.jpg');
    const pngs = written.filter((w) => w.endsWith('.png'));
    expect(pngs.length).toBeGreaterThanOrEqual(8);
    for (const p of pngs) expect((await sharp(p).metadata()).format).toBe('png');
    expect(JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')).face_match.genuine_pairs).toBe(
      expected.genuinePairs,
    );
  });

  it('the CLI: --json with the documented keys from the cache, and exit 2 with a message on a bad manifest', async () => {
    const json = path.join(dir, 'out.json');
    await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'evaluation/evaluate.ts',
        dir,
        '--json',
        json,
        '--out',
        path.join(dir, 'cli-report'),
        '--cache',
        cache,
        '--workers',
        '1',
      ],
      { cwd: process.cwd(), timeout: 240_000 },
    );
    const s = JSON.parse(fs.readFileSync(json, 'utf8'));
    for (const k of ['mae', 'n']) expect(s.age).toHaveProperty(k);
    for (const k of ['fnmr', 'fmr', 'threshold', 'genuine_pairs', 'impostor_pairs'])
      expect(s.face_match).toHaveProperty(k);
    expect(s.face_match.genuine_pairs).toBe(expected.genuinePairs);
    expect(fs.existsSync(path.join(dir, 'cli-report', 'report.html'))).toBe(true);

    const bad = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-eval-bad-'));
    fs.writeFileSync(path.join(bad, 'manifest.csv'), 'file,person\nx.jpg,a\n');
    const e = await run(process.execPath, ['--import', 'tsx', 'evaluation/evaluate.ts', bad], {
      cwd: process.cwd(),
    }).catch((err) => err);
    expect(e.code).toBe(2);
    expect(e.stderr).toContain('header must be file,person,age,kind');
  }, 300_000);
});

/**
 * Documents in the evaluator, on a manifest built here from synthetic documents (test/helpers/images.ts: a real
 * ICAO 9303 MRZ in OCR-B, an AAMVA PDF417), read through the one adapter as an upload and the pipeline would;
 * then the CLI on a mixed manifest; and the generator of phone-like captures (deterministic, labels kept).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { analysisPool } from '../lib/domain/media/pool';
import * as I from '../test/helpers/images';
import { ManifestError, parseManifest, readManifest } from './manifest';
import {
  documentsHtml,
  documentsSection,
  measureDocuments,
  outcomeOf,
  UNREADABLE,
  type DocumentRecord,
} from './documents';
import { drawParams, homography, makeCapture, projectCorners, seedOf } from './document-captures';
import { seeded as rng } from './stats';
import { makeCaptures } from './make-document-captures';

const run = promisify(execFile);
const analyze = (b: Uint8Array, k: 'document') => analysisPool().analyze(b, k);
const HEADER = 'file,person,age,kind,document_type,birth_date,expiry_date,format,check_digits';

describe('document rows of the manifest', () => {
  it('reads document_type, birth_date, expiry_date, format and check_digits; person and age may be left out', () => {
    const rows = parseManifest(
      'file,kind,document_type,birth_date,expiry_date\np.jpg,document,passport,1974-08-12,2031-04-15\nd.jpg,document,driving_licence,1989-07-04,2010-07-04\n',
      '/set',
    );
    expect(rows).toEqual([
      {
        file: 'p.jpg',
        path: '/set/p.jpg',
        person: null,
        age: null,
        kind: 'document',
        document: {
          type: 'passport',
          birthDate: '1974-08-12',
          expiryDate: '2031-04-15',
          format: null,
          checkDigits: 'valid',
        },
      },
      {
        file: 'd.jpg',
        path: '/set/d.jpg',
        person: null,
        age: null,
        kind: 'document',
        document: {
          type: 'driving_licence',
          birthDate: '1989-07-04',
          expiryDate: '2010-07-04',
          format: null,
          checkDigits: 'valid',
        },
      },
    ]);
    const [r] = parseManifest(`${HEADER}\nc.png,,,document,ID_CARD,1981-02-28,2013-01-01,td1,invalid\n`, '/set');
    expect(r.document).toEqual({
      type: 'id_card',
      birthDate: '1981-02-28',
      expiryDate: '2013-01-01',
      format: 'TD1',
      checkDigits: 'invalid',
    });
  });

  it('refuses a document row without a known type, with a date that is not an ISO calendar date, or an unknown format', () => {
    const h = 'file,kind,document_type,birth_date,expiry_date,format\n';
    expect(() => parseManifest(`${h}a.jpg,document,visa,1974-08-12,2031-04-15,`, '/s')).toThrow(
      /document_type passport, id_card or driving_licence/,
    );
    expect(() => parseManifest(`${h}a.jpg,document,passport,12.08.1974,2031-04-15,`, '/s')).toThrow(
      /birth_date "12.08.1974"/,
    );
    expect(() => parseManifest(`${h}a.jpg,document,passport,1974-08-12,2011-02-29,`, '/s')).toThrow(
      /expiry_date "2011-02-29"/,
    );
    expect(() => parseManifest(`${h}a.jpg,document,passport,1974-08-12,2031-04-15,TD4`, '/s')).toThrow(ManifestError);
    // Without document_type the four usual columns are still required.
    expect(() => parseManifest('file,kind\na.jpg,genuine\n', '/s')).toThrow(/header must be file,person,age,kind/);
  });
});

describe('the document figures of npm run evaluate, on synthetic documents', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-eval-docs-'));
  let records: DocumentRecord[];

  beforeAll(async () => {
    await analysisPool().ready();
    // The synthetic documents' holder (test/helpers/images.ts DEFAULT_IDENTITY): born 1974-08-12, expiring 2031-04-15.
    const passport = await I.renderDocument('passport', 'front');
    const idBack = await I.renderDocument('id_card', 'back');
    const files: [string, Buffer, string][] = [
      // read correctly: TD3, TD1, PDF417
      ['passport.jpg', passport, 'passport,1974-08-12,2031-04-15,TD3,valid'],
      ['id-back.jpg', idBack, 'id_card,1974-08-12,2031-04-15,TD1,valid'],
      [
        'licence-back.jpg',
        await I.renderDocument('driving_licence', 'back'),
        'driving_licence,1974-08-12,2031-04-15,PDF417,valid',
      ],
      // the same passport labelled with another date of birth: what is read differs from the label
      ['passport-mislabelled.jpg', passport, 'passport,2009-08-12,2031-04-15,TD3,valid'],
      // the same ID card labelled with another expiry date: birth right, expiry wrong
      ['id-back-expiry.jpg', idBack, 'id_card,1974-08-12,2032-04-15,TD1,valid'],
      // unread: the zone smudged (nothing valid read), under the document's size floor of 240x150, no document at all
      [
        'passport-smudged.jpg',
        await I.renderDocument('passport', 'front', undefined, { mrz: 'smudged' }),
        'passport,1974-08-12,2031-04-15,TD3,valid',
      ],
      [
        'passport-tiny.jpg',
        await sharp(passport).resize(200, 150).jpeg().toBuffer(),
        'passport,1974-08-12,2031-04-15,TD3,valid',
      ],
      ['no-document.jpg', await I.noFace(), 'id_card,1974-08-12,2031-04-15,TD1,valid'],
      // a specimen marked as having wrong check digits: kept out of the counts, must come back unread
      [
        'id-back-badcheck.jpg',
        await I.renderDocument('id_card', 'back', undefined, { mrz: 'smudged' }),
        'id_card,1974-08-12,2031-04-15,TD1,invalid',
      ],
    ];
    const lines = [HEADER];
    for (const [file, bytes, label] of files) {
      fs.writeFileSync(path.join(dir, file), bytes);
      lines.push(`${file},,,document,${label}`);
    }
    fs.writeFileSync(path.join(dir, 'manifest.csv'), lines.join('\n') + '\n');
    records = await measureDocuments(readManifest(dir), { analyze });
  }, 600_000);

  it('reads each photo through the adapter as the upload and the pipeline do: ISO dates, the format, the refusal code', () => {
    const by = Object.fromEntries(records.map((r) => [r.file, r]));
    expect(by['passport.jpg'].result).toMatchObject({
      ok: true,
      format: 'TD3',
      birthDate: '1974-08-12',
      expiryDate: '2031-04-15',
    });
    expect(by['id-back.jpg'].result).toMatchObject({
      ok: true,
      format: 'TD1',
      birthDate: '1974-08-12',
      expiryDate: '2031-04-15',
    });
    expect(by['licence-back.jpg'].result).toMatchObject({
      ok: true,
      format: 'PDF417',
      birthDate: '1974-08-12',
      expiryDate: '2031-04-15',
    });
    expect(by['passport-smudged.jpg'].result).toMatchObject({ ok: false, code: UNREADABLE });
    expect(by['passport-tiny.jpg'].result).toMatchObject({ ok: false, code: 'IMAGE_TOO_SMALL' });
    // No document at all on the side that carries the code: nothing read, refused as unreadable.
    expect(by['no-document.jpg'].result).toMatchObject({ ok: false, code: UNREADABLE });
    for (const r of records) expect(r.result.ms).toBeGreaterThan(0);
    expect(records.map((r) => r.outcome)).toEqual([
      'correct',
      'correct',
      'correct',
      'wrong',
      'expiry_wrong',
      'unread',
      'unread',
      'unread',
      'unread',
    ]);
  });

  it('summarises correct, wrong and unread by format, the upload refusals by code, the time of a read, and the wrong-check-digit specimens apart', () => {
    const d = documentsSection(records);
    expect(d).toMatchObject({
      n: 8,
      correct: { k: 3, n: 8, rate: 0.375 },
      wrong: { k: 1, n: 8 },
      unread: { k: 3, n: 8 },
      expiry_wrong: { k: 1, n: 8 },
    });
    expect(d.by_format).toEqual([
      {
        format: 'TD1',
        n: 3,
        correct: { k: 1, n: 3, rate: 0.3333 },
        wrong: { k: 0, n: 3 },
        unread: { k: 1, n: 3 },
        expiry_wrong: { k: 1, n: 3 },
      },
      {
        format: 'TD3',
        n: 4,
        correct: { k: 1, n: 4, rate: 0.25 },
        wrong: { k: 1, n: 4 },
        unread: { k: 2, n: 4 },
        expiry_wrong: { k: 0, n: 4 },
      },
      {
        format: 'PDF417',
        n: 1,
        correct: { k: 1, n: 1, rate: 1 },
        wrong: { k: 0, n: 1 },
        unread: { k: 0, n: 1 },
        expiry_wrong: { k: 0, n: 1 },
      },
    ]);
    expect(d.upload).toEqual({
      accepted: { k: 5, n: 8 },
      refused_by_code: { DOCUMENT_UNREADABLE: 2, IMAGE_TOO_SMALL: 1 },
    });
    expect(d.unread_by_code).toEqual({ DOCUMENT_UNREADABLE: 2, IMAGE_TOO_SMALL: 1 });
    expect(d.invalid_check_digits).toEqual({ n: 1, unread: { k: 1, n: 1 } });
    const ms = records.map((r) => r.result.ms).sort((a, b) => a - b);
    // Over all 9 reads: the median is the 5th time, the 95th percentile 60 % of the way from the 8th to the 9th.
    expect(d.ms).toEqual({ p50: ms[4], p95: Math.round(ms[7] + 0.6 * (ms[8] - ms[7])) });
    const html = documentsHtml(d);
    expect(html).toContain('<h2>Documents</h2>');
    expect(html).toContain('<td>PDF417</td><td>1</td><td>1 of 1 (100.0 %)</td>');
    expect(html).not.toContain('passport.jpg');
  });

  it('counts a read only when both dates equal the labels, and any other birth date as wrong', () => {
    const label = {
      type: 'passport' as const,
      birthDate: '2001-01-01',
      expiryDate: '2030-01-01',
      format: null,
      checkDigits: 'valid' as const,
    };
    expect(
      outcomeOf(label, { ok: true, format: 'TD3', birthDate: '2001-01-01', expiryDate: '2030-01-01', ms: 1 }),
    ).toBe('correct');
    expect(
      outcomeOf(label, { ok: true, format: 'TD3', birthDate: '2001-01-02', expiryDate: '2030-01-01', ms: 1 }),
    ).toBe('wrong');
    expect(outcomeOf(label, { ok: true, format: 'TD3', birthDate: '2001-01-01', expiryDate: null, ms: 1 })).toBe(
      'expiry_wrong',
    );
    expect(outcomeOf(label, { ok: false, code: 'DOCUMENT_NOT_FOUND', ms: 1 })).toBe('unread');
  });

  it('the CLI: a manifest of selfies and documents; --json gains documents, the HTML report its table, the selfie is measured as today', async () => {
    const mixed = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-eval-mixed-'));
    fs.copyFileSync(path.join(dir, 'passport.jpg'), path.join(mixed, 'passport.jpg'));
    fs.copyFileSync(path.join(dir, 'passport-tiny.jpg'), path.join(mixed, 'passport-tiny.jpg'));
    fs.writeFileSync(path.join(mixed, 'astronaut.png'), I.astronaut());
    fs.writeFileSync(
      path.join(mixed, 'manifest.csv'),
      `${HEADER}\nastronaut.png,astronaut,37,genuine,,,,,\npassport.jpg,,,document,passport,1974-08-12,2031-04-15,,\npassport-tiny.jpg,,,document,passport,1974-08-12,2031-04-15,,\n`,
    );
    const json = path.join(mixed, 'out.json');
    const { stderr } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'evaluation/evaluate.ts',
        mixed,
        '--json',
        json,
        '--out',
        path.join(mixed, 'report'),
        '--no-cache',
        '--workers',
        '1',
      ],
      { cwd: process.cwd(), timeout: 240_000 },
    );
    const s = JSON.parse(fs.readFileSync(json, 'utf8'));
    expect(s.documents).toMatchObject({
      n: 2,
      correct: { k: 1, n: 2, rate: 0.5 },
      wrong: { k: 0, n: 2 },
      unread: { k: 1, n: 2 },
    });
    // No format column: a row counts under the format read, and an unread one under `unknown`.
    expect(s.documents.by_format).toEqual([
      {
        format: 'TD3',
        n: 1,
        correct: { k: 1, n: 1, rate: 1 },
        wrong: { k: 0, n: 1 },
        unread: { k: 0, n: 1 },
        expiry_wrong: { k: 0, n: 1 },
      },
      {
        format: 'unknown',
        n: 1,
        correct: { k: 0, n: 1, rate: 0 },
        wrong: { k: 0, n: 1 },
        unread: { k: 1, n: 1 },
        expiry_wrong: { k: 0, n: 1 },
      },
    ]);
    expect(Object.keys(s.documents.ms)).toEqual(['p50', 'p95']);
    expect(s.dataset.photos).toBe(1);
    expect(s.age.n).toBe(1);
    expect(stderr).toContain(
      'documents: read correctly 1 of 2 (TD3 1/1, unknown 0/1), wrong date of birth 0, unread 1',
    );
    expect(fs.readFileSync(path.join(mixed, 'report', 'report.html'), 'utf8')).toContain('<h2>Documents</h2>');
  }, 300_000);
});

describe('phone-like captures (npm run make:document-captures)', () => {
  it('draws tilts within 30°, small rotations, quarter turns and glare, from the seed alone', () => {
    const r = rng(seedOf('draws'));
    const ps = Array.from({ length: 300 }, () => drawParams(r));
    for (const p of ps) {
      expect(Math.hypot(p.tilt_x, p.tilt_y)).toBeLessThanOrEqual(30.1);
      expect(Math.abs(p.rotation)).toBeLessThanOrEqual(8);
      expect([0, 1, 2, 3]).toContain(p.quarter);
      expect(p.jpeg_quality).toBeGreaterThanOrEqual(72);
    }
    expect(ps.filter((p) => p.quarter > 0).length).toBeGreaterThan(60);
    expect(ps.filter((p) => p.glare).length).toBeGreaterThan(150);
    expect(ps.filter((p) => Math.hypot(p.tilt_x, p.tilt_y) > 20).length).toBeGreaterThan(30);
    expect(drawParams(rng(7))).toEqual(drawParams(rng(7)));
  });

  it('maps the page onto its projected corners: an untilted, unrotated page is a centred rectangle of the asked width', () => {
    const p = { ...drawParams(rng(1)), rotation: 0, tilt_x: 0, tilt_y: 0, fill: 0.5, width: 1600, height: 1200 };
    const c = projectCorners(1000, 700, p, () => 0.5);
    expect(c.map(([x, y]) => [Math.round(x), Math.round(y)])).toEqual([
      [400, 320],
      [1200, 320],
      [1200, 880],
      [400, 880],
    ]);
    const h = homography(
      [
        [0, 0],
        [1000, 0],
        [1000, 700],
        [0, 700],
      ],
      c,
    );
    const at = (x: number, y: number) => [
      (h[0] * x + h[1] * y + h[2]) / (h[6] * x + h[7] * y + h[8]),
      (h[3] * x + h[4] * y + h[5]) / (h[6] * x + h[7] * y + h[8]),
    ];
    expect(at(500, 350).map(Math.round)).toEqual([800, 600]);
    // Tilted 25° about the vertical axis, the near edge is longer than the far one.
    const t = projectCorners(1000, 700, { ...p, tilt_y: 25 }, () => 0.5);
    const left = t[3][1] - t[0][1];
    const right = t[2][1] - t[1][1];
    expect(Math.abs(left - right)).toBeGreaterThan(20);
  });

  it('writes N captures per image with the same labels and a manifest of what was done; the same seed gives the same bytes', async () => {
    const src = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-caps-src-'));
    fs.writeFileSync(
      path.join(src, 'id.png'),
      await sharp(await I.renderDocument('id_card', 'back'))
        .extract({ left: 200, top: 220, width: 1200, height: 760 })
        .png()
        .toBuffer(),
    );
    fs.writeFileSync(
      path.join(src, 'manifest.csv'),
      'file,kind,document_type,birth_date,expiry_date\nid.png,document,id_card,1974-08-12,2031-04-15\n',
    );
    const a = path.join(src, 'a');
    const b = path.join(src, 'b');
    const c = path.join(src, 'c');
    await makeCaptures({ folder: src, out: a, per: 2, seed: 's1', maxTilt: 30 });
    await makeCaptures({ folder: src, out: b, per: 2, seed: 's1', maxTilt: 30 });
    await makeCaptures({ folder: src, out: c, per: 2, seed: 's2', maxTilt: 30 });
    const rows = readManifest(a);
    expect(rows.map((r) => r.file)).toEqual(['id-cap1.jpg', 'id-cap2.jpg']);
    for (const r of rows)
      expect(r.document).toEqual({
        type: 'id_card',
        birthDate: '1974-08-12',
        expiryDate: '2031-04-15',
        format: null,
        checkDigits: 'valid',
      });
    const header = fs.readFileSync(path.join(a, 'manifest.csv'), 'utf8').split('\n')[0];
    expect(header).toBe(
      'file,kind,document_type,birth_date,expiry_date,source,seed,surface,quarter,rotation,tilt_x,tilt_y,glare,blur,jpeg_quality',
    );
    for (const f of ['id-cap1.jpg', 'id-cap2.jpg']) {
      expect(fs.readFileSync(path.join(a, f)).equals(fs.readFileSync(path.join(b, f)))).toBe(true);
      expect(fs.readFileSync(path.join(a, f)).equals(fs.readFileSync(path.join(c, f)))).toBe(false);
      const m = await sharp(path.join(a, f)).metadata();
      expect(m.format).toBe('jpeg');
      expect([m.width, m.height].sort()).toEqual([1200, 1600]);
    }
  }, 120_000);

  it('puts the document on the table: the page is brighter than the dark surface around it, the frame edges are table', async () => {
    const page = await sharp({ create: { width: 900, height: 600, channels: 3, background: '#f0f0f0' } })
      .png()
      .toBuffer();
    const { bytes, params } = await makeCapture(page, {
      seed: 'table',
      name: 'white',
      index: 0,
      surfaces: ['dark_wood'],
      glareChance: 0,
    });
    expect(params.surface).toBe('dark_wood');
    const { data, info } = await sharp(bytes).greyscale().raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => data[y * info.width + x];
    expect(at(Math.round(info.width / 2), Math.round(info.height / 2))).toBeGreaterThan(200);
    expect(
      Math.max(at(2, 2), at(info.width - 3, 2), at(2, info.height - 3), at(info.width - 3, info.height - 3)),
    ).toBeLessThan(140);
  });
});

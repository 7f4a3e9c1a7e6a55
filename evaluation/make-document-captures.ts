/**
 * npm run make:document-captures -- <folder> --out <dir> [--per N] [--seed TEXT] [--max-tilt DEG]
 *
 * From a folder of document images and its manifest.csv (any columns; `file` names the image), writes `<dir>`:
 * N phone-like captures of every image (evaluation/document-captures.ts: on a table, perspective tilt up to
 * --max-tilt degrees, small and quarter-turn rotations, a glare spot, soft focus, JPEG) and a manifest.csv with
 * the same columns and labels, `file` pointing at the capture, plus `source` (the original's file), `seed` and
 * what was done to each capture (surface, quarter, rotation, tilt_x, tilt_y, glare, blur, jpeg_quality).
 * The same seed gives the same images, byte for byte. Default: 2 captures per image, seed "open-verify".
 */
import fs from 'node:fs';
import path from 'node:path';
import { csvFields } from './manifest';
import { makeCapture } from './document-captures';
import { parseFlags, UsageError } from '../lib/core/cli-flags';

type Args = { folder: string; out: string; per: number; seed: string; maxTilt: number };

function usage(message: string): never {
  process.stderr.write(
    `${message}\nusage: npm run make:document-captures -- <folder> --out <dir> [--per N] [--seed TEXT] [--max-tilt DEG]\n`,
  );
  process.exit(2);
}

function parseArgs(argv: string[]): Args {
  let parsed: ReturnType<typeof parseFlags<{ out: string; per: string; seed: string; 'max-tilt': string }>>;
  try {
    parsed = parseFlags({ out: '', per: '2', seed: 'open-verify', 'max-tilt': '30' }, argv, 1);
  } catch (e) {
    if (e instanceof UsageError) usage(e.message);
    throw e;
  }
  const { flags, words } = parsed;
  const a: Args = {
    folder: words[0] ?? '',
    out: flags.out,
    per: Number(flags.per),
    seed: flags.seed,
    maxTilt: Number(flags['max-tilt']),
  };
  if (!a.folder || !a.out) usage('a folder and --out are needed');
  if (!Number.isInteger(a.per) || a.per < 1 || a.per > 50) usage('--per needs a whole number from 1 to 50');
  if (!Number.isFinite(a.maxTilt) || a.maxTilt < 0 || a.maxTilt > 45) usage('--max-tilt needs degrees from 0 to 45');
  return a;
}

const csv = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** Writes the captures and their manifest; returns the manifest's rows (without header). */
export async function makeCaptures(a: Args, log: (s: string) => void = () => {}): Promise<string[][]> {
  const text = fs.readFileSync(path.join(a.folder, 'manifest.csv'), 'utf8').replace(/^\uFEFF/, '');
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = csvFields(lines[0]).map((h) => h.trim());
  const fi = header.map((h) => h.toLowerCase()).indexOf('file');
  if (fi < 0) usage('the manifest has no "file" column');
  fs.mkdirSync(a.out, { recursive: true });
  const extra = [
    'source',
    'seed',
    'surface',
    'quarter',
    'rotation',
    'tilt_x',
    'tilt_y',
    'glare',
    'blur',
    'jpeg_quality',
  ];
  const out: string[][] = [];
  for (const line of lines.slice(1)) {
    const f = csvFields(line);
    const file = f[fi].trim();
    const image = fs.readFileSync(path.join(a.folder, file));
    for (let i = 0; i < a.per; i++) {
      const name = `${path.basename(file, path.extname(file))}-cap${i + 1}.jpg`;
      const { bytes, params: p } = await makeCapture(image, { seed: a.seed, name: file, index: i, maxTilt: a.maxTilt });
      fs.writeFileSync(path.join(a.out, name), bytes);
      const row = [...f];
      row[fi] = name;
      const g = p.glare ? `${p.glare.strength}@${p.glare.x}/${p.glare.y}r${p.glare.radius}` : '';
      out.push([
        ...row,
        file,
        a.seed,
        p.surface,
        String(p.quarter),
        String(p.rotation),
        String(p.tilt_x),
        String(p.tilt_y),
        g,
        String(p.blur),
        String(p.jpeg_quality),
      ]);
      log(
        `${name}: ${p.surface}, quarter ${p.quarter}, rotation ${p.rotation}°, tilt ${p.tilt_x}°/${p.tilt_y}°, glare ${g || 'none'}, blur ${p.blur}\n`,
      );
    }
  }
  fs.writeFileSync(
    path.join(a.out, 'manifest.csv'),
    [[...header, ...extra], ...out].map((r) => r.map(csv).join(',')).join('\n') + '\n',
  );
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const a = parseArgs(process.argv.slice(2));
  const rows = await makeCaptures(a, (s) => process.stderr.write(s));
  process.stderr.write(`wrote ${rows.length} captures and manifest.csv to ${a.out}\n`);
}

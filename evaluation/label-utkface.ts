/**
 * npx tsx evaluation/label-utkface.ts <folder> <out-folder>: a copy of an evaluation folder's manifest with the
 * optional `sex` and `group` columns (evaluation/manifest.ts) filled from UTKFace file names,
 * `<age>_<gender>_<race>_<datetime>.jpg` (gender 0 male, 1 female; race 0 White, 1 Black, 2 Asian, 3 Indian,
 * 4 Other), so `npm run evaluate -- <out-folder>` reports the age estimate by sex and by group. Rows whose file name
 * is not UTKFace's keep both columns empty (unknown). The photos are not copied: the out-folder links to the
 * folder's entries (symbolic links), and the source folder is never written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { csvFields } from './manifest';
import { cliFlags } from '../lib/core/cli-flags';

const SEX = ['male', 'female'];
const GROUP = ['White', 'Black', 'Asian', 'Indian', 'Other'];

/** The sex and group labels of a UTKFace file name, or nulls when it is not one. */
export function utkfaceLabels(file: string): { sex: string | null; group: string | null } {
  const m = /^(\d+)_(\d)_(\d)_\d+/.exec(path.basename(file));
  return { sex: (m && SEX[Number(m[2])]) ?? null, group: (m && GROUP[Number(m[3])]) ?? null };
}

const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** The manifest's text with `sex` and `group` set from the file names (columns added, or replaced where present). */
export function labelManifest(text: string): string {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '');
  const header = csvFields(lines[0]).map((h) => h.trim().toLowerCase());
  const keep = header.map((h, i) => ({ h, i })).filter(({ h }) => h !== 'sex' && h !== 'group');
  const fi = header.indexOf('file');
  if (fi < 0) throw new Error('the manifest has no "file" column');
  const out = [[...keep.map((k) => k.h), 'sex', 'group'].join(',')];
  for (const line of lines.slice(1)) {
    const f = csvFields(line);
    const { sex, group } = utkfaceLabels(f[fi] ?? '');
    out.push([...keep.map((k) => quote(f[k.i] ?? '')), sex ?? '', group ?? ''].join(','));
  }
  return out.join('\n') + '\n';
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { words } = cliFlags({}, { words: 2 });
  const [from, to] = words;
  if (!from || !to) {
    process.stderr.write('usage: npx tsx evaluation/label-utkface.ts <folder> <out-folder>\n');
    process.exit(2);
  }
  const src = path.resolve(from);
  const dst = path.resolve(to);
  if (src === dst) {
    process.stderr.write('the out-folder must not be the folder itself (its manifest is never rewritten)\n');
    process.exit(2);
  }
  fs.mkdirSync(dst, { recursive: true });
  const text = labelManifest(fs.readFileSync(path.join(src, 'manifest.csv'), 'utf8'));
  fs.writeFileSync(path.join(dst, 'manifest.csv'), text);
  for (const entry of fs.readdirSync(src)) {
    if (entry === 'manifest.csv' || fs.existsSync(path.join(dst, entry))) continue;
    fs.symlinkSync(path.join(src, entry), path.join(dst, entry));
  }
  const rows = text.trim().split('\n').length - 1;
  const labelled = text
    .trim()
    .split('\n')
    .slice(1)
    .filter((l) => !l.endsWith(',,')).length;
  process.stderr.write(
    `wrote ${path.join(dst, 'manifest.csv')}: ${rows} rows, ${labelled} with sex and group from UTKFace file names\n`,
  );
}

/**
 * npm run calibrate: the measurements behind lib/domain/thresholds/thresholds.ts, over the packaged photos (every
 * face of astronaut, Grace Hopper and face-api's six collages) and variants derived from them:
 *  - face match: same-person pairs (edited copies, and the face printed on a synthetic document) against
 *    different-person pairs, and the threshold that separates them;
 *  - age: the model's error on the two photos whose subject's age is known, and on their edited copies;
 *  - presentation attacks: our screen/print pattern score and Human's antispoof/liveness on genuine faces
 *    and on simulated screen replays and printed halftones.
 * Small, honest numbers: 17 people (the crops holding exactly one face), 2 known ages. Prints JSON lines.
 */
import { loadFaceModels } from '../lib/domain/faces/models';
import { analyze } from '../lib/domain/media/analyze';
import type { Analysis } from '../lib/domain/media/types';
import * as F from '../test/helpers/face-set';
import * as I from '../test/helpers/images';
import { cosine } from '../lib/domain/faces/similarity';
import * as T from '../lib/domain/thresholds/thresholds';

const models = await loadFaceModels();
const run = (bytes: Buffer, kind: 'selfie' | 'document' = 'selfie'): Promise<Analysis> =>
  analyze(models, { bytes, kind });
const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))] : NaN;
};
const dist = (xs: number[]) => ({
  n: xs.length,
  min: +q(xs, 0).toFixed(3),
  p5: +q(xs, 0.05).toFixed(3),
  median: +q(xs, 0.5).toFixed(3),
  p95: +q(xs, 0.95).toFixed(3),
  max: +q(xs, 1).toFixed(3),
});

const faces = await F.labelledFaces((bytes) => run(bytes));
type Row = {
  id: string;
  knownAge: number | null;
  emb: number[];
  doc: number[] | null;
  variants: { name: string; emb: number[] | null; age: number | null }[];
  age: number | null;
  real: number | null;
  live: number | null;
  replay: number | null;
  screen: number | null;
  print: number | null;
};
const rows: Row[] = [];
for (const f of faces) {
  const a = await run(f.image);
  const main = a.faces[0];
  if (!main?.embedding) continue;
  const variants = [];
  for (const v of await F.sameFaceVariants(f.image)) {
    const va = await run(v.image);
    variants.push({ name: v.name, emb: va.faces[0]?.embedding ?? null, age: va.faces[0]?.age ?? null });
  }
  const d = await run(await I.renderDocument('passport', 'front', f.image), 'document');
  const s = await run(await F.screenReplay(f.image));
  const p = await run(await F.printedHalftone(f.image));
  rows.push({
    id: f.id,
    knownAge: f.knownAge,
    emb: main.embedding,
    doc: d.faces[0]?.embedding ?? null,
    variants,
    age: main.age,
    real: main.real,
    live: main.live,
    replay: main.replay_score ?? null,
    screen: s.faces[0]?.replay_score ?? null,
    print: p.faces[0]?.replay_score ?? null,
  });
  process.stderr.write('.');
}
process.stderr.write('\n');

// Face match.
const same: number[] = [];
const sameDoc: number[] = [];
const diff: number[] = [];
const diffDoc: number[] = [];
for (const r of rows) {
  for (const v of r.variants) if (v.emb) same.push(cosine(r.emb, v.emb));
  if (r.doc) sameDoc.push(cosine(r.emb, r.doc));
}
for (let i = 0; i < rows.length; i++)
  for (let j = 0; j < rows.length; j++) {
    if (i === j) continue;
    if (i < j) diff.push(cosine(rows[i].emb, rows[j].emb));
    if (rows[j].doc) diffDoc.push(cosine(rows[i].emb, rows[j].doc!));
  }
const allDiff = [...diff, ...diffDoc];
const allSame = [...same, ...sameDoc];
const far = (t: number) => allDiff.filter((x) => x >= t).length / allDiff.length;
const frr = (t: number) => allSame.filter((x) => x < t).length / allSame.length;
console.log(
  JSON.stringify({
    face_match: {
      same_person_edited: dist(same),
      same_person_selfie_vs_document: dist(sameDoc),
      different_people: dist(diff),
      different_people_selfie_vs_document: dist(diffDoc),
    },
  }),
);
console.log(
  JSON.stringify({
    face_match_threshold: {
      chosen: T.FACE_MATCH_THRESHOLD,
      separating_gap: [+Math.max(...allDiff).toFixed(3), +Math.min(...allSame).toFixed(3)],
      far: far(T.FACE_MATCH_THRESHOLD),
      frr: frr(T.FACE_MATCH_THRESHOLD),
      duplicate_default: T.DEFAULT_DUPLICATE_THRESHOLD,
    },
  }),
);

// Age.
const ageErrors: { id: string; variant: string; truth: number; estimate: number; error: number }[] = [];
for (const r of rows) {
  if (r.knownAge === null) continue;
  for (const [variant, est] of [['original', r.age] as const, ...r.variants.map((v) => [v.name, v.age] as const)]) {
    if (est !== null)
      ageErrors.push({ id: r.id, variant, truth: r.knownAge, estimate: est, error: +(est - r.knownAge).toFixed(1) });
  }
}
for (const e of ageErrors) console.log(JSON.stringify({ age: e }));
const absErr = ageErrors.map((e) => Math.abs(e.error));
console.log(
  JSON.stringify({
    age_error: {
      n: absErr.length,
      mean_abs: +(absErr.reduce((a, b) => a + b, 0) / absErr.length).toFixed(1),
      max_abs: Math.max(...absErr),
      ranges: ageErrors.map((e) => ({
        id: e.id,
        variant: e.variant,
        estimate: e.estimate,
        range: T.ageRange(e.estimate),
      })),
    },
    age_estimates_unknown_people: dist(rows.filter((r) => r.knownAge === null).map((r) => r.age ?? NaN)),
  }),
);

// Presentation attacks.
const replayGenuine = rows.map((r) => r.replay ?? NaN).filter(Number.isFinite);
console.log(
  JSON.stringify({
    replay_score: {
      genuine: dist(replayGenuine),
      screen_replay: dist(rows.map((r) => r.screen ?? NaN).filter(Number.isFinite)),
      printed_halftone: dist(rows.map((r) => r.print ?? NaN).filter(Number.isFinite)),
      threshold: T.REPLAY_SCORE_THRESHOLD,
    },
  }),
);
console.log(
  JSON.stringify({
    human_liveness_genuine: dist(rows.map((r) => r.live ?? NaN)),
    human_antispoof_genuine: dist(rows.map((r) => r.real ?? NaN)),
    liveness_floor: T.LIVENESS_FLOOR,
  }),
);
process.exit(0);

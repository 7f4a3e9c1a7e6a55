/**
 * npm run bench:pipeline [-- --db embedded|pg15] [--runs N] [--part flows|analysis|all]
 *
 * 1. Submit → decision latency (p50/p95) against the production build and its in-process runner, live
 *    mode, for Age / estimation (a selfie) and Age / document_verification (a selfie and a passport whose
 *    MRZ is read by OCR). Target: estimation decided in under 2 s after submit.
 * 2. A selfie's analysis (--part analysis, also in all): lib/domain/media/analyze.ts on one warm worker-equivalent (the
 *    face models loaded once), for a 1280x720 laptop selfie and the capture page's 640x480 camera frame, n=RUNS
 *    each, p50/p95. Target: under 700 ms (the age networks' views take most of it). The machine's load average is printed with it.
 *
 * The duplicate search has its own benchmark: npm run bench:duplicates (docs/performance.md).
 */
import os from 'node:os';
import sharp from 'sharp';
import { eq } from 'drizzle-orm';
import { connect } from '../lib/db/client';
import { verifications } from '../lib/db/schema';
import { loadFaceModels } from '../lib/domain/faces/models';
import { analyze } from '../lib/domain/media/analyze';
import { apiClient } from '../test/helpers/api-client';
import * as F from '../test/helpers/face-set';
import * as I from '../test/helpers/images';
import { updateWorkspaceSettings } from '../lib/domain/workspaces';
import {
  benchFlags,
  ensureBuild,
  percentile,
  prepare,
  runBench,
  startDatabase,
  startService,
  stopAll,
} from './harness';

const flags = benchFlags({ db: 'embedded', runs: '20', part: 'all' });
const DB = flags.db;
const RUNS = Number(flags.runs);
const PART = flags.part; // flows | analysis | all
const ms = (x: number) => `${x.toFixed(0).padStart(5)} ms`;

/** A different capture each run (crop offset, exposure), so no run is "the same picture as another". */
async function jitter(img: Buffer, i: number) {
  const meta = await sharp(img).metadata();
  const dx = 4 + (i % 7) * 3 + (i >= 1000 ? 2 : 0);
  const dy = 4 + ((i * 3) % 5) * 3 + (i >= 1000 ? 3 : 0);
  return sharp(img)
    .extract({ left: dx, top: dy, width: meta.width! - 2 * dx, height: meta.height! - 2 * dy })
    .modulate({ brightness: 0.92 + (i % 9) * 0.02 })
    .jpeg({ quality: 88 + (i % 5) })
    .toBuffer();
}

async function submitToDecision() {
  const db = await startDatabase(DB);
  const p = await prepare(db.url, {}, { check_method: 'estimation' });
  const base = await startService({ ...p.env, IN_PROCESS_RUNNER: 'on' });
  const api = apiClient(base, p.apiKey, p.liveSecret);
  const h = connect(db.url, { max: 1 });
  // A different capture for every submission: the pipeline declines a picture it has seen in another
  // verification (similarity ≥ SAME_CAPTURE_SIMILARITY: liveness_failed), which a few pixels of jitter no longer
  // escape with the 128-d description. The 17 packaged people, then their edited copies (light, pose, scale).
  const models = await loadFaceModels();
  const people = (await F.labelledFaces(async (bytes) => analyze(models, { bytes, kind: 'selfie' }))).map(
    (f) => f.image,
  );
  let k = 0;
  const nextSelfie = async () => {
    const face = people[k % people.length];
    const round = Math.floor(k / people.length);
    k++;
    if (k > 20 * people.length) throw new Error('the upload refused too many of the edited photos');
    if (round === 0) return face;
    const variants = await F.sameFaceVariants(face);
    return variants[(round - 1) % variants.length].image;
  };
  const results: Record<string, { latencies: number[]; serverSide: number[]; outcomes: Record<string, number> }> = {};

  for (const method of ['estimation', 'document_verification'] as const) {
    await updateWorkspaceSettings(h.db, p.workspaceId, { check_method: method });
    const latencies: number[] = [];
    const serverSide: number[] = [];
    const outcomes: Record<string, number> = {};
    for (let i = -2; i < RUNS; i++) {
      const selfie = await nextSelfie();
      const media =
        method === 'estimation'
          ? { selfie }
          : { selfie, front: ['passport', await I.renderDocument('passport', 'front', selfie)] as [string, Buffer] };
      let id: string;
      try {
        id = await api.prepare(media);
      } catch (e) {
        // An edited copy the upload refuses (too blurry, say) is not a submission: take the next one.
        const refused = `refused at upload: ${(e as Error).message.slice(0, 60)}`;
        outcomes[refused] = (outcomes[refused] ?? 0) + 1;
        i--;
        continue;
      }
      const t = performance.now();
      const s = await api.submit(id);
      if (s.data?.status !== 'submitted') throw new Error(`submit: ${JSON.stringify(s)}`);
      const v = await api.waitDecided(id, 60_000, 10);
      if (i < 0) continue; // warm-up: the workers load their models, OCR its traineddata
      latencies.push(performance.now() - t);
      // The server's own part: from the submit's commit to the decision's (the rest is the client's polling).
      const [row] = await h.db
        .select({ submittedAt: verifications.submittedAt, decidedAt: verifications.statusChangedAt })
        .from(verifications)
        .where(eq(verifications.id, id));
      if (row?.submittedAt) serverSide.push(row.decidedAt.getTime() - row.submittedAt.getTime());
      const key = v.reason ? `${v.status}/${v.reason}` : v.status;
      outcomes[key] = (outcomes[key] ?? 0) + 1;
    }
    results[method] = { latencies, serverSide, outcomes };
  }
  await h.close();
  stopAll(); // the server first, then its database
  await db.stop();
  return results;
}

/** A selfie's analysis time, in this process (one thread, as one pool worker runs it). */
async function analysisTime() {
  const models = await loadFaceModels();
  const images = { 'selfie 1280x720': await I.selfie1280(), 'camera frame 640x480': await I.cameraFrame() };
  const out: Record<string, number[]> = {};
  for (const [name, img] of Object.entries(images)) {
    for (let i = 0; i < 3; i++) await analyze(models, { bytes: await jitter(img, i), kind: 'selfie' }); // warm
    out[name] = [];
    for (let i = 0; i < RUNS; i++) {
      const bytes = await jitter(img, 100 + i);
      const t = performance.now();
      await analyze(models, { bytes, kind: 'selfie' });
      out[name].push(performance.now() - t);
    }
  }
  return out;
}

async function main() {
  if (PART === 'search') throw new Error('the duplicate search has its own benchmark now: npm run bench:duplicates');
  const analysis = PART === 'all' || PART === 'analysis' ? await analysisTime() : {};
  if (PART === 'analysis') {
    printAnalysis(analysis);
    return;
  }
  ensureBuild();
  const flows = await submitToDecision();
  printAnalysis(analysis);
  console.log(`\nbench:pipeline  database=${DB} for submit→decision`);
  console.log('\nsubmit → decision (live mode, in-process runner, production build)');
  for (const [method, r] of Object.entries(flows)) {
    const target = method === 'estimation' ? '   (target < 2000 ms)' : '';
    console.log(
      `  ${method.padEnd(22)} n=${r.latencies.length}  p50 ${ms(percentile(r.latencies, 50))}  p95 ${ms(percentile(r.latencies, 95))}  max ${ms(Math.max(...r.latencies))}${target}  outcomes ${JSON.stringify(r.outcomes)}`,
    );
    console.log(
      `  ${''.padEnd(22)} server side (submitted_at → status_changed_at): p50 ${ms(percentile(r.serverSide, 50))}  p95 ${ms(percentile(r.serverSide, 95))}`,
    );
  }
}

function printAnalysis(a: Record<string, number[]>) {
  if (!Object.keys(a).length) return;
  console.log(
    `\na selfie's analysis (lib/domain/media/analyze.ts, one thread, warm; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${os.availableParallelism()} cores)`,
  );
  for (const [name, t] of Object.entries(a))
    console.log(
      `  ${name.padEnd(22)} n=${t.length}  p50 ${ms(percentile(t, 50))}  p95 ${ms(percentile(t, 95))}   (target < 700 ms)`,
    );
}

runBench(main);

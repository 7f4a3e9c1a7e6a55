/**
 * The evaluation summary from the per-photo records: age error and outcomes at the workspace threshold, face
 * match error rates at the production threshold with a DET curve and a suggested threshold, passive liveness and
 * presentation-attack results, and upload refusals. Every rate carries its sample size and a 95 % interval;
 * thresholds are suggested only from enough samples (stats.ts, minTrialsFor).
 */
import {
  AGE_RANGES,
  FACE_MATCH_THRESHOLD,
  LIVENESS_FLOOR,
  MOIRE_SCORE_THRESHOLD,
  REPLAY_SCORE_THRESHOLD,
} from '../lib/domain/thresholds/thresholds';
import { estimationResult } from '../lib/domain/pipeline/checks/age-estimate';
import { presentationAttackSignal } from '../lib/domain/pipeline/checks/presentation-attack';
import { cosine } from '../lib/domain/faces/similarity';
import { ANALYSIS_VERSION } from '../lib/domain/media/version';
import { AGE_CALIBRATION, estimateAge } from '../lib/domain/faces/age';
import type { PhotoRecord } from './measure';
import { ageRangeOf, type AgeRanges } from '../lib/domain/thresholds/age-range';
import { AGE_BANDS, bandLabel, decisionsAt, rangeFigures, type Judged } from './age-fit';
import { ageByGroup, ageFairness, type LabelledEstimate } from './age-groups';

export { AGE_BANDS };
import {
  bootstrap,
  describe,
  detCurve,
  matchRates,
  mean,
  minTrialsFor,
  rate,
  round,
  thresholdForFmr,
  type Interval,
  type Rate,
} from './stats';

export type SummaryOptions = {
  ageThreshold: number;
  /** false match rate the suggested face-match threshold aims for */
  targetFmr: number;
  /** share of under-age people the suggested age margin may pass */
  targetFalsePass: number;
};
export const DEFAULT_OPTIONS: SummaryOptions = { ageThreshold: 18, targetFmr: 0.001, targetFalsePass: 0 };

/** The thresholds the age section reports beside the one it is given: the usual legal ages. */
export const REPORT_THRESHOLDS = [18, 21, 25] as const;

/**
 * A face with an age, its estimate, the estimate's own reading of its sex (the ranges may depend on it), and the
 * manifest's labels.
 */
export type AgePoint = LabelledEstimate;

// The estimate as the current calibration (lib/domain/faces/age.ts) makes it from the models' raw outputs, so a new
// calibration is measured without analysing the photos again.
const ageEstimateOf = (r: PhotoRecord) =>
  r.face?.age_features ? estimateAge(r.face.age_features, r.face.embedding) : (r.face?.age ?? null);
const agePoints = (records: PhotoRecord[]): AgePoint[] =>
  records
    .filter((r) => r.kind === 'genuine' && r.age !== null && ageEstimateOf(r) != null)
    .map((r) => ({
      truth: r.age!,
      estimate: ageEstimateOf(r)!,
      male: r.face?.age_features?.male ?? null,
      sex: r.sex ?? null,
      group: r.group ?? null,
    }));

function ageSection(records: PhotoRecord[], o: SummaryOptions) {
  const labelled = records.filter((r) => r.kind === 'genuine' && r.age !== null);
  const points = agePoints(records);
  const abs = (ps: AgePoint[]) => mean(ps.map((p) => Math.abs(p.estimate - p.truth)));
  const maeCi = (ps: AgePoint[]) => bootstrap(ps, abs);
  const mae = abs(points);
  const byBand = AGE_BANDS.map((b) => {
    const ps = points.filter((p) => p.truth >= b[0] && p.truth < b[1]);
    const m = abs(ps);
    return {
      band: bandLabel(b),
      n: ps.length,
      mae: m === null ? null : round(m, 2),
      mae_ci95: roundInterval(maeCi(ps)),
      bias: ps.length ? round(mean(ps.map((p) => p.estimate - p.truth))!, 2) : null,
    };
  });
  const t = o.ageThreshold;
  const outcome = (ps: AgePoint[]) => {
    const d = ps.map((p) => estimationResult(p.estimate, t, p.male).decision);
    return {
      n: ps.length,
      pass: rate(d.filter((x) => x === 'pass').length, ps.length),
      refer: rate(d.filter((x) => x === 'refer').length, ps.length),
      fail: rate(d.filter((x) => x === 'fail').length, ps.length),
    };
  };
  const under = points.filter((p) => p.truth < t);
  const over = points.filter((p) => p.truth >= t);
  return {
    n: points.length,
    mae: mae === null ? null : round(mae, 2),
    mae_ci95: roundInterval(maeCi(points)),
    bias: points.length ? round(mean(points.map((p) => p.estimate - p.truth))!, 2) : null,
    labelled_photos: labelled.length,
    no_estimate: labelled.length - points.length,
    by_band: byBand,
    outcomes: { threshold: t, under: outcome(under), over: outcome(over) },
    /** under-age people passed (approved) by the production ranges: the dangerous direction */
    false_pass_under: rate(
      under.filter((p) => estimationResult(p.estimate, t, p.male).decision === 'pass').length,
      under.length,
    ),
    /** people at or over the threshold sent to a person (refer) or refused (fail) */
    refer_rate_over: rate(
      over.filter((p) => estimationResult(p.estimate, t, p.male).decision === 'refer').length,
      over.length,
    ),
    fail_rate_over: rate(
      over.filter((p) => estimationResult(p.estimate, t, p.male).decision === 'fail').length,
      over.length,
    ),
    margin_for_false_pass: marginForFalsePass(under, over, t, o.targetFalsePass),
    /**
     * What the estimate alone decides at each of REPORT_THRESHOLDS: people at or over it passed / referred /
     * failed, people under it passed (with the one-sided 95 % Clopper-Pearson upper bound of that rate: for 0 of n,
     * 1 − 0.05^(1/n), about 3 / n), referred, failed.
     */
    at_thresholds: REPORT_THRESHOLDS.map((th) => decisionsAt(judge(points), th)),
    range: rangeQuality(judge(points)),
    ...ageGroupsSection(records, t),
  };
}

/**
 * By the manifest's optional `sex` and `group` columns (evaluation/age-groups.ts), at the threshold `t`, each face
 * decided by the production ranges: `by_group` rows and the `fairness` summary of each column (both empty without
 * the columns).
 */
function ageGroupsSection(records: PhotoRecord[], t: number) {
  const by_group = ageByGroup(agePoints(records), t, (e, male) => estimationResult(e, t, male).decision);
  return { by_group, fairness: ageFairness(by_group) };
}

/** Each point with the production range of its estimate (lib/domain/thresholds/thresholds.ts, AGE_RANGES), or of `table`. */
export function judge(points: readonly AgePoint[], table: AgeRanges = AGE_RANGES): Judged[] {
  return points.map((p) => ({ truth: p.truth, estimate: p.estimate, ...ageRangeOf(table, p.estimate, p.male) }));
}

/**
 * The range against the true age: coverage (share inside, ends included) and mean width in years, overall and by
 * true-age band.
 */
export function rangeQuality(judged: readonly Judged[]) {
  return {
    ...rangeFigures(judged),
    by_band: AGE_BANDS.map((b) => ({
      band: bandLabel(b),
      ...rangeFigures(judged.filter((j) => j.truth >= b[0] && j.truth < b[1])),
    })),
  };
}

/**
 * The smallest single "below" margin (years subtracted from the estimate) at which at most `target` of the
 * under-age people would pass, and what it costs the adults (their refer rate). With target 0 it is the margin
 * that passes none of them; the claim it supports is bounded by the rule of three (3 / n under-age people).
 */
function marginForFalsePass(under: AgePoint[], over: AgePoint[], t: number, target: number) {
  const needed = target > 0 ? minTrialsFor(target) : 1;
  if (under.length < needed || under.length === 0) {
    return {
      target,
      suggested: null,
      refused: `needs at least ${needed} under-age people with an age label; have ${under.length}`,
    };
  }
  const excess = under.map((p) => p.estimate - t).sort((a, b) => b - a); // how far above the threshold each is estimated
  const allowed = Math.floor(target * under.length);
  const m = Math.max(0, Math.ceil(excess[allowed] ?? 0) + 1);
  const passes = (p: AgePoint) => Math.floor(p.estimate - m) >= t;
  return {
    target,
    suggested: m,
    refused: null,
    under_n: under.length,
    false_pass_at_margin: rate(under.filter(passes).length, under.length),
    upper_bound_false_pass_95: round(Math.min(1, 3 / under.length), 4),
    adults_not_passed_at_margin: rate(over.filter((p) => !passes(p)).length, over.length),
  };
}

const roundInterval = (i: Interval | null) => (i ? { low: round(i.low, 3), high: round(i.high, 3) } : null);

function pairs(
  records: PhotoRecord[],
  a: (r: PhotoRecord) => number[] | null | undefined,
  b: (r: PhotoRecord) => number[] | null | undefined,
  ordered: boolean,
) {
  const withId = records.filter((r) => r.kind === 'genuine' && r.person !== null);
  const genuine: number[] = [];
  const impostor: number[] = [];
  for (let i = 0; i < withId.length; i++) {
    for (let j = ordered ? 0 : i + 1; j < withId.length; j++) {
      if (i === j) continue;
      const ea = a(withId[i]);
      const eb = b(withId[j]);
      if (!ea || !eb) continue;
      const s = cosine(ea, eb);
      (withId[i].person === withId[j].person ? genuine : impostor).push(s);
    }
  }
  return { genuine, impostor };
}

function matchSection(genuine: number[], impostor: number[], o: SummaryOptions, photos: number) {
  const at = matchRates(genuine, impostor, FACE_MATCH_THRESHOLD);
  const suggestion = thresholdForFmr(genuine, impostor, o.targetFmr);
  return {
    threshold: FACE_MATCH_THRESHOLD,
    photos,
    genuine_pairs: genuine.length,
    impostor_pairs: impostor.length,
    fnmr: at.fnmr.rate,
    fmr: at.fmr.rate,
    fnmr_detail: at.fnmr,
    fmr_detail: at.fmr,
    genuine: describe(genuine),
    impostor: describe(impostor),
    suggested_threshold: { target_fmr: o.targetFmr, ...suggestion },
    det: detCurve(genuine, impostor),
    note: 'Pairs share photos and people, so they are not independent: the intervals (Wilson, over pairs) are narrower than the truth.',
  };
}

function livenessSection(records: PhotoRecord[]) {
  const withFace = records.filter((r) => r.face);
  const signals = (r: PhotoRecord) => {
    const s: string[] = [];
    if (presentationAttackSignal(r.face)) s.push('presentation_attack');
    if (r.face?.live != null && r.face.live < LIVENESS_FLOOR) s.push('liveness_floor');
    return s;
  };
  const genuine = withFace.filter((r) => r.kind === 'genuine');
  const kinds = [...new Set(records.filter((r) => r.kind !== 'genuine').map((r) => r.kind))].sort();
  const attacks = Object.fromEntries(
    kinds.map((k) => {
      const all = records.filter((r) => r.kind === k);
      const seen = all.filter((r) => r.face);
      return [
        k,
        {
          photos: all.length,
          refused_at_upload: rate(all.filter((r) => !r.upload.accepted).length, all.length),
          caught_by_pipeline: rate(seen.filter((r) => signals(r).length > 0).length, seen.length),
          /** refused at upload or caught by the pipeline's passive checks */
          stopped: rate(all.filter((r) => !r.upload.accepted || signals(r).length > 0).length, all.length),
          replay_score: describe(seen.map((r) => r.face!.replay_score).filter((v): v is number => v != null)),
          moire_score: describe(seen.map((r) => r.face!.moire_score).filter((v): v is number => v != null)),
          liveness: describe(seen.map((r) => r.face!.live).filter((v): v is number => v != null)),
        },
      ];
    }),
  );
  return {
    thresholds: {
      replay_score: REPLAY_SCORE_THRESHOLD,
      moire_score: MOIRE_SCORE_THRESHOLD,
      liveness_floor: LIVENESS_FLOOR,
    },
    genuine: {
      n: genuine.length,
      false_rejects: rate(genuine.filter((r) => signals(r).length > 0).length, genuine.length),
      by_signal: {
        presentation_attack: rate(
          genuine.filter((r) => signals(r).includes('presentation_attack')).length,
          genuine.length,
        ),
        liveness_floor: rate(genuine.filter((r) => signals(r).includes('liveness_floor')).length, genuine.length),
      },
      replay_score: describe(genuine.map((r) => r.face!.replay_score).filter((v): v is number => v != null)),
      moire_score: describe(genuine.map((r) => r.face!.moire_score).filter((v): v is number => v != null)),
      liveness: describe(genuine.map((r) => r.face!.live).filter((v): v is number => v != null)),
      antispoof: describe(genuine.map((r) => r.face!.real).filter((v): v is number => v != null)),
    },
    attacks,
    note: 'Passive checks only (one photo each): the head-turn challenge of the hosted page needs frames, not photos.',
  };
}

function uploadSection(records: PhotoRecord[]) {
  const genuine = records.filter((r) => r.kind === 'genuine');
  const codes = [...new Set(genuine.flatMap((r) => r.upload.failed_checks))].sort();
  return {
    genuine_photos: genuine.length,
    padded_to_minimum: genuine.filter((r) => r.padded).length,
    accepted: rate(genuine.filter((r) => r.upload.accepted).length, genuine.length),
    /** the code the API would answer (the first failing check) */
    refused_by_code: Object.fromEntries(
      codes.map((c) => [c, rate(genuine.filter((r) => r.upload.code === c).length, genuine.length)]),
    ),
    /** every failing check, including those after the first */
    failing_checks: Object.fromEntries(
      codes.map((c) => [c, rate(genuine.filter((r) => r.upload.failed_checks.includes(c)).length, genuine.length)]),
    ),
    unreadable: genuine.filter((r) => r.error).map((r) => ({ file: r.file, error: r.error })),
  };
}

export type Summary = ReturnType<typeof summarize>;

export function summarize(
  records: PhotoRecord[],
  options: Partial<SummaryOptions> = {},
  meta: { folder?: string } = {},
) {
  const o = { ...DEFAULT_OPTIONS, ...options };
  const byKind: Record<string, number> = {};
  for (const r of records) byKind[r.kind] = (byKind[r.kind] ?? 0) + 1;
  const idPhotos = records.filter((r) => r.kind === 'genuine' && r.person !== null && r.face?.embedding);
  const selfie = pairs(
    records,
    (r) => r.face?.embedding,
    (r) => r.face?.embedding,
    false,
  );
  const withDocs = records.some((r) => r.document_portrait !== undefined);
  const doc = withDocs
    ? pairs(
        records,
        (r) => r.face?.embedding,
        (r) => r.document_portrait?.embedding,
        true,
      )
    : null;
  return {
    generated_at: new Date().toISOString(),
    analysis_version: ANALYSIS_VERSION,
    age_calibration: { fitted_on: AGE_CALIBRATION.fitted_on, cv_mae: AGE_CALIBRATION.cv_mae },
    dataset: {
      folder: meta.folder ?? null,
      photos: records.length,
      by_kind: byKind,
      people: new Set(records.filter((r) => r.person).map((r) => r.person)).size,
      with_age: records.filter((r) => r.age !== null).length,
      without_face: records.filter((r) => !r.face).length,
    },
    settings: o,
    age: ageSection(records, o),
    face_match: {
      ...matchSection(selfie.genuine, selfie.impostor, o, idPhotos.length),
      selfie_vs_document: doc ? matchSection(doc.genuine, doc.impostor, o, idPhotos.length) : null,
    },
    liveness: livenessSection(records),
    upload: uploadSection(records),
  };
}

/** The per-pair and per-photo values the charts draw (not written to the summary: aggregates only). */
export type Scores = {
  agePoints: AgePoint[];
  genuine: number[];
  impostor: number[];
  docGenuine?: number[];
  docImpostor?: number[];
  replay: Record<string, number[]>;
  moire: Record<string, number[]>;
  live: Record<string, number[]>;
};

export function scoresOf(records: PhotoRecord[]): Scores {
  const selfie = pairs(
    records,
    (r) => r.face?.embedding,
    (r) => r.face?.embedding,
    false,
  );
  const doc = records.some((r) => r.document_portrait !== undefined)
    ? pairs(
        records,
        (r) => r.face?.embedding,
        (r) => r.document_portrait?.embedding,
        true,
      )
    : null;
  const replay: Record<string, number[]> = {};
  const live: Record<string, number[]> = {};
  const moire: Record<string, number[]> = {};
  for (const r of records) {
    if (!r.face) continue;
    if (r.face.moire_score != null) (moire[r.kind] ??= []).push(r.face.moire_score);
    if (r.face.replay_score != null) (replay[r.kind] ??= []).push(Math.log10(Math.max(0.5, r.face.replay_score)));
    if (r.face.live != null) (live[r.kind] ??= []).push(r.face.live);
  }
  return {
    agePoints: agePoints(records),
    genuine: selfie.genuine,
    impostor: selfie.impostor,
    docGenuine: doc?.genuine,
    docImpostor: doc?.impostor,
    replay,
    moire,
    live,
  };
}

export type { Rate };

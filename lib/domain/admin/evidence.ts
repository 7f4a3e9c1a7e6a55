/**
 * What the machine measured, as a reviewer reads it: each check with its value, its threshold, whether it
 * passed, and a plain sentence of what it means. Known checks get their own wording; any check added later
 * (the pipeline grows) is still shown, as its name and raw value, so nothing measured is hidden.
 */
import {
  LIVENESS_FLOOR,
  MOIRE_SCORE_THRESHOLD,
  REPLAY_SCORE_THRESHOLD,
  SAME_CAPTURE_SIMILARITY,
} from '../thresholds/thresholds';
import { utcDay } from '../../core/time';
import { MEASURED_ORDER } from '../pipeline/checks/list';

export type Fact = {
  key: string;
  label: string;
  value: string;
  threshold?: string;
  passed?: boolean | null;
  meaning: string;
};

export const STATUS_LABELS: Record<string, string> = {
  created: 'Created',
  started: 'Started',
  submitted: 'Submitted',
  resubmission_requested: 'Resubmission requested',
  review: 'In review',
  approved: 'Approved',
  declined: 'Declined',
  abandoned: 'Abandoned',
  expired: 'Expired',
};

/** A number as a person reads it: at most three decimals, no trailing zeros. */
export function num(x: unknown): string {
  if (typeof x !== 'number' || !Number.isFinite(x)) return x === null || x === undefined ? '—' : String(x);
  if (Number.isInteger(x)) return x.toLocaleString('en');
  return String(Math.round(x * 1000) / 1000);
}

/** Anything else, compactly: arrays joined, objects as key: value pairs. */
export function show(x: unknown): string {
  if (x === null || x === undefined) return '—';
  if (typeof x === 'number') return num(x);
  if (typeof x === 'string' || typeof x === 'boolean') return String(x);
  if (Array.isArray(x)) return x.map(show).join(', ');
  if (typeof x === 'object')
    return Object.entries(x as Record<string, unknown>)
      .map(([k, v]) => `${k.replace(/_/g, ' ')}: ${show(v)}`)
      .join('; ');
  return String(x);
}

const pct = (x: unknown) => (typeof x === 'number' ? `${Math.round(x * 1000) / 10} %` : show(x));
const obj = (x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : {});
const humanKey = (k: string) => k.charAt(0).toUpperCase() + k.slice(1).replace(/_/g, ' ');

/** The meaning of a check this page has no wording for (one added to the pipeline later): shown with its raw value. */
export const NO_DESCRIPTION = 'A check this page has no description for yet; its raw value is shown.';

type StoredCheck = { value: unknown; threshold?: unknown; passed?: boolean };

/** The order checks run in (lib/domain/media/validate.ts; the pipeline's: MEASURED_ORDER); JSONB does not keep key order. Unknown ones last. */
const UPLOAD_ORDER = [
  'file_type',
  'file_size',
  'dimensions',
  'decoded_size',
  'brightness',
  'sharpness',
  'face_count',
  'face_size',
  'face_in_frame',
  'occlusion',
  'document_present',
  'document_sharpness',
  'portrait',
];
export const inOrder = <T>(entries: [string, T][], order: string[]) =>
  [...entries].sort(
    ([a], [b]) =>
      (order.indexOf(a) < 0 ? order.length : order.indexOf(a)) -
      (order.indexOf(b) < 0 ? order.length : order.indexOf(b)),
  );

/** Every upload check of a photo, in words, in the order they ran. */
export const uploadFacts = (checks: Record<string, StoredCheck>) =>
  inOrder(Object.entries(checks), UPLOAD_ORDER).map(([k, c]) => uploadFact(k, c));

/** One upload check (lib/domain/media/validate.ts) in words. */
export function uploadFact(key: string, c: StoredCheck): Fact {
  const v = obj(c.value);
  const t = obj(c.threshold);
  const base = { key, passed: typeof c.passed === 'boolean' ? c.passed : null };
  switch (key) {
    case 'file_type':
      return {
        ...base,
        label: 'File type',
        value: show(c.value),
        threshold: 'JPEG, PNG or WebP',
        meaning: 'The file is an image of an accepted kind, judged by its bytes rather than its name.',
      };
    case 'file_size':
      return {
        ...base,
        label: 'File size',
        value: `${num(Math.round(Number(c.value) / 1024))} KiB`,
        threshold: `≤ ${num(Math.round(Number(c.threshold) / 1048576))} MiB`,
        meaning: 'Small enough to process.',
      };
    case 'dimensions': {
      const [w, h] = Array.isArray(c.value) ? c.value : [];
      const min = Array.isArray(t.min) ? t.min.join(' × ') : show(t.min);
      return {
        ...base,
        label: 'Pixel size',
        value: `${num(w)} × ${num(h)}`,
        threshold: `≥ ${min}, ≤ ${show(Array.isArray(t.max) ? t.max.join(' × ') : t.max)}`,
        meaning: 'Enough pixels to see a face or read a document.',
      };
    }
    case 'decoded_size':
      return {
        ...base,
        label: 'Memory to decode',
        value: `${num(Math.round((Number(c.value) / 1048576) * 10) / 10)} MiB`,
        threshold: `≤ ${num(Math.round(Number(c.threshold) / 1048576))} MiB`,
        meaning:
          'The memory decoding the image takes, from its header (pixels × channels × bytes per sample): more is refused unread.',
      };
    case 'brightness':
      return {
        ...base,
        label: 'Light',
        value: `mean ${num(v.mean)} of 255 on the ${show(v.measured_on)}, ${pct(v.overexposed_fraction)} burnt out`,
        threshold: `${num(t.min)}–${num(t.max)}, ≤ ${pct(t.max_overexposed_fraction)} burnt out`,
        meaning: 'Too dark or overexposed photos hide the features a match depends on.',
      };
    case 'sharpness':
      return {
        ...base,
        label: 'Sharpness',
        value: `${num(v.laplacian_variance)} on the ${show(v.measured_on)}`,
        threshold: `≥ ${num(c.threshold)}`,
        meaning: 'Detail in the photo (variance of the Laplacian); a low value means blur.',
      };
    case 'face_count':
      return {
        ...base,
        label: 'Faces',
        value: num(c.value),
        threshold: 'exactly 1',
        meaning: 'Only the person verifying is in the photo.',
      };
    case 'face_size':
      return {
        ...base,
        label: 'Face size',
        value: `${pct(c.value)} of the frame`,
        threshold: `≥ ${pct(c.threshold)}`,
        meaning: 'The face is close enough to the camera to be measured.',
      };
    case 'face_in_frame':
      return {
        ...base,
        label: 'Whole face in the picture',
        value: `${pct(v.outside_fraction)} of the face outside`,
        threshold: `≤ ${pct(t.max_outside_fraction)}`,
        meaning:
          'The face is not cut off by the edge of the picture: a face partly outside the frame cannot be measured whole.',
      };
    case 'occlusion':
      return {
        ...base,
        label: 'Eyes and mouth visible',
        value: `eye texture ${num(v.eye_texture)}, mouth ${num(v.mouth_texture)}`,
        threshold: `≥ ${num(t.min_eye_texture)}, ≥ ${num(t.min_mouth_texture)}`,
        meaning: 'Flat texture where the eyes or mouth should be suggests they are covered (glasses, mask, hand).',
      };
    case 'document_present':
      return {
        ...base,
        label: 'Document found',
        value: `${pct(v.area_fraction)} of the image, fill ${num(v.fill)}, aspect ${num(v.aspect)}`,
        threshold: show(c.threshold),
        meaning: 'A card-shaped document stands out from the background.',
      };
    case 'document_sharpness':
      return {
        ...base,
        label: 'Document sharpness',
        value: num(c.value),
        threshold: `≥ ${num(c.threshold)}`,
        meaning: 'The document is sharp enough for its text to be read.',
      };
    case 'portrait':
      return {
        ...base,
        label: 'Portrait on the document',
        value: `face score ${num(c.value)}`,
        threshold: `≥ ${num(c.threshold)}`,
        meaning: "A face (the holder's portrait) was found on the document's front.",
      };
    default:
      return {
        ...base,
        label: humanKey(key),
        value: show(c.value),
        threshold: c.threshold === undefined ? undefined : show(c.threshold),
        meaning: NO_DESCRIPTION,
      };
  }
}

/** The pipeline's checks of one decision (audit_log data.checks, lib/domain/pipeline/decide.ts) in words. */
export function pipelineFacts(checks: Record<string, unknown>, ws: { duplicateThreshold: number }): Fact[] {
  const out: Fact[] = [];
  // The thresholds a decision recorded beside its values (newer decisions); the current ones otherwise.
  const recorded = (k: string, current: number) => (typeof checks[k] === 'number' ? (checks[k] as number) : current);
  const replayThreshold = recorded('replay_threshold', REPLAY_SCORE_THRESHOLD);
  const moireThreshold = recorded('moire_threshold', MOIRE_SCORE_THRESHOLD);
  const livenessFloor = recorded('liveness_floor', LIVENESS_FLOOR);
  for (const [key, raw] of inOrder(Object.entries(checks), MEASURED_ORDER)) {
    const n = typeof raw === 'number' ? raw : null;
    switch (key) {
      case 'replay_threshold':
      case 'moire_threshold':
      case 'liveness_floor':
        break; // shown as the threshold of their value
      case 'replay_score':
        out.push({
          key,
          label: 'Screen or print pattern',
          value: num(raw),
          threshold: `< ${num(replayThreshold)}`,
          passed: n === null ? null : n < replayThreshold,
          meaning:
            'A periodic pattern on the face (spectral score). High values come from photos of a screen or of a print: a presentation attack.',
        });
        break;
      case 'moire_score':
        out.push({
          key,
          label: 'Moiré (screen grid)',
          value: num(raw),
          threshold: `< ${num(moireThreshold)}`,
          passed: n === null ? null : n < moireThreshold,
          meaning:
            "Interference between a screen's pixel grid and the camera's. High values come from a photo of a phone or monitor showing a face.",
        });
        break;
      case 'active_liveness': {
        const a = obj(raw);
        const value =
          a.challenge === null
            ? 'no challenge completed'
            : a.passed
              ? 'head turns followed'
              : `failed: ${show(a.failure)}`;
        const extra =
          typeof a.selfie_similarity === 'number' ? `; selfie vs challenge face ${num(a.selfie_similarity)}` : '';
        out.push({
          key,
          label: 'Head-turn challenge',
          value: value + extra,
          threshold: a.required ? 'required by the workspace' : 'not required',
          passed: a.challenge === null ? (a.required ? false : null) : Boolean(a.passed),
          meaning:
            'The person turned their head left and right on request in front of the camera, and the selfie shows the same face: a recording or a photo cannot follow random instructions.',
        });
        break;
      }
      case 'review_required':
        out.push({
          key,
          label: 'A person must look',
          value: show(raw),
          passed: null,
          meaning:
            'The person chose the accessible alternative to the head-turn challenge, so an approval waits for a reviewer.',
        });
        break;
      case 'blocklist_similarity':
        out.push({
          key,
          label: 'Closest blocklisted face',
          value: raw === null ? 'no entry to compare' : num(raw),
          threshold: `< ${num(ws.duplicateThreshold)}`,
          passed: n === null ? true : n < ws.duplicateThreshold,
          meaning:
            "Cosine similarity to the nearest face on this workspace's blocklist; at or above the threshold the person is taken to be blocked.",
        });
        break;
      case 'liveness':
        out.push({
          key,
          label: 'Liveness score',
          value: num(raw),
          threshold: `≥ ${num(livenessFloor)}`,
          passed: n === null ? null : n >= livenessFloor,
          meaning:
            "The face model's estimate that a live person was in front of the camera (0 to 1). Measured to separate attacks poorly: a low score asks for a new selfie, it does not decline.",
        });
        break;
      case 'same_capture_similarity':
        out.push({
          key,
          label: 'Same picture as another verification',
          value: raw === null ? 'no other selfie' : num(raw),
          threshold: `< ${num(SAME_CAPTURE_SIMILARITY)}`,
          passed: n === null ? true : n < SAME_CAPTURE_SIMILARITY,
          meaning:
            'Similarity to the closest selfie of another verification; 0.999 and above means the very same picture was sent again.',
        });
        break;
      case 'model_age':
        out.push({
          key,
          label: 'Age estimated by the model',
          value: `${num(raw)} years`,
          meaning:
            'The calibrated estimate of the age networks, before the range of true ages it allows is read from the fitted table.',
        });
        break;
      case 'step_up':
        out.push({
          key,
          label: 'Stepped up to a document',
          value: show(raw),
          passed: null,
          meaning:
            "The estimate could not decide and the workspace asks for an ID document instead of a person's review: the next attempt is decided by the document.",
        });
        break;
      case 'face_match': {
        const f = obj(raw);
        const sim = typeof f.similarity === 'number' ? f.similarity : null;
        const th = typeof f.threshold === 'number' ? f.threshold : null;
        out.push({
          key,
          label: 'Selfie matches the document portrait',
          value: num(sim),
          threshold: `≥ ${num(th)}`,
          passed: sim === null || th === null ? null : sim >= th,
          meaning:
            'Cosine similarity of the selfie and the portrait on the document. Below the threshold they are taken to be different people.',
        });
        break;
      }
      case 'blocklist_entry':
        out.push({
          key,
          label: 'Blocklist entry matched',
          value: show(raw),
          passed: false,
          meaning: 'The entry of the blocklist this face matched (shown side by side below).',
        });
        break;
      case 'selfie':
      case 'document':
      case 'age':
      case 'signal':
      case 'error':
        out.push({
          key,
          label: key === 'error' ? 'Processing error' : `Finding (${key})`,
          value: show(raw),
          passed: false,
          meaning: 'What stopped the automated decision at this step.',
        });
        break;
      default:
        out.push({ key, label: humanKey(key), value: show(raw), meaning: NO_DESCRIPTION });
    }
  }
  return out;
}

/** The decision's result object (GET /v1/verifications/{id} `result`) in words. */
export function resultFacts(result: unknown, now = new Date()): Fact[] {
  const r = obj(result);
  const out: Fact[] = [];
  // Extension (docs/api.md "Step-up to a document"): which proof the age came from.
  if (r.age_source === 'estimation' || r.age_source === 'document') {
    out.push({
      key: 'age_source',
      label: 'Age decided from',
      value: r.age_source === 'document' ? "the document's date of birth" : 'the face estimate',
      meaning:
        r.age_source === 'document'
          ? 'The date of birth read from the document, with the selfie matched to its portrait.'
          : "The selfie's estimated age range against the threshold.",
    });
  }
  // docs/wallet.md: a digital ID wallet's signed claim, and who signed it (gone once the data is erased).
  const wallet = obj(r.wallet);
  if (r.age_source === 'wallet' && Object.keys(wallet).length) {
    out.push({
      key: 'age_source',
      label: 'Age decided from',
      value: 'a digital ID wallet',
      meaning: `An ISO mobile driving licence's signed claim, verified against the trusted issuing authorities (${show(wallet.protocol)}); no photo was taken.`,
    });
    out.push({
      key: 'wallet_claim',
      label: 'Wallet claim',
      value: `${show(wallet.element)} = ${show(wallet.value)}`,
      threshold: `≥ ${num(r.threshold)}`,
      passed: wallet.value === true,
      meaning:
        wallet.value === true
          ? 'The issuer signed that the holder is at or over the threshold.'
          : 'The issuer signed that the holder is under the threshold.',
    });
    const issuer = obj(wallet.issuer);
    if (Object.keys(issuer).length)
      out.push({
        key: 'wallet_issuer',
        label: 'Issued by',
        value: `${show(issuer.authority)} (${show(issuer.country)})`,
        meaning: "From the document signer's certificate, which chains to a trusted IACA root.",
      });
  }
  if (typeof r.estimated_age === 'number') {
    const range = obj(r.age_range);
    const meaning =
      r.decision === 'pass'
        ? 'The whole range is at or above the threshold: approved by the pipeline.'
        : r.decision === 'fail'
          ? 'The whole range is below the threshold: declined by the pipeline.'
          : 'The range straddles the threshold, so the estimate alone cannot decide: a person does, or an ID document where the workspace steps up to one.';
    out.push({
      key: 'estimated_age',
      label: 'Estimated age',
      value: `${num(r.estimated_age)} (range ${num(range.min)}–${num(range.max)})`,
      threshold: `≥ ${num(r.threshold)}`,
      passed: r.decision === 'pass' ? true : r.decision === 'fail' ? false : null,
      meaning,
    });
    if (typeof r.confidence === 'number')
      out.push({
        key: 'confidence',
        label: 'Confidence',
        value: pct(r.confidence),
        meaning:
          'Of the calibration photos estimated about this age, the share on the decided side of the threshold (for a referral, on the side the estimate falls on).',
      });
  }
  const doc = obj(r.document);
  if (Object.keys(doc).length) {
    const expired = typeof doc.expiry_date === 'string' && doc.expiry_date < utcDay(now);
    out.push({
      key: 'document',
      label: 'Document',
      value: `${show(doc.type).replace(/_/g, ' ')}, ${show(doc.issuing_country)}, read from the ${doc.source === 'pdf417' ? 'barcode (PDF417)' : 'machine-readable zone (MRZ)'}`,
      meaning: 'What the document says it is.',
    });
    out.push({
      key: 'document_number',
      label: 'Document number',
      value: show(doc.number_masked),
      meaning: 'Masked: only the last four characters are kept.',
    });
    if (doc.expiry_date !== undefined)
      out.push({
        key: 'expiry_date',
        label: 'Expiry',
        value: show(doc.expiry_date),
        threshold: `after ${utcDay(now)}`,
        passed: doc.expiry_date === null ? null : !expired,
        meaning: expired ? 'The document had expired: declined.' : 'The document is valid on the day of the decision.',
      });
  }
  const person = obj(r.person);
  if (Object.keys(person).length)
    out.push({
      key: 'person',
      label: 'Person',
      value: `${show(person.given_names)} ${show(person.surname)}, born ${show(person.date_of_birth)}, sex ${show(person.sex)}`,
      meaning: 'As read from the document.',
    });
  if (typeof r.age === 'number')
    out.push({
      key: 'age',
      label: 'Age from the date of birth',
      value: `${num(r.age)} years`,
      threshold: `≥ ${num(r.threshold)}`,
      passed: typeof r.threshold === 'number' ? r.age >= r.threshold : null,
      meaning: 'Age on the day of the decision, from the date of birth on the document.',
    });
  return out;
}

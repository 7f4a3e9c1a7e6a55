/**
 * Which parts of a verification's `result` are the decision and which are the person. The decision is an
 * allowlist (below); everything else — names, date of birth, sex, document number, expiry and issuing country,
 * and any field a future check adds — is personal. Personal fields are never stored in the clear: they are
 * encrypted under the verification's data key (`result_sealed`) when the result is written, merged back when it
 * is read, and gone with the data key when the verification's data is erased, while the decision stays.
 */
import type { DbOrTx } from '@/lib/db/client';
import { aesGcmEncrypt } from '../../core/crypto/secretbox';
import { ensureDataKey } from './data-keys';

type Spec = { [field: string]: true | Spec };

/**
 * What a result keeps when its data is erased: the decision and the age check's outcome (the estimate and its
 * range, or the age the document gave, and which of the two it was), the face-match score, and which kind of
 * document was read.
 */
export const KEPT_RESULT_FIELDS: Spec = {
  decision: true,
  threshold: true,
  estimated_age: true,
  age_range: true,
  confidence: true,
  age: true,
  age_source: true,
  face_match: true,
  document: { type: true, source: true },
  // A wallet's proof (docs/wallet.md): the claim; its issuer is personal (sealed).
  wallet: { protocol: true, element: true, value: true },
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Splits a result into the decision (kept in the clear) and the personal fields, with their dotted paths. */
export function splitResult(result: unknown): { kept: Obj | null; personal: Obj | null; personalPaths: string[] } {
  if (!isObj(result)) return { kept: (result as Obj | null) ?? null, personal: null, personalPaths: [] };
  const paths: string[] = [];
  const walk = (o: Obj, spec: Spec, prefix: string): [Obj, Obj | null] => {
    const kept: Obj = {};
    const personal: Obj = {};
    for (const [k, v] of Object.entries(o)) {
      const s = spec[k];
      if (s === true) kept[k] = v;
      else if (s && isObj(v)) {
        const [a, b] = walk(v, s, `${prefix}${k}.`);
        kept[k] = a;
        if (b) personal[k] = b;
      } else {
        personal[k] = v;
        leafPaths(v, `${prefix}${k}`, paths);
      }
    }
    return [kept, Object.keys(personal).length ? personal : null];
  };
  const [kept, personal] = walk(result, KEPT_RESULT_FIELDS, '');
  return { kept, personal, personalPaths: paths };
}

function leafPaths(v: unknown, path: string, out: string[]) {
  if (isObj(v) && Object.keys(v).length) for (const [k, x] of Object.entries(v)) leafPaths(x, `${path}.${k}`, out);
  else out.push(path);
}

/** The result as written: the personal fields merged back into the decision. */
export function mergeResult(kept: Obj | null, personal: Obj | null): Obj | null {
  if (!personal) return kept;
  const merge = (a: Obj, b: Obj): Obj => {
    const out: Obj = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = isObj(out[k]) && isObj(v) ? merge(out[k] as Obj, v) : v;
    return out;
  };
  return merge(kept ?? {}, personal);
}

/** A sealed result's associated data: the verification it belongs to. */
export const resultAad = (verificationId: string) => `result:${verificationId}`;
const aad = resultAad;

/**
 * What to store for a result being written: the decision in `result`, the personal fields encrypted under the
 * verification's data key in `result_sealed` (null when there are none). Called where results are written
 * (lib/domain/transitions/state-machine.ts), inside the caller's transaction.
 */
export async function sealResult(
  db: DbOrTx,
  verificationId: string,
  result: unknown,
): Promise<{ result: Obj | null; resultSealed: Buffer | null }> {
  const { kept, personal } = splitResult(result);
  if (!personal) return { result: kept, resultSealed: null };
  const key = await ensureDataKey(db, verificationId);
  return { result: kept, resultSealed: aesGcmEncrypt(JSON.stringify(personal), aad(verificationId), key) };
}

import { describe, expect, it } from 'vitest';
import { pipelineFacts, resultFacts, uploadFact } from './evidence';
import { LIVENESS_FLOOR, REPLAY_SCORE_THRESHOLD } from '../thresholds/thresholds';

describe('evidence in words', () => {
  it('an estimation result: range against the threshold, and what a refer means', () => {
    const [age, confidence] = resultFacts({
      decision: 'refer',
      threshold: 18,
      estimated_age: 19,
      age_range: { min: 9, max: 29 },
      confidence: 0.57,
    });
    expect(age).toMatchObject({ label: 'Estimated age', value: '19 (range 9–29)', threshold: '≥ 18', passed: null });
    expect(age.meaning).toMatch(/straddles the threshold/);
    expect(confidence).toMatchObject({ value: '57 %' });
    expect(
      resultFacts({ decision: 'pass', threshold: 18, estimated_age: 31, age_range: { min: 21, max: 41 } })[0].passed,
    ).toBe(true);
  });

  it("a digital ID wallet's proof: its source, its claim against the threshold, its issuer", () => {
    const facts = resultFacts({
      decision: 'pass',
      threshold: 18,
      age_source: 'wallet',
      wallet: {
        protocol: 'org-iso-mdoc',
        element: 'age_over_21',
        value: true,
        issuer: { country: 'US', authority: 'Example DMV' },
      },
    });
    expect(facts.map((f) => [f.key, f.value, f.passed])).toEqual([
      ['age_source', 'a digital ID wallet', undefined],
      ['wallet_claim', 'age_over_21 = true', true],
      ['wallet_issuer', 'Example DMV (US)', undefined],
    ]);
  });

  it('where the age came from (age_source): the face estimate, or the document after a step-up', () => {
    const [source] = resultFacts({
      decision: 'refer',
      threshold: 48,
      estimated_age: 48,
      age_range: { min: 40, max: 56 },
      age_source: 'estimation',
    });
    expect(source).toMatchObject({ key: 'age_source', label: 'Age decided from', value: 'the face estimate' });
    const facts = resultFacts({
      decision: 'pass',
      threshold: 48,
      age: 53,
      age_source: 'document',
      document: { type: 'passport', source: 'mrz' },
    });
    expect(facts[0]).toMatchObject({ key: 'age_source', value: "the document's date of birth" });
    expect(facts.find((f) => f.key === 'age')).toMatchObject({ value: '53 years', passed: true });
    expect(resultFacts({ decision: 'pass', person: {} }).find((f) => f.key === 'age_source')).toBeUndefined();
    expect(
      pipelineFacts({ model_age: 48.2, step_up: 'document' }, { duplicateThreshold: 0.945 }).map((f) => f.label),
    ).toEqual(['Age estimated by the model', 'Stepped up to a document']);
  });

  it('a document result: masked number, expiry judged on the day', () => {
    const facts = resultFacts(
      {
        decision: 'fail',
        document: {
          type: 'passport',
          source: 'mrz',
          issuing_country: 'UTO',
          number_masked: '•••••6789',
          expiry_date: '2020-01-01',
        },
      },
      new Date('2026-11-23'),
    );
    expect(facts.find((f) => f.key === 'document_number')?.value).toBe('•••••6789');
    expect(facts.find((f) => f.key === 'expiry_date')).toMatchObject({ passed: false });
    expect(facts.find((f) => f.key === 'document')?.value).toMatch(
      /passport, UTO, read from the machine-readable zone/,
    );
  });

  it('pipeline checks with thresholds and verdicts; a check it does not know is still shown', () => {
    const facts = pipelineFacts(
      {
        replay_score: REPLAY_SCORE_THRESHOLD + 5,
        liveness: LIVENESS_FLOOR + 0.5,
        blocklist_similarity: null,
        face_match: { similarity: 0.5, threshold: 0.66 },
        new_signal: { depth: 0.3 },
      },
      { duplicateThreshold: 0.68 },
    );
    const by = (k: string) => facts.find((f) => f.key === k)!;
    expect(by('replay_score').passed).toBe(false);
    expect(by('liveness').passed).toBe(true);
    expect(by('blocklist_similarity')).toMatchObject({ value: 'no entry to compare', passed: true });
    expect(by('face_match')).toMatchObject({ value: '0.5', threshold: '≥ 0.66', passed: false });
    expect(by('new_signal')).toMatchObject({ label: 'New signal', value: 'depth: 0.3' });
    expect(by('new_signal').passed).toBeUndefined();
  });

  it('the checks of the measured pipeline: moiré, head-turn challenge, recorded thresholds used, not listed on their own', () => {
    const facts = pipelineFacts(
      {
        replay_score: 10,
        replay_threshold: 8,
        moire_score: 30,
        moire_threshold: 25,
        liveness: 0.4,
        liveness_floor: 0.3,
        active_liveness: { required: true, challenge: 'lch_1', passed: true, failure: null, selfie_similarity: 0.97 },
        review_required: 'head-turn challenge skipped (accessible alternative)',
      },
      { duplicateThreshold: 0.945 },
    );
    const by = (k: string) => facts.find((f) => f.key === k);
    expect(by('replay_score')).toMatchObject({ threshold: '< 8', passed: false });
    expect(by('moire_score')).toMatchObject({ label: 'Moiré (screen grid)', threshold: '< 25', passed: false });
    expect(by('liveness')).toMatchObject({ threshold: '≥ 0.3', passed: true });
    expect(by('active_liveness')).toMatchObject({
      label: 'Head-turn challenge',
      threshold: 'required by the workspace',
      passed: true,
    });
    expect(by('active_liveness')!.value).toContain('0.97');
    expect(by('review_required')?.label).toBe('A person must look');
    for (const k of ['replay_threshold', 'moire_threshold', 'liveness_floor']) expect(by(k)).toBeUndefined();
    expect(
      pipelineFacts({ active_liveness: { required: true, challenge: null } }, { duplicateThreshold: 0.945 })[0],
    ).toMatchObject({ value: 'no challenge completed', passed: false });
  });

  it('upload checks: value, threshold and verdict as stored by the validation', () => {
    expect(uploadFact('face_size', { value: 0.31, threshold: 0.15, passed: true })).toMatchObject({
      value: '31 % of the frame',
      threshold: '≥ 15 %',
      passed: true,
    });
    expect(
      uploadFact('brightness', {
        value: { measured_on: 'face', mean: 22.5, overexposed_fraction: 0 },
        threshold: { min: 30, max: 220, max_overexposed_fraction: 0.2 },
        passed: false,
      }),
    ).toMatchObject({ passed: false, value: 'mean 22.5 of 255 on the face, 0 % burnt out' });
    expect(uploadFact('mystery', { value: [1, 2], passed: true })).toMatchObject({ label: 'Mystery', value: '1, 2' });
    expect(
      uploadFact('decoded_size', { value: 640 * 480 * 3, threshold: 8000 * 8000 * 3, passed: true }),
    ).toMatchObject({ label: 'Memory to decode', value: '0.9 MiB', threshold: '≤ 183 MiB' });
    expect(
      uploadFact('face_in_frame', {
        value: { outside_fraction: 0.31 },
        threshold: { max_outside_fraction: 0.05 },
        passed: false,
      }),
    ).toMatchObject({ label: 'Whole face in the picture', value: '31 % of the face outside', threshold: '≤ 5 %' });
  });
});

describe('check order', () => {
  it('upload checks come in the order they ran, whatever order JSONB returned them in, unknown ones last', async () => {
    const { uploadFacts } = await import('./evidence');
    const keys = uploadFacts({
      occlusion: { value: {}, passed: true },
      zeta: { value: 1, passed: true },
      file_type: { value: 'jpeg', passed: true },
      face_count: { value: 1, passed: true },
    }).map((f) => f.key);
    expect(keys).toEqual(['file_type', 'face_count', 'occlusion', 'zeta']);
  });
});

/**
 * The age estimate: the calibration's arithmetic on made-up numbers, then the age networks in this process on the
 * packaged photos (each view measured, a mirrored photo read alike, nothing left in tfjs's memory, no estimate for
 * a document).
 */
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../media/analyze';
import * as I from '../../../test/helpers/images';
import { AGE_CALIBRATION, ageInputs, estimateAge, type AgeCalibration } from './age';
import { loadFaceModels, type FaceModels } from './models';

describe('estimateAge', () => {
  const c: AgeCalibration = {
    fitted_on: 'test',
    views: ['faceres', 'faceres_mirror'],
    groups: [['faceres', 'faceres_mirror'], ['face_api']],
    intercept: -2,
    weights: [0.5, 0.7],
    cv_mae: null,
  };

  it('averages each group, a group with nothing measured takes the mean of the others; clamped to 1..100', () => {
    expect(ageInputs({ faceres: 20, faceres_mirror: 30, face_api: 10 }, c)).toEqual([25, 10]);
    expect(estimateAge({ faceres: 20, faceres_mirror: 30, face_api: 10 }, null, c)).toBe(-2 + 12.5 + 7);
    expect(estimateAge({ faceres: 20, faceres_mirror: 30, face_api: null }, null, c)).toBe(-2 + 12.5 + 17.5);
    expect(estimateAge({ face_api: 40 }, null, c)).toBe(-2 + 20 + 28);
    expect(estimateAge({}, null, c)).toBeNull();
    expect(estimateAge({ faceres: 0, face_api: 0 }, null, c)).toBe(1);
    expect(estimateAge({ faceres: 300, face_api: 300 }, null, c)).toBe(100);
  });

  it('adds the face description centred on its mean; a face without one (or of another length) is the mean face; log scale is exp of the sum', () => {
    const d: AgeCalibration = { ...c, description: { weights: [2, -1], mean: [0.5, 0.5] } };
    const f = { faceres: 20, faceres_mirror: 30, face_api: 10 };
    expect(estimateAge(f, [1.5, 0.5], d)).toBe(-2 + 12.5 + 7 + 2);
    expect(estimateAge(f, [0.5, 2.5], d)).toBe(-2 + 12.5 + 7 - 2);
    expect(estimateAge(f, null, d)).toBe(-2 + 12.5 + 7);
    expect(estimateAge(f, [9, 9, 9], d)).toBe(-2 + 12.5 + 7);
    const log: AgeCalibration = {
      ...c,
      scale: 'log',
      intercept: 1,
      weights: [0.05, 0.02],
      description: { weights: [0.3], mean: [0] },
    };
    expect(estimateAge(f, [1], log)).toBe(Math.round(Math.exp(1 + 0.05 * 25 + 0.02 * 10 + 0.3) * 10) / 10);
    expect(estimateAge(f, [100], log)).toBe(100);
  });

  it('bounded where it was fitted: inputs, the description term and the estimate clamp to the fit set, so no face reaches the clamp of 100', () => {
    const b: AgeCalibration = {
      ...c,
      scale: 'log',
      intercept: 1,
      weights: [0.02, 0.01],
      description: { weights: [0.3], mean: [0], bounds: [-0.5, 0.5] },
      input_bounds: [
        [5, 60],
        [5, 60],
      ],
    };
    // A network reading of 90 counts as 60; a description term of 30 as 0.5.
    expect(estimateAge({ faceres: 90, face_api: 60 }, [0], b)).toBe(
      Math.round(Math.exp(1 + 0.02 * 60 + 0.01 * 60) * 10) / 10,
    );
    expect(estimateAge({ faceres: 20, face_api: 20 }, [100], b)).toBe(
      Math.round(Math.exp(1 + 0.02 * 20 + 0.01 * 20 + 0.5) * 10) / 10,
    );
    // …and the estimate to the lowest and highest the fit gave its own faces.
    expect(estimateAge({ faceres: 100, face_api: 100 }, [100], { ...b, output_bounds: [3, 20] })).toBe(20);
    expect(estimateAge({ faceres: 0, face_api: 0 }, [-100], { ...b, output_bounds: [3, 20] })).toBe(3);
    // The committed calibration: whatever the networks read and whatever the description, an old face (networks at
    // 100, a description term at its highest) stays under the clamp, at the oldest estimate the fit set was given.
    const top = AGE_CALIBRATION.output_bounds![1];
    expect(top).toBeLessThan(100);
    const extreme = AGE_CALIBRATION.description
      ? AGE_CALIBRATION.description.weights.map((w, j) => AGE_CALIBRATION.description!.mean[j] + Math.sign(w) * 10)
      : null;
    expect(
      estimateAge({ faceres_deep_tight: 100, faceres_deep_tight_mirror: 100, face_api: 100, male: 0 }, extreme),
    ).toBeLessThanOrEqual(Math.round(top * 10) / 10); // estimateAge gives a tenth of a year
    expect(
      estimateAge({ faceres_deep_tight: 100, faceres_deep_tight_mirror: 100, face_api: 100, male: 1 }, extreme),
    ).toBeLessThan(100);
  });

  it('the committed calibration runs views the networks have, and uses every view it runs', () => {
    const used = new Set(AGE_CALIBRATION.groups.flat());
    for (const v of AGE_CALIBRATION.views) expect(used.has(v)).toBe(true);
    expect(AGE_CALIBRATION.weights).toHaveLength(AGE_CALIBRATION.groups.length);
    // The description term is as long as the analysis's face description, and centred on a mean of that length.
    if (AGE_CALIBRATION.description) {
      expect(AGE_CALIBRATION.description.weights).toHaveLength(128);
      expect(AGE_CALIBRATION.description.mean).toHaveLength(128);
    }
  });
});

describe('the age networks on the packaged photos (in this process)', () => {
  let models: FaceModels;
  beforeAll(async () => {
    models = await loadFaceModels();
  }, 120_000);

  it('measures every view of the calibration, reads a mirrored photo alike, and frees its tensors', async () => {
    const photo = await sharp(I.astronaut()).jpeg().toBuffer();
    const first = await analyze(models, { bytes: photo, kind: 'selfie' });
    const tensors = models.human.tf.memory().numTensors;
    const again = await analyze(models, { bytes: photo, kind: 'selfie' });
    expect(models.human.tf.memory().numTensors).toBe(tensors);
    const f = first.faces[0];
    for (const v of [...AGE_CALIBRATION.views, 'face_api' as const]) expect(typeof f.age_features?.[v]).toBe('number');
    expect(again.faces[0].age).toBe(f.age);
    // The analysis's estimate is the committed calibration's, face description included: without it the estimate
    // would be another.
    expect(f.age).toBe(estimateAge(f.age_features!, f.embedding));
    expect(AGE_CALIBRATION.description).toBeTruthy();
    expect(estimateAge(f.age_features!, null)).not.toBe(f.age);
    // The mirror image is the same face: its views swap, and the estimate stays within a few years (the detector's
    // box and rotation of the two photos differ a little, so the crops do: 1.8 years apart on the astronaut).
    const mirrored = await analyze(models, { bytes: await sharp(photo).flop().jpeg().toBuffer(), kind: 'selfie' });
    expect(Math.abs(mirrored.faces[0].age! - f.age!)).toBeLessThan(3);
    // A document's face gets no age estimate (the document's age is its date of birth).
    const doc = await analyze(models, { bytes: photo, kind: 'document' });
    expect(doc.faces[0]).toMatchObject({ age: null, age_features: null });
    expect(models.human.tf.memory().numTensors).toBe(tensors);
  }, 120_000);
});

/**
 * Every face model one analysis worker runs, loaded once: Human (detector, mesh, iris, antispoof, liveness), the
 * age networks that read Human's face crop (faceres, faceres-deep, GEAR: lib/domain/faces/age-nets.ts) and face-api's
 * recognition and age networks on Human's tfjs.
 */
import type { Human } from '@vladmandic/human';
import type * as TfCore from '@tensorflow/tfjs-core';
import { loadHuman } from './human-node';
import { loadFaceApiNets, type FaceApiNets } from './face-api-nets';
import { loadAgeNets, type AgeNets } from './age-nets';
import { AGE_CALIBRATION } from './age';

export type FaceModels = { human: Human; nets: FaceApiNets; ages: AgeNets };

export async function loadFaceModels(): Promise<FaceModels> {
  const human = await loadHuman();
  const nets = loadFaceApiNets(human.tf as unknown as typeof TfCore);
  const ages = await loadAgeNets(human, AGE_CALIBRATION.views);
  return { human, nets, ages };
}

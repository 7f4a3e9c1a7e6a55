/**
 * Every face model one analysis worker runs, loaded once: Human (detector, mesh, faceres, antispoof, liveness)
 * and face-api's recognition and age networks on Human's tfjs.
 */
import type { Human } from '@vladmandic/human';
import type * as TfCore from '@tensorflow/tfjs-core';
import { loadHuman } from './human-node';
import { loadFaceApiNets, type FaceApiNets } from './face-api-nets';

export type FaceModels = { human: Human; nets: FaceApiNets };

export async function loadFaceModels(): Promise<FaceModels> {
  const human = await loadHuman();
  const nets = loadFaceApiNets(human.tf as unknown as typeof TfCore);
  return { human, nets };
}

import type { AgeFeatures } from '../faces/age';

export type LightSharpness = { brightness: number; overexposed_fraction: number; sharpness: number };

export type FaceMeasure = LightSharpness & {
  score: number;
  detector_score: number;
  mesh_score: number;
  box: [number, number, number, number];
  size_fraction: number;
  /** share of the face mesh's points outside the image: a face cut off by the frame edge */
  outside_fraction: number;
  /** head yaw in radians from the mesh (Human's face angles): negative turned to the image's left */
  yaw: number | null;
  /** head turn from the mesh: the nose's offset from the eyes' midpoint, in eye distances (positive: image right) */
  turn?: number | null;
  regions: {
    left_eye_texture: number;
    right_eye_texture: number;
    mouth_texture: number;
    left_eye_color_distance: number;
    right_eye_color_distance: number;
    mouth_color_distance: number;
  };
  /** calibrated estimate (lib/domain/faces/age.ts) from the models' raw estimates in age_features; selfies only */
  age: number | null;
  age_features: AgeFeatures | null;
  gender: string | null;
  gender_score: number | null;
  real: number | null;
  live: number | null;
  /** face description (lib/domain/faces/describe.ts): 128-d, unit length, compared by cosine */
  embedding: number[] | null;
  /** Screen/print periodic-pattern signal of the selfie's main face (lib/domain/faces/replay.mjs). */
  replay_score?: number | null;
  /** Moiré signal of the selfie's main face: periodic colour bands shared by R−G and B−G (lib/domain/faces/replay.ts). */
  moire_score?: number | null;
};

export type Analysis = {
  /** lib/domain/media/version.ts: analyses of an older version are measured again before use */
  version: string;
  width: number;
  height: number;
  whole: LightSharpness;
  faces: FaceMeasure[];
  document: (LightSharpness & { area_fraction: number; fill: number; aspect: number; box: number[] }) | null;
  /** The image as stored: orientation applied, metadata stripped, JPEG. */
  stored: Buffer;
};

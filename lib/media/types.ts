export type LightSharpness = { brightness: number; overexposed_fraction: number; sharpness: number };

export type FaceMeasure = LightSharpness & {
  score: number;
  detector_score: number;
  mesh_score: number;
  box: [number, number, number, number];
  size_fraction: number;
  regions: {
    left_eye_texture: number;
    right_eye_texture: number;
    mouth_texture: number;
    left_eye_color_distance: number;
    right_eye_color_distance: number;
    mouth_color_distance: number;
  };
  age: number | null;
  gender: string | null;
  gender_score: number | null;
  real: number | null;
  live: number | null;
  embedding: number[] | null;
  /** Screen/print periodic-pattern signal of the selfie's main face (lib/faces/replay.mjs). */
  replay_score?: number | null;
};

export type Analysis = {
  width: number;
  height: number;
  whole: LightSharpness;
  faces: FaceMeasure[];
  document: (LightSharpness & { area_fraction: number; fill: number; aspect: number; box: number[] }) | null;
  /** The image as stored: orientation applied, metadata stripped, JPEG. */
  stored: Buffer;
};

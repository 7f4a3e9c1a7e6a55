import type { Metafile } from 'esbuild';

export const OUTPUT: string;
export function unsupportedOps(modelFile: string): string[];
export function checkModelOps(modelFile?: string): void;
export function stubFor(relative: string): string;
export function buildFaceDetector(options?: {
  quiet?: boolean;
  outfile?: string;
}): Promise<{ bytes: number; metafile: Metafile }>;

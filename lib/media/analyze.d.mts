import type { Analysis } from './types';
export declare const MAX_PIXELS: number;
export declare function laplacianVariance(grey: Uint8Array, w: number, h: number): number;
export declare function analyze(human: unknown, input: { bytes: Uint8Array; kind: 'selfie' | 'document' }): Promise<Analysis>;

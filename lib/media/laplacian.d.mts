export declare function laplacianVariance(grey: Uint8Array | Uint8ClampedArray, w: number, h: number): number;

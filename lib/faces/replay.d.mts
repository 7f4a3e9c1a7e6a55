export declare function periodicPeakRatio(grey: Uint8Array, n: number): number;

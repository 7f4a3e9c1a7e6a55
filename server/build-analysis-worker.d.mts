export const ENTRY: string;
export const OUTPUT: string;
export const INPUTS: string;
export function buildAnalysisWorker(options?: { quiet?: boolean }): Promise<{ inputs: string[] }>;

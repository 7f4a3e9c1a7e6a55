export const QUEUE_BEFORE: string;
export const QUEUE_AFTER: string;
export const QUEUE_FIXED_MARK: string;
export const POSTGRES_QUEUE_FILES: string[];
export function patchDependencies(
  dir?: string,
): { file: string; result: 'missing' | 'already fixed' | 'changed upstream: left alone' | 'fixed' }[];

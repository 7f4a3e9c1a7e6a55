/**
 * The version of what lib/domain/media/analyze.ts measures (models, alignment, calibration). Stored with every
 * analysis and part of the evaluator's cache key: bump it whenever a model or a measurement changes.
 */
export const ANALYSIS_VERSION = '5-age-nets-sex-reading';

/**
 * The pipeline's checks, one row each, in the order decide() (../decide.ts) runs them: every flow runs the common
 * ones, then those of its path (the age estimate, or the document read and face match). A row is the check's id
 * (its `Check.name`, the `stage` of pipeline_stage_duration_seconds), its module in this folder, and the keys of
 * what it measures (audit_log `data.checks`), in the order the admin case view shows them. docs/accuracy.md and
 * docs/operating.md list the checks in this order (list.test.ts).
 */
export const PIPELINE_CHECKS = [
  { id: 'usable_selfie', module: 'usable-selfie', path: 'common', measures: ['selfie'] },
  {
    id: 'presentation_attack',
    module: 'presentation-attack',
    path: 'common',
    measures: ['replay_score', 'replay_threshold', 'moire_score', 'moire_threshold', 'signal'],
  },
  { id: 'blocklist', module: 'blocklist', path: 'common', measures: ['blocklist_similarity', 'blocklist_entry'] },
  {
    id: 'liveness',
    module: 'liveness',
    path: 'common',
    measures: ['liveness', 'liveness_floor', 'active_liveness', 'review_required', 'same_capture_similarity', 'signal'],
  },
  { id: 'age_estimate', module: 'age-estimate', path: 'estimation', measures: ['model_age', 'step_up', 'age'] },
  { id: 'document', module: 'document', path: 'document', measures: ['document'] },
  { id: 'face_match', module: 'face-match', path: 'document', measures: ['face_match'] },
] as const;

export type PipelineCheckId = (typeof PIPELINE_CHECKS)[number]['id'];

/** What a decision records when the pipeline failed before any check decided (../index.ts: `processing_error`). */
export const PROCESSING_ERROR_KEY = 'error';

/** Every measured key in the order the checks run, then the processing error. */
export const MEASURED_ORDER: string[] = [
  ...new Set<string>([...PIPELINE_CHECKS.flatMap((c) => c.measures), PROCESSING_ERROR_KEY]),
];

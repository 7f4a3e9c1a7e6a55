/**
 * Age / estimation in a workspace whose `estimation_fallback` is `document`: an estimate that cannot decide
 * (`refer`, which would go to a person) asks for an ID document in the same verification instead:
 * `resubmission_requested` / `document_required` (docs/api.md "Step-up to a document"). A pass or a fail stands.
 * The estimate itself is the age-estimate check's, unchanged; its result (`refer`, the range) is kept.
 */
import { STEP_UP_REASON } from '../../transitions/policy';
import { ageEstimate } from './age-estimate';
import type { Check } from './types';

export const ageEstimateOrStepUp: Check = {
  name: ageEstimate.name,
  run: (ev, now) => {
    const r = ageEstimate.run(ev, now);
    if (
      ev.estimationFallback !== 'document' ||
      r.status !== 'decided' ||
      r.outcome !== 'review' ||
      r.result?.decision !== 'refer'
    )
      return r;
    return { ...r, outcome: 'resubmit', reason: STEP_UP_REASON, measured: { ...r.measured, step_up: 'document' } };
  },
};

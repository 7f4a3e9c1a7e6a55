/** The capture page's events for an embedding site, from its steps and statuses (docs/sdks.md "Embedding the flow"). */
import { describe, expect, it } from 'vitest';
import { embedStep, statusEvents } from './embed-events';

describe('embed events', () => {
  it('names the steps consent, selfie, document and review; waiting and the result are none', () => {
    expect(
      ['consent', 'selfie', 'stepUp', 'docType', 'front', 'back', 'wallet', 'review', 'waiting', 'result'].map(
        embedStep,
      ),
    ).toEqual(['consent', 'selfie', 'document', 'document', 'document', 'document', 'wallet', 'review', null, null]);
  });

  it('a submission is submitted, then its decision completed, even when the decision came first', () => {
    expect(statusEvents('started', 'submitted')).toEqual([{ type: 'submitted' }]);
    expect(statusEvents('submitted', 'approved')).toEqual([{ type: 'completed', status: 'approved' }]);
    expect(statusEvents('started', 'declined')).toEqual([
      { type: 'submitted' },
      { type: 'completed', status: 'declined' },
    ]);
    expect(statusEvents('submitted', 'review')).toEqual([{ type: 'completed', status: 'review' }]);
    expect(statusEvents('resubmission_requested', 'submitted')).toEqual([{ type: 'submitted' }]);
    expect(statusEvents('submitted', 'resubmission_requested')).toEqual([
      { type: 'completed', status: 'resubmission_requested' },
    ]);
  });

  it('nothing for no change or a move before submission; an expired link is an error', () => {
    expect(statusEvents('created', 'created')).toEqual([]);
    expect(statusEvents('created', 'started')).toEqual([]);
    expect(statusEvents('started', 'expired')).toEqual([{ type: 'error', code: 'expired' }]);
  });
});

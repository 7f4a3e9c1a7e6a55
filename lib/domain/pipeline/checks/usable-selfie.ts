/** The selfie must hold a face with a description (embedding): every later check compares or measures it. */
import { decided, next, type Check } from './types';

export const usableSelfie: Check = {
  name: 'usable_selfie',
  run: (ev) => (ev.selfie?.embedding ? next() : decided('resubmit', 'selfie_quality', { selfie: 'no usable face' })),
};

/** A face an admin blocked, at or above the workspace's duplicate threshold: declined. */
import { decided, next, type Check } from './types';

export const blocklist: Check = {
  name: 'blocklist',
  run: (ev) => {
    const measured = { blocklist_similarity: ev.blocklist?.similarity ?? null };
    if (ev.blocklist && ev.blocklist.similarity >= ev.blocklistThreshold)
      return decided('decline', 'blocklist_match', { ...measured, blocklist_entry: ev.blocklist.id });
    return next(measured);
  },
};

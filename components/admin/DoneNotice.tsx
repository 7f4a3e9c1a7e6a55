/**
 * Word of what a row's action did, after it sent the admin back to the page (`?done=…&subject=…`). Fixed
 * sentences per code: the URL chooses among them and names the key, event or person, nothing else.
 */
import { Notice } from './ui';

const MESSAGES: Record<string, (s: string) => string> = {
  key_activated: (s) => `${s} is now the active key: it signs every webhook from now on.`,
  key_deleted: (s) => `${s} deleted: requests signed with it are refused from now on.`,
  redelivered: (s) => `Sent again: ${s} is due now.`,
  redelivered_failed: (s) =>
    s === '0' ? 'No failed event to send again.' : `${s} failed event${s === '1' ? '' : 's'} sent again.`,
  invite_revoked: () => 'Invitation withdrawn: its link no longer works.',
  role_changed_owner: (s) => `${s} is now an owner; they were signed out, and sign in again with the new role.`,
  role_changed_reviewer: (s) => `${s} is now a reviewer; they were signed out, and sign in again with the new role.`,
  member_removed: (s) => `${s} removed: they no longer have access and were signed out.`,
};

export function DoneNotice(props: { q: Record<string, string | string[] | undefined> }) {
  const code = typeof props.q.done === 'string' ? props.q.done : '';
  const subject =
    typeof props.q.subject === 'string' && /^[\w@.+…-]{1,320}$/u.test(props.q.subject) ? props.q.subject : '';
  const m = Object.hasOwn(MESSAGES, code) ? MESSAGES[code] : undefined;
  return m && subject ? <Notice tone="success">{m(subject)}</Notice> : null;
}

/**
 * The admin area's sections, in the order of its navigation, and who sees each: any signed-in admin, operators,
 * or admins with a permission in some workspace (lib/domain/admin/access.ts; operators too where `orOperator`).
 * The page itself still checks its reader: the navigation only leaves out what would show nothing.
 */
import { workspacesFor, type Actor, type Permission } from './access';

type VisibleTo = 'any admin' | 'operator' | { permission: Permission; orOperator?: boolean };

/** A link of the admin area's navigation (components/admin/NavLinks.tsx draws them). */
export type NavItem = { href: string; label: string };

export const ADMIN_NAV: readonly (NavItem & { visibleTo: VisibleTo; whileEnrolling?: true })[] = [
  { href: '/admin/queue', label: 'Review queue', visibleTo: 'any admin' },
  { href: '/admin/verifications', label: 'Verifications', visibleTo: 'any admin' },
  { href: '/admin/blocklist', label: 'Blocklist', visibleTo: 'any admin' },
  { href: '/admin/audit', label: 'Audit log', visibleTo: { permission: 'audit.read' } },
  // Issue 15: owners run their workspaces; operators every one, and the global consent text.
  { href: '/admin/workspaces', label: 'Workspaces', visibleTo: { permission: 'workspace.read', orOperator: true } },
  { href: '/admin/consent', label: 'Consent', visibleTo: 'operator' },
  // docs/wallet.md "Trust lists": operators manage it; owners see what their workspaces trust.
  { href: '/admin/wallet-trust', label: 'Wallet trust', visibleTo: { permission: 'workspace.read', orOperator: true } },
  // An admin still enrolling a second factor sees this one only (app/admin/_auth/current.ts, stage `enrol`).
  { href: '/admin/account', label: 'Account', visibleTo: 'any admin', whileEnrolling: true },
];

function sees(actor: Actor, v: VisibleTo): boolean {
  if (v === 'any admin') return true;
  if (v === 'operator') return actor.isOperator;
  return (v.orOperator === true && actor.isOperator) || workspacesFor(actor, v.permission).length > 0;
}

/** The sections this admin sees; while enrolling a second factor, only those allowed then. */
export function navFor(actor: Actor, opts: { enrolling?: boolean } = {}): NavItem[] {
  return ADMIN_NAV.filter((i) => (opts.enrolling ? i.whileEnrolling : sees(actor, i.visibleTo))).map(
    ({ href, label }) => ({ href, label }),
  );
}

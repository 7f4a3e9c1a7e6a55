/** The admin navigation from its table (nav.ts): who sees which section, and each section has its page. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Actor, Membership } from './access';
import { ADMIN_NAV, navFor } from './nav';

const root = path.resolve(import.meta.dirname, '../../..');
const actor = (isOperator: boolean, roles: Membership['role'][]): Actor => ({
  userId: 'u1',
  email: 'a@example.test',
  isOperator,
  sessionId: 's1',
  workspaces: roles.map((role, i) => ({ workspaceId: `ws${i}`, workspaceName: `W${i}`, role })),
});
const labels = (a: Actor, enrolling = false) => navFor(a, { enrolling }).map((i) => i.label);

describe('the admin navigation', () => {
  it('an operator sees every section', () => {
    expect(labels(actor(true, ['operator']))).toEqual(ADMIN_NAV.map((i) => i.label));
  });

  it('an owner sees the audit log, workspaces and wallet trust, not the consent text', () => {
    expect(labels(actor(false, ['owner']))).toEqual([
      'Review queue',
      'Verifications',
      'Blocklist',
      'Audit log',
      'Workspaces',
      'Wallet trust',
      'Account',
    ]);
  });

  it('a reviewer sees the cases, the blocklist and the account only', () => {
    expect(labels(actor(false, ['reviewer']))).toEqual(['Review queue', 'Verifications', 'Blocklist', 'Account']);
  });

  it('an admin enrolling a second factor sees the account only', () => {
    expect(labels(actor(true, ['operator']), true)).toEqual(['Account']);
  });

  it('every section has its page under app/admin/(area)', () => {
    const missing = ADMIN_NAV.filter(
      (i) => !fs.existsSync(path.join(root, 'app/admin/(area)', i.href.replace('/admin/', ''), 'page.tsx')),
    );
    expect(missing.map((i) => i.href)).toEqual([]);
  });
});

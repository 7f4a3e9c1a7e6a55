/**
 * The admin area's frame: a header with the product, the signed-in admin and sign-out, and the sections.
 * On a phone the sections scroll sideways under the header; nothing is hidden at 320 px. The sections, and who
 * sees each, are ADMIN_NAV (lib/domain/admin/nav.ts).
 */
import Link from 'next/link';
import type { ReactNode } from 'react';
import type { Actor } from '@/lib/domain/admin/access';
import { navFor } from '@/lib/domain/admin/nav';
import { NavLinks } from './NavLinks';

export function Shell(props: { actor: Actor; children: ReactNode; signOut: () => Promise<void>; enrolling?: boolean }) {
  const nav = navFor(props.actor, { enrolling: props.enrolling });
  return (
    <div className="min-h-screen bg-neutral-50">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-blue-900"
      >
        Skip to content
      </a>
      <header className="border-b border-neutral-200 bg-white">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-2 px-3 py-2 sm:px-6">
          <Link href="/admin/queue" className="text-base font-bold text-neutral-950">
            Open Verify <span className="font-normal text-neutral-700">admin</span>
          </Link>
          <div className="flex min-w-0 items-center gap-3 text-sm">
            <span className="truncate text-neutral-800" title={props.actor.email}>
              {props.actor.email}
              {props.actor.isOperator ? (
                <span className="ml-1 rounded bg-neutral-900 px-1.5 py-0.5 text-xs font-semibold text-white">
                  operator
                </span>
              ) : null}
            </span>
            <form action={props.signOut}>
              <button
                type="submit"
                className="min-h-9 rounded-md px-2 font-semibold text-blue-800 underline underline-offset-2 hover:text-blue-950 focus-visible:outline-2 focus-visible:outline-blue-900"
              >
                Sign out
              </button>
            </form>
          </div>
        </div>
        <div className="mx-auto max-w-7xl px-1 sm:px-4">
          <NavLinks items={nav} />
        </div>
      </header>
      <main id="main" className="mx-auto max-w-7xl px-3 py-5 sm:px-6">
        {props.children}
      </main>
    </div>
  );
}

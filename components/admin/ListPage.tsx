/** What the search and audit pages share: reading filters from the URL, a filter error, the table, the next page. */
import Link from 'next/link';
import type { ReactNode } from 'react';
import { DomainError } from '@/lib/core/errors';
import { assertStorableText } from '@/lib/core/input-text';
import { buttonClass, Empty, Notice } from './ui';

type Query = Record<string, string | string[] | undefined>;

/** The named query parameters (strings only), as a lib/ filter schema takes them. */
export const filtersFrom = (q: Query, keys: string[]) => Object.fromEntries(keys.map((k) => [k, typeof q[k] === 'string' ? q[k] : undefined])) as Record<string, string | undefined>;

/**
 * Runs a query on filters from the URL that may be invalid: a VALIDATION_ERROR (or any DomainError) becomes a
 * message, not an error page. Text Postgres cannot store (a NUL, an unpaired surrogate) is such an error, named
 * by its parameter, before the query runs (lib/core/input-text.ts).
 */
export async function withFilters<T>(filters: Record<string, string | undefined>, run: () => Promise<T>): Promise<{ result: T | null; problem: DomainError | null }> {
  try {
    assertStorableText(filters, 'query', 'The filters are not valid.');
    return { result: await run(), problem: null };
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    return { result: null, problem: e };
  }
}

export function FilterProblem({ problem }: { problem: DomainError | null }) {
  if (!problem) return null;
  const fields = (problem.details as { fields?: Record<string, string[]> } | undefined)?.fields ?? {};
  return (
    <Notice tone="error">
      {problem.message} {Object.entries(fields).map(([k, v]) => `${k}: ${v.join(' ')}`).join(' ')}
    </Notice>
  );
}

/** The next page's URL: the same filters, the new cursor. */
export function nextPageHref(path: string, filters: Record<string, string | undefined>, cursor: string | null): string | null {
  if (!cursor) return null;
  const kept = Object.entries(filters).filter((e): e is [string, string] => !!e[1] && e[0] !== 'cursor');
  return `${path}?${new URLSearchParams([...kept, ['cursor', cursor]])}`;
}

export function NextPage({ href, label }: { href: string | null; label: string }) {
  return href ? (
    <p className="mt-4">
      <Link href={href} className={buttonClass.secondary}>
        {label}
      </Link>
    </p>
  ) : null;
}

/** A results table that scrolls sideways inside its frame on a narrow screen (the page itself never does). */
export function ResultsTable(props: { caption: string; columns: string[]; testId: string; minWidth: string; empty: string; rows: unknown[] | null; children: ReactNode }) {
  if (!props.rows) return null;
  if (props.rows.length === 0) return <Empty>{props.empty}</Empty>;
  return (
    <div className="overflow-x-auto rounded-lg border border-neutral-200 bg-white">
      <table className={`w-full text-left text-sm ${props.minWidth}`} data-testid={props.testId}>
        <caption className="sr-only">{props.caption}</caption>
        <thead className="border-b border-neutral-200 bg-neutral-50 text-neutral-800">
          <tr>
            {props.columns.map((c) => (
              <th key={c} scope="col" className="whitespace-nowrap px-3 py-2 font-semibold">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-neutral-200">{props.children}</tbody>
      </table>
    </div>
  );
}

/** What the search and audit pages share: reading filters from the URL, a filter error, the table, the next page. */
import type { ReactNode } from 'react';
import { DomainError } from '@/lib/core/errors';
import { assertStorableText } from '@/lib/core/input-text';
import { ButtonLink, Empty, Notice, Table, TableFrame, Th, THead } from './ui';

type Query = Record<string, string | string[] | undefined>;

/** The named query parameters (strings only), as a lib/ filter schema takes them. */
export const filtersFrom = (q: Query, keys: string[]) =>
  Object.fromEntries(keys.map((k) => [k, typeof q[k] === 'string' ? q[k] : undefined])) as Record<
    string,
    string | undefined
  >;

/**
 * Runs a query on filters from the URL that may be invalid: a VALIDATION_ERROR (or any DomainError) becomes a
 * message, not an error page. Text Postgres cannot store (a NUL, an unpaired surrogate) is such an error, named
 * by its parameter, before the query runs (lib/core/input-text.ts).
 */
export async function withFilters<T>(
  filters: Record<string, string | undefined>,
  run: () => Promise<T>,
): Promise<{ result: T | null; problem: DomainError | null }> {
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
      {problem.message}{' '}
      {Object.entries(fields)
        .map(([k, v]) => `${k}: ${v.join(' ')}`)
        .join(' ')}
    </Notice>
  );
}

/** The next page's URL: the same filters, the new cursor. */
export function nextPageHref(
  path: string,
  filters: Record<string, string | undefined>,
  cursor: string | null,
): string | null {
  if (!cursor) return null;
  const kept = Object.entries(filters).filter((e): e is [string, string] => !!e[1] && e[0] !== 'cursor');
  return `${path}?${new URLSearchParams([...kept, ['cursor', cursor]])}`;
}

export function NextPage({ href, label }: { href: string | null; label: string }) {
  return href ? (
    <p className="mt-4">
      <ButtonLink href={href} variant="secondary">
        {label}
      </ButtonLink>
    </p>
  ) : null;
}

/** A results table that scrolls sideways inside its frame on a narrow screen (the page itself never does). */
export function ResultsTable(props: {
  caption: string;
  columns: string[];
  testId: string;
  minWidth: string;
  empty: string;
  rows: unknown[] | null;
  children: ReactNode;
}) {
  if (!props.rows) return null;
  if (props.rows.length === 0) return <Empty>{props.empty}</Empty>;
  return (
    <TableFrame>
      <Table className={props.minWidth} data-testid={props.testId}>
        <caption className="sr-only">{props.caption}</caption>
        <THead look="shaded">
          <tr>
            {props.columns.map((c) => (
              <Th key={c} density="roomy" nowrap strong>
                {c}
              </Th>
            ))}
          </tr>
        </THead>
        <tbody className="divide-y divide-neutral-200">{props.children}</tbody>
      </Table>
    </TableFrame>
  );
}

/**
 * The admin area's building blocks (server-rendered, Tailwind only: the CSP allows no inline styles). Typed
 * components with variants (class-variance-authority, as shadcn/ui does): a page composes these and never
 * repeats a long class string (./classes.test.ts keeps it so; docs/admin-guide.md "How the admin area is built").
 */
import Link from 'next/link';
import type { ReactNode } from 'react';
import { cva } from 'class-variance-authority';
export { cn } from './cn';
export { Button, ButtonLink, buttonClass } from './button';
export { Input, Label, Select, Textarea } from './input';
export { Badge, ModeBadge, StatusBadge } from './badge';
export { Table, TableFrame, Td, Th, THead } from './table';
export { TextLink, linkVariants } from './link';
export { Box, Card, Empty, Kbd, Notice, RecordItem, RecordList, boxVariants, layout } from './panel';

export function PageHeader(props: { title: string; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-5 flex flex-wrap items-end justify-between gap-3">
      <div className="min-w-0">
        <h1 className="text-xl font-bold text-neutral-950 sm:text-2xl">{props.title}</h1>
        {props.subtitle ? <div className="mt-1 text-sm text-neutral-700">{props.subtitle}</div> : null}
      </div>
      {props.actions ? <div className="flex flex-wrap gap-2">{props.actions}</div> : null}
    </div>
  );
}

const verdictVariants = cva('inline-flex items-center gap-1 whitespace-nowrap text-sm font-semibold', {
  variants: { passed: { true: 'text-green-800', false: 'text-red-800' } },
});

/** Pass / fail / no verdict, in words for screen readers and as a mark for the eye. */
export function Verdict(props: { passed?: boolean | null }) {
  if (props.passed === true)
    return (
      <span className={verdictVariants({ passed: true })}>
        <span aria-hidden="true">✓</span>Passed
      </span>
    );
  if (props.passed === false)
    return (
      <span className={verdictVariants({ passed: false })}>
        <span aria-hidden="true">✗</span>Failed
      </span>
    );
  return (
    <span className="text-sm text-neutral-700">
      —<span className="sr-only">no verdict</span>
    </span>
  );
}

const tabVariants = cva(
  '-mb-px inline-flex min-h-10 items-center gap-2 whitespace-nowrap border-b-2 px-3 text-sm font-semibold',
  {
    variants: {
      current: {
        true: 'border-blue-700 text-blue-900',
        false: 'border-transparent text-neutral-700 hover:text-neutral-950',
      },
    },
  },
);
const countVariants = cva('rounded-full px-2 text-xs', {
  variants: { current: { true: 'bg-blue-100 text-blue-900', false: 'bg-neutral-100 text-neutral-800' } },
});

/** Tabs as links (each a URL a reviewer can bookmark). */
export function Tabs(props: {
  label: string;
  items: { href: string; label: string; count?: number; current: boolean }[];
}) {
  return (
    <nav aria-label={props.label} className="mb-4 flex gap-1 overflow-x-auto border-b border-neutral-200">
      {props.items.map((t) => (
        <Link
          key={t.href}
          href={t.href}
          aria-current={t.current ? 'page' : undefined}
          className={tabVariants({ current: t.current })}
        >
          {t.label}
          {t.count !== undefined ? <span className={countVariants({ current: t.current })}>{t.count}</span> : null}
        </Link>
      ))}
    </nav>
  );
}

/** A definition list of label → value pairs. */
export function Facts(props: { items: [string, ReactNode][] }) {
  return (
    <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-2 text-sm">
      {props.items.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="font-medium text-neutral-700">{k}</dt>
          <dd className="min-w-0 text-neutral-950 [overflow-wrap:anywhere]">{v}</dd>
        </div>
      ))}
    </dl>
  );
}

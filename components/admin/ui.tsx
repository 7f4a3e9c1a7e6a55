/** The admin area's building blocks (server-rendered, Tailwind only: the CSP allows no inline styles). */
import Link from 'next/link';
import type { ReactNode } from 'react';
import { STATUS_LABELS } from '@/lib/domain/admin/evidence';

export const cx = (...c: (string | false | null | undefined)[]) => c.filter(Boolean).join(' ');

export const buttonClass = {
  primary: 'inline-flex min-h-10 items-center justify-center gap-2 rounded-md bg-blue-700 px-4 text-sm font-semibold text-white hover:bg-blue-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-900 disabled:cursor-not-allowed disabled:bg-neutral-400',
  secondary: 'inline-flex min-h-10 items-center justify-center gap-2 rounded-md border border-neutral-300 bg-white px-4 text-sm font-semibold text-neutral-900 hover:bg-neutral-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-900 disabled:cursor-not-allowed disabled:opacity-60',
  danger: 'inline-flex min-h-10 items-center justify-center gap-2 rounded-md bg-red-700 px-4 text-sm font-semibold text-white hover:bg-red-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-900 disabled:cursor-not-allowed disabled:bg-neutral-400',
  success: 'inline-flex min-h-10 items-center justify-center gap-2 rounded-md bg-green-700 px-4 text-sm font-semibold text-white hover:bg-green-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-green-900 disabled:cursor-not-allowed disabled:bg-neutral-400',
  link: 'font-medium text-blue-800 underline underline-offset-2 hover:text-blue-950 focus-visible:outline-2 focus-visible:outline-blue-900',
};

export const inputClass = 'block min-h-10 w-full rounded-md border border-neutral-400 bg-white px-3 text-sm text-neutral-900 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-blue-800';
export const labelClass = 'mb-1 block text-sm font-medium text-neutral-800';

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

export function Card(props: { title?: string; id?: string; children: ReactNode; className?: string; actions?: ReactNode }) {
  const headingId = props.id ? `${props.id}-title` : undefined;
  return (
    <section aria-labelledby={headingId} id={props.id} className={cx('rounded-lg border border-neutral-200 bg-white p-4 shadow-sm', props.className)}>
      {props.title ? (
        <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
          <h2 id={headingId} className="text-base font-semibold text-neutral-950">
            {props.title}
          </h2>
          {props.actions}
        </div>
      ) : null}
      {props.children}
    </section>
  );
}

const STATUS_TONE: Record<string, string> = {
  approved: 'bg-green-100 text-green-900 ring-green-300',
  declined: 'bg-red-100 text-red-900 ring-red-300',
  review: 'bg-amber-100 text-amber-950 ring-amber-300',
  resubmission_requested: 'bg-violet-100 text-violet-900 ring-violet-300',
  submitted: 'bg-blue-100 text-blue-900 ring-blue-300',
};

export function StatusBadge(props: { status: string }) {
  return <span className={cx('inline-flex items-center rounded-full px-2 py-0.5 text-xs font-semibold ring-1 ring-inset', STATUS_TONE[props.status] ?? 'bg-neutral-100 text-neutral-800 ring-neutral-300')}>{STATUS_LABELS[props.status] ?? props.status}</span>;
}

export function ModeBadge(props: { mode: string }) {
  return props.mode === 'live' ? (
    <span className="inline-flex items-center rounded px-1.5 py-0.5 text-xs font-semibold text-neutral-900 ring-1 ring-inset ring-neutral-400">Live</span>
  ) : (
    <span className="inline-flex items-center rounded bg-orange-100 px-1.5 py-0.5 text-xs font-semibold text-orange-950 ring-1 ring-inset ring-orange-300">Test</span>
  );
}

/** Pass / fail / no verdict, in words for screen readers and as a mark for the eye. */
export function Verdict(props: { passed?: boolean | null }) {
  if (props.passed === true) return <span className="inline-flex items-center gap-1 whitespace-nowrap text-sm font-semibold text-green-800"><span aria-hidden="true">✓</span>Passed</span>;
  if (props.passed === false) return <span className="inline-flex items-center gap-1 whitespace-nowrap text-sm font-semibold text-red-800"><span aria-hidden="true">✗</span>Failed</span>;
  return <span className="text-sm text-neutral-700">—<span className="sr-only">no verdict</span></span>;
}

export function Empty(props: { children: ReactNode }) {
  return <p className="rounded-md border border-dashed border-neutral-300 bg-neutral-50 p-6 text-center text-sm text-neutral-700">{props.children}</p>;
}

export function Notice(props: { tone: 'error' | 'info' | 'success' | 'warning'; children: ReactNode; id?: string }) {
  const tone = {
    error: 'border-red-300 bg-red-50 text-red-950',
    info: 'border-blue-300 bg-blue-50 text-blue-950',
    success: 'border-green-300 bg-green-50 text-green-950',
    warning: 'border-amber-300 bg-amber-50 text-amber-950',
  }[props.tone];
  return (
    <div id={props.id} role={props.tone === 'error' ? 'alert' : 'status'} className={cx('mb-4 rounded-md border p-3 text-sm', tone)}>
      {props.children}
    </div>
  );
}

/** Tabs as links (each a URL a reviewer can bookmark). */
export function Tabs(props: { label: string; items: { href: string; label: string; count?: number; current: boolean }[] }) {
  return (
    <nav aria-label={props.label} className="mb-4 flex gap-1 overflow-x-auto border-b border-neutral-200">
      {props.items.map((t) => (
        <Link
          key={t.href}
          href={t.href}
          aria-current={t.current ? 'page' : undefined}
          className={cx('-mb-px inline-flex min-h-10 items-center gap-2 whitespace-nowrap border-b-2 px-3 text-sm font-semibold', t.current ? 'border-blue-700 text-blue-900' : 'border-transparent text-neutral-700 hover:text-neutral-950')}
        >
          {t.label}
          {t.count !== undefined ? <span className={cx('rounded-full px-2 text-xs', t.current ? 'bg-blue-100 text-blue-900' : 'bg-neutral-100 text-neutral-800')}>{t.count}</span> : null}
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

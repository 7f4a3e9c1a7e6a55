/** Panels: the white card a page is made of, boxes inside it, notices, the empty state, lists of records, layout rows. */
import type { ComponentProps, ReactNode } from 'react';
import { cva, type VariantProps } from 'class-variance-authority';
import { cn } from './cn';

export function Card(props: {
  title?: string;
  id?: string;
  children: ReactNode;
  className?: string;
  actions?: ReactNode;
}) {
  const headingId = props.id ? `${props.id}-title` : undefined;
  return (
    <section
      aria-labelledby={headingId}
      id={props.id}
      className={cn('rounded-lg border border-neutral-200 bg-white p-4 shadow-sm', props.className)}
    >
      {props.title ? (
        <div className={cn(layout.row, 'mb-3 justify-between')}>
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

/** A bordered box inside a card: plain (one record), warning (a secret shown once), danger (a form that destroys). */
export const boxVariants = cva('rounded-md border p-3', {
  variants: {
    tone: {
      plain: 'border-neutral-200',
      warning: 'border-amber-300 bg-amber-50',
      danger: 'border-red-300 bg-red-50',
      info: 'border-blue-300 bg-blue-50',
      success: 'border-green-300 bg-green-50',
    },
  },
  defaultVariants: { tone: 'plain' },
});

export function Box({ tone, className, ...props }: ComponentProps<'div'> & VariantProps<typeof boxVariants>) {
  return <div className={cn(boxVariants({ tone }), className)} {...props} />;
}

const NOTICE_TONE = { error: 'danger', info: 'info', success: 'success', warning: 'warning' } as const;
const noticeText = cva('mb-4 text-sm', {
  variants: {
    tone: { error: 'text-red-950', info: 'text-blue-950', success: 'text-green-950', warning: 'text-amber-950' },
  },
});

/** A message at the top of a page or form; an error is announced at once (role="alert"). */
export function Notice(props: { tone: keyof typeof NOTICE_TONE; children: ReactNode; id?: string }) {
  return (
    <div
      id={props.id}
      role={props.tone === 'error' ? 'alert' : 'status'}
      className={cn(boxVariants({ tone: NOTICE_TONE[props.tone] }), noticeText({ tone: props.tone }))}
    >
      {props.children}
    </div>
  );
}

export function Empty(props: { children: ReactNode }) {
  return (
    <p className="rounded-md border border-dashed border-neutral-300 bg-neutral-50 p-6 text-center text-sm text-neutral-700">
      {props.children}
    </p>
  );
}

/** Layout classes that repeat: things side by side that wrap (row), pushed apart (split), a part set off by a rule above (separated). */
export const layout = {
  row: 'flex flex-wrap items-center gap-2',
  split: 'flex flex-wrap items-center justify-between gap-3',
  separated: 'mt-4 border-t border-neutral-200 pt-4',
};

/** A list of records in a white frame, one per line (blocklist, workspaces). */
export function RecordList({ className, ...props }: ComponentProps<'ul'>) {
  return (
    <ul
      className={cn('divide-y divide-neutral-200 rounded-lg border border-neutral-200 bg-white', className)}
      {...props}
    />
  );
}

export function RecordItem({ className, ...props }: ComponentProps<'li'>) {
  return <li className={cn(layout.split, 'px-4 py-3', className)} {...props} />;
}

/** A key on the keyboard, in a list of shortcuts. */
export function Kbd(props: { children: ReactNode }) {
  return <kbd className="rounded border border-neutral-400 bg-white px-1">{props.children}</kbd>;
}

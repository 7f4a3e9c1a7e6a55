/** Small labels beside a name: a verification's status, its mode, a count. */
import { cva, type VariantProps } from 'class-variance-authority';
import type { ReactNode } from 'react';
import { STATUS_LABELS } from '@/lib/domain/admin/evidence';
import { cn } from './cn';

export const badgeVariants = cva('inline-flex items-center text-xs font-semibold', {
  variants: {
    tone: {
      green: 'bg-green-100 text-green-900 ring-green-300',
      red: 'bg-red-100 text-red-900 ring-red-300',
      amber: 'bg-amber-100 text-amber-950 ring-amber-300',
      violet: 'bg-violet-100 text-violet-900 ring-violet-300',
      blue: 'bg-blue-100 text-blue-900 ring-blue-300',
      orange: 'bg-orange-100 text-orange-950 ring-orange-300',
      neutral: 'bg-neutral-100 text-neutral-800 ring-neutral-300',
      outline: 'text-neutral-900 ring-neutral-400',
    },
    shape: { pill: 'rounded-full px-2 py-0.5', tag: 'rounded px-1.5 py-0.5' },
    /** a thin ring in the tone's colour (off: a flat label inside a table cell) */
    ringed: { true: 'ring-1 ring-inset', false: '' },
  },
  defaultVariants: { tone: 'neutral', shape: 'pill', ringed: true },
});
export type BadgeVariants = VariantProps<typeof badgeVariants>;

export function Badge(props: BadgeVariants & { children: ReactNode; className?: string }) {
  return (
    <span
      className={cn(badgeVariants({ tone: props.tone, shape: props.shape, ringed: props.ringed }), props.className)}
    >
      {props.children}
    </span>
  );
}

const STATUS_TONE: Record<string, BadgeVariants['tone']> = {
  approved: 'green',
  declined: 'red',
  review: 'amber',
  resubmission_requested: 'violet',
  submitted: 'blue',
};

export function StatusBadge(props: { status: string }) {
  return <Badge tone={STATUS_TONE[props.status] ?? 'neutral'}>{STATUS_LABELS[props.status] ?? props.status}</Badge>;
}

export function ModeBadge(props: { mode: string }) {
  return props.mode === 'live' ? (
    <Badge tone="outline" shape="tag">
      Live
    </Badge>
  ) : (
    <Badge tone="orange" shape="tag">
      Test
    </Badge>
  );
}

/** Tables: the frame, the header row's look and the cells' spacing as variants; every admin table is built from these. */
import type { ComponentProps } from 'react';
import { cva, type VariantProps } from 'class-variance-authority';
import { cn } from './cn';

export const tableVariants = cva('w-full text-left', {
  variants: { size: { sm: 'text-sm', xs: 'text-xs' } },
  defaultVariants: { size: 'sm' },
});

export const headVariants = cva('', {
  variants: {
    look: {
      /** small capitals over a compact table (usage) */
      caps: 'text-xs uppercase text-neutral-700',
      plain: 'text-neutral-700',
      /** a shaded header row inside a framed table */
      shaded: 'border-b border-neutral-200 bg-neutral-50 text-neutral-800',
      /** shaded, in small capitals */
      shadedCaps: 'bg-neutral-100 text-xs uppercase tracking-wide text-neutral-800',
    },
  },
  defaultVariants: { look: 'plain' },
});

export const cellVariants = cva('', {
  variants: {
    /** compact: rows of figures; roomy: a framed list of records; column: a table whose first column is a label */
    density: { compact: 'py-1 pr-3', roomy: 'px-3 py-2', column: 'py-2 pr-3' },
    nowrap: { true: 'whitespace-nowrap' },
    strong: { true: 'font-semibold' },
    /** top-aligned (a row whose cells hold forms of different heights) */
    top: { true: 'align-top' },
  },
  defaultVariants: { density: 'compact' },
});
type CellVariants = VariantProps<typeof cellVariants>;

export function Table({ size, className, ...props }: ComponentProps<'table'> & VariantProps<typeof tableVariants>) {
  return <table className={cn(tableVariants({ size }), className)} {...props} />;
}

export function THead({ look, className, ...props }: ComponentProps<'thead'> & VariantProps<typeof headVariants>) {
  return <thead className={cn(headVariants({ look }), className)} {...props} />;
}

/** A column heading (scope="col" unless told otherwise). */
export function Th({
  density,
  nowrap,
  strong,
  top,
  className,
  scope = 'col',
  ...props
}: ComponentProps<'th'> & CellVariants) {
  return <th scope={scope} className={cn(cellVariants({ density, nowrap, strong, top }), className)} {...props} />;
}

export function Td({ density, nowrap, strong, top, className, ...props }: ComponentProps<'td'> & CellVariants) {
  return <td className={cn(cellVariants({ density, nowrap, strong, top }), className)} {...props} />;
}

/** A table inside a white frame that scrolls sideways on a narrow screen (the page itself never does). */
export function TableFrame({ className, ...props }: ComponentProps<'div'>) {
  return <div className={cn('overflow-x-auto rounded-lg border border-neutral-200 bg-white', className)} {...props} />;
}

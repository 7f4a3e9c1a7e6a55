/** Buttons and links that look like them: one variant per intent, the same size, focus ring and disabled look. */
import Link from 'next/link';
import type { ComponentProps } from 'react';
import { cva, type VariantProps } from 'class-variance-authority';
import { cn } from './cn';
import { linkVariants } from './link';

export const buttonVariants = cva(
  'inline-flex min-h-10 items-center justify-center gap-2 rounded-md px-4 text-sm font-semibold focus-visible:outline-2 focus-visible:outline-offset-2 disabled:cursor-not-allowed',
  {
    variants: {
      variant: {
        primary: 'bg-blue-700 text-white hover:bg-blue-800 focus-visible:outline-blue-900 disabled:bg-neutral-400',
        secondary:
          'border border-neutral-300 bg-white text-neutral-900 hover:bg-neutral-100 focus-visible:outline-blue-900 disabled:opacity-60',
        danger: 'bg-red-700 text-white hover:bg-red-800 focus-visible:outline-red-900 disabled:bg-neutral-400',
        success: 'bg-green-700 text-white hover:bg-green-800 focus-visible:outline-green-900 disabled:bg-neutral-400',
      },
    },
    defaultVariants: { variant: 'primary' },
  },
);

export type ButtonVariants = VariantProps<typeof buttonVariants>;
type Variant = NonNullable<ButtonVariants['variant']>;

/** The class of each variant, for an element that is not a <Button> (a <summary>, a link); `link` is a link in running text (./link.tsx). */
export const buttonClass = {
  ...(Object.fromEntries(
    (['primary', 'secondary', 'danger', 'success'] as const).map((v) => [v, buttonVariants({ variant: v })]),
  ) as Record<Variant, string>),
  link: linkVariants(),
};

export function Button({ variant, className, type = 'button', ...props }: ComponentProps<'button'> & ButtonVariants) {
  return <button type={type} className={cn(buttonVariants({ variant }), className)} {...props} />;
}

/** A link styled as a button. */
export function ButtonLink({ variant, className, ...props }: ComponentProps<typeof Link> & ButtonVariants) {
  return <Link className={cn(buttonVariants({ variant }), className)} {...props} />;
}

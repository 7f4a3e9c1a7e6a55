/** Links in running text: the usual one, one that names a record by its id (fixed-width), a quiet one. */
import Link from 'next/link';
import type { ComponentProps } from 'react';
import { cva, type VariantProps } from 'class-variance-authority';
import { cn } from './cn';

export const linkVariants = cva('underline underline-offset-2', {
  variants: {
    tone: {
      default: 'font-medium text-blue-800 hover:text-blue-950 focus-visible:outline-2 focus-visible:outline-blue-900',
      id: 'font-mono text-blue-900',
      quiet: 'text-neutral-800',
    },
  },
  defaultVariants: { tone: 'default' },
});

export function TextLink({
  tone,
  className,
  ...props
}: ComponentProps<typeof Link> & VariantProps<typeof linkVariants>) {
  return <Link className={cn(linkVariants({ tone }), className)} {...props} />;
}

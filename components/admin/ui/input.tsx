/** Form fields: text inputs, text areas and selects share one look; a label above each. */
import type { ComponentProps } from 'react';
import { cva, type VariantProps } from 'class-variance-authority';
import { cn } from './cn';

export const inputVariants = cva(
  'block min-h-10 w-full rounded-md border border-neutral-400 bg-white px-3 text-sm text-neutral-900 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-blue-800',
  {
    variants: {
      /** code: a one-time code or a key, in a fixed-width face */
      font: { sans: '', mono: 'font-mono', code: 'font-mono tracking-widest' },
    },
    defaultVariants: { font: 'sans' },
  },
);
export type InputVariants = VariantProps<typeof inputVariants>;

export const labelClass = 'mb-1 block text-sm font-medium text-neutral-800';

export function Input({ font, className, ...props }: ComponentProps<'input'> & InputVariants) {
  return <input className={cn(inputVariants({ font }), className)} {...props} />;
}

export function Textarea({ font, className, ...props }: ComponentProps<'textarea'> & InputVariants) {
  return <textarea className={cn(inputVariants({ font }), 'py-2', className)} {...props} />;
}

export function Select({ font, className, ...props }: ComponentProps<'select'> & InputVariants) {
  return <select className={cn(inputVariants({ font }), className)} {...props} />;
}

export function Label({ className, ...props }: ComponentProps<'label'>) {
  return <label className={cn(labelClass, className)} {...props} />;
}

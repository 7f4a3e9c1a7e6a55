/** Class names joined, later Tailwind utilities winning over earlier ones of the same kind (shadcn/ui's `cn`). */
import { clsx, type ClassValue } from 'clsx';
import { twMerge } from 'tailwind-merge';

export function cn(...inputs: ClassValue[]) {
  return twMerge(clsx(inputs));
}

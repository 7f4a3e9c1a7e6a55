'use client';
/** The section links, marking the current one (the path is known in the browser only). */
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import type { NavItem } from '@/lib/domain/admin/nav';

export function NavLinks(props: { items: NavItem[] }) {
  const path = usePathname();
  return (
    <nav aria-label="Sections" className="flex gap-1 overflow-x-auto">
      {props.items.map((i) => {
        const current = path === i.href || path.startsWith(`${i.href}/`);
        return (
          <Link
            key={i.href}
            href={i.href}
            aria-current={current ? 'page' : undefined}
            className={`inline-flex min-h-10 items-center whitespace-nowrap border-b-2 px-3 text-sm font-semibold ${current ? 'border-blue-700 text-blue-900' : 'border-transparent text-neutral-700 hover:text-neutral-950'}`}
          >
            {i.label}
          </Link>
        );
      })}
    </nav>
  );
}

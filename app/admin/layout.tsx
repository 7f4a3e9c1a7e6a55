import type { Metadata } from 'next';

export const metadata: Metadata = {
  title: { template: '%s · Open Verify admin', default: 'Open Verify admin' },
  robots: { index: false, follow: false },
  referrer: 'no-referrer',
};

export default function AdminRootLayout({ children }: { children: React.ReactNode }) {
  return children;
}

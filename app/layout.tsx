import type { Metadata } from 'next';
import { GeistSans } from 'geist/font/sans';
import { GeistMono } from 'geist/font/mono';
import { getLocale } from 'next-intl/server';
import { dirOf } from '@/lib/core/i18n/locales';
import './globals.css';

export const metadata: Metadata = {
  title: 'Open Verify',
  description: 'Self-hosted age and identity verification',
};

/**
 * One root layout for every page. Its `lang` and `dir` are the request's language (i18n/request.ts): the capture
 * page's chosen one there, English everywhere else (the admin area and the API reference are English).
 */
export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const locale = await getLocale();
  return (
    <html lang={locale} dir={dirOf(locale)} className={`${GeistSans.variable} ${GeistMono.variable}`}>
      <body className="min-h-screen bg-white font-sans text-neutral-900 antialiased">{children}</body>
    </html>
  );
}

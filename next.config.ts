import type { NextConfig } from 'next';
import createNextIntlPlugin from 'next-intl/plugin';
import { env } from './lib/core/env';
import { sameOriginHosts } from './lib/api/same-origin';

const nextConfig: NextConfig = {
  // The database driver and the embedded engine are Node libraries: load them, do not bundle them. The metrics
  // client and the tracing API too: one copy per process, the one the custom server (server/serve.ts) loads.
  serverExternalPackages: [
    'postgres',
    '@electric-sql/pglite',
    'tesseract.js',
    'zxing-wasm',
    'pino',
    'prom-client',
    '@opentelemetry/api',
  ],
  poweredByHeader: false,
  reactStrictMode: true,
  experimental: {
    // Server actions are refused unless their Origin is BASE_URL's (proxy.ts, lib/api/same-origin.ts), whatever
    // Host a reverse proxy passes on: Next.js's own check, which compares the Origin with Host or a trusted
    // X-Forwarded-Host, is told the same origin, so a proxy that rewrites Host does not break the admin area.
    serverActions: { allowedOrigins: sameOriginHosts(env().BASE_URL) },
  },
};

// The capture page's languages (docs/capture-page.md): i18n/request.ts chooses one per request; its catalogue,
// messages/<locale>.json, is compiled ahead of time (no message parser in the browser).
const withNextIntl = createNextIntlPlugin({
  requestConfig: './i18n/request.ts',
  experimental: { messages: { path: './messages', format: 'json', locales: 'infer', precompile: true } },
});

export default withNextIntl(nextConfig);

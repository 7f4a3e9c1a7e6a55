import type { NextConfig } from 'next';
import createNextIntlPlugin from 'next-intl/plugin';

const nextConfig: NextConfig = {
  // The database driver and the embedded engine are Node libraries: load them, do not bundle them. The metrics
  // client and the tracing API too: one copy per process, the one the custom server (scripts/serve.ts) loads.
  serverExternalPackages: ['postgres', '@electric-sql/pglite', 'tesseract.js', 'zxing-wasm', 'pino', 'prom-client', '@opentelemetry/api'],
  poweredByHeader: false,
  reactStrictMode: true,
};

// The capture page's languages (docs/capture-page.md): i18n/request.ts chooses one per request; its catalogue,
// messages/<locale>.json, is compiled ahead of time (no message parser in the browser).
const withNextIntl = createNextIntlPlugin({
  requestConfig: './i18n/request.ts',
  experimental: { messages: { path: './messages', format: 'json', locales: 'infer', precompile: true } },
});

export default withNextIntl(nextConfig);

import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // The database driver and the embedded engine are Node libraries: load them, do not bundle them. The metrics
  // client and the tracing API too: one copy per process, the one the custom server (scripts/serve.ts) loads.
  serverExternalPackages: ['postgres', '@electric-sql/pglite', 'tesseract.js', 'zxing-wasm', 'pino', 'prom-client', '@opentelemetry/api'],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;

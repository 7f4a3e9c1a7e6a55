import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // The database driver and the embedded engine are Node libraries: load them, do not bundle them.
  serverExternalPackages: ['postgres', '@electric-sql/pglite', 'tesseract.js', 'zxing-wasm', 'pino'],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;

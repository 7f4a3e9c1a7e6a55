import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // The database driver and the embedded engine are Node libraries: load them, do not bundle them.
  serverExternalPackages: ['postgres', '@electric-sql/pglite', 'tesseract.js', 'zxing-wasm'],
  poweredByHeader: false,
  reactStrictMode: true,
  turbopack: {
    resolveAlias: {
      // The capture page runs Human in the browser on tfjs's wasm backend only: Human without its bundled
      // tfjs (468 KB gzip with every backend), and the backends it does not use replaced by an empty module.
      '@vladmandic/human': './node_modules/@vladmandic/human/dist/human.esm-nobundle.js',
      '@tensorflow/tfjs-backend-webgl/dist/index.js': './components/capture/tfjs-unused-backend.js',
      '@tensorflow/tfjs-backend-webgpu/dist/index.js': './components/capture/tfjs-unused-backend.js',
      '@tensorflow/tfjs-backend-cpu/dist/index.js': './components/capture/tfjs-unused-backend.js',
    },
  },
};

export default nextConfig;

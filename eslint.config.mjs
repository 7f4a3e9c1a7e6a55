import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

const config = [
  ...nextVitals,
  ...nextTs,
  { ignores: ['.next/**', 'node_modules/**', '.data/**', '.test-data/**', 'db/migrations/**', 'next-env.d.ts', 'components/capture/face-detector/*.generated.js', 'lib/domain/media/analysis-worker.generated.mjs', '.cache/**'] },
];

export default config;

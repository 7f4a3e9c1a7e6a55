import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

const config = [
  ...nextVitals,
  ...nextTs,
  // The admin area reads and writes through lib/admin (docs/admin-guide.md "How the admin area is built"): its
  // pages, server actions and components import no table and no query builder.
  {
    files: ['app/admin/**', 'components/admin/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'drizzle-orm', message: 'Admin pages read and write through lib/admin, never the tables directly.' }],
        patterns: [
          { group: ['drizzle-orm/*'], message: 'Admin pages read and write through lib/admin, never the tables directly.' },
          { group: ['@/db/schema', '@/db/schema/*', '**/db/schema', '**/db/schema/*'], message: 'Admin pages read and write through lib/admin, never the tables directly.' },
        ],
      }],
    },
  },
  { ignores: ['.next/**', 'node_modules/**', '.data/**', '.test-data/**', 'db/migrations/**', 'next-env.d.ts', 'components/capture/face-detector/*.generated.js', 'lib/media/analysis-worker.generated.mjs', '.cache/**'] },
];

export default config;

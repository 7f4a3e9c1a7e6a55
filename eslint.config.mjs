import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

/**
 * The layers (docs/architecture.md "Layers"): an import runs down this list, never up.
 *   lib/core    errors, ids, env, log, crypto primitives, observability, i18n: imports nothing of ours above it
 *   lib/db      schema, client, migrations, the embedded engine: imports lib/core only
 *   lib/domain  the capabilities (below, in tiers): lib/core, lib/db and capabilities on a lower tier
 *   lib/api     the HTTP layer of /v1 (route registry, schemas, dispatch)
 *   app/, components/, inngest/, server/, bench/, evaluation/, test/, e2e/: anything below them
 */
const OUTSIDE_LIB = [
  './app',
  './components',
  './inngest',
  './server',
  './bench',
  './evaluation',
  './test',
  './e2e',
  './i18n',
  './proxy.ts',
  './instrumentation.ts',
];

/**
 * The domain capabilities in tiers: a capability imports only capabilities on a lower line, never one on its own
 * line or above, so no two capabilities need each other. Where two would, the shared part moves down a tier (or
 * into lib/core), or an event carries it.
 */
const CAPABILITY_TIERS = [
  ['auth', 'duplicates', 'events', 'faces', 'personal-data', 'ratelimit', 'thresholds', 'usage'],
  ['audit', 'media', 'webhooks'],
  ['blocklist', 'documents', 'liveness', 'transitions'],
  ['consent', 'pipeline'],
  ['capture'],
  ['verifications'],
  ['retention'],
  ['encryption', 'jobs', 'workspaces'],
  ['admin', 'wallet'],
];

const capabilityZones = CAPABILITY_TIERS.flatMap((tier, i) =>
  tier.map((cap) => ({
    target: `./lib/domain/${cap}`,
    from: CAPABILITY_TIERS.slice(i)
      .flat()
      .filter((other) => other !== cap)
      .map((other) => `./lib/domain/${other}`),
    message: `lib/domain/${cap} (tier ${i + 1}) imports capabilities of a lower tier only (eslint.config.mjs CAPABILITY_TIERS, docs/architecture.md "Layers").`,
  })),
);

const layers = {
  files: ['lib/**/*.{ts,tsx}'],
  // A co-located test may use the helpers in test/ and whatever it exercises.
  ignores: ['**/*.test.ts'],
  rules: {
    'import/no-restricted-paths': [
      'error',
      {
        zones: [
          {
            target: './lib/core',
            from: ['./lib/domain', './lib/api', './lib/db', ...OUTSIDE_LIB],
            message: 'lib/core imports nothing above it (docs/architecture.md "Layers").',
          },
          {
            target: './lib/db',
            from: ['./lib/domain', './lib/api', ...OUTSIDE_LIB],
            message: 'lib/db imports lib/core only (docs/architecture.md "Layers").',
          },
          {
            target: './lib/domain',
            from: ['./lib/api', ...OUTSIDE_LIB],
            message: 'lib/domain imports lib/core, lib/db and lower capabilities only (docs/architecture.md "Layers").',
          },
          {
            target: './lib/api',
            from: OUTSIDE_LIB,
            message:
              'lib/ imports nothing from app/, components/, server/, bench/, evaluation/, test/ or e2e/ (docs/architecture.md "Layers").',
          },
          ...capabilityZones,
        ],
      },
    ],
  },
};

/**
 * lib/ knows no web framework: no Next.js, no Auth.js, no React. Sessions, cookies, headers and redirects
 * live in app/ (the admin area's sign-in glue: app/admin/_auth), which calls lib/ with plain values.
 */
const noFramework = {
  files: ['lib/**/*.{ts,tsx}'],
  ignores: ['**/*.test.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: [
              'next',
              'next/*',
              'next-auth',
              'next-auth/*',
              '@auth/*',
              'react',
              'react/*',
              'react-dom',
              'react-dom/*',
            ],
            message: 'lib/ imports no web framework: that glue lives in app/ (docs/architecture.md "Layers").',
          },
        ],
      },
    ],
  },
};

const config = [
  ...nextVitals,
  ...nextTs,
  layers,
  noFramework,
  // The admin area reads and writes through lib/domain/admin (docs/admin-guide.md "How the admin area is built"): its
  // pages, server actions and components import no table and no query builder.
  {
    files: ['app/admin/**', 'components/admin/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'drizzle-orm',
              message: 'Admin pages read and write through lib/domain/admin, never the tables directly.',
            },
          ],
          patterns: [
            {
              group: ['drizzle-orm/*'],
              message: 'Admin pages read and write through lib/domain/admin, never the tables directly.',
            },
            {
              group: ['@/lib/db/schema', '@/lib/db/schema/*', '**/db/schema', '**/db/schema/*'],
              message: 'Admin pages read and write through lib/domain/admin, never the tables directly.',
            },
          ],
        },
      ],
    },
  },
  {
    ignores: [
      '.next/**',
      'node_modules/**',
      '.data/**',
      '.test-data/**',
      'lib/db/migrations/**',
      'next-env.d.ts',
      'components/capture/face-detector/*.generated.js',
      'lib/domain/media/analysis-worker.generated.mjs',
      '.cache/**',
      'sdk/embed/dist/**',
    ],
  },
];

export default config;

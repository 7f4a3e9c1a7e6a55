/**
 * The one place the environment is read. Validated with zod on first use, with a message that names
 * the variable and what is wrong, so a bad deployment fails at start and says why.
 */
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

const csvSeconds = z
  .string()
  .regex(/^\s*\d+(\.\d+)?\s*(,\s*\d+(\.\d+)?\s*){2}$/, 'three comma-separated numbers of seconds, e.g. 300,900,3600')
  .transform((s) => s.split(',').map((x) => Number(x.trim())));

const schema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'a postgres:// connection URL')
    .optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  ENCRYPTION_KEY: z
    .string()
    .refine((s) => Buffer.from(s, 'base64').length === 32, '32 bytes, base64-encoded (openssl rand -base64 32)')
    .optional(),
  /**
   * Keys still accepted for reading (never for writing) during a rotation of ENCRYPTION_KEY: comma-separated,
   * each 32 bytes base64. `npm run ops -- encryption:rotate` re-wraps everything under ENCRYPTION_KEY.
   */
  ENCRYPTION_KEYS_PREVIOUS: z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((k) => k.trim())
        .filter(Boolean),
    )
    .refine(
      (ks) => ks.every((k) => Buffer.from(k, 'base64').length === 32),
      'comma-separated keys of 32 bytes each, base64-encoded',
    )
    .optional(),
  /**
   * A key file instead of ENCRYPTION_KEY (which it then overrides): its first line is the key that encrypts,
   * `<file>.previous` holds keys still accepted; both are re-read when they change, so a rotation needs no
   * restart. The embedded default uses $DATA_DIR/encryption.key this way.
   */
  ENCRYPTION_KEY_FILE: z.string().min(1).optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  INNGEST_EVENT_KEY: z.string().optional(),
  INNGEST_SIGNING_KEY: z.string().optional(),
  INNGEST_DEV: z.string().optional(),
  WEBHOOK_RETRY_DELAYS: csvSeconds.default([300, 900, 3600]),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z.enum(['0', '1']).optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** How long a runner holds a pipeline job before another may take it over (crash recovery). */
  PIPELINE_LEASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
  /** Image-analysis worker threads; unset: cores − 1, 1 to 4 (lib/domain/media/pool.ts). */
  ANALYSIS_WORKERS: z.coerce.number().int().min(1).max(64).optional(),
  /**
   * Analysis workers kept for fairness: they take only an upload of a workspace with nothing being analysed, so
   * one workspace's flood does not make another's selfie wait for its running job (lib/domain/media/pool.ts). 0: none.
   */
  ANALYSIS_RESERVE_WORKERS: z.coerce.number().int().min(0).max(8).default(1),
  /** `off`: this server does no background work; `on`: it does even with Inngest configured. */
  IN_PROCESS_RUNNER: z.enum(['on', 'off']).optional(),
  /** `0`: /v1 is served by Next.js like the pages, not dispatched by the custom server itself (docs/configuration.md). */
  API_FAST_PATH: z.enum(['0', '1']).default('1'),
  /** How long a stopping server (SIGTERM) waits for requests and background jobs in flight before exiting. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
  /** Where the project's files (the worker, traineddata, wasm) are found; unset: the working directory. */
  OPEN_VERIFY_ROOT: z.string().min(1).optional(),
  /** Signs the admin area's session cookies and image links; unset: derived from ENCRYPTION_KEY. At least 32 characters. */
  AUTH_SECRET: z.string().min(32, 'at least 32 characters (openssl rand -base64 32)').optional(),
  /** Optional OpenID Connect single sign-on for the admin area: all three, or none. */
  AUTH_OIDC_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
  AUTH_OIDC_ID: z.string().min(1).optional(),
  AUTH_OIDC_SECRET: z.string().min(1).optional(),
  /** The sign-in button's label: "Sign in with …". */
  AUTH_OIDC_NAME: z.string().min(1).max(60).default('single sign-on'),
  /** `1`: every admin must use a second factor (TOTP); otherwise per user (admin:create --require-totp). */
  ADMIN_REQUIRE_TOTP: z.enum(['0', '1']).default('0'),
  /** Minutes without a request after which an admin session ends. */
  ADMIN_SESSION_IDLE_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .default(30),
  /** Hours after sign-in at which an admin session ends, however active. */
  ADMIN_SESSION_MAX_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 30)
    .default(12),
  /**
   * Reverse proxies in front of the server, by address or CIDR range, comma-separated (`127.0.0.1,10.0.0.0/8`):
   * only a connection from one of them has its X-Forwarded-For/-Host/-Proto believed (lib/domain/auth/client-address.ts).
   * Unset: none; the client is the connection's address and forwarded headers are dropped.
   */
  TRUSTED_PROXIES: z
    .string()
    .refine(
      (s) =>
        s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean)
          .every((x) => (x.includes('/') ? ipaddr.isValidCIDR(x) : ipaddr.isValid(x))),
      'comma-separated IP addresses or CIDR ranges of your reverse proxies, e.g. 127.0.0.1,10.0.0.0/8',
    )
    .default(''),
  /** Replaced by TRUSTED_PROXIES (a count of proxies let any client name its own address): 0 or unset only. */
  ADMIN_TRUSTED_PROXIES: z.coerce.number().int().optional(),
  /**
   * Outgoing email (invitations to the admin area): `smtp://user:pass@host:587` (STARTTLS when offered) or
   * `smtps://…:465`. Unset: no email is sent, the invitation link is shown to the inviter only.
   */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^\s]+$/, 'an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example.com:587')
    .optional(),
  /** The From of that email; unset: `Open Verify <no-reply@{BASE_URL's host}>`. */
  SMTP_FROM: z.string().min(3).max(300).optional(),
  /**
   * Turns on /metrics (Prometheus, docs/operating.md "Metrics"): a scrape must send `Authorization: Bearer <this>`.
   * Unset: /metrics answers 404.
   */
  METRICS_TOKEN: z
    .string()
    .min(16, 'at least 16 characters (openssl rand -hex 32)')
    .max(512)
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
    .optional(),
  /**
   * Turns on tracing (docs/operating.md "Traces"): spans are exported over OTLP/HTTP (JSON) to `{this}/v1/traces`.
   * Unset: no tracing SDK is loaded and nothing is exported.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
});

export type Env = z.infer<typeof schema> & { BASE_URL: string };

export class EnvError extends Error {}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new EnvError(`Invalid environment:\n${lines.join('\n')}`);
  }
  const env = parsed.data;
  if (env.ADMIN_TRUSTED_PROXIES) {
    throw new EnvError(
      'Invalid environment:\n  ADMIN_TRUSTED_PROXIES: replaced by TRUSTED_PROXIES, the addresses (or CIDR ranges) of your reverse proxies, e.g. TRUSTED_PROXIES=127.0.0.1; remove ADMIN_TRUSTED_PROXIES',
    );
  }
  const oidc = [env.AUTH_OIDC_ISSUER, env.AUTH_OIDC_ID, env.AUTH_OIDC_SECRET].filter(Boolean).length;
  if (oidc !== 0 && oidc !== 3) {
    throw new EnvError(
      'Invalid environment:\n  AUTH_OIDC_ISSUER, AUTH_OIDC_ID, AUTH_OIDC_SECRET: set all three for single sign-on, or none',
    );
  }
  const baseUrl = (env.BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
  return { ...env, BASE_URL: baseUrl };
}

let cached: Env | undefined;
export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** Background work runs on Inngest when it is configured (an event key, or the dev server). */
export const inngestEnabled = () => Boolean(env().INNGEST_EVENT_KEY || env().INNGEST_DEV);

/**
 * Auth.js builds its URLs (OAuth callbacks, redirects after sign-in) from AUTH_URL, else from the request's
 * Host header: pin it to BASE_URL, the deployment's public address, unless the operator set it.
 */
export function pinAuthUrl() {
  process.env.AUTH_URL ??= `${env().BASE_URL}/api/auth`;
}

/** Tests change the environment between cases; they call this after doing so. */
export function resetEnvCache() {
  cached = undefined;
}

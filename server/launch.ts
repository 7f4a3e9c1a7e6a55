/**
 * `npm run dev` / `npm start`: one command that boots everything. Without DATABASE_URL it starts the
 * embedded Postgres (PGlite + pgvector) in $DATA_DIR/db on a loopback port, applies the migrations,
 * seeds a demo workspace on first start, then runs Next.js connected to it. Ctrl-C stops all of it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { EnvError, parseEnv, resetEnvCache } from '../lib/core/env';
import { resolveRuntime, RuntimeError } from '../lib/db/runtime';
import { serveBackupRequests } from '../lib/db/embedded/backup';
import { scheduleMaintenance } from '../lib/db/embedded/maintenance';
import { applyMigrations } from '../lib/db/migrate';
import { connect } from '../lib/db/client';
import { checkDatabase, checkEncryptionKeys } from '../lib/db/check';
import { seedIfEmpty } from './seed';
import { webhookTargetsLine } from '../lib/domain/webhooks/ssrf';
import { releaseOrphanedLeases } from '../lib/domain/jobs/recover';
import { embeddedKeyFile, keyRing } from '../lib/core/crypto/keyring';
import { KeysUnreadableError } from '../lib/core/crypto/key-check';
import { analysisWorkerFile, AnalysisWorkerNotBuiltError } from '../lib/domain/media/worker-file';

const mode = process.argv[2] === 'start' ? 'start' : 'dev';

async function main() {
  // Every file this process and its children (the server, the embedded engine) create: the owner's only
  // (SECURITY.md, "File modes"). The engine's own files are clamped too (lib/db/embedded/owner-only-fs.ts).
  process.umask(0o077);
  let env;
  try {
    env = parseEnv(process.env);
  } catch (e) {
    if (e instanceof EnvError) {
      console.error(e.message);
      process.exit(1);
    }
    throw e;
  }
  // Until the engine is up, a backup request (SIGUSR2) must not end this process (the signal's default).
  process.on('SIGUSR2', () => {});
  const runtime = await resolveRuntime(env, { own: true });
  // `npm run ops -- backup` while the server runs: this process owns the engine, so it takes the copy.
  if (runtime.embedded) serveBackupRequests(path.resolve(env.DATA_DIR), runtime.embedded);
  // Set once Next is spawned; stop() may run before that. `maintenance`: the embedded engine's, once migrated.
  const proc: { child?: ReturnType<typeof spawn>; maintenance?: ReturnType<typeof scheduleMaintenance> } = {};
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    const child = proc.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      // The server finishes what is in flight (server/serve.ts); past its grace period and 10 s more, it is killed.
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), env.SHUTDOWN_GRACE_MS + 10_000);
      await exited;
      clearTimeout(killer);
    }
    await proc.maintenance?.stop();
    await runtime.release();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  try {
    // Built ahead of time (npm run build), never here: without it no photo could be analysed.
    analysisWorkerFile();
    await checkDatabase(runtime.databaseUrl);
    process.env.ENCRYPTION_KEY = runtime.encryptionKey;
    // Embedded: the key file in $DATA_DIR is the key ring, re-read when `encryption:rotate` changes it.
    const keyFile = embeddedKeyFile(env);
    if (keyFile) process.env.ENCRYPTION_KEY_FILE = keyFile;
    resetEnvCache();
    // Before anything is changed or served: the key ring reads what the database holds, or the start is refused.
    await checkEncryptionKeys(
      runtime.databaseUrl,
      keyRing(),
      keyFile ? `the key file ${keyFile}` : 'ENCRYPTION_KEY and ENCRYPTION_KEYS_PREVIOUS',
      runtime.generatedKeyFile,
    );
    await applyMigrations(runtime.databaseUrl);
    const h = connect(runtime.databaseUrl, { max: 1 });
    if (runtime.embedded) {
      // This process owns the embedded database: whatever was held there was held by a process now gone.
      const released = await releaseOrphanedLeases(h.db);
      if (released.jobs + released.webhooks > 0)
        console.log(
          `open-verify: resumed ${released.jobs} decision(s) and ${released.webhooks} webhook attempt(s) interrupted by the last stop`,
        );
    }
    const seeded = await seedIfEmpty(h.db);
    await h.close();
    if (runtime.embedded) {
      // What autovacuum does on a server (lib/db/embedded/maintenance.ts): a pass now, before any request (a data
      // directory of an older version is analysed here), then every 10 s, each statement at a quiet moment.
      proc.maintenance = scheduleMaintenance(runtime.embedded);
      await proc.maintenance.startup;
    }
    if (seeded) printDemo(env.BASE_URL, seeded);
  } catch (e) {
    console.error(
      e instanceof RuntimeError || e instanceof KeysUnreadableError || e instanceof AnalysisWorkerNotBuiltError
        ? e.message
        : e,
    );
    // A key generated by this very start (no key file was there) would only mislead whoever looks next.
    if (e instanceof KeysUnreadableError && runtime.generatedKeyFile)
      fs.rmSync(runtime.generatedKeyFile, { force: true });
    await stop(1);
    return;
  }

  // Next.js behind the service's own HTTP server (server/serve.ts: raw request-target, error envelopes for
  // unroutable requests, graceful shutdown).
  // One process (no tsx CLI in between), so signals reach the server itself.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'serve.ts'), mode], {
    // An IPC channel too: the server notices when the launcher is gone and stops (server/serve.ts).
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: {
      ...process.env,
      NODE_ENV: mode === 'start' ? 'production' : 'development',
      DATABASE_URL: runtime.databaseUrl,
      ENCRYPTION_KEY: runtime.encryptionKey,
      ...(embeddedKeyFile(env) ? { ENCRYPTION_KEY_FILE: embeddedKeyFile(env) } : {}),
      BASE_URL: env.BASE_URL,
      PORT: String(env.PORT),
      NEXT_TELEMETRY_DISABLED: process.env.NEXT_TELEMETRY_DISABLED ?? '1',
    },
  });
  proc.child = child;
  child.on('exit', (code) => void stop(code ?? 0));
  console.log(
    `open-verify: ${runtime.embedded ? 'embedded Postgres (PGlite) at ' + env.DATA_DIR : 'Postgres from DATABASE_URL'}; Next.js ${mode} on ${env.BASE_URL}`,
  );
  console.log(`open-verify: ${webhookTargetsLine(env.BASE_URL, env.WEBHOOK_ALLOW_PRIVATE_TARGETS === '1')}`);
}

function printDemo(baseUrl: string, seeded: NonNullable<Awaited<ReturnType<typeof seedIfEmpty>>>) {
  const test = seeded.secretKeys.find((k) => k.mode === 'test')!;
  const live = seeded.secretKeys.find((k) => k.mode === 'live')!;
  console.log(`
┌ First start: a demo workspace was created. The secrets are shown this once; keep them.
│ workspace id   ${seeded.workspace.id}
│ X-API-Key      ${seeded.workspace.apiKey}
│ test secret    ${test.secret}
│ live secret    ${live.secret}   (active: signs webhooks)
│
│ Try it (test mode, placeholder signature, enabled for this demo workspace only):
│ curl -s -X POST ${baseUrl}/v1/verifications -H 'X-API-Key: ${seeded.workspace.apiKey}' \\
│      -H 'X-HMAC-Signature: placeholder' -H 'Content-Type: application/json' -d '{"external_id":"demo-1"}'
└ Signed requests: see README.md "Walk-through".
`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

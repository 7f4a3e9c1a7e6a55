/**
 * Operator CLI: `npm run ops -- <command> [--flags] [--json]`. Works while the server runs (it connects
 * to the server's embedded database) or alone. With --json it prints exactly one JSON object on stdout;
 * errors are `{ "error": { code, message, details } }` and exit 1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EnvError, parseEnv, resetEnvCache } from '../lib/env';
import { resolveRuntime, RuntimeError } from '../db/runtime';
import { backupEmbedded, restoreEmbedded } from '../db/embedded/backup';
import { applyMigrations } from '../db/migrate';
import { connect, type Db } from '../db/client';
import { DomainError } from '../lib/errors';
import { createWorkspace, getWorkspaceOrThrow, publicWorkspace, updateWorkspaceSettings, type SettingsPatch } from '../lib/workspaces';
import { activateSecretKey, createSecretKey, deleteSecretKey, listSecretKeys } from '../lib/auth/keys';
import { publishConsent, publicConsentVersion } from '../lib/consent';
import { isLocale, LOCALES } from '../lib/i18n/locales';
import { createAdmin, listAdmins, setAdminPassword, setMembership, setOperator, signOutEverywhere } from '../lib/admin/users';
import { resetSecondFactor } from '../lib/admin/auth/two-factor';
import { redeliverWebhook } from '../lib/webhooks/deliver';
import { listWebhookEvents } from '../lib/webhooks/list';
import { decideReview } from '../lib/verifications/review';
import { runDueJobs } from '../lib/pipeline';
import { addToBlocklist, removeFromBlocklist } from '../lib/blocklist';
import { sweepTimers } from '../lib/verifications/timers';
import { eraseVerificationData } from '../lib/retention/request';
import { exportVerification } from '../lib/retention/export';
import { sweepRetention } from '../lib/retention/sweep';
import { receiptKeys, verifyReceipt, type SignedReceipt } from '../lib/retention/receipts';
import { embeddedKeyFile, KEY_FILE_RECHECK_MS, keyRing, newKeyBase64, readKeyFiles, writeKeyFiles } from '../lib/crypto/keyring';
import { keyUsage, rewrapAll } from '../lib/crypto/rotate';
import { env } from '../lib/env';
import { sha256Hex } from '../lib/crypto/hash';
import { resetUsageRollup, rollUpUsage } from '../lib/usage/days';

type Flags = Record<string, string | boolean | undefined>;
type Command = { usage: string; run: (db: Db, f: Flags) => Promise<Record<string, unknown>> };

function req(f: Flags, name: string): string {
  const v = f[name];
  if (typeof v !== 'string' || v === '') {
    throw new DomainError('VALIDATION_ERROR', `--${name} is required.`, { fields: { [name]: ['Required.'] } });
  }
  return v;
}
function optional(f: Flags, name: string): string | undefined {
  const v = f[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '') throw new DomainError('VALIDATION_ERROR', `--${name} needs a value.`, { fields: { [name]: ['Required.'] } });
  return v;
}
function bool(f: Flags, name: string): boolean | undefined {
  const v = f[name];
  if (v === undefined) return undefined;
  if (v === 'true' || v === true) return true;
  if (v === 'false') return false;
  throw new DomainError('VALIDATION_ERROR', `--${name} takes true or false.`, { fields: { [name]: ['true or false'] } });
}
/** A decimal number (e.g. a similarity threshold); the range is the setting's own rule (lib/workspaces). */
function num(f: Flags, name: string): number | undefined {
  const v = f[name];
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw new DomainError('VALIDATION_ERROR', `--${name} takes a number.`, { fields: { [name]: ['number'] } });
  return n;
}
function int(f: Flags, name: string): number | undefined {
  const v = f[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw new DomainError('VALIDATION_ERROR', `--${name} takes an integer.`, { fields: { [name]: ['integer'] } });
  return n;
}
/** The text of the file a flag names; an unreadable one is VALIDATION_ERROR on that flag. */
function readFlagFile(f: Flags, name: string): { file: string; text: string } {
  const file = req(f, name);
  try {
    return { file, text: fs.readFileSync(file, 'utf8') };
  } catch {
    throw new DomainError('VALIDATION_ERROR', `Cannot read ${file}.`, { fields: { [name]: ['Unreadable.'] } });
  }
}
/** consent:publish's texts: `--text-dir DIR` of `<locale>.txt` files, or `--text-file F` (English only). */
function consentTexts(f: Flags): { texts: Record<string, string>; allowMissing: boolean } {
  if (f['text-dir'] !== undefined && f['text-file'] !== undefined) {
    throw new DomainError('VALIDATION_ERROR', 'Give --text-dir or --text-file, not both.', { fields: { 'text-dir': ['Not with --text-file.'] } });
  }
  const allowMissing = bool(f, 'allow-missing');
  if (f['text-dir'] === undefined) {
    // One file is the English text only: a version missing the other languages, refused unless --allow-missing.
    if (allowMissing !== true) {
      throw new DomainError('VALIDATION_ERROR', `--text-file is the English text only: give --text-dir DIR with every language of the capture page (${LOCALES.join(', ')}), or add --allow-missing (the others then show the English text, saying so).`, {
        fields: { 'allow-missing': ['Required with --text-file.'] },
      });
    }
    return { texts: { en: readFlagFile(f, 'text-file').text }, allowMissing: true };
  }
  const dir = req(f, 'text-dir');
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => !n.startsWith('.'));
  } catch {
    throw new DomainError('VALIDATION_ERROR', `Cannot read the folder ${dir}.`, { fields: { 'text-dir': ['Unreadable.'] } });
  }
  const stray = names.filter((n) => !/^.+\.txt$/.test(n) || !isLocale(n.slice(0, -4)));
  if (stray.length) {
    throw new DomainError('VALIDATION_ERROR', `${dir} may hold only <locale>.txt files, for ${LOCALES.join(', ')}: not ${stray.join(', ')}.`, { fields: { 'text-dir': [`Unexpected: ${stray.join(', ')}.`] } });
  }
  const texts = Object.fromEntries(names.map((n) => [n.slice(0, -4), fs.readFileSync(path.join(dir, n), 'utf8')]));
  return { texts, allowMissing: allowMissing ?? false };
}
/**
 * The `--now` of the sweeps (timers:run, retention:run): now or later, never in the past. What they change is
 * dated `--now` (an expiry, an abandonment at erasure), and a past date would land in days the usage roll-up
 * has already totalled.
 */
function when(f: Flags): Date {
  const now = f.now === undefined ? new Date() : new Date(String(f.now));
  if (Number.isNaN(now.getTime())) throw new DomainError('VALIDATION_ERROR', '--now takes an ISO 8601 time.', { fields: { now: ['ISO 8601'] } });
  if (now.getTime() < Date.now() - 60_000) throw new DomainError('VALIDATION_ERROR', '--now may not be in the past.', { fields: { now: ['not in the past'] } });
  return now;
}
function mode(f: Flags): 'test' | 'live' {
  const m = req(f, 'mode');
  if (m !== 'test' && m !== 'live') throw new DomainError('VALIDATION_ERROR', '--mode is test or live.', { fields: { mode: ['test or live'] } });
  return m;
}

const COMMANDS: Record<string, Command> = {
  'workspace:create': {
    usage: '--name N [--flow age|kyc] [--check-method estimation|document_verification]',
    run: async (db, f) => {
      const r = await createWorkspace(db, {
        name: req(f, 'name'),
        flow: f.flow as 'age' | 'kyc' | undefined,
        check_method: f['check-method'] as 'estimation' | 'document_verification' | undefined,
      });
      return {
        workspace: { id: r.workspace.id, name: r.workspace.name, api_key: r.workspace.apiKey },
        secret_keys: r.secretKeys,
      };
    },
  },
  'workspace:settings': {
    usage:
      '--workspace ID [--webhook-url U|none] [--enforce-signature B] [--allow-placeholder-signature B] [--require-request-timestamp B] [--allow-duplicates B] [--duplicate-threshold 0..1] [--age-threshold N] [--rate-limit-per-minute N] [--media-retention-days N] [--flow F] [--check-method M] [--require-active-liveness B] [--estimation-fallback review|document]',
    run: async (db, f) => {
      const id = req(f, 'workspace');
      const patch: SettingsPatch = {
        webhook_url: f['webhook-url'] === 'none' ? null : (f['webhook-url'] as string | undefined),
        enforce_signature: bool(f, 'enforce-signature'),
        allow_placeholder_signature: bool(f, 'allow-placeholder-signature'),
        require_request_timestamp: bool(f, 'require-request-timestamp'),
        allow_duplicates: bool(f, 'allow-duplicates'),
        duplicate_threshold: num(f, 'duplicate-threshold'),
        age_threshold: int(f, 'age-threshold'),
        rate_limit_per_minute: int(f, 'rate-limit-per-minute'),
        media_retention_days: int(f, 'media-retention-days'),
        flow: f.flow as 'age' | 'kyc' | undefined,
        check_method: f['check-method'] as 'estimation' | 'document_verification' | undefined,
        require_active_liveness: bool(f, 'require-active-liveness'),
        estimation_fallback: f['estimation-fallback'] as 'review' | 'document' | undefined,
      };
      const clean = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      const ws = Object.keys(clean).length ? await updateWorkspaceSettings(db, id, clean) : await getWorkspaceOrThrow(db, id);
      return { workspace: publicWorkspace(ws) };
    },
  },
  'key:create': {
    usage: '--workspace ID --mode test|live [--active]',
    run: async (db, f) => {
      await getWorkspaceOrThrow(db, req(f, 'workspace'));
      return { secret_key: await createSecretKey(db, { workspaceId: req(f, 'workspace'), mode: mode(f), active: f.active === true }) };
    },
  },
  'key:activate': { usage: '--key ID', run: async (db, f) => ({ secret_key: await activateSecretKey(db, req(f, 'key')) }) },
  'key:delete': { usage: '--key ID', run: async (db, f) => ({ secret_key: await deleteSecretKey(db, req(f, 'key')) }) },
  'key:list': {
    usage: '--workspace ID',
    run: async (db, f) => {
      await getWorkspaceOrThrow(db, req(f, 'workspace'));
      return { secret_keys: await listSecretKeys(db, req(f, 'workspace')) };
    },
  },
  'consent:publish': {
    usage: '(--text-dir DIR | --text-file F) [--allow-missing] --version LABEL',
    // docs/capture-page.md "Consent in every language": a folder of <locale>.txt, every language of the capture page unless --allow-missing;
    // or one English file with --allow-missing (the others then show the English text, saying so).
    run: async (db, f) => {
      const published = await publishConsent(db, { ...consentTexts(f), version: req(f, 'version') });
      return { consent_version: { ...publicConsentVersion(published), missing_locales: published.missing } };
    },
  },
  'verification:decide': {
    usage: '--id ID --status approved|declined|resubmission_requested [--reason R]',
    run: async (db, f) => {
      const v = await decideReview(db, { verificationId: req(f, 'id'), status: req(f, 'status'), reason: f.reason as string | undefined, actor: 'operator' });
      return { verification: { id: v.id, status: v.status, reason: v.reason, completed_at: v.completedAt?.toISOString() ?? null } };
    },
  },
  'blocklist:add': {
    usage: '--verification ID',
    run: async (db, f) => {
      const r = await addToBlocklist(db, { verificationId: req(f, 'verification'), actor: 'operator' });
      return { blocklist_entry: { id: r.id } };
    },
  },
  'blocklist:remove': {
    usage: '--entry ID',
    run: async (db, f) => {
      const r = await removeFromBlocklist(db, { id: req(f, 'entry'), actor: 'operator' });
      return { removed: { id: r.id, verification_id: r.verificationId } };
    },
  },
  'faces:reembed': {
    usage: '',
    // After an upgrade that changed the face description (migration 0007): describe stored faces again from their selfies.
    run: async (db) => {
      // Loaded here: the other commands start no image analysis.
      const [{ reembedFaces }, { analysisPool }] = await Promise.all([import('../lib/faces/reembed'), import('../lib/media/pool')]);
      return { reembed: await reembedFaces(db, (bytes, kind) => analysisPool().analyze(bytes, kind)) };
    },
  },
  'pipeline:run': {
    usage: '',
    run: async (db) => ({ processed: await runDueJobs({ db }, 1000) }),
  },
  'timers:run': {
    usage: '[--now ISO]',
    run: async (db, f) => sweepTimers(db, when(f)),
  },
  'verification:erase': {
    usage: '--id ID',
    run: async (db, f) => {
      const out = await eraseVerificationData(db, { verificationId: req(f, 'id'), actor: 'operator' });
      const v = out.verification;
      return { verification: { id: v.id, status: v.status, data_erased_at: v.dataErasedAt!.toISOString() }, erased_now: out.erasedNow, receipt: out.receipt };
    },
  },
  'verification:export': {
    usage: '--id ID [--out FILE]',
    run: async (db, f) => {
      const bundle = await exportVerification(db, { verificationId: req(f, 'id'), actor: 'operator' });
      if (typeof f.out !== 'string') return bundle;
      const text = JSON.stringify(bundle, null, 2) + '\n';
      fs.writeFileSync(f.out, text, { mode: 0o600 });
      return { file: f.out, bytes: Buffer.byteLength(text), sha256: sha256Hex(text), photos: bundle.media.filter((m) => m.photo_base64).length };
    },
  },
  'receipt:verify': {
    usage: '--file F (a receipt as DELETE /v1/verifications/{id}/data or verification:erase returned it)',
    run: async (db, f) => {
      const { file, text } = readFlagFile(f, 'file');
      let signed: SignedReceipt;
      try {
        const parsed = JSON.parse(text);
        signed = parsed.receipt?.receipt ? parsed.receipt : (parsed.data?.receipt ?? parsed);
      } catch {
        throw new DomainError('VALIDATION_ERROR', `${file} is not JSON.`, { fields: { file: ['Not a JSON receipt.'] } });
      }
      const r = verifyReceipt(signed, await receiptKeys(db));
      if (!r.valid) throw new DomainError('INVALID_SIGNATURE', `The receipt does not verify: ${r.reason}.`, { reason: r.reason });
      return { valid: true, kid: signed.signature.kid, receipt_id: signed.receipt.id, verification_id: signed.receipt.verification_id, erased_at: signed.receipt.erased_at };
    },
  },
  'retention:run': {
    usage: '[--now ISO]',
    run: async (db, f) => sweepRetention(db, { now: when(f), budgetMs: 24 * 3600_000 }),
  },
  'usage:rollup': {
    usage: '[--workspace ID] [--rebuild]',
    run: async (db, f) => {
      const id = optional(f, 'workspace');
      if (id) await getWorkspaceOrThrow(db, id);
      const ids = id ? [id] : undefined;
      const reset = bool(f, 'rebuild') ? await resetUsageRollup(db, ids) : undefined;
      return { ...(reset ? { reset: reset.workspaces } : {}), rollup: await rollUpUsage(db, { workspaceIds: ids }) };
    },
  },
  'encryption:status': {
    usage: '',
    run: async (db) => ({ encryption: await keyUsage(db) }),
  },
  'encryption:rotate': {
    usage: '[--rewrap-only]',
    run: async (db, f) => {
      const before = keyRing();
      if (f['rewrap-only'] !== true) {
        if (before.source !== 'file') {
          throw new DomainError('VALIDATION_ERROR', 'ENCRYPTION_KEY comes from the environment: set the new key as ENCRYPTION_KEY and the old one in ENCRYPTION_KEYS_PREVIOUS on every server, then run encryption:rotate --rewrap-only.', { fields: { 'rewrap-only': ['Required with keys from the environment.'] } });
        }
        const file = env().ENCRYPTION_KEY_FILE!;
        const cur = readKeyFiles(file);
        writeKeyFiles(file, newKeyBase64(), [cur.primary, ...cur.previous.filter((k) => k !== cur.primary)]);
        // Servers reading the same key file see the new key within KEY_FILE_RECHECK_MS: wait before re-wrapping,
        // so nothing new is written under the old key afterwards.
        await new Promise((r) => setTimeout(r, 2 * KEY_FILE_RECHECK_MS + 500));
      }
      const rewrapped = await rewrapAll(db);
      const usage = await keyUsage(db);
      return { key_id: usage.primary, previous_key_ids: usage.accepted, rewrapped, not_under_primary: usage.not_under_primary };
    },
  },
  'encryption:retire': {
    usage: '',
    run: async (db) => {
      const usage = await keyUsage(db);
      if (usage.not_under_primary > 0) {
        throw new DomainError('ENCRYPTION_KEY_IN_USE', `${usage.not_under_primary} values are still under a previous key: run encryption:rotate first.`, { usage });
      }
      const ring = keyRing();
      if (ring.source === 'file') {
        const file = env().ENCRYPTION_KEY_FILE!;
        writeKeyFiles(file, readKeyFiles(file).primary, []);
        return { key_id: usage.primary, retired_key_ids: usage.accepted, removed_from: file };
      }
      return { key_id: usage.primary, retired_key_ids: usage.accepted, removed_from: null, next_step: 'Remove ENCRYPTION_KEYS_PREVIOUS from the environment of every server, and destroy those keys.' };
    },
  },
  'webhook:list': {
    usage: '--verification ID',
    run: async (db, f) => ({ webhook_events: await listWebhookEvents(db, req(f, 'verification')) }),
  },
  'webhook:redeliver': {
    usage: '--event ID',
    run: async (db, f) => {
      const e = await redeliverWebhook(db, req(f, 'event'));
      if (!e) throw new DomainError('NOT_FOUND', 'No such webhook event.');
      return { webhook_event: { id: e.id, state: e.state, next_attempt_at: e.nextAttemptAt.toISOString() } };
    },
  },
  backup: { usage: '--out FILE   (embedded database; works while the server runs)', run: async () => ({}) },
  restore: { usage: '--from FILE [--force] [--encryption-key-file F]   (embedded database; server stopped)', run: async () => ({}) },
  'admin:create': {
    usage: '--email E [--password P] [--operator | --workspace ID --role owner|reviewer] [--require-totp]',
    run: async (db, f) => ({
      admin: await createAdmin(db, {
        email: req(f, 'email'),
        password: optional(f, 'password'),
        operator: f.operator === true,
        workspaceId: optional(f, 'workspace'),
        role: optional(f, 'role') as 'owner' | 'reviewer' | undefined,
        requireTotp: f['require-totp'] === true,
      }),
    }),
  },
  'admin:reset-password': {
    usage: '--email E --password P',
    run: async (db, f) => ({ admin: await setAdminPassword(db, { email: req(f, 'email'), password: req(f, 'password'), actor: 'operator' }) }),
  },
  'admin:reset-2fa': {
    usage: '--email E',
    run: async (db, f) => ({ admin: await resetSecondFactor(db, { email: req(f, 'email'), actor: 'operator' }) }),
  },
  'admin:role': {
    usage: '--email E (--operator true|false | --workspace ID --role owner|reviewer|none)',
    run: async (db, f) => {
      if (f.operator !== undefined) return { admin: await setOperator(db, { email: req(f, 'email'), operator: bool(f, 'operator')!, actor: 'operator' }) };
      const role = req(f, 'role');
      if (role !== 'owner' && role !== 'reviewer' && role !== 'none') {
        throw new DomainError('VALIDATION_ERROR', '--role is owner, reviewer or none.', { fields: { role: ['owner, reviewer or none'] } });
      }
      return { membership: await setMembership(db, { email: req(f, 'email'), workspaceId: req(f, 'workspace'), role: role === 'none' ? null : role, actor: 'operator' }) };
    },
  },
  'admin:sign-out': {
    usage: '--email E',
    run: async (db, f) => ({ admin: await signOutEverywhere(db, { email: req(f, 'email'), actor: 'operator' }) }),
  },
  'admin:list': { usage: '', run: async (db) => ({ admins: await listAdmins(db) }) },
};

function help(): string {
  return ['Usage: npm run ops -- <command> [flags] [--json]', '', ...Object.entries(COMMANDS).map(([n, c]) => `  ${n} ${c.usage}`)].join('\n');
}

/** `--name value`, `--name=value`, or a bare `--flag` (true). */
export function parseFlags(args: string[]): Flags {
  const out: Flags = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq > 0) out[a.slice(2, eq)] = a.slice(eq + 1);
    else if (i + 1 < args.length && !args[i + 1].startsWith('--')) out[a.slice(2)] = args[++i];
    else out[a.slice(2)] = true;
  }
  return out;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const flags = parseFlags(rest);
  const asJson = flags.json === true;
  const print = (o: unknown) => process.stdout.write(asJson ? JSON.stringify(o) + '\n' : JSON.stringify(o, null, 2) + '\n');
  const fail = (code: string, message: string, details?: unknown) => {
    print({ error: { code, message, ...(details ? { details } : {}) } });
    return 1;
  };
  const cmd = name ? COMMANDS[name] : undefined;
  if (!cmd) {
    if (!asJson) console.error(help());
    return fail('UNKNOWN_COMMAND', name ? `Unknown command ${name}.` : 'No command given.', { commands: Object.keys(COMMANDS) });
  }

  let env;
  try {
    env = parseEnv(process.env);
  } catch (e) {
    if (e instanceof EnvError) return fail('INVALID_ENVIRONMENT', e.message);
    throw e;
  }
  // Backup and restore work on the data directory, not through a database connection.
  if (name === 'backup' || name === 'restore') {
    if (env.DATABASE_URL) return fail('VALIDATION_ERROR', 'backup and restore are for the embedded database; back up your own PostgreSQL with its tools (pg_dump, base backups).');
    try {
      const dataDir = path.resolve(env.DATA_DIR);
      if (name === 'backup') {
        const r = await backupEmbedded(dataDir, req(flags, 'out'));
        print({ backup: { file: path.resolve(req(flags, 'out')), bytes: r.bytes, online: r.online } });
      } else {
        const keyFile = typeof flags['encryption-key-file'] === 'string' ? flags['encryption-key-file'] : undefined;
        const r = await restoreEmbedded(dataDir, req(flags, 'from'), { force: flags.force === true, encryptionKeyFile: keyFile });
        print({ restored: { data_dir: dataDir, verifications: r.verifications, media: r.media, moved_aside: r.movedAside } });
      }
      return 0;
    } catch (e) {
      if (e instanceof DomainError) return fail(e.code, e.message, e.details);
      return fail(e instanceof RuntimeError ? 'BACKUP_FAILED' : 'INTERNAL_ERROR', (e as Error).message);
    }
  }

  let runtime;
  try {
    runtime = await resolveRuntime(env, { own: false });
  } catch (e) {
    if (e instanceof RuntimeError) return fail('DATABASE_UNAVAILABLE', e.message);
    throw e;
  }
  process.env.ENCRYPTION_KEY = runtime.encryptionKey;
  // The embedded default's key file is read (and re-read) as a key ring, so encryption:rotate can rotate it.
  const keyFile = embeddedKeyFile(env);
  if (keyFile) process.env.ENCRYPTION_KEY_FILE = keyFile;
  resetEnvCache();
  const h = connect(runtime.databaseUrl, { max: 2 });
  try {
    if (runtime.embedded) await applyMigrations(runtime.databaseUrl);
    print(await cmd.run(h.db, flags));
    return 0;
  } catch (e) {
    if (e instanceof DomainError) return fail(e.code, e.message, e.details);
    return fail('INTERNAL_ERROR', (e as Error).message);
  } finally {
    await h.close();
    await runtime.release();
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));

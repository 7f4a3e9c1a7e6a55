/**
 * Operator CLI: `npm run ops -- <command> [--flags] [--json]` (docs/cli.md). Works while the server runs (it
 * connects to the server's embedded database) or alone. With --json it prints exactly one JSON object on stdout;
 * errors are `{ "error": { code, message, details } }`, exit status 1 when the command failed and 2 when the
 * command line does not match the command's declared flags (server/ops-cli.ts). `COMMAND --help` prints its flags.
 *
 * A new command is an entry of COMMANDS; a new flag is one line in its `flags` (a new workspace setting: one
 * line in SETTING_FLAGS). docs/cli.md lists every command and flag, checked by server/ops-cli.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EnvError, parseEnv, resetEnvCache, type Env } from '../lib/core/env';
import { resolveRuntime, RuntimeError } from '../lib/db/runtime';
import { backupEmbedded, restoreEmbedded } from '../lib/db/embedded/backup';
import { runMaintenance } from '../lib/db/embedded/maintenance';
import { sql } from 'drizzle-orm';
import { applyMigrations } from '../lib/db/migrate';
import { connect, type Db } from '../lib/db/client';
import { DomainError } from '../lib/core/errors';
import {
  createWorkspace,
  getWorkspaceOrThrow,
  publicWorkspace,
  updateWorkspaceSettings,
  type SettingsPatch,
} from '../lib/domain/workspaces';
import { activateSecretKey, createSecretKey, deleteSecretKey, listSecretKeys } from '../lib/domain/auth/keys';
import { publishConsent, publicConsentVersion } from '../lib/domain/consent';
import { isLocale, LOCALES } from '../lib/core/i18n/locales';
import {
  createAdmin,
  listAdmins,
  setAdminPassword,
  setMembership,
  setOperator,
  signOutEverywhere,
} from '../lib/domain/admin/users';
import { resetSecondFactor } from '../lib/domain/admin/auth/two-factor';
import { redeliverWebhook } from '../lib/domain/webhooks/deliver';
import { listWebhookEvents } from '../lib/domain/webhooks/list';
import { decideReview } from '../lib/domain/verifications/review';
import { runDueJobs } from '../lib/domain/pipeline';
import { addToBlocklist, removeFromBlocklist } from '../lib/domain/blocklist';
import { sweepTimers } from '../lib/domain/verifications/timers';
import { eraseVerificationData } from '../lib/domain/retention/request';
import { exportVerification } from '../lib/domain/retention/export';
import { sweepRetention } from '../lib/domain/retention/sweep';
import { receiptKeys, verifyReceipt, type SignedReceipt } from '../lib/domain/retention/receipts';
import {
  embeddedKeyFile,
  KEY_FILE_RECHECK_MS,
  keyRing,
  newKeyBase64,
  readKeyFiles,
  writeKeyFiles,
} from '../lib/core/crypto/keyring';
import { keyUsage, rewrapAll } from '../lib/domain/encryption/rotate';
import { env } from '../lib/core/env';
import { scrubText } from '../lib/core/log';
import { sha256Hex } from '../lib/core/crypto/hash';
import { resetUsageRollup, rollUpUsage } from '../lib/domain/usage/days';
import { KeysUnreadableError } from '../lib/core/crypto/key-check';
import { addTrustAnchors, listTrustAnchors, publicTrustAnchor, removeTrustAnchor } from '../lib/domain/wallet/trust';
import {
  closest,
  commandHelp,
  commandHelpJson,
  EXIT,
  overview,
  parseCommandLine,
  UsageError,
  wants,
  type FlagDecl,
  type FlagSpec,
  type FlagValues,
} from './ops-cli';

type Out = Record<string, unknown>;
/** A command: its flags declared once (parsing, validation, --help and docs/cli.md's check follow), and what it does. */
type Command<F extends FlagDecl = FlagDecl> = { summary: string; flags: F } & (
  | { run: (db: Db, f: FlagValues<F>) => Promise<Out> }
  /** Works on the embedded data directory, not through a database connection (backup, restore). */
  | { local: (env: Env, f: FlagValues<F>) => Promise<Out> }
  /** Needs neither the database nor the environment (sample:selfie). */
  | { offline: (f: FlagValues<F>) => Promise<Out> }
);

/** The sample selfie (docs/samples/README.md: a public-domain NASA portrait), for trying the walk-through. */
export const SAMPLE_SELFIE = path.resolve(import.meta.dirname, '../docs/samples/selfie.jpg');

/**
 * The password of admin:create --password-stdin: standard input up to its end, without the line break that ends it
 * (`printf '%s\n' "$PW" | …`, a here-string, or typed and ended with Ctrl-D).
 */
function passwordFromStdin(read: () => string): string {
  const text = read().replace(/\r?\n$/, '');
  if (!text)
    throw new DomainError('VALIDATION_ERROR', '--password-stdin read no password from standard input.', {
      fields: { 'password-stdin': ['Empty.'] },
    });
  return text;
}
const command = <const F extends FlagDecl>(c: Command<F>) => c as unknown as Command;

/** The text of the file a flag names; an unreadable one is VALIDATION_ERROR on that flag. */
function readFlagFile(file: string, name: string): { file: string; text: string } {
  try {
    return { file, text: fs.readFileSync(file, 'utf8') };
  } catch {
    throw new DomainError('VALIDATION_ERROR', `Cannot read ${file}.`, { fields: { [name]: ['Unreadable.'] } });
  }
}
/**
 * consent:publish's texts (docs/capture-page.md "Consent in every language"): `--text-dir DIR` of `<locale>.txt`
 * files, every language of the capture page unless `--allow-missing`; or `--text-file F`, the English text alone,
 * which is a version missing the other languages and so needs `--allow-missing` too.
 */
function consentTexts(f: { 'text-dir'?: string; 'text-file'?: string; 'allow-missing'?: boolean }): {
  texts: Record<string, string>;
  allowMissing: boolean;
} {
  const allowMissing = f['allow-missing'] === true;
  if (f['text-dir'] !== undefined && f['text-file'] !== undefined) {
    throw new DomainError('VALIDATION_ERROR', 'Give --text-dir or --text-file, not both.', {
      fields: { 'text-dir': ['Not with --text-file.'] },
    });
  }
  if (f['text-dir'] === undefined) {
    if (f['text-file'] === undefined)
      throw new DomainError(
        'VALIDATION_ERROR',
        'Give --text-dir DIR (one <locale>.txt a language) or --text-file F (English only).',
        { fields: { 'text-dir': ['Required.'] } },
      );
    if (!allowMissing) {
      throw new DomainError(
        'VALIDATION_ERROR',
        `--text-file is the English text only: give --text-dir DIR with every language of the capture page (${LOCALES.join(', ')}), or add --allow-missing (the others then show the English text, saying so).`,
        {
          fields: { 'allow-missing': ['Required with --text-file.'] },
        },
      );
    }
    return { texts: { en: readFlagFile(f['text-file'], 'text-file').text }, allowMissing };
  }
  const dir = f['text-dir'];
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => !n.startsWith('.'));
  } catch {
    throw new DomainError('VALIDATION_ERROR', `Cannot read the folder ${dir}.`, {
      fields: { 'text-dir': ['Unreadable.'] },
    });
  }
  const stray = names.filter((n) => !/^.+\.txt$/.test(n) || !isLocale(n.slice(0, -4)));
  if (stray.length) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `${dir} may hold only <locale>.txt files, for ${LOCALES.join(', ')}: not ${stray.join(', ')}.`,
      { fields: { 'text-dir': [`Unexpected: ${stray.join(', ')}.`] } },
    );
  }
  const texts = Object.fromEntries(names.map((n) => [n.slice(0, -4), fs.readFileSync(path.join(dir, n), 'utf8')]));
  return { texts, allowMissing };
}
/**
 * The `--now` of the sweeps (timers:run, retention:run): now or later, never in the past. What they change is
 * dated `--now` (an expiry, an abandonment at erasure), and a past date would land in days the usage roll-up
 * has already totalled.
 */
function when(iso: string | undefined): Date {
  const now = iso === undefined ? new Date() : new Date(iso);
  if (Number.isNaN(now.getTime()))
    throw new DomainError('VALIDATION_ERROR', '--now takes an ISO 8601 time.', { fields: { now: ['ISO 8601'] } });
  if (now.getTime() < Date.now() - 60_000)
    throw new DomainError('VALIDATION_ERROR', '--now may not be in the past.', {
      fields: { now: ['not in the past'] },
    });
  return now;
}
function mode(m: string): 'test' | 'live' {
  if (m !== 'test' && m !== 'live')
    throw new DomainError('VALIDATION_ERROR', '--mode is test or live.', { fields: { mode: ['test or live'] } });
  return m;
}

const NOW = {
  type: 'string',
  value: 'ISO',
  help: 'run as of this time (now or later, never in the past); default now',
} as const;
const EMAIL = { type: 'string', required: true, value: 'E', help: "the admin's email" } as const;
const WORKSPACE = { type: 'string', required: true, value: 'ID', help: 'the workspace' } as const;
const VERIFICATION = { type: 'string', required: true, value: 'ID', help: 'the verification' } as const;

/**
 * workspace:settings: one flag per setting (lib/domain/workspaces' names). A new setting is one line here.
 * `--webhook-url none` clears the URL.
 */
const SETTING_FLAGS = {
  'webhook-url': {
    setting: 'webhook_url',
    type: 'string',
    value: 'URL|none',
    help: 'where decisions are posted (https://; a development server also takes http://localhost for test mode); none removes it',
  },
  'enforce-signature': {
    setting: 'enforce_signature',
    type: 'bool',
    value: 'true|false',
    help: 'require a signature on POST /v1/verifications too',
  },
  'allow-placeholder-signature': {
    setting: 'allow_placeholder_signature',
    type: 'bool',
    value: 'true|false',
    help: 'accept the literal signature "placeholder" in test mode (demos)',
  },
  'require-request-timestamp': {
    setting: 'require_request_timestamp',
    type: 'bool',
    value: 'true|false',
    help: 'every signed request must carry a signed X-Request-Timestamp within 300 s of the server clock (against replays)',
  },
  'allow-duplicates': {
    setting: 'allow_duplicates',
    type: 'bool',
    value: 'true|false',
    help: 'skip the duplicate-face search',
  },
  'duplicate-threshold': {
    setting: 'duplicate_threshold',
    type: 'number',
    value: '0..1',
    help: 'cosine similarity at which two faces match (duplicates and blocklist; default 0.945)',
  },
  'age-threshold': {
    setting: 'age_threshold',
    type: 'int',
    value: 'N',
    help: 'the minimum age that passes (default 18)',
  },
  'rate-limit-per-minute': {
    setting: 'rate_limit_per_minute',
    type: 'int',
    value: 'N',
    help: 'API requests a minute for the workspace (default 60)',
  },
  'media-retention-days': {
    setting: 'media_retention_days',
    type: 'int',
    value: '0..365',
    help: 'days photos are kept after a decision (default 30)',
  },
  flow: { setting: 'flow', type: 'string', value: 'age|kyc', help: 'the flow type' },
  'check-method': {
    setting: 'check_method',
    type: 'string',
    value: 'estimation|document_verification',
    help: "the age flow's check method",
  },
  'require-active-liveness': {
    setting: 'require_active_liveness',
    type: 'bool',
    value: 'true|false',
    help: 'the hosted page asks for a head turn before the selfie',
  },
  'estimation-fallback': {
    setting: 'estimation_fallback',
    type: 'string',
    value: 'review|document',
    help: 'an age estimate that cannot decide goes to review (default), or asks for an ID document in the same verification',
  },
  wallet: {
    setting: 'wallet',
    type: 'string',
    value: 'off|offer',
    help: 'offer a digital ID wallet on the hosted page (docs/wallet.md; default off)',
  },
  'embed-origins': {
    setting: 'embed_origins',
    type: 'string',
    allowEmpty: true,
    value: 'ORIGINS',
    help: "origins that may embed the hosted page, comma-separated (https://; http://localhost in test mode); '' clears (docs/sdks.md)",
  },
} as const satisfies Record<string, FlagSpec & { setting: keyof SettingsPatch }>;

const COMMANDS: Record<string, Command> = {
  'workspace:create': command({
    summary: 'a new workspace with one test and one live key (the live one active); prints the secrets once',
    flags: {
      name: { type: 'string', required: true, value: 'N', help: "the workspace's name" },
      flow: { type: 'string', value: 'age|kyc', help: 'the flow type (default age)' },
      'check-method': {
        type: 'string',
        value: 'estimation|document_verification',
        help: "the age flow's check method (default estimation)",
      },
    },
    run: async (db, f) => {
      const r = await createWorkspace(db, {
        name: f.name,
        flow: f.flow as 'age' | 'kyc' | undefined,
        check_method: f['check-method'] as 'estimation' | 'document_verification' | undefined,
      });
      return {
        workspace: { id: r.workspace.id, name: r.workspace.name, api_key: r.workspace.apiKey },
        secret_keys: r.secretKeys,
      };
    },
  }),
  'workspace:settings': command({
    summary: "read a workspace's settings, or change those given",
    flags: { workspace: WORKSPACE, ...SETTING_FLAGS },
    run: async (db, f) => {
      const patch: Record<string, unknown> = {};
      for (const [flag, s] of Object.entries(SETTING_FLAGS)) {
        const v = f[flag as keyof typeof SETTING_FLAGS];
        if (v !== undefined) patch[s.setting] = v;
      }
      if (patch.webhook_url === 'none') patch.webhook_url = null;
      if (typeof patch.embed_origins === 'string')
        patch.embed_origins = patch.embed_origins
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean);
      const ws = Object.keys(patch).length
        ? await updateWorkspaceSettings(db, f.workspace, patch as SettingsPatch)
        : await getWorkspaceOrThrow(db, f.workspace);
      return { workspace: publicWorkspace(ws) };
    },
  }),
  'key:create': command({
    summary: 'a new secret key (at most 5 a workspace: KEY_LIMIT_REACHED); prints the secret once',
    flags: {
      workspace: WORKSPACE,
      mode: { type: 'string', required: true, value: 'test|live', help: 'test (sk_test_) or live (sk_live_)' },
      active: { type: 'bool', help: 'make it the active key (it signs webhooks)' },
    },
    run: async (db, f) => {
      await getWorkspaceOrThrow(db, f.workspace);
      return {
        secret_key: await createSecretKey(db, {
          workspaceId: f.workspace,
          mode: mode(f.mode),
          active: f.active === true,
        }),
      };
    },
  }),
  'key:activate': command({
    summary: 'make a key the active one (it signs webhooks from then on)',
    flags: { key: { type: 'string', required: true, value: 'ID', help: 'the secret key' } },
    run: async (db, f) => ({ secret_key: await activateSecretKey(db, f.key) }),
  }),
  'key:delete': command({
    summary: 'delete a key (the active one is refused: KEY_ACTIVE; activate another first)',
    flags: { key: { type: 'string', required: true, value: 'ID', help: 'the secret key' } },
    run: async (db, f) => ({ secret_key: await deleteSecretKey(db, f.key) }),
  }),
  'key:list': command({
    summary: "a workspace's keys, with last_used_at (never the secrets)",
    flags: { workspace: WORKSPACE },
    run: async (db, f) => {
      await getWorkspaceOrThrow(db, f.workspace);
      return { secret_keys: await listSecretKeys(db, f.workspace) };
    },
  }),
  'consent:publish': command({
    summary:
      'a new consent version, which becomes the active one: its text in every language of the capture page (docs/capture-page.md)',
    flags: {
      'text-dir': {
        type: 'string',
        value: 'DIR',
        help: 'a folder of <locale>.txt files (UTF-8), one a language of the capture page, en required; each shown unchanged',
      },
      'text-file': { type: 'string', value: 'FILE', help: 'the English text alone (UTF-8); needs --allow-missing' },
      'allow-missing': {
        type: 'bool',
        help: 'publish without some languages: the page shows those the English text, saying so',
      },
      version: { type: 'string', required: true, value: 'LABEL', help: "the version's label, typically a date" },
    },
    run: async (db, f) => {
      const published = await publishConsent(db, { ...consentTexts(f), version: f.version });
      return { consent_version: { ...publicConsentVersion(published), missing_locales: published.missing } };
    },
  }),
  'verification:decide': command({
    summary: "the reviewer's decision on a verification in review; fires the webhook",
    flags: {
      id: VERIFICATION,
      status: {
        type: 'string',
        required: true,
        value: 'approved|declined|resubmission_requested',
        help: 'the decision (resubmission in test mode only)',
      },
      reason: {
        type: 'string',
        value: 'R',
        help: 'a reason code (declines: the reason table, age_below_threshold, document_expired)',
      },
      note: {
        type: 'string',
        value: 'N',
        help: "the reviewer's note, kept sealed with the verification's personal data (erased with it)",
      },
    },
    run: async (db, f) => {
      const v = await decideReview(db, {
        verificationId: f.id,
        status: f.status,
        reason: f.reason,
        note: f.note,
        actor: 'operator',
      });
      return {
        verification: {
          id: v.id,
          status: v.status,
          reason: v.reason,
          completed_at: v.completedAt?.toISOString() ?? null,
        },
      };
    },
  }),
  'blocklist:add': command({
    summary: "adds a verification's selfie face to its workspace's blocklist",
    flags: {
      verification: { type: 'string', required: true, value: 'ID', help: 'the verification whose face is blocked' },
    },
    run: async (db, f) => {
      const r = await addToBlocklist(db, { verificationId: f.verification, actor: 'operator' });
      return { blocklist_entry: { id: r.id } };
    },
  }),
  'blocklist:remove': command({
    summary: 'removes a blocklist entry (audited)',
    flags: { entry: { type: 'string', required: true, value: 'ID', help: 'the blocklist entry' } },
    run: async (db, f) => {
      const r = await removeFromBlocklist(db, { id: f.entry, actor: 'operator' });
      return { removed: { id: r.id, verification_id: r.verificationId } };
    },
  }),
  'faces:reembed': command({
    summary: 'after an upgrade that changed the face description: describes stored faces again from their selfies',
    flags: {},
    run: async (db) => {
      // Loaded here: the other commands start no image analysis.
      const [{ reembedFaces }, { analysisPool }] = await Promise.all([
        import('../lib/domain/media/reembed'),
        import('../lib/domain/media/pool'),
      ]);
      return { reembed: await reembedFaces(db, (bytes, kind) => analysisPool().analyze(bytes, kind)) };
    },
  }),
  'pipeline:run': command({
    summary: 'decides every due pipeline job now',
    flags: {},
    run: async (db) => ({ processed: await runDueJobs({ db }, 1000) }),
  }),
  'timers:run': command({
    summary: 'the expiry and abandonment sweep (the server runs it every minute)',
    flags: { now: NOW },
    run: async (db, f) => sweepTimers(db, when(f.now)),
  }),
  'verification:erase': command({
    summary:
      "erases a verification's photos, analyses, face, data key and personal fields now; prints the signed receipt",
    flags: { id: VERIFICATION },
    run: async (db, f) => {
      const out = await eraseVerificationData(db, { verificationId: f.id, actor: 'operator' });
      const v = out.verification;
      return {
        verification: { id: v.id, status: v.status, data_erased_at: v.dataErasedAt!.toISOString() },
        erased_now: out.erasedNow,
        receipt: out.receipt,
      };
    },
  }),
  'verification:export': command({
    summary: 'everything held about one verification, photos included, for an access request (audited)',
    flags: {
      id: VERIFICATION,
      out: {
        type: 'string',
        value: 'FILE',
        help: 'write it to this file (owner-only) and print its size and SHA-256 instead',
      },
    },
    run: async (db, f) => {
      const bundle = await exportVerification(db, { verificationId: f.id, actor: 'operator' });
      if (f.out === undefined) return bundle;
      const text = JSON.stringify(bundle, null, 2) + '\n';
      fs.writeFileSync(f.out, text, { mode: 0o600 });
      return {
        file: f.out,
        bytes: Buffer.byteLength(text),
        sha256: sha256Hex(text),
        photos: bundle.media.filter((m) => m.photo_base64).length,
      };
    },
  }),
  'receipt:verify': command({
    summary: "checks a saved erasure receipt against this deployment's published keys",
    flags: {
      file: {
        type: 'string',
        required: true,
        value: 'FILE',
        help: 'a receipt as DELETE /v1/verifications/{id}/data or verification:erase returned it',
      },
    },
    run: async (db, f) => {
      const { file, text } = readFlagFile(f.file, 'file');
      let signed: SignedReceipt;
      try {
        const parsed = JSON.parse(text);
        signed = parsed.receipt?.receipt ? parsed.receipt : (parsed.data?.receipt ?? parsed);
      } catch {
        throw new DomainError('VALIDATION_ERROR', `${file} is not JSON.`, {
          fields: { file: ['Not a JSON receipt.'] },
        });
      }
      const r = verifyReceipt(signed, await receiptKeys(db));
      if (!r.valid)
        throw new DomainError('INVALID_SIGNATURE', `The receipt does not verify: ${r.reason}.`, { reason: r.reason });
      return {
        valid: true,
        kid: signed.signature.kid,
        receipt_id: signed.receipt.id,
        verification_id: signed.receipt.verification_id,
        erased_at: signed.receipt.erased_at,
      };
    },
  }),
  'retention:run': command({
    summary: 'the retention sweep now (the server runs it every minute)',
    flags: { now: NOW },
    run: async (db, f) => sweepRetention(db, { now: when(f.now), budgetMs: 24 * 3600_000 }),
  }),
  'usage:rollup': command({
    summary: "the usage page's daily roll-up now (the server runs it every 10 minutes)",
    flags: {
      workspace: { type: 'string', value: 'ID', help: 'only this workspace (default every one)' },
      rebuild: {
        type: 'bool',
        value: 'true|false',
        help: 'first forget what was totalled (after a hand-made change to verifications)',
      },
    },
    run: async (db, f) => {
      if (f.workspace) await getWorkspaceOrThrow(db, f.workspace);
      const ids = f.workspace ? [f.workspace] : undefined;
      const reset = f.rebuild ? await resetUsageRollup(db, ids) : undefined;
      return { ...(reset ? { reset: reset.workspaces } : {}), rollup: await rollUpUsage(db, { workspaceIds: ids }) };
    },
  }),
  'encryption:status': command({
    summary: 'which key encrypts (by key id), which are still accepted, and how many values each wraps',
    flags: {},
    run: async (db) => ({ encryption: await keyUsage(db) }),
  }),
  'encryption:rotate': command({
    summary: 'a new ENCRYPTION_KEY in the key file (the old one kept as previous), then everything re-wrapped under it',
    flags: {
      'rewrap-only': {
        type: 'bool',
        help: 're-wrap under the key the environment now names (keys from the environment)',
      },
    },
    run: async (db, f) => {
      const before = keyRing();
      if (f['rewrap-only'] !== true) {
        if (before.source !== 'file') {
          throw new DomainError(
            'VALIDATION_ERROR',
            'ENCRYPTION_KEY comes from the environment: set the new key as ENCRYPTION_KEY and the old one in ENCRYPTION_KEYS_PREVIOUS on every server, then run encryption:rotate --rewrap-only.',
            { fields: { 'rewrap-only': ['Required with keys from the environment.'] } },
          );
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
      return {
        key_id: usage.primary,
        previous_key_ids: usage.accepted,
        rewrapped,
        not_under_primary: usage.not_under_primary,
      };
    },
  }),
  'encryption:retire': command({
    summary:
      'once nothing is under a previous key: drops it from the key file (or says to remove ENCRYPTION_KEYS_PREVIOUS)',
    flags: {},
    run: async (db) => {
      const usage = await keyUsage(db);
      if (usage.not_under_primary > 0) {
        throw new DomainError(
          'ENCRYPTION_KEY_IN_USE',
          `${usage.not_under_primary} values are still under a previous key: run encryption:rotate first.`,
          { usage },
        );
      }
      const ring = keyRing();
      if (ring.source === 'file') {
        const file = env().ENCRYPTION_KEY_FILE!;
        writeKeyFiles(file, readKeyFiles(file).primary, []);
        return { key_id: usage.primary, retired_key_ids: usage.accepted, removed_from: file };
      }
      return {
        key_id: usage.primary,
        retired_key_ids: usage.accepted,
        removed_from: null,
        next_step: 'Remove ENCRYPTION_KEYS_PREVIOUS from the environment of every server, and destroy those keys.',
      };
    },
  }),
  // Digital ID wallets' issuing authorities (docs/wallet.md "Trust lists"): nothing is trusted until added here.
  'wallet-trust:add': command({
    summary: 'trust the IACA root(s) in a PEM file for digital ID wallet proofs',
    flags: {
      pem: {
        type: 'string',
        required: true,
        value: 'FILE',
        help: 'a PEM file with one or more IACA root certificates',
      },
      workspace: { type: 'string', value: 'ID', help: 'trusted for that workspace only (without it: every workspace)' },
    },
    run: async (db, f) => {
      const r = await addTrustAnchors(db, {
        pem: readFlagFile(f.pem, 'pem').text,
        workspaceId: f.workspace ?? null,
        actor: 'operator',
      });
      return {
        added: r.added.map((a) => publicTrustAnchor(a)),
        already_trusted: r.already.map((a) => publicTrustAnchor(a)),
      };
    },
  }),
  'wallet-trust:list': command({
    summary: 'the IACA roots wallet proofs are checked against',
    flags: {
      workspace: {
        type: 'string',
        value: 'ID',
        help: "the roots that workspace trusts (its own and every workspace's)",
      },
    },
    run: async (db, f) => {
      if (f.workspace) await getWorkspaceOrThrow(db, f.workspace);
      return {
        trust_anchors: (await listTrustAnchors(db, { workspaceId: f.workspace })).map((a) => publicTrustAnchor(a)),
      };
    },
  }),
  'wallet-trust:remove': command({
    summary: 'stop trusting a root (audited)',
    flags: { id: { type: 'string', required: true, value: 'ID', help: 'the trust anchor' } },
    run: async (db, f) => ({
      removed: publicTrustAnchor(await removeTrustAnchor(db, { id: f.id, actor: 'operator' })),
    }),
  }),
  'db:maintain': command({
    summary:
      'the database maintenance now: ANALYZE and VACUUM the tables past their thresholds (the server runs it every 10 s on the embedded database)',
    flags: {
      'dry-run': { type: 'bool', help: 'print what is due, and do nothing' },
      startup: { type: 'bool', help: "also analyse every table with data never analysed (the server's start-up pass)" },
    },
    run: async (db, f) => {
      const r = await runMaintenance(async (text) => [...(await db.execute<Record<string, unknown>>(sql.raw(text)))], {
        dryRun: f['dry-run'] === true,
        startup: f.startup === true,
      });
      const item = (d: { table: string; action: string; reasons: string[]; ms?: number }) => ({
        table: d.table,
        action: d.action,
        reasons: d.reasons,
        ...(d.ms !== undefined ? { ms: d.ms } : {}),
      });
      return {
        maintenance: {
          tables: r.checked,
          ...(f['dry-run'] ? { due: r.planned.map(item) } : { done: r.done.map(item) }),
          ms: r.ms,
        },
      };
    },
  }),
  'webhook:list': command({
    summary: "a verification's webhook events, each with every attempt",
    flags: { verification: VERIFICATION },
    run: async (db, f) => ({ webhook_events: await listWebhookEvents(db, f.verification) }),
  }),
  'webhook:redeliver': command({
    summary: 'sends an event again (same X-Webhook-Id)',
    flags: { event: { type: 'string', required: true, value: 'ID', help: 'the webhook event' } },
    run: async (db, f) => {
      const e = await redeliverWebhook(db, f.event);
      if (!e) throw new DomainError('NOT_FOUND', 'No such webhook event.');
      return { webhook_event: { id: e.id, state: e.state, next_attempt_at: e.nextAttemptAt.toISOString() } };
    },
  }),
  backup: command({
    summary:
      'embedded database: a consistent copy to a file, also while the server runs (not the encryption key: keep that apart)',
    flags: {
      out: {
        type: 'string',
        required: true,
        value: 'FILE',
        help: 'where to write the backup (gzipped tar, owner-only)',
      },
    },
    local: async (e, f) => {
      const r = await backupEmbedded(path.resolve(e.DATA_DIR), f.out);
      return { backup: { file: path.resolve(f.out), bytes: r.bytes, online: r.online } };
    },
  }),
  restore: command({
    summary:
      'embedded database, server stopped: restores a backup, once the key ring it will run with is checked to read it',
    flags: {
      from: { type: 'string', required: true, value: 'FILE', help: 'the backup' },
      'encryption-key-file': {
        type: 'string',
        value: 'FILE',
        help: "the key file kept with the backup (the data directory's encryption.key; its .previous beside it is read too)",
      },
      force: {
        type: 'bool',
        help: 'restore over an existing database (moved aside as db.before-restore-<time>, never deleted)',
      },
    },
    local: async (e, f) => {
      const dataDir = path.resolve(e.DATA_DIR);
      const r = await restoreEmbedded(dataDir, f.from, {
        force: f.force === true,
        encryptionKeyFile: f['encryption-key-file'],
        env: e,
      });
      return {
        restored: {
          data_dir: dataDir,
          verifications: r.verifications,
          media: r.media,
          moved_aside: r.movedAside,
          key_ids: r.keyIds,
        },
      };
    },
  }),
  'admin:create': command({
    summary: 'an admin user for the admin area',
    flags: {
      email: EMAIL,
      password: {
        type: 'string',
        value: 'P',
        help: 'at least 12 characters, visible on screen and in shell history (prefer --password-stdin); with neither, the admin signs in by single sign-on only',
      },
      'password-stdin': {
        type: 'bool',
        help: 'reads the password from standard input (not echoed by npm, not in shell history)',
      },
      operator: { type: 'bool', help: 'an operator: sees every workspace' },
      workspace: { type: 'string', value: 'ID', help: 'a member of this workspace (with --role)' },
      role: { type: 'string', value: 'owner|reviewer', help: 'the role in --workspace' },
      'require-totp': { type: 'bool', help: 'a second factor (TOTP) is compulsory for them' },
    },
    run: async (db, f) => {
      if (f['password-stdin'] && f.password !== undefined) {
        throw new DomainError('VALIDATION_ERROR', 'Give --password or --password-stdin, not both.', {
          fields: { 'password-stdin': ['Not with --password.'] },
        });
      }
      const password = f['password-stdin'] ? passwordFromStdin(() => fs.readFileSync(0, 'utf8')) : f.password;
      const admin = await createAdmin(db, {
        email: f.email,
        password,
        operator: f.operator === true,
        workspaceId: f.workspace,
        role: f.role as 'owner' | 'reviewer' | undefined,
        requireTotp: f['require-totp'] === true,
      });
      // Whether a password is set: without one the admin signs in by single sign-on only, which is said, not silent.
      return {
        admin: { ...admin, password: password !== undefined },
        ...(password === undefined
          ? {
              note: 'no password set: this admin signs in by single sign-on (OpenID Connect) only; set one with admin:reset-password',
            }
          : {}),
      };
    },
  }),
  'sample:selfie': command({
    summary: 'writes a face photo to try the walk-through with (a public-domain portrait: docs/samples/README.md)',
    flags: { out: { type: 'string', required: true, value: 'FILE', help: 'where to write the JPEG (640x480)' } },
    offline: async (f) => {
      const out = path.resolve(f.out);
      fs.copyFileSync(SAMPLE_SELFIE, out);
      return {
        selfie: {
          file: out,
          bytes: fs.statSync(out).size,
          type: 'image/jpeg',
          source: 'NASA portrait of astronaut Eileen Collins, public domain (docs/samples/README.md)',
        },
      };
    },
  }),
  'admin:reset-password': command({
    summary: "sets a forgotten password (ends the admin's sessions)",
    flags: {
      email: EMAIL,
      password: { type: 'string', required: true, value: 'P', help: 'the new password (at least 12 characters)' },
    },
    run: async (db, f) => ({
      admin: await setAdminPassword(db, { email: f.email, password: f.password, actor: 'operator' }),
    }),
  }),
  'admin:reset-2fa': command({
    summary: "clears a lost authenticator (TOTP and recovery codes; ends the admin's sessions)",
    flags: { email: EMAIL },
    run: async (db, f) => ({ admin: await resetSecondFactor(db, { email: f.email, actor: 'operator' }) }),
  }),
  'admin:role': command({
    summary: 'makes or unmakes an operator (--operator), or adds, changes or removes a membership (--workspace --role)',
    flags: {
      email: EMAIL,
      operator: { type: 'bool', value: 'true|false', help: 'make (true) or unmake (false) an operator' },
      workspace: { type: 'string', value: 'ID', help: 'the workspace of the membership' },
      role: { type: 'string', value: 'owner|reviewer|none', help: 'the role in --workspace; none removes them' },
    },
    run: async (db, f) => {
      if (f.operator !== undefined)
        return { admin: await setOperator(db, { email: f.email, operator: f.operator, actor: 'operator' }) };
      const role = required(f.role, 'role');
      if (role !== 'owner' && role !== 'reviewer' && role !== 'none') {
        throw new DomainError('VALIDATION_ERROR', '--role is owner, reviewer or none.', {
          fields: { role: ['owner, reviewer or none'] },
        });
      }
      return {
        membership: await setMembership(db, {
          email: f.email,
          workspaceId: required(f.workspace, 'workspace'),
          role: role === 'none' ? null : role,
          actor: 'operator',
        }),
      };
    },
  }),
  'admin:sign-out': command({
    summary: 'signs an admin out everywhere, now',
    flags: { email: EMAIL },
    run: async (db, f) => ({ admin: await signOutEverywhere(db, { email: f.email, actor: 'operator' }) }),
  }),
  'admin:list': command({
    summary: 'every admin with role, workspaces and second factor (never a hash)',
    flags: {},
    run: async (db) => ({ admins: await listAdmins(db) }),
  }),
};

/** A flag one form of a command needs (admin:role --workspace with --role), checked where that form is chosen. */
function required(v: string | undefined, name: string): string {
  if (v === undefined)
    throw new DomainError('VALIDATION_ERROR', `--${name} is required.`, { fields: { [name]: ['Required.'] } });
  return v;
}

export { COMMANDS };

type Io = { out: (s: string) => void; err: (s: string) => void };
const stdio: Io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

/** The CLI: the exit status of one command line. */
export async function main(argv: string[], io: Io = stdio): Promise<number> {
  const [name, ...rest] = argv;
  const asked = wants(argv);
  let asJson = asked.json;
  const print = (o: unknown) => io.out(asJson ? JSON.stringify(o) + '\n' : JSON.stringify(o, null, 2) + '\n');
  const fail = (code: string, message: string, details?: unknown, exit: number = EXIT.failed) => {
    print({ error: { code, message, ...(details ? { details } : {}) } });
    return exit;
  };

  // `ops --help`, `ops help [COMMAND]`: the list of commands, or one command's flags.
  if (name === '--help' || name === '-h' || name === 'help') {
    const c = rest[0] && rest[0] !== '--json' ? COMMANDS[rest[0]] : undefined;
    if (c && asJson) print(commandHelpJson(rest[0], c));
    else if (c) io.out(commandHelp(rest[0], c));
    else if (asJson) print({ commands: Object.entries(COMMANDS).map(([n, c]) => ({ name: n, summary: c.summary })) });
    else io.out(overview(COMMANDS));
    return EXIT.ok;
  }
  const cmd = name ? COMMANDS[name] : undefined;
  if (!cmd) {
    if (!asJson) io.err(overview(COMMANDS));
    const suggestion = name ? closest(name, Object.keys(COMMANDS)) : undefined;
    const message = name
      ? `Unknown command ${name}${suggestion ? ` (did you mean ${suggestion}?)` : ''}.`
      : 'No command given.';
    return fail(
      'UNKNOWN_COMMAND',
      message,
      { commands: Object.keys(COMMANDS), ...(suggestion ? { suggestion } : {}) },
      EXIT.usage,
    );
  }
  // --help answers whatever else the line holds: it is how one finds out what else it should hold.
  if (asked.help) {
    if (asJson) print(commandHelpJson(name, cmd));
    else io.out(commandHelp(name, cmd));
    return EXIT.ok;
  }

  let flags;
  try {
    flags = parseCommandLine(name, cmd.flags, rest);
    asJson = flags.json;
  } catch (e) {
    if (e instanceof UsageError) {
      if (!asJson) io.err(`${e.message}\nnpm run ops -- ${name} --help lists its flags.\n`);
      return fail(e.code, e.message, e.details, EXIT.usage);
    }
    if (e instanceof DomainError) return fail(e.code, e.message, e.details);
    throw e;
  }

  if ('offline' in cmd) {
    try {
      print(await cmd.offline(flags));
      return EXIT.ok;
    } catch (e) {
      if (e instanceof DomainError) return fail(e.code, e.message, e.details);
      return fail('INTERNAL_ERROR', (e as Error).message);
    }
  }

  let env;
  try {
    env = parseEnv(process.env);
  } catch (e) {
    if (e instanceof EnvError) return fail('INVALID_ENVIRONMENT', e.message);
    throw e;
  }
  if ('local' in cmd) {
    if (env.DATABASE_URL)
      return fail(
        'VALIDATION_ERROR',
        'backup and restore are for the embedded database; back up your own PostgreSQL with its tools (pg_dump; see docs/deploy.md).',
      );
    try {
      print(await cmd.local(env, flags));
      return EXIT.ok;
    } catch (e) {
      if (e instanceof DomainError) return fail(e.code, e.message, e.details);
      if (e instanceof KeysUnreadableError) return fail('ENCRYPTION_KEY_UNAVAILABLE', e.message, e.details());
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
    return EXIT.ok;
  } catch (e) {
    if (e instanceof DomainError) return fail(e.code, e.message, e.details);
    // A failed query's message carries the values it bound: the same redaction as the logs (lib/core/log.ts).
    return fail('INTERNAL_ERROR', scrubText((e as Error).message));
  } finally {
    await h.close();
    await runtime.release();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  // Whatever this process writes (a backup, an export, the key files, the database when no server runs): the
  // owner's only (SECURITY.md, "File modes").
  process.umask(0o077);
  main(process.argv.slice(2)).then((code) => process.exit(code));
}

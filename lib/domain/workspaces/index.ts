import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { ESTIMATION_FALLBACKS, workspaces } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { notFound, parseOrThrow } from '../../core/errors';
import { newId, randomAlnum } from '../../core/ids';
import { createSecretKey, type CreatedKey } from '../auth/keys';
import { audit } from '../audit/audit';
import { webhookUrlProblem } from '../webhooks/ssrf';
import { MAX_RETENTION_DAYS } from '../retention/policy';
import { embedOriginProblem, MAX_EMBED_ORIGINS } from '../../core/embed-origins';

import type { Workspace } from '@/lib/db/schema';
export type { Workspace };

export const workspaceInput = z.strictObject({
  name: z.string().trim().min(1).max(200),
  flow: z.enum(['age', 'kyc']).default('age'),
  check_method: z.enum(['estimation', 'document_verification']).default('estimation'),
});

/** A new workspace gets one test and one live key, the live one active (docs/cli.md "workspace:create"). */
export async function createWorkspace(
  db: DbOrTx,
  input: z.input<typeof workspaceInput> & { settings?: SettingsPatch; actor?: string },
): Promise<{ workspace: Workspace; secretKeys: CreatedKey[] }> {
  const { settings, actor = 'operator', ...rest } = input;
  const v = parseOrThrow(workspaceInput, rest);
  return db.transaction(async (tx) => {
    const id = newId('ws');
    const [ws] = await tx
      .insert(workspaces)
      .values({ id, name: v.name, flow: v.flow, checkMethod: v.check_method, apiKey: `pk_${randomAlnum(32)}` })
      .returning();
    const test = await createSecretKey(tx, { workspaceId: id, mode: 'test' });
    const live = await createSecretKey(tx, { workspaceId: id, mode: 'live', active: true });
    await audit(tx, {
      workspaceId: id,
      actor,
      action: 'workspace.created',
      data: { name: v.name, flow: v.flow, check_method: v.check_method },
    });
    const workspace = settings ? await updateWorkspaceSettings(tx, id, settings, actor) : ws;
    return { workspace, secretKeys: [test, live] };
  });
}

const httpsUrl = z.string().superRefine((u, ctx) => {
  const problem = webhookUrlProblem(u);
  if (problem) ctx.addIssue({ code: 'custom', message: `Invalid webhook URL: ${problem}.` });
});

/** docs/sdks.md "Embedding the flow": each problem is reported on `embed_origins` itself, naming the value. */
const embedOrigins = z
  .array(z.string(), { error: 'A list of origins.' })
  .superRefine((list, ctx) => {
    if (list.length > MAX_EMBED_ORIGINS)
      ctx.addIssue({ code: 'custom', message: `At most ${MAX_EMBED_ORIGINS} origins.` });
    for (const o of list) {
      const problem = embedOriginProblem(o);
      if (problem) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(o.slice(0, 200))}: ${problem}.` });
    }
  })
  .transform((list) => [...new Set(list)]);

export const settingsPatch = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  webhook_url: httpsUrl.nullable().optional(),
  enforce_signature: z.boolean().optional(),
  allow_placeholder_signature: z.boolean().optional(),
  require_request_timestamp: z.boolean().optional(),
  allow_duplicates: z.boolean().optional(),
  duplicate_threshold: z.number().min(0).max(1).optional(),
  age_threshold: z.number().int().min(1).max(120).optional(),
  rate_limit_per_minute: z.number().int().min(1).max(1_000_000).optional(),
  media_retention_days: z.number().int().min(0).max(MAX_RETENTION_DAYS).optional(),
  flow: z.enum(['age', 'kyc']).optional(),
  check_method: z.enum(['estimation', 'document_verification']).optional(),
  require_active_liveness: z.boolean().optional(),
  // Age / estimation: an estimate that cannot decide goes to a person, or steps up to an ID document
  // (docs/api.md "Step-up to a document").
  estimation_fallback: z.enum(ESTIMATION_FALLBACKS).optional(),
  /** docs/wallet.md "On the hosted capture page": whether the hosted page offers a digital ID wallet. */
  wallet: z.enum(['off', 'offer'], { error: 'Must be off or offer.' }).optional(),
  embed_origins: embedOrigins.optional(),
});
export type SettingsPatch = z.input<typeof settingsPatch>;

/** The settings' names as the CLI, the admin page and the audit log call them, with their columns. */
const SETTING_COLUMNS = {
  name: 'name',
  webhook_url: 'webhookUrl',
  enforce_signature: 'enforceSignature',
  allow_placeholder_signature: 'allowPlaceholderSignature',
  require_request_timestamp: 'requireRequestTimestamp',
  allow_duplicates: 'allowDuplicates',
  duplicate_threshold: 'duplicateThreshold',
  age_threshold: 'ageThreshold',
  rate_limit_per_minute: 'rateLimitPerMinute',
  media_retention_days: 'mediaRetentionDays',
  flow: 'flow',
  check_method: 'checkMethod',
  require_active_liveness: 'requireActiveLiveness',
  estimation_fallback: 'estimationFallback',
  wallet: 'wallet',
  embed_origins: 'embedOrigins',
} as const satisfies Record<keyof z.infer<typeof settingsPatch>, keyof Workspace>;

/**
 * Changes settings (the CLI's workspace:settings and the admin settings page: one schema). The audit entry
 * names who changed them and, for each setting that changed, its value before and after.
 */
export async function updateWorkspaceSettings(
  db: DbOrTx,
  workspaceId: string,
  patch: SettingsPatch,
  actor = 'operator',
) {
  const p = parseOrThrow(settingsPatch, patch);
  return db.transaction(async (tx) => {
    const [before] = await tx.select().from(workspaces).where(eq(workspaces.id, workspaceId)).for('update');
    if (!before) throw notFound('Workspace');
    const set: Partial<typeof workspaces.$inferInsert> = { updatedAt: new Date() };
    const changes: Record<string, { before: unknown; after: unknown }> = {};
    for (const [name, column] of Object.entries(SETTING_COLUMNS) as [keyof typeof SETTING_COLUMNS, keyof Workspace][]) {
      const value = p[name];
      if (value === undefined) continue;
      (set as Record<string, unknown>)[column] = value;
      const was = before[column];
      // duplicate_threshold is a float4 column: 0.945 reads back as 0.9449999…, which is no change.
      const same =
        typeof was === 'number' && typeof value === 'number'
          ? Math.fround(was) === Math.fround(value)
          : Array.isArray(was) && Array.isArray(value)
            ? was.join(' ') === value.join(' ')
            : was === value;
      if (!same) changes[name] = { before: was, after: value };
    }
    const [ws] = await tx.update(workspaces).set(set).where(eq(workspaces.id, workspaceId)).returning();
    await audit(tx, { workspaceId, actor, action: 'workspace.settings_updated', data: { ...p, changes } });
    return ws;
  });
}

export async function getWorkspaceOrThrow(db: DbOrTx, workspaceId: string) {
  const [ws] = await db.select().from(workspaces).where(eq(workspaces.id, workspaceId));
  if (!ws) throw notFound('Workspace');
  return ws;
}

/** The settings as operators and the CLI see them (no secrets). */
export function publicWorkspace(ws: Workspace) {
  return {
    id: ws.id,
    name: ws.name,
    api_key: ws.apiKey,
    flow: ws.flow,
    check_method: ws.checkMethod,
    age_threshold: ws.ageThreshold,
    allow_duplicates: ws.allowDuplicates,
    duplicate_threshold: ws.duplicateThreshold,
    webhook_url: ws.webhookUrl,
    rate_limit_per_minute: ws.rateLimitPerMinute,
    media_retention_days: ws.mediaRetentionDays,
    enforce_signature: ws.enforceSignature,
    allow_placeholder_signature: ws.allowPlaceholderSignature,
    require_request_timestamp: ws.requireRequestTimestamp,
    require_active_liveness: ws.requireActiveLiveness,
    estimation_fallback: ws.estimationFallback,
    wallet: ws.wallet,
    embed_origins: ws.embedOrigins,
    created_at: ws.createdAt.toISOString(),
  };
}

import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { workspaces } from '@/db/schema';
import type { DbOrTx } from '@/db/client';
import { notFound, parseOrThrow } from '../errors';
import { newId, randomAlnum } from '../ids';
import { createSecretKey, type CreatedKey } from '../auth/keys';
import { audit } from '../audit';
import { webhookUrlProblem } from '../webhooks/ssrf';
import { MAX_RETENTION_DAYS } from '../retention/policy';

import type { Workspace } from '@/db/schema';
export type { Workspace };

export const workspaceInput = z.strictObject({
  name: z.string().trim().min(1).max(200),
  flow: z.enum(['age', 'kyc']).default('age'),
  check_method: z.enum(['estimation', 'document_verification']).default('estimation'),
});

/** A new workspace gets one test and one live key, the live one active (decisions.md "Operation"). */
export async function createWorkspace(
  db: DbOrTx,
  input: z.input<typeof workspaceInput> & { settings?: SettingsPatch },
): Promise<{ workspace: Workspace; secretKeys: CreatedKey[] }> {
  const { settings, ...rest } = input;
  const v = parseOrThrow(workspaceInput, rest);
  return db.transaction(async (tx) => {
    const id = newId('ws');
    const [ws] = await tx
      .insert(workspaces)
      .values({ id, name: v.name, flow: v.flow, checkMethod: v.check_method, apiKey: `pk_${randomAlnum(32)}` })
      .returning();
    const test = await createSecretKey(tx, { workspaceId: id, mode: 'test' });
    const live = await createSecretKey(tx, { workspaceId: id, mode: 'live', active: true });
    await audit(tx, { workspaceId: id, actor: 'operator', action: 'workspace.created', data: { name: v.name } });
    const workspace = settings ? await updateWorkspaceSettings(tx, id, settings) : ws;
    return { workspace, secretKeys: [test, live] };
  });
}

const httpsUrl = z.string().superRefine((u, ctx) => {
  const problem = webhookUrlProblem(u);
  if (problem) ctx.addIssue({ code: 'custom', message: `Invalid webhook URL: ${problem}.` });
});

export const settingsPatch = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  webhook_url: httpsUrl.nullable().optional(),
  enforce_signature: z.boolean().optional(),
  allow_placeholder_signature: z.boolean().optional(),
  allow_duplicates: z.boolean().optional(),
  duplicate_threshold: z.number().min(0).max(1).optional(),
  age_threshold: z.number().int().min(1).max(120).optional(),
  rate_limit_per_minute: z.number().int().min(1).max(1_000_000).optional(),
  media_retention_days: z.number().int().min(0).max(MAX_RETENTION_DAYS).optional(),
  flow: z.enum(['age', 'kyc']).optional(),
  check_method: z.enum(['estimation', 'document_verification']).optional(),
  require_active_liveness: z.boolean().optional(),
});
export type SettingsPatch = z.input<typeof settingsPatch>;

export async function updateWorkspaceSettings(db: DbOrTx, workspaceId: string, patch: SettingsPatch) {
  const p = parseOrThrow(settingsPatch, patch);
  const set: Partial<typeof workspaces.$inferInsert> = { updatedAt: new Date() };
  if (p.name !== undefined) set.name = p.name;
  if (p.webhook_url !== undefined) set.webhookUrl = p.webhook_url;
  if (p.enforce_signature !== undefined) set.enforceSignature = p.enforce_signature;
  if (p.allow_placeholder_signature !== undefined) set.allowPlaceholderSignature = p.allow_placeholder_signature;
  if (p.allow_duplicates !== undefined) set.allowDuplicates = p.allow_duplicates;
  if (p.duplicate_threshold !== undefined) set.duplicateThreshold = p.duplicate_threshold;
  if (p.age_threshold !== undefined) set.ageThreshold = p.age_threshold;
  if (p.rate_limit_per_minute !== undefined) set.rateLimitPerMinute = p.rate_limit_per_minute;
  if (p.media_retention_days !== undefined) set.mediaRetentionDays = p.media_retention_days;
  if (p.flow !== undefined) set.flow = p.flow;
  if (p.check_method !== undefined) set.checkMethod = p.check_method;
  if (p.require_active_liveness !== undefined) set.requireActiveLiveness = p.require_active_liveness;
  const [ws] = await db.update(workspaces).set(set).where(eq(workspaces.id, workspaceId)).returning();
  if (!ws) throw notFound('Workspace');
  await audit(db, { workspaceId, actor: 'operator', action: 'workspace.settings_updated', data: p });
  return ws;
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
    require_active_liveness: ws.requireActiveLiveness,
    created_at: ws.createdAt.toISOString(),
  };
}

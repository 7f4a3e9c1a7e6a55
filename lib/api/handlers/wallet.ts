/**
 * The wallet endpoints' handlers (docs/wallet.md), for /v1 and for the hosted capture page: each turns the request
 * into the one lib/domain/wallet operation, so both doors apply the same rules. The capture page's requests are bound to
 * the service's own origin (BASE_URL); an integrator names the origin of the page that calls the browser API.
 */
import { z } from 'zod';
import type { ApiContext, HandlerResult } from '../route';
import { env } from '../../core/env';
import { getVerification } from '../../domain/verifications/get';
import { serializeVerification } from '../../domain/verifications/serialize';
import { captureState } from '../../domain/capture/state';
import { createWalletRequest } from '../../domain/wallet/requests';
import { submitWalletResponse } from '../../domain/wallet/respond';
import { WALLET_PROTOCOLS, walletOrigin } from '../../domain/wallet/protocol';
import { caller } from './verifications';

const protocol = z
  .enum(WALLET_PROTOCOLS, { error: 'Must be openid4vp-v1-unsigned or org-iso-mdoc.' })
  .describe('The Digital Credentials API protocol');

export const walletRequestBody = z.strictObject({
  protocol,
  origin: walletOrigin.describe(
    'The origin of the page that will call navigator.credentials.get (https; http://localhost for development)',
  ),
});
export const captureWalletRequestBody = z.strictObject({ protocol });

export const walletResponseBody = z.strictObject({
  request_id: z
    .string({ error: 'Must be a string.' })
    .min(1)
    .max(100)
    .describe('The `id` of the wallet request this answers'),
  protocol: protocol.describe("The DigitalCredential's `protocol`, as the browser gave it"),
  data: z
    .unknown()
    .refine((v) => v !== undefined, "Required: the DigitalCredential's data, as the browser gave it.")
    .describe(
      "The DigitalCredential's `data`, as the browser gave it (for both protocols an object with an encrypted `response`)",
    ),
});

/** The hosted page's requests are answered at the service's own origin. */
const ownOrigin = () => new URL(env().BASE_URL).origin;

export async function createWalletRequestHandler(
  ctx: ApiContext<{ id: string }, z.infer<typeof walletRequestBody>>,
): Promise<HandlerResult> {
  const c = caller(ctx);
  const { verification } = await getVerification(ctx.db, { ...c, id: ctx.params.id });
  const data = await createWalletRequest(ctx.db, {
    verification,
    protocol: ctx.body.protocol,
    origin: ctx.body.origin,
    actor: c.actor,
    requestId: c.requestId,
  });
  return { status: 201, data, headers: { 'cache-control': 'no-store' } };
}

export async function submitWalletResponseHandler(
  ctx: ApiContext<{ id: string }, z.infer<typeof walletResponseBody>>,
): Promise<HandlerResult> {
  const { verification, consent } = await submitWalletResponse(ctx.db, {
    ...caller(ctx),
    verificationId: ctx.params.id,
    walletRequestId: ctx.body.request_id,
    protocol: ctx.body.protocol,
    data: ctx.body.data,
  });
  return { data: serializeVerification(verification, consent) };
}

export async function captureWalletRequestHandler(
  ctx: ApiContext<{ token: string }, z.infer<typeof captureWalletRequestBody>>,
): Promise<HandlerResult> {
  const c = caller(ctx);
  const data = await createWalletRequest(ctx.db, {
    verification: ctx.verification!,
    protocol: ctx.body.protocol,
    origin: ownOrigin(),
    actor: c.actor,
    requestId: c.requestId,
  });
  return { status: 201, data, headers: { 'cache-control': 'no-store' } };
}

export async function captureWalletResponseHandler(
  ctx: ApiContext<{ token: string }, z.infer<typeof walletResponseBody>>,
): Promise<HandlerResult> {
  const { verification } = await submitWalletResponse(ctx.db, {
    ...caller(ctx),
    verificationId: ctx.verification!.id,
    walletRequestId: ctx.body.request_id,
    protocol: ctx.body.protocol,
    data: ctx.body.data,
  });
  return { data: await captureState(ctx.db, verification, ctx.auth.workspace.name) };
}

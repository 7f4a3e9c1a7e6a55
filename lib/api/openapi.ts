/**
 * The OpenAPI 3.1 document of /v1, generated from the route registry (lib/api/operations.ts) and its zod
 * schemas: served at GET /v1/openapi.json and rendered at /docs/api. Nothing here is written by hand that the
 * registry already says, so the document cannot drift from the code.
 */
import { z } from 'zod';
import type { ErrorCode } from '../core/errors';
import { HTTP_STATUS } from './http-status';
import { errorsOf, OPERATIONS, type Operation } from './operations';
import * as S from './schemas';
import { createVerificationBody } from '../domain/verifications/create';
import { mediaFields } from './handlers/verifications';
import { walletRequestBody, walletResponseBody } from './handlers/wallet';

type Json = Record<string, unknown>;

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** Named schemas, each once under components.schemas; nested ones are referenced where they recur. */
const NAMED: [string, z.ZodType][] = [
  ['Verification', S.verificationSchema],
  ['DuplicateCheck', S.duplicateCheckSchema],
  ['VerificationCreated', S.verificationCreatedSchema],
  ['VerificationList', S.verificationListSchema],
  ['ConsentVersion', S.consentVersionSchema],
  ['ConsentAccepted', S.consentAcceptedSchema],
  ['Media', S.mediaSchema],
  ['Submitted', S.submittedSchema],
  ['Erasure', S.erasureSchema],
  ['Error', S.errorSchema],
  ['WebhookEvent', S.webhookEventSchema],
  ['CreateVerificationRequest', createVerificationBody],
  ['ConsentAcceptance', OPERATIONS.acceptConsent.documentedBody!],
  ['MediaUploadFields', mediaFields],
  ['WalletRequest', S.walletRequestSchema],
  ['WalletRequestCreate', walletRequestBody],
  ['WalletResponse', walletResponseBody],
];

/** Drops what JSON Schema tools need not see: zod's long date-time pattern (the format says it), $schema and $id. */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === '$schema' || k === '$id') continue;
    if (k === 'pattern' && (node as Json).format === 'date-time') continue;
    out[k] = tidy(v);
  }
  return out;
}

function componentSchemas(): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of NAMED) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    io: 'input',
    target: 'draft-2020-12',
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: 'any',
  });
  return tidy(schemas) as Record<string, Json>;
}

const idOf = (schema: z.ZodType) => NAMED.find(([, s]) => s === schema)?.[0];

const SIGNATURE = [
  "Lowercase hex HMAC-SHA256, keyed with one of the workspace's secret keys (`sk_test_…` or `sk_live_…`; the key's prefix sets the mode), of the canonical request:",
  '',
  "- JSON or bodyless: `METHOD + path[?query] + body`, no separators. METHOD uppercase; the path without scheme or host, with the query exactly as sent (same bytes, same order, same percent-encodings); the body's raw bytes as sent (empty when none).",
  '- multipart/form-data: `METHOD + path[?query] + "\\n" + fields + "\\n" + fileHashes`: each non-file field as `rfc3986(name)=rfc3986(value)` (everything but `A-Z a-z 0-9 - . _ ~` percent-encoded, uppercase hex), sorted by name then value, joined with `&`; each file\'s lowercase hex SHA-256, sorted, joined with `,`.',
  '',
  'Every non-deleted key of the workspace validates; signatures are compared in constant time. The literal `placeholder` authenticates as test mode only where a workspace allows it.',
  '',
  'Extension, request timestamps: with `X-Request-Timestamp` (Unix seconds, within 300 s of the server\'s clock; required where the workspace sets `require_request_timestamp`), the string signed is `timestamp + "\\n" + canonical`.',
].join('\n');

function errorResponses(codes: ErrorCode[]): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of codes) byStatus.set(HTTP_STATUS[c], [...(byStatus.get(HTTP_STATUS[c]) ?? []), c]);
  const out: Record<string, Json> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const retry = list.some((c) => c === 'RATE_LIMIT' || c === 'ANALYSIS_QUEUE_FULL' || c === 'DATABASE_UNAVAILABLE');
    out[String(status)] = {
      description: list.map((c) => `\`${c}\``).join(', '),
      headers: {
        'X-Request-Id': { $ref: '#/components/headers/RequestId' },
        ...(retry ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}),
      },
      content: {
        'application/json': {
          schema: {
            allOf: [
              ref('Error'),
              { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: list } } } } },
            ],
          },
        },
      },
    };
  }
  return out;
}

const RATE_HEADERS = {
  'X-Request-Id': { $ref: '#/components/headers/RequestId' },
  'X-RateLimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/RateLimitRemaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/RateLimitReset' },
};

function operationObject(op: Operation): Json {
  const parameters: Json[] = [];
  for (const name of op.path.match(/\{(\w+)\}/g) ?? []) {
    const n = name.slice(1, -1);
    parameters.push({
      name: n,
      in: 'path',
      required: true,
      description: 'The verification id (a UUID); any other value is 404',
      schema: { type: 'string' },
    });
  }
  if (op.query) {
    const q = tidy(z.toJSONSchema(op.query, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' })) as {
      properties: Record<string, Json>;
      required?: string[];
    };
    for (const [name, schema] of Object.entries(q.properties)) {
      const { description, ...rest } = schema;
      parameters.push({
        name,
        in: 'query',
        required: q.required?.includes(name) ?? false,
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  }
  const o: Json = {
    operationId: op.operationId,
    summary: op.summary,
    description: op.description,
    tags: [op.tag],
    security:
      op.auth === 'apiKeyUnsignedAllowed'
        ? [{ ApiKey: [], HmacSignature: [] }, { ApiKey: [] }]
        : [{ ApiKey: [], HmacSignature: [] }],
  };
  if (op.auth !== 'captureToken') {
    parameters.push({
      name: 'X-Request-Timestamp',
      in: 'header',
      required: false,
      description:
        'Extension, against replays: Unix time in whole seconds, within 300 s of the server\'s clock, signed in front of the canonical string (`timestamp + "\\n" + canonical`). Required where the workspace sets `require_request_timestamp` (401 `MISSING_TIMESTAMP`); out of the window, 401 `INVALID_TIMESTAMP`.',
      schema: { type: 'string', pattern: '^[0-9]{1,12}$' },
    });
  }
  if (op.operationId === 'createVerification') {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        '1 to 255 printable ASCII characters: a retry with the same key and body returns the same verification',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  if (parameters.length) o.parameters = parameters;
  const bodySchema = op.documentedBody ?? op.body;
  if (op.multipart && op.body) {
    const fields = ref(idOf(op.body)!);
    const files = Object.fromEntries(
      Object.entries(op.files ?? {}).map(([n, d]) => [
        n,
        { type: 'string', contentMediaType: 'application/octet-stream', description: d },
      ]),
    );
    o.requestBody = {
      required: true,
      content: {
        'multipart/form-data': {
          schema: { allOf: [fields, { type: 'object', required: Object.keys(files), properties: files }] },
        },
      },
    };
  } else if (bodySchema) {
    const id = idOf(bodySchema);
    o.requestBody = {
      required: op.operationId !== 'createVerification',
      content: {
        'application/json': {
          schema: id ? ref(id) : tidy(z.toJSONSchema(bodySchema, { io: 'input', unrepresentable: 'any' })),
        },
      },
    };
  }
  const responses: Record<string, Json> = {};
  for (const [status, r] of Object.entries(op.responses)) {
    responses[status] = {
      description: r!.description,
      headers: RATE_HEADERS,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['data'],
            additionalProperties: false,
            properties: { data: ref(idOf(r!.schema)!) },
          },
        },
      },
    };
  }
  Object.assign(responses, errorResponses(errorsOf(op)));
  o.responses = responses;
  return o;
}

const memo = new Map<string, Json>();

/** The document for a deployment at `baseUrl` (the servers entry). */
export function openApiDocument(baseUrl: string): Json {
  const cached = memo.get(baseUrl);
  if (cached) return cached;
  const paths: Record<string, Json> = {};
  for (const op of Object.values(OPERATIONS) as Operation[]) {
    (paths[op.path] ??= {})[op.method.toLowerCase()] = operationObject(op);
  }
  paths['/v1/openapi.json'] = {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      description:
        "The OpenAPI 3.1 description of /v1, generated from the code's own route registry. No authentication.",
      tags: ['Reference'],
      security: [],
      // The service's own server answers a malformed request, or one too slow to arrive, on any path.
      responses: {
        '200': { description: 'The document', content: { 'application/json': { schema: { type: 'object' } } } },
        ...errorResponses(['BAD_REQUEST', 'REQUEST_TIMEOUT']),
      },
    },
  };
  const doc: Json = {
    openapi: '3.1.0',
    info: {
      title: 'Open Verify API',
      version: '1',
      summary: 'Self-hostable age and identity verification',
      description:
        'Create a verification, record the user\'s consent, upload a selfie (and document images where required), submit, and receive the decision by webhook or by polling. Success bodies are `{"data": …}`; every error is `{"error": {code, message, details?, request_id}}`: branch on `code`. Rate limit: the workspace\'s requests per minute (60 by default), reported on every response.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: baseUrl, description: 'This deployment' }],
    tags: [
      { name: 'Verifications', description: 'Create, read, list and submit verifications' },
      { name: 'Consent', description: 'The consent text and its acceptance' },
      { name: 'Media', description: 'Selfie and document uploads' },
      { name: 'Privacy', description: 'Erasure on request (extension)' },
      {
        name: 'Wallet',
        description: 'Age proof from a digital ID wallet through the W3C Digital Credentials API (extension)',
      },
      { name: 'Reference', description: 'This description of the API' },
    ],
    paths,
    webhooks: {
      verificationEvent: {
        post: {
          operationId: 'receiveVerificationEvent',
          summary: 'A verification reached approved, declined, resubmission_requested, review, abandoned or expired',
          description:
            'POSTed to the workspace\'s https webhook URL. Verify before parsing: HMAC-SHA256 of `X-Timestamp + "." + raw body` with the workspace\'s active secret key, hex, compared in constant time; reject when |now − X-Timestamp| ≥ 300 s. Retried after 5, 15 and 60 minutes on 408, 429, 5xx or no answer; deduplicate on X-Webhook-Id.',
          tags: ['Verifications'],
          security: [],
          parameters: [
            {
              name: 'X-Auth-Client',
              in: 'header',
              required: true,
              description: "The workspace's API key",
              schema: { type: 'string' },
            },
            {
              name: 'X-Timestamp',
              in: 'header',
              required: true,
              description: 'Unix time of signing',
              schema: { type: 'string', pattern: '^[0-9]+$' },
            },
            {
              name: 'X-HMAC-Signature',
              in: 'header',
              required: true,
              description: 'Lowercase hex HMAC-SHA256 of `{X-Timestamp}.{raw body}`',
              schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
            },
            {
              name: 'X-Webhook-Id',
              in: 'header',
              required: true,
              description: 'One per event, the same on every retry',
              schema: { type: 'string' },
            },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookEvent') } } },
          responses: { '200': { description: 'Received (any 2xx). Answer within 5 seconds.' } },
        },
      },
    },
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: "The workspace's public key (`pk_…`).",
        },
        HmacSignature: { type: 'apiKey', in: 'header', name: 'X-HMAC-Signature', description: SIGNATURE },
      },
      headers: {
        RequestId: { description: "This request's id; quote it when reporting a problem", schema: { type: 'string' } },
        RateLimitLimit: { description: 'Requests allowed per minute', schema: { type: 'integer' } },
        RateLimitRemaining: { description: 'Left in the current window', schema: { type: 'integer' } },
        RateLimitReset: {
          description: 'Unix time at which the oldest counted request leaves the window',
          schema: { type: 'integer' },
        },
        RetryAfter: { description: 'Whole seconds to wait, at least 1', schema: { type: 'integer', minimum: 1 } },
      },
    },
  };
  memo.set(baseUrl, doc);
  return doc;
}

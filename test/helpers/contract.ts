/**
 * The contract check every integration test makes on every answer of a /v1 route it calls (test/helpers/http.ts
 * `call()`, test/helpers/upload.ts): a success body must match the registry's response schema for that operation
 * and status (strict: no undocumented field), an error must be the envelope with a code the operation declares,
 * at that code's HTTP status. The registry is what GET /v1/openapi.json is generated from, so code and contract
 * cannot drift without a test failing.
 */
import { z } from 'zod';
import { OPERATIONS, errorsOf, type Operation } from '@/lib/api/operations';
import { errorSchema } from '@/lib/api/schemas';
import { HTTP_STATUS } from '@/lib/api/http-status';

export class ContractError extends Error {}

export function checkContract(handler: unknown, status: number, body: unknown): void {
  const id = (handler as { operationId?: string } | null)?.operationId;
  if (!id) return;
  const op = (OPERATIONS as Record<string, Operation>)[id];
  if (!op) throw new ContractError(`route names operation ${id}, which the registry does not have`);
  if (status >= 400) {
    const r = errorSchema.safeParse(body);
    if (!r.success)
      throw new ContractError(
        `${id} ${status}: not the error envelope: ${z.prettifyError(r.error)}\n${JSON.stringify(body)}`,
      );
    const code = r.data.error.code;
    if (!errorsOf(op).includes(code))
      throw new ContractError(`${id} answered ${code}, which its contract does not list (lib/api/operations.ts)`);
    if (HTTP_STATUS[code] !== status)
      throw new ContractError(`${id} answered ${code} with ${status}, not ${HTTP_STATUS[code]}`);
    return;
  }
  const declared = op.responses[status as 200 | 201];
  if (!declared) throw new ContractError(`${id} answered ${status}, which its contract does not declare`);
  const r = z.strictObject({ data: declared.schema }).safeParse(body);
  if (!r.success)
    throw new ContractError(
      `${id} ${status}: the body does not match the contract: ${z.prettifyError(r.error)}\n${JSON.stringify(body).slice(0, 2000)}`,
    );
}

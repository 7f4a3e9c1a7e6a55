/**
 * The webhook payload of docs/webhooks.md "The request": keys in the table's order, serialised once as canonical
 * JSON (JSON.stringify leaves slashes and non-ASCII characters unescaped, adds no whitespace).
 */
import type { VerificationRow } from '@/lib/db/schema';
import { RawJson, stringifyJson } from '../../core/json-raw';

type DuplicateCheck = {
  checked: boolean;
  duplicate_count: number;
  duplicates: {
    verification_id: string;
    external_id: string | null;
    similarity_score: number;
    verified_at: string | null;
  }[];
};

/** Device intelligence, as a provider may return it; only the fields docs/webhooks.md lists pass. */
export type DeviceSignals = Record<string, unknown>;

const BOOL_FLAGS = [
  'ip_blocklist',
  'privacy_settings',
  'tampering',
  'root_apps',
  'frida',
  'factory_reset',
  'cloned_app',
  'emulator',
] as const;
const VPN_METHODS = ['timezone_mismatch', 'public_vpn', 'auxiliary_mobile', 'os_mismatch'] as const;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/**
 * Keeps exactly the listed fields, in the listed order; drops everything else, including identifiers,
 * bot, confidence, visitor-found, suspect score, any key containing "score", and velocity.
 */
export function sanitizeDeviceSignals(input: unknown): DeviceSignals | undefined {
  if (!isObj(input)) return undefined;
  const out: DeviceSignals = {};
  const tz = str(input.vpn_origin_timezone);
  if (tz !== undefined) out.vpn_origin_timezone = tz;
  if (isObj(input.vpn_methods)) {
    const m: Record<string, boolean> = {};
    for (const k of VPN_METHODS) if (typeof input.vpn_methods[k] === 'boolean') m[k] = input.vpn_methods[k] as boolean;
    out.vpn_methods = m;
  }
  for (const k of BOOL_FLAGS) if (typeof input[k] === 'boolean') out[k] = input[k];
  const v4 = isObj(input.ip_info) && isObj(input.ip_info.v4) ? input.ip_info.v4 : undefined;
  if (v4) {
    const ip: Record<string, unknown> = {};
    if (str(v4.address) !== undefined) ip.address = v4.address;
    if (isObj(v4.asn)) {
      const asn: Record<string, string> = {};
      for (const k of ['asn', 'name', 'network'] as const)
        if (str(v4.asn[k]) !== undefined) asn[k] = v4.asn[k] as string;
      ip.asn = asn;
    }
    if (isObj(v4.geolocation)) {
      const g = v4.geolocation;
      const geo: Record<string, unknown> = {};
      if (isObj(g.city) && str(g.city.name) !== undefined) geo.city = { name: g.city.name };
      if (isObj(g.country)) {
        const c: Record<string, string> = {};
        if (str(g.country.code) !== undefined) c.code = g.country.code as string;
        if (str(g.country.name) !== undefined) c.name = g.country.name as string;
        geo.country = c;
      }
      ip.geolocation = geo;
    }
    out.ip_info = { v4: ip };
  }
  return Object.keys(out).length ? out : undefined;
}

export function buildWebhookBody(v: VerificationRow, at: Date, deviceSignals?: unknown): string {
  const dc = v.duplicateCheck as DuplicateCheck | null;
  const detected = !!dc?.checked && dc.duplicate_count > 0;
  const payload: Record<string, unknown> = {
    verification_id: v.id,
    status: v.status,
    external_id: v.externalId,
    external_metadata:
      v.externalMetadataRaw != null ? new RawJson(v.externalMetadataRaw) : (v.externalMetadata ?? null),
    reason: v.status === 'declined' || v.status === 'resubmission_requested' ? v.reason : null,
    timestamp: at.toISOString(),
    duplicate_detected: detected,
    duplicate_count: dc?.checked ? dc.duplicate_count : 0,
  };
  if (detected && dc!.duplicates[0]) {
    payload.duplicate_of = {
      verification_id: dc!.duplicates[0].verification_id,
      external_id: dc!.duplicates[0].external_id,
    };
  }
  const signals = sanitizeDeviceSignals(deviceSignals);
  if (signals) payload.device_signals = signals;
  // Extension (docs/webhooks.md): a verification whose data was erased says when (an erasure of a case in
  // progress abandons it, and that webhook carries this field).
  if (v.dataErasedAt) payload.data_erased_at = v.dataErasedAt.toISOString();
  return stringifyJson(payload);
}

/**
 * A stored body (webhook_events.body) as it may be kept once the verification's data is erased: no
 * external_metadata (null) and no device_signals; every other key in its place. Null when there is nothing to
 * change. A retry after an erasure sends this body.
 */
export function redactWebhookBody(body: string): string | null {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof o !== 'object' || o === null) return null;
  const hadSignals = 'device_signals' in o;
  if (!hadSignals && (o.external_metadata === null || !('external_metadata' in o))) return null;
  if ('external_metadata' in o) o.external_metadata = null;
  delete o.device_signals;
  return JSON.stringify(o);
}

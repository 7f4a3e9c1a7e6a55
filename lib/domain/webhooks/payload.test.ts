import { describe, expect, it } from 'vitest';
import { buildWebhookBody, redactWebhookBody, sanitizeDeviceSignals } from './payload';
import type { VerificationRow } from '@/lib/db/schema';

describe('device_signals sanitizer', () => {
  const provider = {
    requestId: 'req-123',
    visitorId: 'vis-9',
    visitor_found: true,
    bot: { result: 'notDetected' },
    confidence: { score: 0.99 },
    suspect_score: 12,
    ipBlocklistScore: 3,
    velocity: { distinct_ip: 4 },
    vpn_origin_timezone: 'Europe/Berlin',
    vpn_methods: {
      timezone_mismatch: true,
      public_vpn: false,
      auxiliary_mobile: false,
      os_mismatch: true,
      relay_score: 0.4,
    },
    ip_blocklist: false,
    privacy_settings: false,
    tampering: false,
    root_apps: false,
    frida: false,
    factory_reset: false,
    cloned_app: false,
    emulator: true,
    event_id: 'evt-1',
    ip_info: {
      v4: {
        address: '203.0.113.7',
        asn: { asn: '64500', name: 'Example', network: '203.0.113.0/24', score: 1 },
        geolocation: { city: { name: 'Berlin', id: 5 }, country: { code: 'DE', name: 'Germany' }, accuracyRadius: 20 },
      },
      v6: { address: '::1' },
    },
  };

  it('keeps exactly the listed fields', () => {
    expect(sanitizeDeviceSignals(provider)).toEqual({
      vpn_origin_timezone: 'Europe/Berlin',
      vpn_methods: { timezone_mismatch: true, public_vpn: false, auxiliary_mobile: false, os_mismatch: true },
      ip_blocklist: false,
      privacy_settings: false,
      tampering: false,
      root_apps: false,
      frida: false,
      factory_reset: false,
      cloned_app: false,
      emulator: true,
      ip_info: {
        v4: {
          address: '203.0.113.7',
          asn: { asn: '64500', name: 'Example', network: '203.0.113.0/24' },
          geolocation: { city: { name: 'Berlin' }, country: { code: 'DE', name: 'Germany' } },
        },
      },
    });
  });

  it('drops identifiers, bot, confidence, visitor-found, velocity and every key containing "score"', () => {
    const out = JSON.stringify(sanitizeDeviceSignals(provider));
    for (const gone of [
      'requestId',
      'visitorId',
      'visitor_found',
      'bot',
      'confidence',
      'velocity',
      'event_id',
      'score',
      'Score',
      'v6',
      'accuracyRadius',
    ])
      expect(out).not.toContain(gone);
  });

  it('absent when there is nothing (no provider)', () => {
    expect(sanitizeDeviceSignals(undefined)).toBeUndefined();
    expect(sanitizeDeviceSignals({ bot: true })).toBeUndefined();
  });

  it('duplicates and device signals in the payload, in table order', () => {
    const v = {
      id: 'v1',
      status: 'declined',
      externalId: 'e1',
      externalMetadata: null,
      reason: 'blocklist_match',
      duplicateCheck: {
        checked: true,
        duplicate_count: 3,
        duplicates: [{ verification_id: 'v0', external_id: 'e0', similarity_score: 0.91, verified_at: null }],
      },
    } as unknown as VerificationRow;
    const body = buildWebhookBody(v, new Date('2026-11-22T10:00:00Z'), provider);
    expect(Object.keys(JSON.parse(body))).toEqual([
      'verification_id',
      'status',
      'external_id',
      'external_metadata',
      'reason',
      'timestamp',
      'duplicate_detected',
      'duplicate_count',
      'duplicate_of',
      'device_signals',
    ]);
    expect(JSON.parse(body)).toMatchObject({
      reason: 'blocklist_match',
      duplicate_detected: true,
      duplicate_count: 3,
      duplicate_of: { verification_id: 'v0', external_id: 'e0' },
    });
  });
});

describe('after an erasure', () => {
  const v = {
    id: 'v1',
    status: 'abandoned',
    externalId: 'e1',
    externalMetadata: null,
    reason: null,
    duplicateCheck: null,
  } as unknown as VerificationRow;

  it('the payload says when the data was erased (extension, last)', () => {
    const body = JSON.parse(
      buildWebhookBody({ ...v, dataErasedAt: new Date('2026-11-22T10:00:00Z') }, new Date('2026-11-22T10:00:00Z')),
    );
    expect(Object.keys(body).at(-1)).toBe('data_erased_at');
    expect(body.data_erased_at).toBe('2026-11-22T10:00:00.000Z');
    expect(JSON.parse(buildWebhookBody({ ...v, dataErasedAt: null }, new Date()))).not.toHaveProperty('data_erased_at');
  });

  it('a stored body loses external_metadata and device_signals, every other key in its place; one with neither is left alone', () => {
    const stored = JSON.stringify({
      verification_id: 'v1',
      status: 'approved',
      external_id: 'e1',
      external_metadata: { email: 'anna@example.com' },
      reason: null,
      timestamp: 't',
      duplicate_detected: false,
      duplicate_count: 0,
      device_signals: { emulator: true },
    });
    expect(redactWebhookBody(stored)).toBe(
      '{"verification_id":"v1","status":"approved","external_id":"e1","external_metadata":null,"reason":null,"timestamp":"t","duplicate_detected":false,"duplicate_count":0}',
    );
    expect(redactWebhookBody(redactWebhookBody(stored)!)).toBeNull();
    expect(redactWebhookBody('not json')).toBeNull();
  });
});

/**
 * Retention and erasure against the real database (PGlite over the wire): the data key that seals photos and
 * personal fields, the sweep that erases what is past its retention (and only that), erasure on request through
 * the signed API, receipts that verify against the published keys, and the data export.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import {
  auditLog,
  blocklistEntries,
  dataKeys,
  livenessChallenges,
  livenessFrames,
  erasureReceipts,
  faceEmbeddings,
  media,
  mediaBlobs,
  pipelineJobs,
  verifications,
  webhookAttempts,
  webhookEvents,
} from '@/lib/db/schema';
import { DELETE as eraseRoute, GET as eraseRouteGet } from '@/app/v1/verifications/[id]/data/route';
import { GET as getOne } from '@/app/v1/verifications/[id]/route';
import { GET as receiptKeysRoute } from '@/app/receipt-keys/route';
import { call } from '@/test/helpers/http';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { heldVerification, kycResult, PERSON, randomEmbedding } from '@/test/helpers/retention';
import { addToBlocklist } from '@/lib/domain/blocklist';
import { findDuplicates } from '@/lib/domain/duplicates';
import { updateWorkspaceSettings } from '@/lib/domain/workspaces';
import { keyRing } from '@/lib/core/crypto/keyring';
import { aesGcmDecrypt, aesGcmEncrypt } from '@/lib/core/crypto/secretbox';
import { DataKeyDestroyedError, ensureDataKey } from '@/lib/domain/personal-data/data-keys';
import { mediaStore, openMedia, readSealedMedia } from '@/lib/domain/media/storage';
import { newId } from '@/lib/core/ids';
import { sweepRetention } from './sweep';
import { listWebhookEvents } from '@/lib/domain/webhooks/list';
import { eraseVerificationData } from './request';
import { exportVerification } from './export';
import { receiptKeys, verifyReceipt, type SignedReceipt } from './receipts';
import { MAX_RETENTION_DAYS } from './policy';

const db = () => getDb();
const DAY = 86_400_000;

async function state(id: string) {
  const [v] = await db().select().from(verifications).where(eq(verifications.id, id));
  const rows = await db()
    .select({ id: media.id, analysis: media.analysis })
    .from(media)
    .where(eq(media.verificationId, id));
  const blobs = rows.length ? await db().select().from(mediaBlobs).where(eq(mediaBlobs.mediaId, rows[0].id)) : [];
  return {
    v,
    blobs: blobs.length,
    analyses: rows.filter((r) => r.analysis !== null).length,
    embeddings: (await db().select().from(faceEmbeddings).where(eq(faceEmbeddings.verificationId, id))).length,
    dataKeys: (await db().select().from(dataKeys).where(eq(dataKeys.verificationId, id))).length,
    receipts: await db().select().from(erasureReceipts).where(eq(erasureReceipts.verificationId, id)),
    audits: await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.verificationId, id), eq(auditLog.action, 'verification.data_erased'))),
    bodies: (await db().select().from(webhookEvents).where(eq(webhookEvents.verificationId, id))).map((e) =>
      JSON.parse(e.body),
    ),
  };
}

const published = async () => (await receiptKeysRoute()).json();
const apiGet = (w: TestWorkspace, id: string) =>
  call(getOne, { path: `/v1/verifications/${id}`, apiKey: w.apiKey, secret: w.liveSecret, params: { id } });
const apiErase = (
  w: TestWorkspace,
  id: string,
  secret = w.liveSecret,
  extra: Partial<Parameters<typeof call>[1]> = {},
) =>
  call(eraseRoute, {
    method: 'DELETE',
    path: `/v1/verifications/${id}/data`,
    apiKey: w.apiKey,
    secret,
    params: { id },
    ...extra,
  });

/** Everything of the verification's data gone; its decision and dates still there. */
async function expectErased(id: string, opts: { status?: string; trigger?: string; actor?: string } = {}) {
  const s = await state(id);
  expect(s.v.dataErasedAt).toBeInstanceOf(Date);
  expect([s.blobs, s.analyses, s.embeddings, s.dataKeys]).toEqual([0, 0, 0, 0]);
  expect(s.v.resultSealed).toBeNull();
  expect(s.v.externalMetadata).toBeNull();
  if (opts.status) expect(s.v.status).toBe(opts.status);
  for (const b of s.bodies) {
    expect(b.external_metadata).toBeNull();
    expect(b).not.toHaveProperty('device_signals');
  }
  expect(s.receipts).toHaveLength(1);
  expect(s.audits).toHaveLength(1);
  if (opts.actor) expect(s.audits[0].actor).toBe(opts.actor);
  const signed: SignedReceipt = {
    receipt: JSON.parse(s.receipts[0].payload),
    signature: { alg: 'EdDSA', kid: s.receipts[0].keyId, value: s.receipts[0].signature },
  };
  expect(verifyReceipt(signed, await published())).toEqual({ valid: true });
  if (opts.trigger) expect(signed.receipt.trigger).toBe(opts.trigger);
  return { ...s, receipt: signed };
}

describe('photos and personal fields under the verification’s own data key', () => {
  let w: TestWorkspace;
  beforeAll(async () => {
    w = await makeWorkspace({}, { flow: 'kyc' });
  });

  it('personal fields of a result are never stored in the clear; the API returns the result whole', async () => {
    const h = await heldVerification(db(), w);
    const [row] = await db().select().from(verifications).where(eq(verifications.id, h.id));
    expect(row.result).toEqual({
      decision: 'pass',
      document: { type: 'id_card', source: 'mrz' },
      face_match: kycResult().face_match,
    });
    expect(row.resultSealed).toBeInstanceOf(Buffer);
    for (const secret of [PERSON.surname, PERSON.date_of_birth, '02C3']) {
      expect(JSON.stringify(row.result)).not.toContain(secret);
      expect(row.resultSealed!.includes(Buffer.from(secret))).toBe(false);
    }
    const got = await apiGet(w, h.id);
    expect(got.json.data.result).toEqual(kycResult());
    expect(got.json.data.data_erased_at).toBeNull();
  });

  it('photos are sealed by the data key, not by ENCRYPTION_KEY; a blob copied before the erasure cannot be decrypted after it', async () => {
    const h = await heldVerification(db(), w);
    const copy = (await readSealedMedia(db(), h.mediaId))!;
    expect(copy.sealedBy).toBe('data_key');
    expect(openMedia(copy)).toEqual(h.photo);
    expect(copy.ciphertext.includes(h.photo.subarray(4, 40))).toBe(false);
    for (const kek of keyRing().accepted.values())
      expect(() => aesGcmDecrypt(copy.ciphertext, `media:${h.mediaId}`, kek.key)).toThrow();

    await eraseVerificationData(db(), { verificationId: h.id, actor: 'operator' });
    // The copy, with what the database holds now: its data key is gone.
    const now = { ...copy, dataKey: null };
    expect(() => openMedia(now)).toThrow(DataKeyDestroyedError);
    // Put back (as a restore of the blob alone would): still unreadable.
    await db().insert(mediaBlobs).values({ mediaId: h.mediaId, ciphertext: copy.ciphertext, sealedBy: 'data_key' });
    expect(await mediaStore.get(db(), h.mediaId)).toBeNull();
    await db().delete(mediaBlobs).where(eq(mediaBlobs.mediaId, h.mediaId));
    // And no new data key can be made for it: nothing new is sealed after the receipt.
    await expect(ensureDataKey(db(), h.id)).rejects.toBeInstanceOf(DataKeyDestroyedError);
  });
});

describe('the retention sweep', () => {
  let w: TestWorkspace;
  beforeAll(async () => {
    w = await makeWorkspace({ media_retention_days: 30 }, { flow: 'kyc' });
  });

  it('erases what is past its retention, counted from the decision; leaves the rest untouched; blocklist entries stay', async () => {
    const past = await heldVerification(db(), w, { decidedDaysAgo: 31 });
    const inside = await heldVerification(db(), w, { decidedDaysAgo: 29 });
    const blocked = await heldVerification(db(), w, { decidedDaysAgo: 45 });
    // Created two months ago but decided two days ago: retention counts from the decision.
    const lateDecision = await heldVerification(db(), w, { decidedDaysAgo: 2 });
    await db()
      .update(verifications)
      .set({ createdAt: new Date(Date.now() - 60 * DAY) })
      .where(eq(verifications.id, lateDecision.id));
    const entry = await addToBlocklist(db(), { verificationId: blocked.id, actor: 'operator' });
    const probe = (embedding: number[]) =>
      findDuplicates(db(), {
        workspaceId: w.workspace.id,
        mode: 'live',
        verificationId: 'probe',
        externalId: null,
        embedding,
        threshold: 0.9,
      });
    expect((await probe(past.embedding)).duplicates.map((d) => d.verification_id)).toEqual([past.id]);

    const out = await sweepRetention(db());
    expect(out.erased).toBeGreaterThanOrEqual(2);

    const erased = await expectErased(past.id, { status: 'approved', trigger: 'retention', actor: 'system' });
    expect(erased.v.result).toEqual({
      decision: 'pass',
      document: { type: 'id_card', source: 'mrz' },
      face_match: kycResult().face_match,
    });
    expect(erased.receipt.receipt).toMatchObject({
      verification_id: past.id,
      external_id: erased.v.externalId,
      status: 'approved',
      retention_days: 30,
      requested_by: 'system',
      erased: {
        media: [{ id: past.mediaId, type: 'selfie', bytes: true, analysis: true }],
        face_embedding: true,
        data_key: true,
        external_metadata: true,
        webhook_bodies: 1,
      },
      kept: { blocklist_entries: 0 },
    });
    expect(erased.receipt.receipt.erased.result_fields.sort()).toEqual(
      [
        'person.surname',
        'person.given_names',
        'person.date_of_birth',
        'person.sex',
        'document.issuing_country',
        'document.number_masked',
        'document.expiry_date',
      ].sort(),
    );
    const got = (await apiGet(w, past.id)).json.data;
    expect(got.data_erased_at).toBe(erased.v.dataErasedAt!.toISOString());
    expect(got.status).toBe('approved');
    expect(got.result).not.toHaveProperty('person');
    expect(got.external_metadata).toBeNull();
    // The face no longer matches anyone as a duplicate.
    expect((await probe(past.embedding)).duplicates).toEqual([]);

    // Blocklisted: its data goes, its blocklist entry (with the face it blocks) stays.
    const b = await expectErased(blocked.id);
    expect(b.receipt.receipt.kept.blocklist_entries).toBe(1);
    const [kept] = await db().select().from(blocklistEntries).where(eq(blocklistEntries.id, entry.id));
    expect(kept.embedding).toHaveLength(blocked.embedding.length);

    for (const h of [inside, lateDecision]) {
      const s = await state(h.id);
      expect([s.blobs, s.analyses, s.embeddings, s.dataKeys, s.receipts.length]).toEqual([1, 1, 1, 1, 0]);
      expect(s.v.dataErasedAt).toBeNull();
      expect(await mediaStore.get(db(), h.mediaId)).toEqual(h.photo);
      expect((await apiGet(w, h.id)).json.data.result.person).toEqual(PERSON);
    }

    // Idempotent: a second sweep (or a second server) finds nothing more of these.
    await sweepRetention(db());
    for (const id of [past.id, blocked.id]) {
      const s = await state(id);
      expect([s.receipts.length, s.audits.length]).toEqual([1, 1]);
    }
  });

  it('the head-turn challenge’s faces go with the rest: its frames’ descriptions and the challenge’s own, counted in the receipt', async () => {
    const h = await heldVerification(db(), w, { decidedDaysAgo: 1 });
    const other = await heldVerification(db(), w, { decidedDaysAgo: 1 });
    const challenge = async (verificationId: string, frames: number) => {
      const id = newId('blk').replace('blk_', 'lch_');
      const at = new Date();
      await db()
        .insert(livenessChallenges)
        .values({
          id,
          verificationId,
          nonceSha256: newId('req'),
          steps: ['left', 'right', 'straight'],
          issuedAt: at,
          expiresAt: at,
          completedAt: at,
          embedding: randomEmbedding(),
        });
      for (let i = 0; i < frames; i++)
        await db()
          .insert(livenessFrames)
          .values({ challengeId: id, workspaceId: w.workspace.id, sha256: newId('req'), embedding: randomEmbedding() });
      return id;
    };
    const mine = await challenge(h.id, 3);
    const theirs = await challenge(other.id, 3);
    const { receipt } = await eraseVerificationData(db(), { verificationId: h.id, actor: 'operator' });
    expect(receipt.receipt.erased.liveness_faces).toBe(4);
    expect(await db().select().from(livenessFrames).where(eq(livenessFrames.challengeId, mine))).toEqual([]);
    expect(
      (await db().select().from(livenessChallenges).where(eq(livenessChallenges.id, mine)))[0].embedding,
    ).toBeNull();
    // Another verification's challenge is untouched.
    expect(await db().select().from(livenessFrames).where(eq(livenessFrames.challengeId, theirs))).toHaveLength(3);
    expect(
      (await db().select().from(livenessChallenges).where(eq(livenessChallenges.id, theirs)))[0].embedding,
    ).not.toBeNull();
  });

  it('retention is the workspace’s: 0 erases at the first sweep after the decision; above 365 days is refused', async () => {
    const now0 = await makeWorkspace({ media_retention_days: 0 });
    const h = await heldVerification(db(), now0, { decidedDaysAgo: 0 });
    const long = await makeWorkspace({ media_retention_days: MAX_RETENTION_DAYS });
    const l = await heldVerification(db(), long, { decidedDaysAgo: 300 });
    await sweepRetention(db());
    await expectErased(h.id);
    expect((await state(l.id)).v.dataErasedAt).toBeNull();
    await expect(
      updateWorkspaceSettings(db(), long.workspace.id, { media_retention_days: MAX_RETENTION_DAYS + 1 }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    // The database holds every writer to it (23514: check_violation).
    await expect(
      db().execute(`update workspaces set media_retention_days = 400 where id = '${long.workspace.id}'`),
    ).rejects.toMatchObject({ cause: { code: '23514' } });
  });

  it('paces itself: after each full batch it rests in proportion to the batch’s time; not after the last', async () => {
    const paced = await makeWorkspace({ media_retention_days: 0 });
    for (let i = 0; i < 10; i++)
      await heldVerification(db(), paced, { decidedDaysAgo: 1, result: { decision: 'pass' } });
    const rests: number[] = [];
    const t0 = performance.now();
    const out = await sweepRetention(db(), {
      batch: 2,
      pace: 0.25,
      sleep: async (ms) => void rests.push(ms),
      upgrade: false,
    });
    const elapsed = performance.now() - t0;
    expect(out.erased).toBeGreaterThanOrEqual(10);
    expect(rests.length).toBeGreaterThanOrEqual(5);
    expect(rests.every((ms) => ms > 0)).toBe(true);
    // pace 0.25: three times as long resting as working; the work of the full batches is most of the elapsed time
    // (the rests themselves were not slept).
    expect(rests.reduce((a, b) => a + b, 0)).toBeGreaterThan(1.5 * elapsed);
    const full: number[] = [];
    await sweepRetention(db(), { pace: 1, sleep: async (ms) => void full.push(ms) });
    expect(full).toEqual([]);
  });

  it('a case left waiting for a decision for the maximum retention is erased too, and abandoned', async () => {
    const h = await heldVerification(db(), w, { decidedDaysAgo: null });
    const longAgo = new Date(Date.now() - (MAX_RETENTION_DAYS + 1) * DAY);
    await db()
      .update(verifications)
      .set({ status: 'review', statusChangedAt: longAgo })
      .where(eq(verifications.id, h.id));
    await sweepRetention(db());
    const s = await expectErased(h.id, { status: 'abandoned', trigger: 'retention' });
    expect(s.bodies.map((b) => [b.status, b.data_erased_at])).toEqual([['abandoned', s.v.dataErasedAt!.toISOString()]]);
  });

  it('moves data written before data keys under one: photos sealed by ENCRYPTION_KEY, results with personal fields in the clear', async () => {
    const h = await heldVerification(db(), w);
    const photo = Buffer.from('legacy photo bytes');
    const legacyMedia = newId('med');
    await db().insert(media).values({
      id: legacyMedia,
      verificationId: h.id,
      type: 'selfie',
      contentType: 'image/jpeg',
      byteSize: photo.length,
      width: 640,
      height: 480,
    });
    await db()
      .insert(mediaBlobs)
      .values({
        mediaId: legacyMedia,
        ciphertext: aesGcmEncrypt(photo, `media:${legacyMedia}`, keyRing().primary.key),
      });
    await db().update(verifications).set({ result: kycResult(), resultSealed: null }).where(eq(verifications.id, h.id));
    expect((await db().select().from(mediaBlobs).where(eq(mediaBlobs.mediaId, legacyMedia)))[0].sealedBy).toBe(
      'encryption_key',
    );
    expect(await mediaStore.get(db(), legacyMedia)).toEqual(photo);

    const out = await sweepRetention(db());
    expect(out.upgraded.media).toBeGreaterThanOrEqual(1);
    expect(out.upgraded.results).toBeGreaterThanOrEqual(1);
    expect((await db().select().from(mediaBlobs).where(eq(mediaBlobs.mediaId, legacyMedia)))[0].sealedBy).toBe(
      'data_key',
    );
    expect(await mediaStore.get(db(), legacyMedia)).toEqual(photo);
    const [row] = await db().select().from(verifications).where(eq(verifications.id, h.id));
    expect(row.result).not.toHaveProperty('person');
    expect(row.resultSealed).toBeInstanceOf(Buffer);
    expect((await apiGet(w, h.id)).json.data.result).toEqual(kycResult());
  });

  it('moves what an earlier version wrote in the clear under the data key: metadata, webhook bodies and answers, notes; an erased case’s copies go', async () => {
    const marker = `legacy-${Math.random().toString(36).slice(2, 10)}`;
    const legacy = async (erased: boolean) => {
      const h = await heldVerification(db(), w, { metadata: null });
      const metadata = `{"note":"${marker}","n":1}`;
      await db()
        .update(verifications)
        .set({ externalMetadata: JSON.parse(metadata), externalMetadataRaw: metadata, externalMetadataSealed: null })
        .where(eq(verifications.id, h.id));
      const body = JSON.stringify({
        verification_id: h.id,
        status: 'approved',
        external_id: 'x',
        external_metadata: JSON.parse(metadata),
        reason: null,
        timestamp: new Date().toISOString(),
        duplicate_detected: false,
        duplicate_count: 0,
      });
      const eventId = newId('evt');
      const attemptId = newId('wat');
      await db().insert(webhookEvents).values({
        id: eventId,
        workspaceId: w.workspace.id,
        verificationId: h.id,
        status: 'approved',
        body,
        state: 'delivered',
      });
      await db()
        .insert(webhookAttempts)
        .values({
          id: attemptId,
          eventId,
          attempt: 1,
          startedAt: new Date(),
          statusCode: 200,
          responseBody: `{"echo":"${marker}"}`,
          outcome: 'delivered',
        });
      const auditId = newId('aud');
      await db()
        .insert(auditLog)
        .values({
          id: auditId,
          workspaceId: w.workspace.id,
          verificationId: h.id,
          actor: 'admin:x',
          action: 'verification.decided',
          data: { status: 'approved', reason: null, note: `seen ${marker}` },
        });
      if (erased) await db().update(verifications).set({ dataErasedAt: new Date() }).where(eq(verifications.id, h.id));
      return { id: h.id, metadata, body, eventId, attemptId, auditId };
    };
    const kept = await legacy(false);
    const gone = await legacy(true);
    // What a reader with the database alone finds, as text, in the clear.
    const clearText = async () =>
      JSON.stringify([
        await db()
          .select({ a: verifications.externalMetadata, b: verifications.externalMetadataRaw })
          .from(verifications)
          .where(inArray(verifications.id, [kept.id, gone.id])),
        await db()
          .select({ b: webhookEvents.body })
          .from(webhookEvents)
          .where(inArray(webhookEvents.id, [kept.eventId, gone.eventId])),
        await db()
          .select({ r: webhookAttempts.responseBody })
          .from(webhookAttempts)
          .where(inArray(webhookAttempts.id, [kept.attemptId, gone.attemptId])),
        await db()
          .select({ d: auditLog.data })
          .from(auditLog)
          .where(inArray(auditLog.id, [kept.auditId, gone.auditId])),
      ]);
    expect((await clearText()).split(marker).length - 1).toBe(10);

    const out = await sweepRetention(db());
    expect(out.upgraded).toMatchObject({
      metadata: expect.any(Number),
      webhook_bodies: expect.any(Number),
      webhook_responses: expect.any(Number),
      audit_notes: expect.any(Number),
    });
    expect(
      Math.min(
        out.upgraded.metadata,
        out.upgraded.webhook_bodies,
        out.upgraded.webhook_responses,
        out.upgraded.audit_notes,
      ),
    ).toBeGreaterThanOrEqual(2);
    expect(await clearText()).not.toContain(marker);

    // The kept case reads as before: GET, the stored body as sent, the answer and the note, all opened.
    expect((await apiGet(w, kept.id)).text).toContain(`"external_metadata":${kept.metadata}`);
    const event = (await listWebhookEvents(db(), kept.id)).find((e) => e.id === kept.eventId)!;
    expect(event.body).toBe(kept.body);
    expect(event.attempt_log[0].response_body).toBe(`{"echo":"${marker}"}`);
    const exported = await exportVerification(db(), { verificationId: kept.id, actor: 'operator' });
    expect(exported.audit_log.find((a) => a.id === kept.auditId)?.data).toMatchObject({ note: `seen ${marker}` });
    // The erased case's copies are gone, not sealed.
    const [goneRow] = await db().select().from(verifications).where(eq(verifications.id, gone.id));
    expect(goneRow.externalMetadataSealed).toBeNull();
    expect(
      (await db().select().from(webhookEvents).where(eq(webhookEvents.id, gone.eventId)))[0].bodySealed,
    ).toBeNull();
    expect(
      (await db().select().from(webhookAttempts).where(eq(webhookAttempts.id, gone.attemptId)))[0].responseSealed,
    ).toBeNull();
    expect((await db().select().from(auditLog).where(eq(auditLog.id, gone.auditId)))[0]).toMatchObject({
      data: { status: 'approved', reason: null },
      dataSealed: null,
    });
    // Nothing left to move: a second pass finds nothing.
    expect((await sweepRetention(db())).upgraded).toMatchObject({
      metadata: 0,
      webhook_bodies: 0,
      webhook_responses: 0,
      audit_notes: 0,
    });
  });
});

describe('leftovers', () => {
  it('a photo or clear result a server of the earlier version wrote after the erasure goes at the next sweep', async () => {
    const w = await makeWorkspace({}, { flow: 'kyc' });
    const h = await heldVerification(db(), w);
    await eraseVerificationData(db(), { verificationId: h.id, actor: 'operator' });
    const late = newId('med');
    await db().insert(media).values({
      id: late,
      verificationId: h.id,
      type: 'selfie',
      contentType: 'image/jpeg',
      byteSize: 4,
      width: 640,
      height: 480,
    });
    await db()
      .insert(mediaBlobs)
      .values({
        mediaId: late,
        ciphertext: aesGcmEncrypt(Buffer.from('late'), `media:${late}`, keyRing().primary.key),
      });
    await db().update(verifications).set({ result: kycResult() }).where(eq(verifications.id, h.id));
    await sweepRetention(db());
    expect(await db().select().from(mediaBlobs).where(eq(mediaBlobs.mediaId, late))).toEqual([]);
    const [row] = await db().select().from(verifications).where(eq(verifications.id, h.id));
    expect([row.result, row.resultSealed]).toEqual([
      { decision: 'pass', document: { type: 'id_card', source: 'mrz' }, face_match: kycResult().face_match },
      null,
    ]);
  });

  it('sealed fields whose data key is already gone are erased all the same, and the receipt says they could not be listed', async () => {
    const w = await makeWorkspace({}, { flow: 'kyc' });
    const h = await heldVerification(db(), w);
    await db().delete(dataKeys).where(eq(dataKeys.verificationId, h.id));
    const { receipt } = await eraseVerificationData(db(), { verificationId: h.id, actor: 'operator' });
    expect(receipt.receipt.erased).toMatchObject({
      data_key: false,
      result_fields: ['(sealed fields)'],
      media: [{ bytes: true }],
    });
    expect((await state(h.id)).v.resultSealed).toBeNull();
  });
});

describe('DELETE /v1/verifications/{id}/data', () => {
  let w: TestWorkspace;
  let other: TestWorkspace;
  beforeAll(async () => {
    w = await makeWorkspace({}, { flow: 'kyc' });
    other = await makeWorkspace();
  });

  it('erases a decided verification at once; the receipt verifies against GET /receipt-keys; asking again returns the same receipt', async () => {
    const h = await heldVerification(db(), w);
    const r = await apiErase(w, h.id);
    expect(r.status, r.text).toBe(200);
    expect(r.json.data).toMatchObject({ id: h.id, status: 'approved', data_erased_at: expect.any(String) });
    const receipt: SignedReceipt = r.json.data.receipt;
    expect(receipt.receipt).toMatchObject({
      verification_id: h.id,
      trigger: 'request',
      requested_by: `key:${w.liveKeyId}`,
      retention_days: null,
      erased_at: r.json.data.data_erased_at,
    });
    const keys = await published();
    expect(keys.keys).toContainEqual(
      expect.objectContaining({ kty: 'OKP', crv: 'Ed25519', kid: receipt.signature.kid, status: 'active' }),
    );
    expect(verifyReceipt(receipt, keys)).toEqual({ valid: true });
    // Any change to what it says breaks it.
    expect(
      verifyReceipt({ ...receipt, receipt: { ...receipt.receipt, external_id: 'someone-else' } }, keys).valid,
    ).toBe(false);
    await expectErased(h.id, { status: 'approved', trigger: 'request', actor: `key:${w.liveKeyId}` });

    const again = await apiErase(w, h.id);
    expect(again.status).toBe(200);
    expect(again.json.data.receipt).toEqual(receipt);
    expect((await state(h.id)).audits).toHaveLength(1);
    expect((await apiGet(w, h.id)).json.data.data_erased_at).toBe(r.json.data.data_erased_at);
  });

  it('a case in progress becomes abandoned: its webhook says when its data was erased; stored bodies lose external_metadata and device_signals; pending pipeline work stops', async () => {
    const h = await heldVerification(db(), w, { decidedDaysAgo: null });
    await db().update(verifications).set({ status: 'submitted', attemptsUsed: 1 }).where(eq(verifications.id, h.id));
    await db()
      .insert(pipelineJobs)
      .values({ id: newId('job'), verificationId: h.id, attempt: 1, mediaIds: { selfie: h.mediaId } });
    // An earlier event not yet delivered, as a device-intelligence provider would have filled it.
    const earlier = JSON.stringify({
      verification_id: h.id,
      status: 'resubmission_requested',
      external_id: 'x',
      external_metadata: { plan: 'pro' },
      reason: 'selfie_quality',
      timestamp: new Date().toISOString(),
      duplicate_detected: false,
      duplicate_count: 0,
      device_signals: { ip_info: { v4: { address: '203.0.113.7' } } },
    });
    const eventId = newId('evt');
    await db().insert(webhookEvents).values({
      id: eventId,
      workspaceId: w.workspace.id,
      verificationId: h.id,
      status: 'resubmission_requested',
      body: earlier,
    });
    await db()
      .insert(webhookAttempts)
      .values({
        id: newId('wat'),
        eventId,
        attempt: 1,
        startedAt: new Date(),
        statusCode: 500,
        responseBody: '{"echo":{"plan":"pro"}}',
        outcome: 'retry',
      });

    const r = await apiErase(w, h.id);
    expect(r.status, r.text).toBe(200);
    expect(r.json.data.status).toBe('abandoned');
    const s = await expectErased(h.id, { status: 'abandoned' });
    const [pending] = await db().select().from(webhookEvents).where(eq(webhookEvents.id, eventId));
    expect(pending.state).toBe('pending'); // still delivered: the redacted body
    expect(Object.keys(JSON.parse(pending.body))).toEqual([
      'verification_id',
      'status',
      'external_id',
      'external_metadata',
      'reason',
      'timestamp',
      'duplicate_detected',
      'duplicate_count',
    ]);
    const abandoned = s.bodies.find((b) => b.status === 'abandoned');
    expect(abandoned).toMatchObject({ external_metadata: null, data_erased_at: s.v.dataErasedAt!.toISOString() });
    expect(s.receipt.receipt.erased).toMatchObject({ webhook_bodies: 1, webhook_responses: 1 });
    expect(
      (await db().select().from(webhookAttempts).where(eq(webhookAttempts.eventId, eventId)))[0].responseBody,
    ).toBeNull();
    expect((await db().select().from(pipelineJobs).where(eq(pipelineJobs.verificationId, h.id)))[0].status).toBe(
      'done',
    );
  });

  it('another workspace’s id, the other mode’s id and a malformed id are 404; no body; DELETE only; always signed', async () => {
    const h = await heldVerification(db(), w);
    expect((await apiErase(other, h.id, other.liveSecret)).json.error.code).toBe('NOT_FOUND');
    expect((await apiErase(w, h.id, w.testSecret)).json.error.code).toBe('NOT_FOUND');
    expect((await apiErase(w, 'not-a-uuid')).status).toBe(404);
    const withBody = await apiErase(w, h.id, w.liveSecret, { body: { reason: 'x' } });
    expect([withBody.status, withBody.json.error.code]).toEqual([422, 'VALIDATION_ERROR']);
    const unsigned = await apiErase(w, h.id, w.liveSecret, { signature: null });
    expect([unsigned.status, unsigned.json.error.code]).toEqual([401, 'MISSING_SIGNATURE']);
    const wrong = await call(eraseRouteGet, {
      path: `/v1/verifications/${h.id}/data`,
      apiKey: w.apiKey,
      secret: w.liveSecret,
      params: { id: h.id },
    });
    expect([wrong.status, wrong.json.error.code, wrong.headers.get('allow')]).toEqual([
      405,
      'METHOD_NOT_ALLOWED',
      'DELETE',
    ]);
    // None of those touched it.
    expect((await state(h.id)).v.dataErasedAt).toBeNull();
  });
});

describe('subject access export', () => {
  it('holds everything about one verification, photos included; after the erasure, only what is kept', async () => {
    const w = await makeWorkspace({}, { flow: 'kyc' });
    const h = await heldVerification(db(), w);
    const challengeId = newId('blk').replace('blk_', 'lch_');
    const at = new Date();
    const challengeFace = randomEmbedding();
    await db()
      .insert(livenessChallenges)
      .values({
        id: challengeId,
        verificationId: h.id,
        nonceSha256: newId('req'),
        steps: ['left', 'right', 'straight'],
        issuedAt: at,
        expiresAt: at,
        completedAt: at,
        embedding: challengeFace,
      });
    for (let i = 0; i < 2; i++)
      await db()
        .insert(livenessFrames)
        .values({ challengeId, workspaceId: w.workspace.id, sha256: `frame-${i}`, embedding: randomEmbedding() });
    const before = await exportVerification(db(), { verificationId: h.id, actor: 'operator' });
    expect(before.liveness_challenges).toHaveLength(1);
    expect(before.liveness_challenges[0]).toMatchObject({ id: challengeId, steps: ['left', 'right', 'straight'] });
    expect(before.liveness_challenges[0].embedding).toHaveLength(challengeFace.length);
    expect(before.liveness_challenges[0].frames.map((f) => [f.sha256, f.embedding?.length])).toEqual([
      ['frame-0', challengeFace.length],
      ['frame-1', challengeFace.length],
    ]);
    expect(before.verification.result).toEqual(kycResult());
    expect(Buffer.from(before.media[0].photo_base64!, 'base64')).toEqual(h.photo);
    expect((before.media[0].analysis as { faces: { embedding: number[] }[] }).faces[0].embedding).toEqual(h.embedding);
    expect(before.face_embedding?.embedding).toHaveLength(h.embedding.length);
    expect(before.webhook_events).toHaveLength(1);
    expect(before.audit_log.map((a) => a.action)).toContain('verification.created');
    expect(
      await db()
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.verificationId, h.id), eq(auditLog.action, 'verification.exported'))),
    ).toHaveLength(1);

    await eraseVerificationData(db(), { verificationId: h.id, actor: 'operator' });
    const after = await exportVerification(db(), { verificationId: h.id, actor: 'operator' });
    expect(after.media[0]).toMatchObject({ photo_base64: null, analysis: null });
    expect(after.face_embedding).toBeNull();
    expect(after.liveness_challenges[0]).toMatchObject({ id: challengeId, embedding: null, frames: [] });
    expect(after.verification.result).not.toHaveProperty('person');
    expect(verifyReceipt(after.erasure_receipt!, await receiptKeys(db()))).toEqual({ valid: true });
    const text = JSON.stringify(after);
    for (const s of [PERSON.surname, PERSON.date_of_birth, 'anna@example.com']) expect(text).not.toContain(s);
  });

  it('an unknown id is NOT_FOUND', async () => {
    await expect(
      exportVerification(db(), { verificationId: randomEmbedding(4).join(), actor: 'operator' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

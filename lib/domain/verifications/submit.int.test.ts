/** docs/api.md "Media and submit", "Required media", "Attempts". */
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { faceEmbeddings, pipelineJobs, verifications, webhookEvents } from '@/lib/db/schema';
import { POST as create } from '@/app/v1/verifications/route';
import { GET as getOne } from '@/app/v1/verifications/[id]/route';
import { call } from '@/test/helpers/http';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { consentedVerification, submit, upload } from '@/test/helpers/upload';
import * as I from '@/test/helpers/images';
import { analysisPool } from '@/lib/domain/media/pool';
import { missingMedia, submittedMedia } from '../transitions/policy';

describe('submit', () => {
  let age: TestWorkspace;
  let docs: TestWorkspace;
  let kyc: TestWorkspace;
  let face: Buffer;
  beforeAll(async () => {
    age = await makeWorkspace();
    docs = await makeWorkspace({ check_method: 'document_verification' });
    kyc = await makeWorkspace({}, { flow: 'kyc' });
    face = I.astronaut();
    await analysisPool().ready();
  }, 120_000);

  it('required media per flow and check method (docs/api.md "Required media")', () => {
    const sel = { type: 'selfie', side: null, documentType: null };
    const front = (t = 'id_card') => ({ type: 'document', side: 'front', documentType: t });
    const back = { type: 'document', side: 'back', documentType: 'id_card' };
    expect(missingMedia({ flow: 'age', checkMethod: 'estimation', stepUp: null }, [])).toEqual(['selfie']);
    expect(missingMedia({ flow: 'age', checkMethod: 'estimation', stepUp: null }, [sel])).toEqual([]);
    expect(missingMedia({ flow: 'age', checkMethod: 'document_verification', stepUp: null }, [sel])).toEqual([
      'document_front',
      'document_back',
    ]);
    expect(missingMedia({ flow: 'age', checkMethod: 'document_verification', stepUp: null }, [sel, front()])).toEqual([
      'document_back',
    ]);
    expect(
      missingMedia({ flow: 'age', checkMethod: 'document_verification', stepUp: null }, [sel, front('passport')]),
    ).toEqual([]);
    expect(missingMedia({ flow: 'kyc', checkMethod: null, stepUp: null }, [front(), back])).toEqual(['selfie']);
    expect(missingMedia({ flow: 'kyc', checkMethod: null, stepUp: null }, [sel, front(), back])).toEqual([]);
    // Age / estimation stepped up to a document (docs/api.md "Step-up to a document"): the selfie already
    // taken counts; the front, and the back unless a passport, are required as for document_verification.
    const stepped = { flow: 'age', checkMethod: 'estimation', stepUp: 'document' } as const;
    expect(missingMedia(stepped, [sel])).toEqual(['document_front', 'document_back']);
    expect(missingMedia(stepped, [sel, front()])).toEqual(['document_back']);
    expect(missingMedia(stepped, [sel, front('passport')])).toEqual([]);
    expect(missingMedia(stepped, [front('passport')])).toEqual(['selfie']);
  });

  it('CONSENT_REQUIRED (403) before consent', async () => {
    const c = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: {},
      apiKey: age.apiKey,
      secret: age.testSecret,
    });
    const r = await submit(age, age.testSecret, c.json.data.id);
    expect([r.status, r.json.error.code]).toEqual([403, 'CONSENT_REQUIRED']);
  });

  it('MISSING_REQUIRED_MEDIA (422) in created, with details.missing', async () => {
    const id = await consentedVerification(age);
    const r = await submit(age, age.testSecret, id);
    expect([r.status, r.json.error.code, r.json.error.details.missing]).toEqual([
      422,
      'MISSING_REQUIRED_MEDIA',
      ['selfie'],
    ]);
  });

  it('document verification: selfie alone is not enough; a passport front is; an ID card needs its back', async () => {
    const id = await consentedVerification(docs);
    expect((await upload(docs, docs.testSecret, id, { type: 'selfie' }, face)).status).toBe(201);
    expect((await submit(docs, docs.testSecret, id)).json.error.details.missing).toEqual([
      'document_front',
      'document_back',
    ]);
    expect(
      (
        await upload(
          docs,
          docs.testSecret,
          id,
          { type: 'document', side: 'front', document_type: 'id_card' },
          await I.renderDocument('id_card', 'front'),
        )
      ).status,
    ).toBe(201);
    expect((await submit(docs, docs.testSecret, id)).json.error.details.missing).toEqual(['document_back']);
    const pid = await consentedVerification(docs);
    await upload(docs, docs.testSecret, pid, { type: 'selfie' }, face);
    expect(
      (
        await upload(
          docs,
          docs.testSecret,
          pid,
          { type: 'document', side: 'front', document_type: 'passport' },
          await I.renderDocument('passport', 'front'),
        )
      ).status,
    ).toBe(201);
    expect((await submit(docs, docs.testSecret, pid)).status).toBe(200);
  });

  it('KYC needs selfie, front and back', async () => {
    const id = await consentedVerification(kyc);
    await upload(kyc, kyc.testSecret, id, { type: 'selfie' }, face);
    expect((await submit(kyc, kyc.testSecret, id)).json.error.details.missing).toEqual([
      'document_front',
      'document_back',
    ]);
  });

  it('test mode: submit goes to review; consumes an attempt; a second submit is INVALID_STATUS (409)', async () => {
    const id = await consentedVerification(age);
    await upload(age, age.testSecret, id, { type: 'selfie' }, face);
    const r = await submit(age, age.testSecret, id);
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({ id, status: 'review', submitted_at: expect.any(String) });
    const again = await submit(age, age.testSecret, id);
    expect([again.status, again.json.error.code]).toEqual([409, 'INVALID_STATUS']);
    const g = await call(getOne, {
      path: `/v1/verifications/${id}`,
      apiKey: age.apiKey,
      secret: age.testSecret,
      params: { id },
    });
    expect(g.json.data).toMatchObject({ status: 'review', attempts_remaining: 4 });
    expect(await getDb().select().from(pipelineJobs).where(eq(pipelineJobs.verificationId, id))).toHaveLength(0);
  });

  it('test mode: the duplicate search runs at submit (docs/api.md: reported regardless of the decision), in GET and the review webhook', async () => {
    const dup = await makeWorkspace({ webhook_url: 'https://hooks.example.com/dup' });
    const first = await consentedVerification(dup, dup.testSecret, { external_id: 'acct-a' });
    await upload(dup, dup.testSecret, first, { type: 'selfie' }, face);
    expect((await submit(dup, dup.testSecret, first)).json.data.status).toBe('review');
    const second = await consentedVerification(dup, dup.testSecret, { external_id: 'acct-b' });
    await upload(dup, dup.testSecret, second, { type: 'selfie' }, face);
    expect((await submit(dup, dup.testSecret, second)).json.data.status).toBe('review');
    const g = await call(getOne, {
      path: `/v1/verifications/${second}`,
      apiKey: dup.apiKey,
      secret: dup.testSecret,
      params: { id: second },
    });
    expect(g.json.data.duplicate_check).toMatchObject({
      checked: true,
      duplicate_count: 1,
      duplicates: [{ verification_id: first, external_id: 'acct-a', verified_at: null }],
    });
    expect(g.json.data.duplicate_check.duplicates[0].similarity_score).toBeGreaterThan(0.99);
    // The first one was searched too, before the second existed: checked, nothing found.
    const g1 = await call(getOne, {
      path: `/v1/verifications/${first}`,
      apiKey: dup.apiKey,
      secret: dup.testSecret,
      params: { id: first },
    });
    expect(g1.json.data.duplicate_check).toEqual({ checked: true, duplicate_count: 0, duplicates: [] });
    const [event] = await getDb().select().from(webhookEvents).where(eq(webhookEvents.verificationId, second));
    expect(JSON.parse(event.body)).toMatchObject({
      status: 'review',
      duplicate_detected: true,
      duplicate_count: 1,
      duplicate_of: { verification_id: first, external_id: 'acct-a' },
    });
    // No pipeline job: nothing is decided.
    expect(await getDb().select().from(pipelineJobs).where(eq(pipelineJobs.verificationId, second))).toHaveLength(0);
    // The live mode's search does not see test faces.
    const [face1] = await getDb().select().from(faceEmbeddings).where(eq(faceEmbeddings.verificationId, second));
    expect([face1.mode, face1.account]).toEqual(['test', 'acct-b']);
  });

  it('test mode: a workspace that allows duplicates gives no answer (checked: false)', async () => {
    const allow = await makeWorkspace({ allow_duplicates: true });
    const id = await consentedVerification(allow);
    await upload(allow, allow.testSecret, id, { type: 'selfie' }, face);
    await submit(allow, allow.testSecret, id);
    const g = await call(getOne, {
      path: `/v1/verifications/${id}`,
      apiKey: allow.apiKey,
      secret: allow.testSecret,
      params: { id },
    });
    expect(g.json.data.duplicate_check).toEqual({ checked: false, duplicate_count: 0, duplicates: [] });
  });

  it('live mode: submitted, with a pipeline job naming the newest selfie (a second upload replaces the first)', async () => {
    const id = await consentedVerification(age, age.liveSecret);
    const first = await upload(age, age.liveSecret, id, { type: 'selfie' }, face);
    const second = await upload(age, age.liveSecret, id, { type: 'selfie' }, I.graceHopper());
    expect([first.status, second.status]).toEqual([201, 201]);
    const r = await submit(age, age.liveSecret, id);
    expect(r.json.data.status).toBe('submitted');
    const jobs = await getDb().select().from(pipelineJobs).where(eq(pipelineJobs.verificationId, id));
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ attempt: 1, status: 'pending', mediaIds: { selfie: second.json.data.id } });
  });

  it('newest per kind and side', () => {
    expect(
      submittedMedia([
        { id: 'm3', type: 'selfie', side: null },
        { id: 'm2', type: 'document', side: 'front' },
        { id: 'm1', type: 'selfie', side: null },
      ]),
    ).toEqual({ selfie: 'm3', document_front: 'm2' });
  });

  it('an upload racing a submit never leaves a verification submitted without its media', async () => {
    for (let round = 0; round < 4; round++) {
      const id = await consentedVerification(age, age.liveSecret);
      const [u, s] = await Promise.all([
        upload(age, age.liveSecret, id, { type: 'selfie' }, face),
        // Let the submit land at various points of the upload's validation.
        new Promise((r) => setTimeout(r, round * 90)).then(() => submit(age, age.liveSecret, id)),
      ]);
      const [v] = await getDb().select().from(verifications).where(eq(verifications.id, id));
      const jobs = await getDb().select().from(pipelineJobs).where(eq(pipelineJobs.verificationId, id));
      if (s.status === 200) {
        expect(u.status).toBe(201);
        expect(v.status).toBe('submitted');
        expect(jobs[0].mediaIds.selfie).toBe(u.json.data.id);
      } else {
        expect(s.json.error.code).toBe('MISSING_REQUIRED_MEDIA');
        expect(u.status).toBe(201);
        expect(v.status).toBe('started');
        expect(jobs).toHaveLength(0);
      }
    }
  });
});

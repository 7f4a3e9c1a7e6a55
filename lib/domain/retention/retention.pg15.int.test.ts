/**
 * Retention on a real PostgreSQL 15, as a production deployment runs it:
 * - a pg_dump of the whole database after the sweep holds none of an erased verification's data — not its
 *   photo (as bytes, hex or base64, nor even its ciphertext), not its face embedding (as the vector or inside
 *   the analysis), not its name, date of birth or document number — while the dump before it held them (so the
 *   search would have found them), a verification inside its retention is untouched, and a blocklist entry keeps
 *   its face; the erased face no longer matches as a duplicate. The verification went through the real upload
 *   and decision pipeline (real photos, a synthetic ID card read by OCR).
 * - two servers (two connection pools) sweeping at once erase each verification exactly once: one holding a
 *   batch while the other sweeps, and both racing freely.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray, sql } from 'drizzle-orm';
import { connect } from '@/lib/db/client';
import { auditLog, erasureReceipts, media, verifications } from '@/lib/db/schema';
import { ownDatabase } from '@/test/helpers/own-database';
import { PG15_BIN } from '@/test/setup/provision.mjs';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { consentedVerification, submit, upload } from '@/test/helpers/upload';
import { heldVerification, kycResult } from '@/test/helpers/retention';
import * as I from '@/test/helpers/images';
import * as F from '@/test/helpers/face-set';
import { analysisPool } from '@/lib/domain/media/pool';
import { stopOcr } from '@/lib/domain/documents/ocr';
import { mediaStore } from '@/lib/domain/media/storage';
import { aesGcmEncrypt } from '@/lib/core/crypto/secretbox';
import { keyRing } from '@/lib/core/crypto/keyring';
import { runDueJobs } from '@/lib/domain/pipeline';
import { addToBlocklist } from '@/lib/domain/blocklist';
import { findDuplicates } from '@/lib/domain/duplicates';
import { newId } from '@/lib/core/ids';
import { sweepRetention } from './sweep';

const DAY = 86_400_000;
const { db, url } = ownDatabase('pg15', { pool: 20 });
afterAll(() => stopOcr());

const dump = () =>
  execFileSync(`${PG15_BIN}/pg_dump`, ['--dbname', url(), '--format', 'plain'], { maxBuffer: 1 << 30 }).toString(
    'latin1',
  );
const utf8 = (s: string) => Buffer.from(s, 'utf8').toString('latin1'); // how a UTF-8 string reads in the latin1 dump text
const backdate = (id: string, days: number) =>
  db()
    .update(verifications)
    .set({ completedAt: new Date(Date.now() - days * DAY) })
    .where(eq(verifications.id, id));

describe('a pg_dump after the sweep holds nothing of an erased verification', () => {
  it(
    'photo, embedding, name, date of birth, document number: in the dump before, nowhere after; the rest untouched',
    { timeout: 600_000 },
    async () => {
      await analysisPool().ready();
      const faces = await F.labelledFaces((bytes, kind) => analysisPool().analyze(bytes, kind));
      const face = (id: string) => faces.find((f) => f.id === id)!.image;
      const kyc: TestWorkspace = await makeWorkspace({ media_retention_days: 30 }, { db: db(), flow: 'kyc' });
      const age: TestWorkspace = await makeWorkspace({ media_retention_days: 30 }, { db: db() });

      // E: a KYC verification through the real upload and pipeline, decided 40 days ago.
      const e = await consentedVerification(kyc, kyc.liveSecret, {
        external_id: 'erase-me',
        external_metadata: { email: 'anna@example.com' },
      });
      expect((await upload(kyc, kyc.liveSecret, e, { type: 'selfie' }, face('sample5-3'))).status).toBe(201);
      expect(
        (
          await upload(
            kyc,
            kyc.liveSecret,
            e,
            { type: 'document', side: 'front', document_type: 'id_card' },
            await I.renderDocument('id_card', 'front', face('sample5-3')),
          )
        ).status,
      ).toBe(201);
      expect(
        (
          await upload(
            kyc,
            kyc.liveSecret,
            e,
            { type: 'document', side: 'back', document_type: 'id_card' },
            await I.renderDocument('id_card', 'back'),
          )
        ).status,
      ).toBe(201);
      expect((await submit(kyc, kyc.liveSecret, e)).json.data.status).toBe('submitted');
      // B (blocklisted) and K (inside retention): selfies of two other people, age estimation.
      const b = await consentedVerification(age, age.liveSecret);
      expect((await upload(age, age.liveSecret, b, { type: 'selfie' }, face('grace_hopper'))).status).toBe(201);
      await submit(age, age.liveSecret, b);
      const k = await consentedVerification(age, age.liveSecret);
      expect((await upload(age, age.liveSecret, k, { type: 'selfie' }, face('astronaut'))).status).toBe(201);
      await submit(age, age.liveSecret, k);
      await runDueJobs({ db: db(), retryDelayMs: () => 0 }, 10);
      const statusOf = async (id: string) =>
        (await db().select().from(verifications).where(eq(verifications.id, id)))[0].status;
      // All three decided by the pipeline: E on its document, B and K on the age estimate (Grace Hopper and this crop of
      // the astronaut both read as adults with their whole range over 18). K's media is then kept by its retention.
      expect([await statusOf(e), await statusOf(b), await statusOf(k)]).toEqual(['approved', 'approved', 'approved']);
      await addToBlocklist(db(), { verificationId: b, actor: 'operator' });
      await backdate(e, 40);
      await backdate(b, 40);
      await backdate(k, 10);
      // L: a verification written before data keys (its result and photo as the earlier version stored them).
      const l = await heldVerification(db(), kyc, { decidedDaysAgo: 50 });
      const legacyPhoto = Buffer.concat([Buffer.from('LEGACY-PHOTO-'), I.astronaut().subarray(1000, 3000)]);
      const legacyMedia = newId('med');
      await db().insert(media).values({
        id: legacyMedia,
        verificationId: l.id,
        type: 'selfie',
        contentType: 'image/jpeg',
        byteSize: legacyPhoto.length,
        width: 640,
        height: 480,
      });
      await db().execute(
        sql`insert into media_blobs (media_id, ciphertext) values (${legacyMedia}, ${aesGcmEncrypt(legacyPhoto, `media:${legacyMedia}`, keyRing().primary.key)})`,
      );
      await db()
        .update(verifications)
        .set({
          result: kycResult(),
          resultSealed: null,
          externalMetadata: { email: 'legacy@example.com' },
          externalMetadataRaw: '{"email":"legacy@example.com"}',
          externalMetadataSealed: null,
        })
        .where(eq(verifications.id, l.id));

      // What identifies E, read from the database the way pg_dump will write it.
      const selfie = (await db().select().from(media).where(eq(media.verificationId, e))).find(
        (m) => m.type === 'selfie',
      )!;
      const photo = (await mediaStore.get(db(), selfie.id))!;
      const slice = photo.subarray(Math.floor(photo.length / 2), Math.floor(photo.length / 2) + 48); // entropy-coded JPEG data
      const text = async (q: ReturnType<typeof sql>) => String(Array.from(await db().execute<{ t: string }>(q))[0].t);
      const vectorText = (
        await text(sql`select embedding::text as t from face_embeddings where verification_id = ${e}`)
      ).slice(1, 90);
      const analysisText = (
        await text(sql`select (analysis -> 'faces' -> 0 -> 'embedding')::text as t from media where id = ${selfie.id}`)
      ).slice(1, 90);
      const blobHex = (
        await text(sql`select encode(ciphertext, 'hex') as t from media_blobs where media_id = ${selfie.id}`)
      ).slice(200, 296);
      const sealedHex = (
        await text(sql`select encode(result_sealed, 'hex') as t from verifications where id = ${e}`)
      ).slice(0, 64);
      const blockedVector = (
        await text(sql`select embedding::text as t from face_embeddings where verification_id = ${b}`)
      ).slice(1, 90);
      const keptVector = (
        await text(sql`select embedding::text as t from face_embeddings where verification_id = ${k}`)
      ).slice(1, 90);
      const photoForms = {
        raw: slice.toString('latin1'),
        hex: slice.toString('hex'),
        base64: slice.toString('base64').slice(0, 40),
      };
      const personal = [
        'ERIKSSON',
        'ANNA MARIA',
        '1974-08-12',
        'L898902C3',
        utf8('•••••02C3'),
        'anna@example.com',
        'legacy@example.com',
      ];

      const probe = (embedding: number[]) =>
        findDuplicates(db(), {
          workspaceId: kyc.workspace.id,
          mode: 'live',
          verificationId: 'probe',
          externalId: null,
          embedding,
          threshold: 0.9,
        });
      const eEmbedding = JSON.parse(
        await text(sql`select embedding::text as t from face_embeddings where verification_id = ${e}`),
      ) as number[];
      expect((await probe(eEmbedding)).duplicates.map((d) => d.verification_id)).toEqual([e]);

      const before = dump();
      // The search finds what is there: E's embedding both ways, its ciphertexts, the legacy row's name and metadata in clear.
      for (const s of [
        vectorText,
        analysisText,
        blobHex,
        sealedHex,
        blockedVector,
        keptVector,
        'ERIKSSON',
        '1974-08-12',
        'legacy@example.com',
      ])
        expect(before).toContain(s);
      // Photos were never in the clear, nor E's name or metadata: encrypted at rest from the first write.
      for (const s of [...Object.values(photoForms), 'anna@example.com']) expect(before).not.toContain(s);
      expect(before).not.toContain('LEGACY-PHOTO-');

      const swept = await sweepRetention(db());
      expect(swept.erased).toBe(3); // E, B, L; K is inside its retention

      const after = dump();
      for (const s of [vectorText, analysisText, blobHex, sealedHex, ...Object.values(photoForms), ...personal])
        expect(after, s).not.toContain(s);
      // B's face survives only in its blocklist entry; K is untouched.
      const blockedAt = [...after.matchAll(new RegExp(blockedVector.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g'))].map(
        (m) => m.index!,
      );
      expect(blockedAt).toHaveLength(1);
      expect(after.slice(after.lastIndexOf('COPY public.', blockedAt[0]))).toMatch(/^COPY public\.blocklist_entries /);
      expect(after).toContain(keptVector);
      expect((await db().select().from(verifications).where(eq(verifications.id, k)))[0].dataErasedAt).toBeNull();
      // The erased face matches no one now.
      expect((await probe(eEmbedding)).duplicates).toEqual([]);
      // The decision stayed.
      const [erased] = await db().select().from(verifications).where(eq(verifications.id, e));
      expect(erased).toMatchObject({
        status: 'approved',
        externalId: 'erase-me',
        externalMetadata: null,
        result: { decision: 'pass', document: { type: 'id_card', source: 'mrz' } },
      });
    },
  );
});

describe('two servers sweeping at once', () => {
  let w: TestWorkspace;
  beforeAll(async () => {
    w = await makeWorkspace({ media_retention_days: 30 }, { db: db() });
  });
  const due = async (n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 10)
      ids.push(
        ...(
          await Promise.all(
            Array.from({ length: Math.min(10, n - i) }, () =>
              heldVerification(db(), w, { decidedDaysAgo: 31, result: { decision: 'pass', threshold: 18 } }),
            ),
          )
        ).map((h) => h.id),
      );
    return ids;
  };
  const once = async (ids: string[]) => {
    const receipts = await db()
      .select({ v: erasureReceipts.verificationId })
      .from(erasureReceipts)
      .where(inArray(erasureReceipts.verificationId, ids));
    const erasedAudits = (
      await db()
        .select({ v: auditLog.verificationId, a: auditLog.action })
        .from(auditLog)
        .where(inArray(auditLog.verificationId, ids))
    ).filter((r) => r.a === 'verification.data_erased');
    expect(receipts.map((r) => r.v).sort()).toEqual([...ids].sort());
    expect(erasedAudits.map((r) => r.v).sort()).toEqual([...ids].sort());
  };

  it(
    'one holds a batch while the other sweeps: the other skips exactly that batch, and each row is erased once',
    { timeout: 300_000 },
    async () => {
      const ids = await due(120);
      const a = connect(url(), { max: 4 });
      const b = connect(url(), { max: 4 });
      try {
        let release!: () => void;
        const held = new Promise<void>((r) => (release = r));
        let locked!: (ids: string[]) => void;
        const lockedIds = new Promise<string[]>((r) => (locked = r));
        let first = true;
        const sweepA = sweepRetention(a.db, {
          batch: 20,
          upgrade: false,
          pace: 1,
          onLocked: async (batch) => {
            if (!first) return;
            first = false;
            locked(batch);
            await held;
          },
        });
        const heldByA = await lockedIds;
        const byB = await sweepRetention(b.db, { batch: 25, upgrade: false, pace: 1 });
        expect(byB.erased).toBe(ids.length - heldByA.length);
        release();
        const byA = await sweepA;
        expect(byA.erased).toBe(heldByA.length);
        await once(ids);
      } finally {
        await a.close();
        await b.close();
      }
    },
  );

  it('four sweeps on two servers racing: every row erased once, nothing left', { timeout: 300_000 }, async () => {
    const ids = await due(200);
    const servers = [connect(url(), { max: 6 }), connect(url(), { max: 6 })];
    try {
      const runs = await Promise.all(
        servers.flatMap((s) => [
          sweepRetention(s.db, { batch: 10, upgrade: false }),
          sweepRetention(s.db, { batch: 10, upgrade: false }),
        ]),
      );
      expect(runs.reduce((n, r) => n + r.erased, 0)).toBe(ids.length);
      await once(ids);
      expect((await sweepRetention(db(), { upgrade: false })).erased).toBe(0);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });
});

/**
 * Rotating ENCRYPTION_KEY (keys from the environment, as a deployment past one machine has them), on a database
 * of its own: while both keys are accepted everything keeps working; the re-wrap moves every data key, secret
 * API key, the receipt signing key and the data from before data keys under the new key; after the old key is
 * retired every remaining photo is readable, and a backup copy of a data key from before the rotation is not.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { dataKeys, media, mediaBlobs, secretKeys, verifications } from '@/lib/db/schema';
import { revealCaptureToken } from '@/lib/domain/capture/auth';
import { GET as getOne } from '@/app/v1/verifications/[id]/route';
import { resetEnvCache } from '@/lib/core/env';
import { call } from '@/test/helpers/http';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { ownDatabase } from '@/test/helpers/own-database';
import { heldVerification, type Held } from '@/test/helpers/retention';
import { mediaStore } from '@/lib/domain/media/storage';
import { eraseVerificationData } from '@/lib/domain/retention/request';
import { receiptKeys, verifyReceipt } from '@/lib/domain/retention/receipts';
import { newId } from '@/lib/core/ids';
import { keyIdOf, KeyUnavailableError, newKeyBase64, reloadKeyRing } from '../../core/crypto/keyring';
import { aesGcmEncrypt, unwrapWithKek } from '../../core/crypto/secretbox';
import { keyUsage, rewrapAll } from './rotate';

const K1 = newKeyBase64();
const K2 = newKeyBase64();
const kid = (k: string) => keyIdOf(Buffer.from(k, 'base64'));
const saved = { key: process.env.ENCRYPTION_KEY, prev: process.env.ENCRYPTION_KEYS_PREVIOUS };
function keys(primary: string, previous?: string) {
  process.env.ENCRYPTION_KEY = primary;
  if (previous) process.env.ENCRYPTION_KEYS_PREVIOUS = previous;
  else delete process.env.ENCRYPTION_KEYS_PREVIOUS;
  resetEnvCache();
  reloadKeyRing();
}

keys(K1);
const { db } = ownDatabase('embedded', { pool: 4 });

afterAll(() => {
  process.env.ENCRYPTION_KEY = saved.key;
  if (saved.prev) process.env.ENCRYPTION_KEYS_PREVIOUS = saved.prev;
  else delete process.env.ENCRYPTION_KEYS_PREVIOUS;
  resetEnvCache();
  reloadKeyRing();
});

describe('rotating ENCRYPTION_KEY', () => {
  it('keeps every photo and every secret key readable, through the rotation and after the old key is retired', async () => {
    // Before: everything under K1, some of it in the formats from before key ids and data keys.
    const w: TestWorkspace = await makeWorkspace({}, { db: db(), flow: 'kyc' });
    const held: Held[] = [];
    for (let i = 0; i < 3; i++) held.push(await heldVerification(db(), w));
    const legacyPhoto = Buffer.from('a photo stored before data keys');
    const legacyMedia = newId('med');
    await db().insert(media).values({
      id: legacyMedia,
      verificationId: held[0].id,
      type: 'selfie',
      contentType: 'image/jpeg',
      byteSize: legacyPhoto.length,
      width: 640,
      height: 480,
    });
    await db()
      .insert(mediaBlobs)
      .values({
        mediaId: legacyMedia,
        ciphertext: aesGcmEncrypt(legacyPhoto, `media:${legacyMedia}`, Buffer.from(K1, 'base64')),
      });
    const [liveKey] = await db().select().from(secretKeys).where(eq(secretKeys.id, w.liveKeyId));
    const legacySecret = liveKey.secretCiphertext.slice(liveKey.secretCiphertext.lastIndexOf('.') + 1);
    await db().update(secretKeys).set({ secretCiphertext: legacySecret }).where(eq(secretKeys.id, w.liveKeyId)); // the format before key ids
    const early = await eraseVerificationData(db(), {
      verificationId: (await heldVerification(db(), w)).id,
      actor: 'operator',
    }); // signing key under K1
    const backup = await db().select().from(dataKeys).where(eq(dataKeys.verificationId, held[1].id)); // a backup's copy

    const readable = async () => {
      for (const h of held) expect(await mediaStore.get(db(), h.mediaId)).toEqual(h.photo);
      expect(await mediaStore.get(db(), legacyMedia)).toEqual(legacyPhoto);
      const r = await call(getOne, {
        path: `/v1/verifications/${held[2].id}`,
        apiKey: w.apiKey,
        secret: w.liveSecret,
        params: { id: held[2].id },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.data.result.person.surname).toBe('ERIKSSON');
    };
    await readable();

    // During: every server writes with K2 and still reads K1.
    keys(K2, K1);
    await readable();
    const during = await heldVerification(db(), w);
    expect((await db().select().from(dataKeys).where(eq(dataKeys.verificationId, during.id)))[0].kekId).toBe(kid(K2));
    held.push(during);
    const usage = await keyUsage(db());
    expect(usage).toMatchObject({
      primary: kid(K2),
      accepted: [kid(K1)],
      secret_keys: { legacy: 1, [kid(K1)]: 1 },
      signing_keys: { [kid(K1)]: 1 },
      capture_links: { [kid(K1)]: 4, [kid(K2)]: 1 },
      legacy_media: 1,
    });
    expect(usage.not_under_primary).toBeGreaterThanOrEqual(3 + 2 + 1 + 4 + 1);

    const moved = await rewrapAll(db(), { batch: 2 }); // small batches: the loop, not one statement, does it
    expect(moved).toEqual({
      data_keys: 3,
      secret_keys: 2,
      signing_keys: 1,
      capture_links: 4,
      admin_totp_secrets: 0,
      admin_totp_pending: 0,
      legacy_media: 1,
      unsealed_results: 0,
    });
    expect((await keyUsage(db())).not_under_primary).toBe(0);
    expect(await rewrapAll(db())).toEqual({
      data_keys: 0,
      secret_keys: 0,
      signing_keys: 0,
      capture_links: 0,
      admin_totp_secrets: 0,
      admin_totp_pending: 0,
      legacy_media: 0,
      unsealed_results: 0,
    });

    // After: K1 retired. Every photo, the secrets, the personal fields, the receipts, the capture links: all still work.
    keys(K2);
    await readable();
    for (const h of held) {
      const [v] = await db().select().from(verifications).where(eq(verifications.id, h.id));
      expect(revealCaptureToken(v)?.length).toBeGreaterThanOrEqual(32);
    }
    const later = await eraseVerificationData(db(), { verificationId: held[0].id, actor: 'operator' });
    const published = await receiptKeys(db());
    expect(verifyReceipt(later.receipt, published)).toEqual({ valid: true });
    expect(verifyReceipt(early.receipt, published)).toEqual({ valid: true });
    // A backup's copy of a data key from before the rotation is wrapped by a key that no longer exists.
    expect(() => unwrapWithKek(backup[0].kekId, backup[0].wrapped, `data_key:${held[1].id}`)).toThrow(
      KeyUnavailableError,
    );
  });
});

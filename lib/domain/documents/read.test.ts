import { afterAll, describe, expect, it } from 'vitest';
import { renderDocument } from '@/test/helpers/images';
import { readDocumentPhoto } from './read';
import { stopOcr } from './ocr';

afterAll(() => stopOcr());

describe('readDocumentPhoto (the upload\'s validation and read)', () => {
  it('reads a passport data page: TD3, ISO dates', async () => {
    const r = await readDocumentPhoto(await renderDocument('passport', 'front'), { documentType: 'passport', now: new Date('2026-11-28T00:00:00Z') });
    expect(r).toMatchObject({ ok: true, format: 'TD3', birthDate: '1974-08-12', expiryDate: '2031-04-15', documentNumber: 'L898902C3' });
  });
});

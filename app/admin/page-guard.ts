/** For admin pages: a lib/domain/admin read whose NOT_FOUND (out of reach, or missing) becomes the 404 page. */
import { notFound } from 'next/navigation';
import { DomainError } from '@/lib/core/errors';

export async function orNotFound<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (e) {
    if (e instanceof DomainError && e.code === 'NOT_FOUND') notFound();
    throw e;
  }
}

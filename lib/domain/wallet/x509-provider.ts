/**
 * @peculiar/x509 as this service uses it: `reflect-metadata` loaded before it (2.x needs it) and WebCrypto as its
 * crypto provider. ./mdoc.ts (the door the rest of the service goes through) and ./x509.ts (the chain check it
 * uses) both take it from here, so neither imports the other back.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(globalThis.crypto);

export { x509 };

/**
 * Certificates of issuing authorities (docs/wallet.md "Trust lists"): reading an IACA root an operator adds, and
 * deciding whether a document signer certificate chains to one of them. Written out in full, because a chain check
 * that forgets a date or an untrusted intermediate is a forged credential accepted:
 * - every link is a signature check with the issuer's key (a root of the same name but another key is refused);
 * - only the operator's roots are trusted: a root or intermediate the credential carries is never trusted by itself;
 * - every certificate on the path must be valid at the time of verification (no tolerance: docs/wallet.md "How a
 *   response is verified", Clock);
 * - CA certificates must be CAs (basicConstraints, keyCertSign), the signer must be fit to sign an mdoc (its key
 *   usage, and its extended key usage where present, ISO/IEC 18013-5 Annex B), and its country must be its root's.
 */
import { x509 } from './x509-provider';

/** ISO/IEC 18013-5 Annex B: extended key usage of a document signer (mdlDS) and of an IACA (not required). */
export const MDL_DS_EKU = '1.0.18013.5.1.2';

export type ChainOk = { ok: true; leaf: x509.X509Certificate; anchor: x509.X509Certificate };
export type ChainFailure = { ok: false; reason: 'untrusted_issuer' | 'expired' | 'malformed'; detail: string };
export type ChainResult = ChainOk | ChainFailure;

const MAX_PATH = 4;

const fail = (reason: ChainFailure['reason'], detail: string): ChainFailure => ({ ok: false, reason, detail });

export function field(name: x509.Name | string, f: string): string | null {
  const n = typeof name === 'string' ? new x509.Name(name) : name;
  return n.getField(f)[0] ?? null;
}

function isCa(c: x509.X509Certificate): boolean {
  const bc = c.getExtension(x509.BasicConstraintsExtension);
  if (!bc?.ca) return false;
  const ku = c.getExtension(x509.KeyUsagesExtension);
  return !ku || (ku.usages & x509.KeyUsageFlags.keyCertSign) !== 0;
}

function fitToSign(c: x509.X509Certificate): string | null {
  const ku = c.getExtension(x509.KeyUsagesExtension);
  if (ku && (ku.usages & x509.KeyUsageFlags.digitalSignature) === 0) return 'its key usage does not allow signatures';
  const eku = c.getExtension(x509.ExtendedKeyUsageExtension);
  if (eku && !eku.usages.map(String).includes(MDL_DS_EKU))
    return `its extended key usage is not ${MDL_DS_EKU} (mdoc document signer)`;
  return null;
}

function validAt(c: x509.X509Certificate, now: Date): boolean {
  return c.notBefore.getTime() <= now.getTime() && now.getTime() <= c.notAfter.getTime();
}

async function signedBy(child: x509.X509Certificate, parent: x509.X509Certificate): Promise<boolean> {
  if (child.issuer !== parent.subject) return false;
  try {
    return await child.verify({ publicKey: parent.publicKey, signatureOnly: true });
  } catch {
    return false;
  }
}

/**
 * Whether `x5chain` (the document signer first, as the credential carries it) leads to one of `anchors`, checked
 * at `now`. Only signatures decide trust; names only pick candidates.
 */
export async function evaluateChain(
  x5chain: Uint8Array[],
  anchors: x509.X509Certificate[],
  now: Date,
): Promise<ChainResult> {
  let chain: x509.X509Certificate[];
  try {
    chain = x5chain.map((der) => new x509.X509Certificate(der as BufferSource));
  } catch {
    return fail('malformed', 'a certificate of the credential cannot be read');
  }
  const leaf = chain[0];
  if (!leaf) return fail('malformed', 'the credential carries no document signer certificate');
  if (anchors.length === 0)
    return fail('untrusted_issuer', 'no issuing authority (IACA) is trusted for this workspace');
  const unfit = fitToSign(leaf);
  if (unfit) return fail('untrusted_issuer', `the document signer certificate is not one: ${unfit}`);

  const path: x509.X509Certificate[] = [leaf];
  let current = leaf;
  let anchor: x509.X509Certificate | undefined;
  for (let depth = 0; depth < MAX_PATH && !anchor; depth++) {
    for (const a of anchors) if (await signedBy(current, a)) anchor = a;
    if (anchor) break;
    // An intermediate the credential carries may bridge to a root, but is trusted only through that root.
    const next = await (async () => {
      for (const c of chain.slice(1)) if (c !== current && isCa(c) && (await signedBy(current, c))) return c;
      return undefined;
    })();
    if (!next) break;
    path.push(next);
    current = next;
  }
  if (!anchor)
    return fail(
      'untrusted_issuer',
      `the document signer "${leaf.subject}" does not chain to a trusted issuing authority`,
    );
  if (!isCa(anchor)) return fail('untrusted_issuer', 'the trusted certificate it chains to is not a CA');

  for (const c of [...path, anchor]) {
    if (!validAt(c, now)) {
      return fail(
        'expired',
        `certificate "${c.subject}" is valid ${c.notBefore.toISOString()} to ${c.notAfter.toISOString()}, not at ${now.toISOString()}`,
      );
    }
  }
  const leafCountry = field(leaf.subjectName, 'C');
  const rootCountry = field(anchor.subjectName, 'C');
  if (!leafCountry || (rootCountry && leafCountry.toUpperCase() !== rootCountry.toUpperCase())) {
    return fail(
      'untrusted_issuer',
      `the document signer's country (${leafCountry ?? 'none'}) is not its issuing authority's (${rootCountry ?? 'none'})`,
    );
  }
  return { ok: true, leaf, anchor };
}

/** The issuer of a credential as recorded with a decision: country and authority, from the signer certificate. */
export function issuerOf(leaf: x509.X509Certificate) {
  const name = leaf.subjectName;
  return {
    country: (field(name, 'C') ?? '').toUpperCase(),
    authority: field(name, 'O') ?? field(name, 'CN') ?? leaf.subject,
  };
}

export type AnchorDescription = {
  subject: string;
  country: string | null;
  notBefore: Date;
  notAfter: Date;
  fingerprintSha256: string;
  der: Uint8Array;
};

/**
 * Reads every certificate of a PEM file (a bundle may hold several) and checks that each can serve as an IACA root:
 * a self-signed CA certificate with a country, not expired. Anything else is refused with the reason.
 */
export async function readIacaPem(
  pem: string,
  now: Date,
): Promise<{ ok: AnchorDescription[]; refused: { index: number; subject: string | null; problem: string }[] }> {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  const ok: AnchorDescription[] = [];
  const refused: { index: number; subject: string | null; problem: string }[] = [];
  for (const [index, block] of blocks.entries()) {
    let cert: x509.X509Certificate;
    try {
      cert = new x509.X509Certificate(block);
    } catch {
      refused.push({ index, subject: null, problem: 'not a readable X.509 certificate' });
      continue;
    }
    const problem = !isCa(cert)
      ? 'not a CA certificate (basicConstraints cA and keyCertSign are required)'
      : !(await cert.isSelfSigned().catch(() => false))
        ? 'not self-signed: add the root (IACA) certificate, not an intermediate or a document signer'
        : !field(cert.subjectName, 'C')
          ? 'its subject has no country (C), which ISO/IEC 18013-5 requires of an IACA'
          : cert.notAfter.getTime() < now.getTime()
            ? `expired on ${cert.notAfter.toISOString()}`
            : null;
    if (problem) {
      refused.push({ index, subject: cert.subject, problem });
      continue;
    }
    const fp = Buffer.from(await cert.getThumbprint('SHA-256')).toString('hex');
    ok.push({
      subject: cert.subject,
      country: field(cert.subjectName, 'C')!.toUpperCase(),
      notBefore: cert.notBefore,
      notAfter: cert.notAfter,
      fingerprintSha256: fp,
      der: new Uint8Array(cert.rawData),
    });
  }
  return { ok, refused };
}

/**
 * Certificates for `vidpub emulator --tls`: a CA made at start, and server
 * certificates it signs for 127.0.0.1, ::1 and localhost (the API's and the
 * storage's), so a client that trusts the CA file (--ca-file) checks them as
 * it would the real service's. Also used by the tests to make the bad
 * certificates (expired, for another host, self-signed, from an unknown CA).
 *
 * The keys are ECDSA on P-256, which TLS clients all take and which take
 * well under a millisecond to make (a 2048-bit RSA key takes 0.1 to 0.5 s of CPU,
 * three of them at each `--tls` start). Node 20 reads X.509 (X509Certificate)
 * but cannot write one: node-forge's ASN.1 writer assembles the certificate
 * (forge's own certificates are RSA only), node:crypto makes the keys and the
 * signatures. Loaded with the emulator's --tls only.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Forge from 'node-forge';

let forgeLoaded: Promise<typeof Forge> | undefined;
/** node-forge, loaded on the first certificate (the emulator without --tls never loads it). */
const loadForge = () => (forgeLoaded ??= import('node-forge').then((m) => (m as { default?: typeof Forge }).default ?? (m as typeof Forge)));

/** A certificate and its private key, PEM. */
export interface KeyPair {
  cert: string;
  key: string;
}

export interface IssueOptions {
  /** The subject's common name. */
  name: string;
  /** DNS names and IP addresses the certificate is for (none for a CA). */
  hosts?: readonly string[];
  /** A CA (may sign others). */
  ca?: boolean;
  /** Signed by this CA; absent: self-signed. */
  issuer?: KeyPair;
  notBefore?: Date;
  notAfter?: Date;
}

const DAY_MS = 86_400_000;
const IP = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-f:]*:[0-9a-f:.]*)$/i;

/** The hosts an emulator on this machine is reached by. */
export const LOCAL_HOSTS: readonly string[] = ['127.0.0.1', '::1', 'localhost'];

/** ecdsa-with-SHA256 (RFC 5758): the signature algorithm, whose identifier has no parameters. */
const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';

/** A certificate (with a new P-256 key), valid from a day ago for 30 days unless said otherwise. */
export async function issueCertificate(o: IssueOptions): Promise<KeyPair> {
  const forge = await loadForge();
  const { asn1 } = forge;
  const { UNIVERSAL, CONTEXT_SPECIFIC } = asn1.Class;
  const seq = (...value: Forge.asn1.Asn1[]) => asn1.create(UNIVERSAL, asn1.Type.SEQUENCE, true, value);
  const fromDer = (der: Buffer) => asn1.fromDer(forge.util.createBuffer(der.toString('binary')));

  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const jwk = publicKey.export({ format: 'jwk' });
  // The key identifier of RFC 5280 (4.2.1.2, method 1): SHA-1 of the public key's bits, 04 || x || y.
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  const keyId = createHash('sha1').update(point).digest('binary');

  // forge fills in the names' and extensions' encodings on a certificate it holds.
  const scratch = forge.pki.createCertificate();
  scratch.setSubject([{ name: 'commonName', value: o.name }, { name: 'organizationName', value: 'vidpub emulator' }]);
  const extensions: object[] = [
    { name: 'basicConstraints', cA: o.ca === true, critical: true },
    o.ca ? { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true } : { name: 'keyUsage', digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier', value: asn1.create(UNIVERSAL, asn1.Type.OCTETSTRING, false, keyId) },
  ];
  if (!o.ca) extensions.push({ name: 'extKeyUsage', serverAuth: true });
  if (o.hosts?.length) {
    extensions.push({ name: 'subjectAltName', altNames: o.hosts.map((h) => (IP.test(h) ? { type: 7, ip: h } : { type: 2, value: h })) });
  }
  scratch.setExtensions(extensions);
  const subject = forge.pki.distinguishedNameToAsn1(scratch.subject);
  // The issuer's name as its certificate spells it: the subject, field 5 of its TBSCertificate.
  const issuerName = o.issuer ? (fromDer(new X509Certificate(o.issuer.cert).raw).value[0] as Forge.asn1.Asn1).value[5] as Forge.asn1.Asn1 : subject;

  const now = Date.now();
  // RFC 5280 (4.1.2.5): UTCTime through 2049, GeneralizedTime from 2050.
  const time = (d: Date) => (d.getUTCFullYear() < 2050 ? asn1.create(UNIVERSAL, asn1.Type.UTCTIME, false, asn1.dateToUtcTime(d)) : asn1.create(UNIVERSAL, asn1.Type.GENERALIZEDTIME, false, asn1.dateToGeneralizedTime(d)));
  const algorithm = seq(asn1.create(UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(ECDSA_WITH_SHA256).getBytes()));
  const tbs = seq(
    asn1.create(CONTEXT_SPECIFIC, 0, true, [asn1.create(UNIVERSAL, asn1.Type.INTEGER, false, asn1.integerToDer(2).getBytes())]),
    // A positive serial (the high bit clear), random, as CAs do.
    asn1.create(UNIVERSAL, asn1.Type.INTEGER, false, Buffer.concat([Buffer.from([1]), randomBytes(15)]).toString('binary')),
    algorithm,
    issuerName,
    seq(time(o.notBefore ?? new Date(now - DAY_MS)), time(o.notAfter ?? new Date(now + 30 * DAY_MS))),
    subject,
    fromDer(spki),
    (forge.pki as typeof forge.pki & { certificateExtensionsToAsn1(e: unknown[]): Forge.asn1.Asn1 }).certificateExtensionsToAsn1(scratch.extensions),
  );
  const tbsDer = Buffer.from(asn1.toDer(tbs).getBytes(), 'binary');
  const signature = sign('sha256', tbsDer, o.issuer ? o.issuer.key : privateKey);
  const der = asn1.toDer(seq(tbs, algorithm, asn1.create(UNIVERSAL, asn1.Type.BITSTRING, false, '\0' + signature.toString('binary')))).getBytes();
  const cert = `-----BEGIN CERTIFICATE-----\n${Buffer.from(der, 'binary').toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;
  return { cert, key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/** What `--tls` serves: one CA, and a certificate of its own for each listener. */
export interface EmulatorTls {
  /** The CA's certificate (PEM) clients are told to trust. */
  caCert: string;
  api: KeyPair;
  storage: KeyPair;
}

/** A new CA and two server certificates it signs for this machine's names. */
export async function makeEmulatorTls(): Promise<EmulatorTls> {
  const ca = await issueCertificate({ name: 'vidpub emulator CA', ca: true });
  const server = (name: string) => issueCertificate({ name, hosts: LOCAL_HOSTS, issuer: ca });
  return { caCert: ca.cert, api: await server('vidpub emulator API'), storage: await server('vidpub emulator storage') };
}

/** Writes the CA certificate to a new private directory; returns its path and how to remove it. */
export async function writeCaFile(caCert: string): Promise<{ path: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'vidpub-emulator-tls-'));
  const path = join(dir, 'ca.pem');
  await writeFile(path, caCert, { mode: 0o600 });
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}

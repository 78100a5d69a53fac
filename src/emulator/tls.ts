/**
 * Certificates for `vidpub emulator --tls`: a CA made at start, and server
 * certificates it signs for 127.0.0.1, ::1 and localhost (the API's and the
 * storage's), so a client that trusts the CA file (--ca-file) checks them as
 * it would the real service's. Also used by the tests to make the bad
 * certificates (expired, for another host, self-signed, from an unknown CA).
 *
 * node-forge builds the certificates: Node 20 reads X.509 (X509Certificate)
 * but cannot write one. The keys and the signatures come from node:crypto
 * (native; forge's RSA in JavaScript is many times slower to sign), forge only
 * assembles the certificate. Loaded with the emulator's --tls only.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
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

/** A certificate (with a new 2048-bit RSA key), valid from a day ago for 30 days unless said otherwise. */
export async function issueCertificate(o: IssueOptions): Promise<KeyPair> {
  const forge = await loadForge();
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  // A positive serial (the high bit clear), random, as CAs do.
  cert.serialNumber = '01' + randomBytes(15).toString('hex');
  const now = Date.now();
  cert.validity.notBefore = o.notBefore ?? new Date(now - DAY_MS);
  cert.validity.notAfter = o.notAfter ?? new Date(now + 30 * DAY_MS);
  const subject = [{ name: 'commonName', value: o.name }, { name: 'organizationName', value: 'vidpub emulator' }];
  cert.setSubject(subject);
  const issuer = o.issuer ? forge.pki.certificateFromPem(o.issuer.cert) : undefined;
  cert.setIssuer(issuer ? issuer.subject.attributes : subject);
  const extensions: object[] = [
    { name: 'basicConstraints', cA: o.ca === true, critical: true },
    o.ca ? { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true } : { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ];
  if (!o.ca) extensions.push({ name: 'extKeyUsage', serverAuth: true });
  if (o.hosts?.length) {
    extensions.push({ name: 'subjectAltName', altNames: o.hosts.map((h) => (IP.test(h) ? { type: 7, ip: h } : { type: 2, value: h })) });
  }
  cert.setExtensions(extensions);
  // What forge's cert.sign does, with the signature made by node:crypto: SHA-256 with RSA over the DER of the
  // to-be-signed part, which names that algorithm.
  cert.signatureOid = cert.siginfo.algorithmOid = forge.pki.oids.sha256WithRSAEncryption!;
  cert.tbsCertificate = (forge.pki as typeof forge.pki & { getTBSCertificate(c: Forge.pki.Certificate): Forge.asn1.Asn1 }).getTBSCertificate(cert);
  const tbs = Buffer.from(forge.asn1.toDer(cert.tbsCertificate).getBytes(), 'binary');
  cert.signature = sign('sha256', tbs, o.issuer ? o.issuer.key : privateKey).toString('binary');
  return { cert: forge.pki.certificateToPem(cert), key: keyPem };
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

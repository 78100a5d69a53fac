/**
 * Each certificate problem: one sentence saying what to do, exit 1 (the
 * "could not reach the service" class), no stack trace, no retry. Real TLS
 * servers with certificates made by src/emulator/tls.ts.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCertificate, LOCAL_HOSTS, type KeyPair } from '../../src/emulator/tls.js';
import { runCli } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'vidpub-certs-'));
const servers: Server[] = [];
let ca: KeyPair;
let caFile: string;
/** TCP connections accepted, by every server. */
let handshakes = 0;

/** An https server presenting `pair`; answers nothing that matters (the handshake fails first). */
async function serve(pair: KeyPair): Promise<string> {
  const server = createServer({ cert: pair.cert, key: pair.key }, (_req, res) => res.end('{}'));
  server.on('connection', () => handshakes++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

beforeAll(async () => {
  ca = await issueCertificate({ name: 'Test CA', ca: true });
  caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, ca.cert);
});
afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

const me = (baseUrl: string, env: Record<string, string> = {}) =>
  runCli(['me'], { env: { VIDPUB_BASE_URL: baseUrl, VIDPUB_API_KEY: 'vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td', ...env } });

describe('certificate problems', () => {
  it('an unknown CA: says so and how to trust a private CA; exit 1, tried once', async () => {
    const other = await issueCertificate({ name: 'Some other CA', ca: true });
    const url = await serve(await issueCertificate({ name: 'svc', hosts: LOCAL_HOSTS, issuer: other }));
    const before = handshakes;
    const r = await me(url, { VIDPUB_CA_FILE: caFile });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Error: Could not reach the service at https:\/\/127\.0\.0\.1:\d+\/v1\/me securely: the certificate of 127\.0\.0\.1:\d+ was issued by a certificate authority this machine does not trust \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)\.\n/);
    expect(r.stderr).toMatch(/give its certificate with --ca-file FILE or VIDPUB_CA_FILE/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // Not retried: the same certificate would come back.
    expect(handshakes - before).toBe(1);
  });

  it('an expired certificate: check the clock, or the host must renew it; exit 1', async () => {
    const day = 86_400_000;
    const url = await serve(await issueCertificate({ name: 'svc', hosts: LOCAL_HOSTS, issuer: ca, notBefore: new Date(Date.now() - 30 * day), notAfter: new Date(Date.now() - day) }));
    const r = await me(url, { VIDPUB_CA_FILE: caFile });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/securely: the certificate of 127\.0\.0\.1:\d+ has expired \(CERT_HAS_EXPIRED\)\.\nCheck this machine's date and time/);
  });

  it('a certificate for another host: names what it is for; exit 1', async () => {
    const url = await serve(await issueCertificate({ name: 'svc', hosts: ['api.other.example'], issuer: ca }));
    const r = await me(url, { VIDPUB_CA_FILE: caFile });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/securely: the certificate presented by 127\.0\.0\.1:\d+ is for other host names \(it names DNS:api\.other\.example\) \(ERR_TLS_CERT_ALTNAME_INVALID\)\.\nCheck the host in the base URL/);
  });

  it('a self-signed certificate: says so, and how to trust it if it is yours; exit 1', async () => {
    const url = await serve(await issueCertificate({ name: 'svc', hosts: LOCAL_HOSTS }));
    const r = await me(url);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/securely: 127\.0\.0\.1:\d+ presented a self-signed certificate, which no certificate authority vouches for \(DEPTH_ZERO_SELF_SIGNED_CERT\)\.\nIf you trust this server/);
  });

  it('the same problems with --json: one object, exit_code 1', async () => {
    const url = await serve(await issueCertificate({ name: 'svc', hosts: LOCAL_HOSTS }));
    const r = await runCli(['me', '--json'], { env: { VIDPUB_BASE_URL: url, VIDPUB_API_KEY: 'vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td' } });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr).error).toMatchObject({ type: 'service', exit_code: 1 });
  });
});

describe('the CA file', () => {
  it('a missing file is exit 2 naming it and where it came from', async () => {
    const r = await me('https://127.0.0.1:9/v1', { VIDPUB_CA_FILE: join(dir, 'nope.pem') });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Error: the CA file .*nope\.pem \(from VIDPUB_CA_FILE\): no such file\n/);
  });

  it('a FIFO or a directory in its place is exit 2 at once, saying what it is (a FIFO is never waited on)', async () => {
    const fifo = join(dir, 'ca.fifo');
    execFileSync('mkfifo', [fifo]);
    for (const [file, kind] of [[fifo, 'a pipe \\(FIFO\\)'], [dir, 'a directory']] as const) {
      const r = await me('https://127.0.0.1:9/v1', { VIDPUB_CA_FILE: file });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^Error: the CA file \\S+ \\(from VIDPUB_CA_FILE\\) is ${kind}, not a regular file\\n`));
    }
  });

  it('a file without a PEM certificate is exit 2', async () => {
    const bad = join(dir, 'bad.pem');
    writeFileSync(bad, 'not a certificate\n');
    const r = await runCli(['me', '--ca-file', bad], { env: { VIDPUB_BASE_URL: 'https://127.0.0.1:9/v1', VIDPUB_API_KEY: 'vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Error: the CA file .*bad\.pem \(from --ca-file\) has no PEM certificate in it\n/);
  });

  it('the certificates made are ECDSA P-256, signed with SHA-256, and verify with openssl against their CA', async () => {
    const pair = await issueCertificate({ name: 'svc', hosts: LOCAL_HOSTS, issuer: ca });
    const cert = new X509Certificate(pair.cert);
    expect(cert.publicKey.asymmetricKeyType).toBe('ec');
    expect(cert.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    expect([cert.subject, cert.issuer, cert.subjectAltName]).toEqual(['CN=svc\nO=vidpub emulator', 'CN=Test CA\nO=vidpub emulator', 'IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:localhost']);
    expect([cert.ca, new X509Certificate(ca.cert).ca, cert.checkIssued(new X509Certificate(ca.cert))]).toEqual([false, true, true]);
    const file = join(dir, 'svc.pem');
    writeFileSync(file, pair.cert);
    const text = execFileSync('openssl', ['x509', '-in', file, '-noout', '-text'], { encoding: 'utf8' });
    expect(text.match(/Signature Algorithm: (\S+)/g)).toEqual(['Signature Algorithm: ecdsa-with-SHA256', 'Signature Algorithm: ecdsa-with-SHA256']);
    expect(execFileSync('openssl', ['verify', '-CAfile', caFile, file], { encoding: 'utf8' })).toBe(`${file}: OK\n`);
    // Signed by another CA, it does not verify against this one.
    const stranger = await issueCertificate({ name: 'svc', hosts: LOCAL_HOSTS, issuer: await issueCertificate({ name: 'Test CA', ca: true }) });
    writeFileSync(file, stranger.cert);
    expect(() => execFileSync('openssl', ['verify', '-CAfile', caFile, file], { stdio: 'pipe' })).toThrow(/signature failure|verify error/);
  });

  it('trusts the file besides the system roots: a certificate of that CA passes', async () => {
    const url = await serve(await issueCertificate({ name: 'svc', hosts: LOCAL_HOSTS, issuer: ca }));
    const r = await me(url, { VIDPUB_CA_FILE: caFile });
    // The handshake passed: what fails is the answer ({} is not a /me record), not the certificate.
    expect(r.stderr).not.toMatch(/securely|certificate/);
  });
});

/**
 * A service (or something in its place) that echoes the key it was sent:
 * whole, without its vp_live_ prefix, JSON-escaped (\u005f), percent-encoded,
 * as HTML character references. Whatever the form, and whether vidpub prints
 * the answer as text, as --json or in a --debug line, the key is never on
 * stdout or stderr: redaction runs on the decoded text, at the streams.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { secretForms } from '../../src/api/send/http-errors.js';
import { guardOutput, redactKnown } from '../../src/util/redact.js';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { startFaultProxy, type FaultProxy, type SeenRequest } from '../support/fault-proxy.js';

const emu = useEmulator();
let proxy: FaultProxy;
beforeAll(async () => {
  proxy = await startFaultProxy(emu.baseUrl);
});
afterAll(() => proxy.close());
beforeEach(() => proxy.clear());

const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(2, '0');
/** Every form of the key an echo may take. */
function forms(key: string): Record<string, string> {
  const secret = key.slice('vp_live_'.length);
  return {
    whole: key,
    'secret part': secret,
    'JSON-escaped': key.replace(/_/g, '\\u005f'),
    'JSON-escaped, every character': [...key].map((c) => `\\u00${hex(c)}`).join(''),
    'percent-encoded': [...key].map((c) => `%${hex(c).toUpperCase()}`).join(''),
    'HTML references': [...key].map((c) => `&#${c.charCodeAt(0)};`).join(''),
  };
}

/** What stands for the key when it is shown at all. */
const masked = (key: string) => `…${key.slice(-4)}`;

function expectNoKey(text: string, key: string): void {
  for (const [name, form] of Object.entries(forms(key))) expect(text, `the key ${name}`).not.toContain(form);
  // and what decoding any of them would give back
  expect(text).not.toContain(key.slice('vp_live_'.length, -4));
}

/** A service error body whose message echoes the key in one form (the raw JSON text: a \u escape stays one). */
const serviceEcho = (form: (key: string) => string) => (req: SeenRequest) =>
  `{"error":{"type":"invalid_request","code":"invalid_field","param":"caption","message":"caption refused for key ${form(req.key!)}"}}`;

const POST = ['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'x', '--no-input', '--no-wait'];

describe('an echoed key is never printed, in any form', () => {
  const key = () => emu.key();
  for (const name of Object.keys(forms('vp_live_x'))) {
    for (const mode of ['text', '--json', '--debug'] as const) {
      it(`a refusal of POST /posts echoing the key (${name}), ${mode}: exit 2, the message shown, the key not`, async () => {
        const form = (k: string) => forms(k)[name]!;
        proxy.add({ method: 'POST', path: '/v1/posts', mode: 'instead', answer: { status: 400, contentType: 'application/json', body: serviceEcho(form) } });
        const r = await runCli(mode === 'text' ? POST : [...POST, mode], { env: { ...emu.env(), VIDPUB_BASE_URL: proxy.baseUrl } });
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/caption refused for key /);
        expectNoKey(r.stdout + r.stderr, key());
        if (name === 'whole' || name === 'JSON-escaped') expect(r.stderr).toContain(`vp_live_${masked(key())}`);
        if (mode === '--json') expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!)).toMatchObject({ error: { exit_code: 2 } });
      });
    }
  }

  for (const mode of ['text', '--json'] as const) {
    it(`a record that carries the key (GET /me, the workspace named after it, JSON-escaped), ${mode}: printed without it`, async () => {
      const me = (await emu.api.get<{ workspace: { name: string } }>('/me')).body;
      const body = JSON.stringify({ ...me, workspace: { ...me.workspace, name: `ws-${key()}` } }).replace(/_/g, '\\u005f');
      proxy.add({ method: 'GET', path: '/v1/me', mode: 'instead', answer: { status: 200, contentType: 'application/json', body } });
      const r = await runCli(mode === 'text' ? ['me'] : ['me', '--json'], { env: { ...emu.env(), VIDPUB_BASE_URL: proxy.baseUrl } });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`ws-vp_live_${masked(key())}`);
      expectNoKey(r.stdout + r.stderr, key());
    });
  }

  it('a 401 of GET /me echoing the key as HTML references in a page: exit 3, no key', async () => {
    proxy.add({ method: 'GET', path: '/v1/me', mode: 'instead', answer: { status: 401, contentType: 'text/html', body: (req) => `<html><title>Key ${forms(req.key!)['HTML references']} refused</title></html>` } });
    const r = await runCli(['me'], { env: { ...emu.env(), VIDPUB_BASE_URL: proxy.baseUrl } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/The API key was refused: Key vp_live_…\w{4} refused/);
    expectNoKey(r.stdout + r.stderr, key());
  });

  it('a 200 page of GET /me that is not JSON, echoing the key percent-encoded: exit 1 naming what came, no key', async () => {
    proxy.add({ method: 'GET', path: '/v1/me', mode: 'instead', answer: { status: 200, contentType: 'text/plain', body: (req) => `hello ${forms(req.key!)['percent-encoded']}` } });
    const r = await runCli(['me', '--debug'], { env: { ...emu.env(), VIDPUB_BASE_URL: proxy.baseUrl } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Unexpected response to GET \S+\/v1\/me: HTTP 200 \(text\/plain\) is not JSON: hello vp_live_…\w{4}/);
    expectNoKey(r.stdout + r.stderr, key());
  });
});

describe('redactKnown and guardOutput', () => {
  const KEY = 'vp_live_demo_rw_S3cretValue9876';
  const secrets = secretForms(KEY);

  it('takes out the key and its secret part in any encoding, mixed too, and leaves other text alone', () => {
    for (const [name, form] of Object.entries(forms(KEY))) {
      const out = redactKnown(`a ${form} b`, secrets);
      expect(out, name).not.toContain(form);
      expect(out, name).toMatch(/^a (vp_live_)?…9876 b$/);
    }
    const mixed = 'vp%5Flive\\u005fdemo&#95;rw_S3cretValue9876';
    expect(redactKnown(mixed, secrets)).toBe('vp_live_…9876');
    // JSON inside JSON: the escape's backslash escaped again
    expect(redactKnown('vp\\\\u005flive_demo_rw_S3cretValue9876', secrets)).toBe('vp_live_…9876');
    expect(redactKnown('a caption about live_demo streams', secrets)).toBe('a caption about live_demo streams');
    // too short to be a secret: never taken for one
    expect(redactKnown('abc', [{ text: 'abc' }])).toBe('abc');
  });

  it('takes out every plain copy, with or without escape characters elsewhere in the text, and puts the stand-in as it is', () => {
    // no \, % or &: the plain search; with one: the full pattern. The same result either way.
    expect(redactKnown(`${KEY} and ${KEY}`, secrets)).toBe('vp_live_…9876 and vp_live_…9876');
    expect(redactKnown(`${KEY} at 100% and ${KEY}`, secrets)).toBe('vp_live_…9876 at 100% and vp_live_…9876');
    expect(redactKnown('a another-secret-1234 b', [{ text: 'another-secret-1234', shown: '$&$1' }])).toBe('a $&$1 b');
    expect(redactKnown('a &amp; another-secret-1234 b', [{ text: 'another-secret-1234', shown: '$&$1' }])).toBe('a &amp; $&$1 b');
  });

  it('guards a stream: strings, bytes and end(chunk) alike; other bytes pass untouched', () => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    guardOutput(out, secrets);
    guardOutput(out, [{ text: 'another-secret-1234' }]);
    out.write(`one ${KEY}\n`);
    out.write(Buffer.from(`two demo_rw_S3cretValue9876 é\n`));
    const binary = Buffer.from([0xff, 0xfe, 0x00, 0x80]);
    out.write(binary);
    out.end('three another-secret-1234\n');
    const all = Buffer.concat(chunks);
    expect(all.toString('latin1')).toContain('\xff\xfe\x00\x80');
    const text = all.toString('utf8');
    expect(text).toContain('one vp_live_…9876\n');
    expect(text).toContain('two …9876 é\n');
    expect(text).toContain('three [redacted key]\n');
    expect(text).not.toContain('S3cretValue');
  });
});

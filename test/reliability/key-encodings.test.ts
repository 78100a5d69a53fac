/**
 * The key echoed in the encodings a service or a proxy may use: base64
 * and base64url (padded or not; the key at each of the 3 alignments inside a longer base64 text,
 * as base64 of "Bearer <key>" or "user:<key>"), hex (lower, upper, separated), percent-encoding
 * of every byte, HTML numeric references, JSON \u escapes, other separators, and the key split by
 * a space, a line break or an invisible character. In text, --json and --debug output the echo is
 * shown masked (its last 4 characters), never whole. The masking is vidpub's own code on the
 * context's streams (src/api/http-client.ts guards them), so each encoding runs the command
 * (`me`, refused with the echo) in-process (runCli: main() over real HTTP through the proxy); the encodings in BUILT_BIN also
 * run through the built bin, whose real stdout and stderr get the same guard.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { PassThrough } from 'node:stream';
import { secretForms } from '../../src/api/send/http-errors.js';
import { guardOutput, redactKnown, secretTexts } from '../../src/util/redact.js';

const emu = useEmulator();
let proxy: FaultProxy;
beforeAll(async () => {
  ensureBuilt();
  proxy = await startFaultProxy(emu.baseUrl);
});
afterAll(() => proxy.close());
beforeEach(() => proxy.clear());

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const b64url = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');
const split = (s: string, by: string) => `${s.slice(0, 11)}${by}${s.slice(11)}`;

/** Each encoding of the key, made here independently of src/util/redact.ts. */
const FORMS: Record<string, (key: string) => string> = {
  'base64, padded': (k) => b64(k),
  'base64, unpadded': (k) => b64(k).replace(/=+$/, ''),
  'base64url': (k) => b64url(k),
  'base64 of "Bearer <key>" (alignment 1)': (k) => b64(`Bearer ${k}`),
  'base64 of "user:<key>" (alignment 2)': (k) => b64(`user:${k}`),
  'base64 of "abc<key>xy" (alignment 0)': (k) => b64(`abc${k}xy`),
  'base64url of "Bearer <key>"': (k) => b64url(`Bearer ${k}`),
  'base64url of "user:<key>"': (k) => b64url(`user:${k}`),
  'base64 wrapped at 20 columns': (k) => b64(`Bearer ${k}`).replace(/.{20}/g, '$&\n'),
  'hex, lower case': (k) => hex(k),
  'hex, upper case': (k) => hex(k).toUpperCase(),
  'hex, colon-separated': (k) => hex(k).replace(/..(?!$)/g, '$&:'),
  'hex, space-separated': (k) => hex(k).replace(/..(?!$)/g, '$& '),
  'hex, \\x escapes': (k) => hex(k).replace(/../g, '\\x$&'),
  'percent-encoded, every byte': (k) => hex(k).replace(/../g, '%$&').toUpperCase(),
  'percent-encoded, lower case': (k) => hex(k).replace(/../g, '%$&'),
  'percent-encoded twice': (k) => hex(k).replace(/../g, '%25$&'),
  'HTML decimal references': (k) => [...k].map((c) => `&#${c.charCodeAt(0)};`).join(''),
  'HTML hex references': (k) => [...k].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join(''),
  'JSON \\u escapes': (k) => [...k].map((c) => `\\u00${c.charCodeAt(0).toString(16)}`).join(''),
  'other separators (-)': (k) => k.replace(/_/g, '-'),
  'other separators (.)': (k) => k.replace(/_/g, '.'),
  'split by a space': (k) => split(k, ' '),
  'split by a line break': (k) => split(k, '\n'),
  'split by U+200B': (k) => split(k, '\u200b'),
  'split by U+00AD': (k) => split(k, '\u00ad'),
  'split by U+FEFF': (k) => split(k, '\ufeff'),
  'every character split by U+200B': (k) => [...k].join('\u200b'),
  'split by a percent-encoded U+200B': (k) => split(k, '%E2%80%8B'),
  'its "_" written as U+FF3F FULLWIDTH LOW LINE': (k) => k.replace(/_/g, '\uff3f'),
};

/** The encodings that also run through the built bin (a base64 alignment, and a split by an invisible character). */
const BUILT_BIN = new Set(['base64 of "Bearer <key>" (alignment 1)', 'split by U+200B']);

/**
 * The command that meets the refusal: `me`, one request (the masking is on the command's output streams, whatever
 * the command; a `post` took four requests and the journal's writes to reach its refusal, 90 times).
 */
const ME = ['me'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  via: string;
}

/** The text between each "key " and " END" of the output: where the echo was. */
function echoes(output: string): string[] {
  return [...output.matchAll(/refused for key ([\s\S]*?) END/g)].map((m) => m[1]!);
}

describe('an echoed key in an encoding is masked (in-process; two encodings through the built bin too)', () => {
  const key = () => emu.key();
  for (const [name, form] of Object.entries(FORMS)) {
    const bin = BUILT_BIN.has(name);
    it(`${name}: text, --json and --debug show it masked, never whole${bin ? ' (in-process and through the built bin)' : ''}`, async () => {
      // The message of a refusal of GET /me carries the encoded key (JSON-escaped in the body as JSON requires).
      proxy.add({
        method: 'GET',
        path: '/v1/me',
        mode: 'instead',
        answer: { status: 400, contentType: 'application/json', body: (req) => JSON.stringify({ error: { type: 'invalid_request', code: 'invalid_field', message: `refused for key ${form(req.key!)} END` } }) },
      });
      const env = { PATH: process.env.PATH ?? '', VIDPUB_API_KEY: key(), VIDPUB_BASE_URL: proxy.baseUrl, NO_COLOR: '1', VIDPUB_NO_KEYRING: '1' };
      const argvs = ['text', '--json', '--debug'].map((mode) => (mode === 'text' ? ME : [...ME, mode]));
      const inProcess = async (argv: string[]): Promise<Run> => ({ ...(await runCli(argv, { env })), via: 'in-process' });
      const builtBin = async (argv: string[]): Promise<Run> => {
        const r = await runAsync(process.execPath, [BIN, ...argv], { env });
        return { code: r.status, stdout: r.stdout, stderr: r.stderr, via: 'the built bin' };
      };
      const runs = await Promise.all([...argvs.map(inProcess), ...(bin ? argvs.map(builtBin) : [])]);
      for (const [i, r] of runs.entries()) {
        const out = r.stdout + r.stderr;
        expect([name, i, r.via, r.code]).toEqual([name, i, r.via, 2]);
        const seen = echoes(out);
        expect(seen.length, `${name} #${i}: the echo is shown\n${out}`).toBeGreaterThan(0);
        for (const e of seen) {
          expect(e, `${name} #${i}`).toContain(`…${key().slice(-4)}`);
          expect(e.length, `${name} #${i}: ${e}`).toBeLessThan(form(key()).length);
        }
        expect(out).not.toContain(form(key()));
        expect(out).not.toContain(key().slice('vp_live_'.length, -4));
      }
    }, 30_000);
  }
});

describe('the forms redaction looks for', () => {
  it('each base64 alignment and hex form of the key is among them, and each is long enough to be the key alone', () => {
    const k = 'vp_live_demo_rw_S3cretValue9876';
    const forms = secretTexts(k);
    for (const prefix of ['', 'a', 'ab']) {
      const enc = b64(prefix + k);
      expect(forms.some((f) => enc.includes(f) && f.length >= 36)).toBe(true);
    }
    expect(forms).toContain(hex(k));
    expect(forms).toContain(hex(k).toUpperCase());
    expect(Math.min(...forms.map((f) => f.length))).toBeGreaterThanOrEqual(8);
  });
});

describe('redactKnown on the decoded view', () => {
  const KEY = 'vp_live_demo_rw_S3cretValue9876';
  const secrets = secretForms(KEY);

  it('takes out only the key: the text around it, other hex and base64, and prose stay as they were', () => {
    const prose = 'a caption about live demo streams, 100% & more \\ paths\nnext line\u200b';
    expect(redactKnown(prose, secrets)).toBe(prose);
    const other = `${hex('another value entirely')} ${b64('another value entirely')}`;
    expect(redactKnown(other, secrets)).toBe(other);
    expect(redactKnown(`(${split(KEY, '\u200b')})`, secrets)).toBe('(vp_live_…9876)');
    expect(redactKnown(`x ${split(KEY, ' ')} y ${hex(KEY)} z`, secrets)).toBe('x vp_live_…9876 y vp_live_…9876 z');
    // In a longer base64 text, the characters the key decides alone are replaced; those it shares stay.
    const basic = b64(`user:${KEY}`);
    const out = redactKnown(`Authorization: Basic ${basic}`, secrets);
    expect(out).toMatch(/^Authorization: Basic dXNlcj\w{0,2}vp_live_…9876\S{0,3}$/);
  });

  it('its "_" and "-" written as look-alikes, raw, JSON-escaped, percent-encoded or as HTML references, and its secret part alone, are taken out', () => {
    const dashed = 'vp_live_demo_rw_S3cret-Value9876';
    const both = [...secrets, ...secretForms(dashed)];
    for (const low of ['\uff3f', '\ufe4d', '\ufe4f', '\u2017', '\u02cd']) expect(redactKnown(`(${KEY.replace(/_/g, low)})`, secrets), low).toBe('(vp_live_…9876)');
    expect(redactKnown(`(${dashed.replace(/_/g, '\uff3f').replace('-', '\u2011')})`, both)).toBe('(vp_live_…9876)');
    expect(redactKnown(`"${KEY.replace(/_/g, '\\uff3f')}"`, secrets)).toBe('"vp_live_…9876"');
    expect(redactKnown(`q=${KEY.replace(/_/g, '%EF%BC%BF')}&x=1`, secrets)).toBe('q=vp_live_…9876&x=1');
    expect(redactKnown(`<b>${KEY.replace(/_/g, '&#xFF3F;')}</b>`, secrets)).toBe('<b>vp_live_…9876</b>');
    expect(redactKnown('the secret S3cretValue9876 alone', secrets)).toBe('the secret …9876 alone');
    expect(redactKnown(`in base64 ${b64('S3cretValue9876')}`, secrets)).not.toContain(b64('S3cretValue9876').slice(0, 16));
    // Prose with the same characters stays as it was.
    const prose = 'a caption — with dashes – and ＿ lines ‗ of its own';
    expect(redactKnown(prose, secrets)).toBe(prose);
  });

  it('guards bytes too: a key split by the UTF-8 bytes of U+200B, U+00AD or U+FEFF is taken out', () => {
    const stream = new PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    guardOutput(stream, secrets);
    for (const by of ['\u200b', '\u00ad', '\ufeff']) stream.write(Buffer.from(`k ${split(KEY, by)} é\n`, 'utf8'));
    // and one written with its "_" as the UTF-8 bytes of U+FF3F or U+02CD
    for (const low of ['\uff3f', '\u02cd']) stream.write(Buffer.from(`k ${KEY.replace(/_/g, low)} é\n`, 'utf8'));
    stream.end();
    expect(Buffer.concat(chunks).toString('utf8')).toBe('k vp_live_…9876 é\n'.repeat(5));
  });
});

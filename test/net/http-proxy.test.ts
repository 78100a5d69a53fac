/**
 * Plain http through http_proxy (tinyproxy; never HTTP_PROXY, curl's rule): each request, the upload PUT to
 * the storage origin included, is sent to the proxy in absolute form; with
 * and without credentials; HTTPS_PROXY does not apply to http URLs (curl's
 * rule); NO_PROXY goes straight; a proxy nobody listens on is named as such.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliRunner } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { missing } from '../support/tools.js';
import { startTinyproxy, type Tinyproxy } from './tinyproxy.js';

const CLIP = join(__dirname, '..', 'fixtures', 'clip.mp4');
const AUTH = { user: 'ci-user', password: 'http-pa55_w0rd' };

describe.skipIf(missing('tinyproxy', ['-v']))('plain http through http_proxy (tinyproxy)', () => {
  let emu: TestEmulator;
  let open: Tinyproxy;
  let guarded: Tinyproxy;
  beforeAll(async () => {
    // Over plain http, with the upload links on a storage origin of their own.
    emu = await startTestEmulator({ storagePort: 0 });
    open = await startTinyproxy({ connectPorts: [] });
    guarded = await startTinyproxy({ connectPorts: [], auth: AUTH });
  });
  afterAll(async () => {
    await open?.stop();
    await guarded?.stop();
    await emu?.close();
  });

  const run = cliRunner(() => ({ clock: scaledClock(10), env: emu.env() }));
  const api = () => `http://127.0.0.1:${emu.port}/v1`;

  it('upload: the API calls and the PUT to the storage origin go through the proxy in absolute form', async () => {
    const before = open.forwarded().length;
    const r = await run(['upload', CLIP], { env: { http_proxy: open.url } });
    expect(r.stderr).toMatch(/Uploading clip\.mp4: 100%/);
    expect(r.code).toBe(0);
    const id = r.stdout.trim();
    expect(id).toMatch(/^med_\w+$/);
    const seen = open.forwarded().slice(before);
    expect(seen).toContain(`POST ${api()}/media/uploads`);
    expect(seen).toContainEqual(expect.stringMatching(new RegExp(`^PUT ${emu.info.storage_url!}/_uploads/${id}\\?`)));
    expect(seen).toContain(`POST ${api()}/media/${id}/complete`);
    expect(open.connects()).toEqual([]);
  });

  it('lower-case http_proxy with credentials: forwarded, and the password never printed, --debug included', async () => {
    const before = guarded.forwarded().length;
    const proxy = `http://${AUTH.user}:${encodeURIComponent(AUTH.password)}@127.0.0.1:${guarded.port}`;
    const r = await run(['me', '--debug'], { env: { http_proxy: proxy } });
    expect(r.code).toBe(0);
    expect(guarded.forwarded().slice(before)).toEqual([`GET ${api()}/me`]);
    expect(r.stderr).toContain(`GET ${api()}/me`);
    expect(r.stderr).not.toContain(AUTH.password);
    expect(r.stderr).not.toContain(emu.key());
  });

  it('HTTPS_PROXY alone does not apply to an http URL: straight, nothing in the proxy log', async () => {
    const before = open.log().length;
    const r = await run(['me', '--json'], { env: { HTTPS_PROXY: open.url } });
    expect(r.code).toBe(0);
    expect(open.log().slice(before)).not.toMatch(/Request \(file descriptor/);
  });

  it('NO_PROXY=127.0.0.1 goes straight', async () => {
    const before = open.forwarded().length;
    const r = await run(['destinations', '--json'], { env: { http_proxy: open.url, NO_PROXY: '127.0.0.1' } });
    expect(r.code).toBe(0);
    expect(open.forwarded().length).toBe(before);
  });

  it('a proxy that asks for credentials (407) refuses a write: a proxy problem, exit 1, not an unknown outcome; nothing reached the service', async () => {
    const before = (await emu.requests()).length;
    const r = await run(['upload', CLIP], { env: { http_proxy: `http://127.0.0.1:${guarded.port}` } });
    expect(r.stderr).toMatch(/^Error: Could not reach the service at http:\/\/127\.0\.0\.1:\d+\/v1\/media\/uploads: the proxy http:\/\/127\.0\.0\.1:\d+\/ \(http_proxy\) refused to pass on the request to 127\.0\.0\.1:\d+: HTTP 407 Proxy Authentication Required\.$/m);
    expect(r.stderr).toMatch(/Put the proxy's user and password in http_proxy/);
    expect(r.stderr).not.toMatch(/outcome|Rerun to settle/);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect((await emu.requests()).length).toBe(before);
  });

  it('a proxy nobody listens on: retried as a connection failure, then a proxy problem naming http_proxy, exit 1', async () => {
    const port = guarded.port;
    await guarded.stop();
    const r = await run(['me'], { env: { http_proxy: `http://127.0.0.1:${port}` } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/failed \(ECONNREFUSED: could not reach the proxy: connect ECONNREFUSED 127\.0\.0\.1:\d+\); retrying in 1s/);
    expect(r.stderr).toMatch(/^Error: Could not reach the service at http:\/\/127\.0\.0\.1:\d+\/v1\/me: could not reach the proxy http:\/\/127\.0\.0\.1:\d+\/ \(http_proxy\) \(ECONNREFUSED\)\.\nCheck http_proxy, or list 127\.0\.0\.1 in NO_PROXY to go straight/m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

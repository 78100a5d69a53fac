/**
 * Through a real proxy (tinyproxy): the API calls and the upload PUT over
 * HTTPS in CONNECT tunnels, with and without proxy credentials, NO_PROXY
 * going straight; the proxy's own log shows the CONNECTs. Under CI a missing
 * tinyproxy fails the file rather than skipping it.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliRunner } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { missing } from '../support/tools.js';
import { startTinyproxy, type Tinyproxy } from './tinyproxy.js';

const CLIP = join(__dirname, '..', 'fixtures', 'clip.mp4');
const AUTH = { user: 'ci-user', password: 'pa-ss_w0rd.42' };

describe.skipIf(missing('tinyproxy', ['-v']))('through tinyproxy', () => {
  let emu: TestEmulator;
  let open: Tinyproxy;
  let guarded: Tinyproxy;
  beforeAll(async () => {
    emu = await startTestEmulator({ tls: 'generate' });
    const ports = [emu.port, Number(new URL(emu.info.storage_url!).port)];
    open = await startTinyproxy({ connectPorts: ports });
    guarded = await startTinyproxy({ connectPorts: ports, auth: AUTH });
    // Certificates made and two proxies started: seconds on a loaded machine, so more than the suite's 20 s.
  }, 120_000);
  afterAll(async () => {
    await open?.stop();
    await guarded?.stop();
    await emu?.close();
  });

  const run = cliRunner(() => ({ clock: scaledClock(10), env: { ...emu.env(), VIDPUB_CA_FILE: emu.info.ca_file } }));
  const api = () => `127.0.0.1:${emu.port}`;
  const storage = () => new URL(emu.info.storage_url!).host;
  const withCreds = () => `http://${encodeURIComponent(AUTH.user)}:${encodeURIComponent(AUTH.password)}@127.0.0.1:${guarded.port}`;

  it('me, upload and post go through CONNECT tunnels, the PUT to the storage origin', async () => {
    const before = open.connects().length;
    const env = { HTTPS_PROXY: open.url };
    const me = await run(['me', '--json'], { env });
    expect(me.code).toBe(0);
    const up = await run(['upload', CLIP], { env });
    expect(up.code).toBe(0);
    expect(up.stderr).toMatch(/Uploading clip\.mp4: 100%/);
    const post = await run(['post', '--media', up.stdout.trim(), '--to', 'linkedin', '--caption', 'Via proxy', '--json'], { env });
    expect(post.code).toBe(0);
    expect(JSON.parse(post.stdout).status).toBe('completed');
    const tunnels = open.connects().slice(before);
    expect(tunnels).toContain(api());
    expect(tunnels).toContain(storage());
  });

  it('lower-case https_proxy works the same', async () => {
    const before = open.connects().length;
    const r = await run(['destinations', '--json'], { env: { https_proxy: open.url } });
    expect(r.code).toBe(0);
    expect(open.connects().slice(before)).toEqual([api()]);
  });

  it('with credentials in the proxy URL: tunnels open, and the password is never printed, --debug included', async () => {
    const before = guarded.connects().length;
    const r = await run(['upload', CLIP, '--debug'], { env: { HTTPS_PROXY: withCreds() } });
    expect(r.code).toBe(0);
    expect(guarded.connects().slice(before)).toEqual(expect.arrayContaining([api(), storage()]));
    expect(r.stderr).not.toContain(AUTH.password);
    expect(r.stderr).not.toContain(encodeURIComponent(AUTH.password));
  });

  it('without the credentials the proxy wants: one sentence about them, exit 1', async () => {
    const r = await run(['me'], { env: { HTTPS_PROXY: guarded.url } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Error: Could not reach the service at https:\/\/127\.0\.0\.1:\d+\/v1\/me: the proxy http:\/\/127\.0\.0\.1:\d+\/ \(HTTPS_PROXY\) refused to open a tunnel to 127\.0\.0\.1:\d+: HTTP 407 Proxy Authentication Required\.\nPut the proxy's user and password in HTTPS_PROXY/);
  });

  it('wrong credentials: the message shows the proxy URL redacted, never the password', async () => {
    const r = await run(['me'], { env: { HTTPS_PROXY: `http://ci-user:wrong-secret@127.0.0.1:${guarded.port}` } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the proxy http://[redacted]@127.0.0.1:');
    expect(r.stderr).not.toContain('wrong-secret');
  });

  it('NO_PROXY=127.0.0.1 goes straight: no CONNECT in the proxy log', async () => {
    const before = open.connects().length;
    const r = await run(['upload', CLIP], { env: { HTTPS_PROXY: open.url, NO_PROXY: 'example.com, 127.0.0.1' } });
    expect(r.code).toBe(0);
    expect(open.connects().length).toBe(before);
  });

  it('NO_PROXY with the API port only: the API goes straight, the PUT to the storage port through the proxy', async () => {
    const before = open.connects().length;
    const r = await run(['upload', CLIP], { env: { HTTPS_PROXY: open.url, no_proxy: api() } });
    expect(r.code).toBe(0);
    expect(open.connects().slice(before)).toEqual([storage()]);
  });

  it('a proxy nobody listens on: retried as a connection failure, then names it and the variable, exit 1', async () => {
    const port = guarded.port + 0;
    await guarded.stop();
    const r = await run(['me'], { env: { HTTPS_PROXY: `http://127.0.0.1:${port}` } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/failed \(ECONNREFUSED: could not reach the proxy: connect ECONNREFUSED 127\.0\.0\.1:\d+\); retrying in 1s/);
    expect(r.stderr).toMatch(/^Error: Could not reach the service at https:\/\/127\.0\.0\.1:\d+\/v1\/me: could not reach the proxy http:\/\/127\.0\.0\.1:\d+\/ \(HTTPS_PROXY\) \(ECONNREFUSED\)\.\nCheck HTTPS_PROXY, or list 127\.0\.0\.1 in NO_PROXY/m);
  });
});

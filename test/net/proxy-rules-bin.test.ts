/**
 * The proxy rules through the real bin, a real proxy (tinyproxy) and the
 * emulator over HTTPS: a NO_PROXY entry that cannot be read is a warning and
 * the command works; ALL_PROXY is the proxy when no scheme's variable is set;
 * NO_PROXY=0.1 does not send 127.0.0.1 straight; HTTP_PROXY is never the
 * proxy of an http URL. Under CI a missing tinyproxy fails the file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { missing } from '../support/tools.js';
import { startTinyproxy, type Tinyproxy } from './tinyproxy.js';

describe.skipIf(missing('tinyproxy', ['-v']))('the proxy rules through the bin (tinyproxy)', () => {
  let tls: TestEmulator;
  let plain: TestEmulator;
  let proxy: Tinyproxy;
  let dir: string;
  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'vidpub-proxy-rules-'));
    tls = await startTestEmulator({ tls: 'generate' });
    plain = await startTestEmulator({});
    proxy = await startTinyproxy({ connectPorts: [tls.port, Number(new URL(tls.info.storage_url!).port)] });
  }, 60_000);
  afterAll(async () => {
    await proxy?.stop();
    await tls?.close();
    await plain?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The built vidpub with only `env` (and PATH, a config dir of its own) in its environment. */
  const vidpub = (args: string[], emu: TestEmulator, env: Record<string, string>) =>
    runAsync(process.execPath, [BIN, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        VIDPUB_CONFIG_DIR: join(dir, 'config'),
        VIDPUB_STATE_DIR: join(dir, 'state'),
        VIDPUB_NO_CACHE: '1',
        NO_COLOR: '1',
        ...emu.env(),
        ...(emu === tls ? { VIDPUB_CA_FILE: tls.info.ca_file! } : {}),
        ...env,
      },
      timeoutMs: 60_000,
    });
  const api = () => `127.0.0.1:${tls.port}`;

  it('a NO_PROXY entry that cannot be read (10.0.0.0/33): a warning on stderr, the command works through the proxy, exit 0', async () => {
    const before = proxy.connects().length;
    const r = await vidpub(['me', '--json', '--quiet'], tls, { HTTPS_PROXY: proxy.url, NO_PROXY: '10.0.0.0/33, example.com, 10.0.0.0/' });
    expect(r.stderr).toContain('! NO_PROXY: the entry "10.0.0.0/33" is ignored: the prefix length of an IPv4 range is a number from 1 to 32. Fix it in NO_PROXY');
    expect(r.stderr).toContain('! NO_PROXY: the entry "10.0.0.0/" is ignored');
    expect(r.stderr).not.toMatch(/ERR_OUT_OF_RANGE|retrying/);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ workspace: expect.anything() });
    expect(proxy.connects().slice(before)).toEqual([api()]);
  });

  it('a malformed entry beside 127.0.0.1: warned about, and 127.0.0.1 still goes straight', async () => {
    const before = proxy.connects().length;
    const r = await vidpub(['me', '--json'], tls, { HTTPS_PROXY: proxy.url, no_proxy: '127.0.0.1/xx,127.0.0.1' });
    expect(r.stderr).toContain('! no_proxy: the entry "127.0.0.1/xx" is ignored');
    expect(r.status).toBe(0);
    expect(proxy.connects().length).toBe(before);
  });

  it('ALL_PROXY alone is the proxy of an https URL: the CONNECT is in the proxy log', async () => {
    const before = proxy.connects().length;
    const r = await vidpub(['me', '--json'], tls, { ALL_PROXY: proxy.url });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(proxy.connects().slice(before)).toEqual([api()]);
  });

  it('all_proxy alone is the proxy of an http URL: forwarded in absolute form', async () => {
    const before = proxy.forwarded().length;
    const r = await vidpub(['me', '--json'], plain, { all_proxy: proxy.url });
    expect(r.status).toBe(0);
    expect(proxy.forwarded().slice(before)).toEqual([`GET ${plain.baseUrl}/me`]);
  });

  it('NO_PROXY=0.1 does not send 127.0.0.1 straight: the request goes through the proxy', async () => {
    const before = proxy.connects().length;
    const r = await vidpub(['me', '--json'], tls, { HTTPS_PROXY: proxy.url, NO_PROXY: '0.1' });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(proxy.connects().slice(before)).toEqual([api()]);
  });

  it('HTTP_PROXY is never the proxy of an http URL (curl): straight, nothing in the proxy log', async () => {
    const before = proxy.log().length;
    const r = await vidpub(['me', '--json'], plain, { HTTP_PROXY: proxy.url });
    expect(r.status).toBe(0);
    expect(proxy.log().slice(before)).not.toMatch(/Request \(file descriptor/);
  });

  it('ALL_PROXY=socks5://…: exit 2 naming ALL_PROXY, nothing sent', async () => {
    const before = (await tls.requests()).length;
    const r = await vidpub(['me'], tls, { ALL_PROXY: 'socks5://127.0.0.1:1080' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^Error: ALL_PROXY is socks5:\/\/127\.0\.0\.1:1080: vidpub cannot go through a SOCKS proxy\.?\n/);
    expect((await tls.requests()).length).toBe(before);
  });
});

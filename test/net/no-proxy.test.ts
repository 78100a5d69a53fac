/** Which proxy a URL takes: curl's conventions for HTTPS_PROXY, HTTP_PROXY and NO_PROXY. */
import { describe, expect, it } from 'vitest';
import { bypassed, proxyFor } from '../../src/api/net/proxy.js';
import { runCli } from '../support/cli.js';

const u = (s: string) => new URL(s);

describe('NO_PROXY', () => {
  it.each([
    ['https://api.example.com/v1', 'example.com', true],
    ['https://example.com/v1', 'example.com', true],
    ['https://api.example.com/v1', '.example.com', true],
    ['https://notexample.com/v1', 'example.com', false],
    ['https://api.example.com/v1', 'other.com, example.com', true],
    ['https://api.example.com/v1', 'other.com example.com', true],
    ['https://api.example.com/v1', '*', true],
    ['https://api.example.com/v1', '', false],
    ['https://API.Example.COM/v1', 'example.com', true],
    ['https://api.example.com:8443/v1', 'example.com:8443', true],
    ['https://api.example.com:8443/v1', 'example.com:443', false],
    ['https://api.example.com/v1', 'example.com:443', true],
    ['https://10.1.2.3/v1', '10.1.2.3', true],
    ['https://10.1.2.3/v1', '10.0.0.0/8', true],
    ['https://11.1.2.3/v1', '10.0.0.0/8', false],
    ['https://[::1]:4010/v1', '::1', true],
    ['https://[::1]:4010/v1', '[::1]:4010', true],
    ['https://[::1]:4010/v1', '[::1]:80', false],
    ['https://10.1.2.3/v1', 'example.com', false],
  ])('%s with NO_PROXY=%j: straight %s', (url, noProxy, straight) => {
    expect(bypassed(u(url), noProxy)).toBe(straight);
  });
});

describe('the proxy variables', () => {
  it('https URLs take HTTPS_PROXY, http URLs http_proxy (never HTTP_PROXY, as curl); the lower-case name first', () => {
    const env = { HTTPS_PROXY: 'http://upper:3128', https_proxy: 'http://lower:3128', http_proxy: 'http://plain:8080', HTTP_PROXY: 'http://cgi:8080' };
    expect(proxyFor(u('https://a.example/v1'), env)).toMatchObject({ source: 'https_proxy', url: u('http://lower:3128') });
    expect(proxyFor(u('http://127.0.0.1:4010/v1'), env)).toMatchObject({ source: 'http_proxy', url: u('http://plain:8080') });
    expect(proxyFor(u('http://127.0.0.1:4010/v1'), { HTTP_PROXY: 'http://cgi:8080' })).toBeUndefined();
    expect(proxyFor(u('http://127.0.0.1:4010/v1'), { HTTPS_PROXY: 'http://upper:3128' })).toBeUndefined();
  });

  it('no scheme is http://, no port is 1080; an empty variable is none', () => {
    expect(proxyFor(u('https://a.example/v1'), { HTTPS_PROXY: 'proxy.corp' })?.url.href).toBe('http://proxy.corp:1080/');
    expect(proxyFor(u('https://a.example/v1'), { HTTPS_PROXY: '  ' })).toBeUndefined();
  });

  it('NO_PROXY (or no_proxy) wins over the proxy', () => {
    expect(proxyFor(u('https://a.example/v1'), { HTTPS_PROXY: 'http://p:1', no_proxy: 'a.example' })).toBeUndefined();
  });

  it('a SOCKS proxy is exit 2 naming the variable, its credentials not shown', async () => {
    const r = await runCli(['me'], { env: { VIDPUB_BASE_URL: 'https://127.0.0.1:9/v1', VIDPUB_API_KEY: 'vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td', HTTPS_PROXY: 'socks5://me:hunter22@p:1080' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Error: HTTPS_PROXY is socks5:\/\/\[redacted\]@p:1080: vidpub cannot go through a SOCKS proxy\.?\n.*Give an http:\/\/ proxy in HTTPS_PROXY, or unset it/);
    expect(r.stderr).not.toContain('hunter22');
  });

  it('ALL_PROXY=socks5://… is refused naming ALL_PROXY, not ignored: exit 2', async () => {
    const r = await runCli(['me'], { env: { VIDPUB_BASE_URL: 'https://127.0.0.1:9/v1', VIDPUB_API_KEY: 'vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td', ALL_PROXY: 'socks5h://127.0.0.1:1080' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Error: ALL_PROXY is socks5h:\/\/127\.0\.0\.1:1080: vidpub cannot go through a SOCKS proxy/);
  });

  it('another scheme (https://) is exit 2 too', async () => {
    const r = await runCli(['me'], { env: { VIDPUB_BASE_URL: 'https://127.0.0.1:9/v1', VIDPUB_API_KEY: 'vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td', https_proxy: 'https://p:3129' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Error: https_proxy is https:\/\/p:3129\/: only http:\/\/ proxies are supported/);
  });
});

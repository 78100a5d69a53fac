/**
 * The proxy rules as data: each rule, what curl does (lib/proxy.c, its
 * reference), what vidpub does and, where the two differ, why. The table in
 * docs/networks-and-credentials.md is made from RULES (proxy-rules.test.ts
 * checks it is), and each rule's cases run against vidpub's matcher. Below
 * them, cases taken from curl's own unit test (tests/unit/unit1614.c) and Go's
 * (golang.org/x/net/http/httpproxy/proxy_test.go), each with vidpub's answer;
 * where that is not the suite's, the rule that departs is named.
 */

/**
 * One case: the URL requested and the environment; the variable whose proxy
 * it takes (null: straight), or the refusal (exit 2) it meets; the NO_PROXY
 * entries warned about.
 */
export interface ProxyCase {
  url: string;
  env: Record<string, string>;
  via?: string | null;
  refused?: RegExp;
  warns?: string[];
}

export interface ProxyRule {
  /** A short key, named by the suite cases that depart by it. */
  key: string;
  rule: string;
  curl: string;
  vidpub: string;
  /** Why vidpub does not do as curl; absent: it does. */
  departure?: string;
  cases: ProxyCase[];
}

const P = 'http://proxy.test:3128';
const https = (noProxy: string, host = 'api.example.com') => ({ url: `https://${host}/v1`, env: { HTTPS_PROXY: P, NO_PROXY: noProxy } });

export const RULES: ProxyRule[] = [
  {
    key: 'https-vars',
    rule: 'The proxy of an https URL',
    curl: '`https_proxy`, else `HTTPS_PROXY`, else `all_proxy`, else `ALL_PROXY`',
    vidpub: 'the same',
    cases: [
      { url: 'https://a.example/', env: { https_proxy: P, HTTPS_PROXY: P, ALL_PROXY: P }, via: 'https_proxy' },
      { url: 'https://a.example/', env: { HTTPS_PROXY: P, all_proxy: P }, via: 'HTTPS_PROXY' },
      { url: 'https://a.example/', env: { all_proxy: P, ALL_PROXY: P }, via: 'all_proxy' },
      { url: 'https://a.example/', env: { ALL_PROXY: P }, via: 'ALL_PROXY' },
      { url: 'https://a.example/', env: { http_proxy: P }, via: null },
    ],
  },
  {
    key: 'http-vars',
    rule: 'The proxy of an http URL',
    curl: '`http_proxy`, else `all_proxy`, else `ALL_PROXY`; never `HTTP_PROXY` (a CGI program gets `HTTP_PROXY` from a request\'s `Proxy:` header)',
    vidpub: 'the same',
    cases: [
      { url: 'http://127.0.0.1:4010/v1', env: { http_proxy: P, ALL_PROXY: P }, via: 'http_proxy' },
      { url: 'http://127.0.0.1:4010/v1', env: { HTTP_PROXY: P }, via: null },
      { url: 'http://127.0.0.1:4010/v1', env: { HTTP_PROXY: P, ALL_PROXY: P }, via: 'ALL_PROXY' },
      { url: 'http://127.0.0.1:4010/v1', env: { HTTPS_PROXY: P }, via: null },
    ],
  },
  {
    key: 'empty',
    rule: 'A variable set to nothing (or blanks)',
    curl: 'as if unset: the next one is read',
    vidpub: 'the same',
    cases: [{ url: 'https://a.example/', env: { https_proxy: ' ', HTTPS_PROXY: P }, via: 'HTTPS_PROXY' }],
  },
  {
    key: 'schemes',
    rule: 'The proxy URL\'s scheme',
    curl: '`http://` (also when none is written), `https://`, `socks4://`, `socks4a://`, `socks5://`, `socks5h://`',
    vidpub: '`http://` (also when none is written); any other is exit 2 naming the variable, never ignored',
    departure: 'vidpub has no TLS-to-the-proxy or SOCKS client; an https URL still goes through an `http://` proxy encrypted, in a `CONNECT` tunnel',
    cases: [
      { url: 'https://a.example/', env: { HTTPS_PROXY: 'proxy.test:3128' }, via: 'HTTPS_PROXY' },
      { url: 'https://a.example/', env: { ALL_PROXY: 'socks5://127.0.0.1:1080' }, refused: /^ALL_PROXY is socks5:\/\/127\.0\.0\.1:1080\/?: vidpub cannot go through a SOCKS proxy/ },
      { url: 'https://a.example/', env: { HTTPS_PROXY: P, all_proxy: 'socks5h://127.0.0.1:1080' }, refused: /^all_proxy is socks5h:\/\/127\.0\.0\.1:1080\/?: vidpub cannot go through a SOCKS proxy/ },
      { url: 'https://a.example/', env: { https_proxy: 'https://proxy.test' }, refused: /^https_proxy is https:\/\/proxy\.test\/: only http:\/\/ proxies are supported/ },
    ],
  },
  {
    key: 'no-proxy-vars',
    rule: 'The hosts that go straight',
    curl: '`no_proxy`, else `NO_PROXY`',
    vidpub: 'the same',
    cases: [
      { url: 'https://a.example/', env: { HTTPS_PROXY: P, no_proxy: 'a.example', NO_PROXY: 'b.example' }, via: null },
      { url: 'https://b.example/', env: { HTTPS_PROXY: P, no_proxy: 'a.example', NO_PROXY: 'b.example' }, via: 'HTTPS_PROXY' },
    ],
  },
  {
    key: 'commas',
    rule: 'Entries separated by commas',
    curl: 'yes, blanks around them skipped, empty entries too',
    vidpub: 'the same',
    cases: [
      { ...https('other.test,,, example.com ,'), via: null },
      { ...https('other.test , .example.net'), via: 'HTTPS_PROXY' },
    ],
  },
  {
    key: 'spaces',
    rule: 'Entries separated by white space only',
    curl: 'the list ends at the first entry followed by a blank and no comma: the rest is ignored, silently',
    vidpub: 'white space separates entries as a comma does',
    departure: 'curl\'s reading drops the entries written after the first space without a word; vidpub reads every one, as it always did',
    cases: [{ ...https('localhost example.com'), via: null }],
  },
  {
    key: 'star',
    rule: '`*`',
    curl: 'every host, when it is the whole value; in a list it matches nothing',
    vidpub: 'the same (blanks around a lone `*` allowed), and a `*` in a list is warned about',
    cases: [
      { ...https('*'), via: null },
      { ...https(' * '), via: null },
      { ...https('*, other.test'), via: 'HTTPS_PROXY', warns: ['*'] },
    ],
  },
  {
    key: 'names',
    rule: 'A host name',
    curl: 'matches the host and its subdomains (`example.com`: `api.example.com`, not `notexample.com`), case-insensitively; names are not resolved',
    vidpub: 'the same',
    cases: [
      { ...https('example.com'), via: null },
      { ...https('example.com', 'example.com'), via: null },
      { ...https('example.com', 'notexample.com'), via: 'HTTPS_PROXY' },
      { ...https('EXAMPLE.com', 'API.example.COM'), via: null },
      { ...https('localhost', '127.0.0.1'), via: 'HTTPS_PROXY' },
    ],
  },
  {
    key: 'dots',
    rule: 'A leading or trailing dot',
    curl: 'ignored: `.example.com` is `example.com` (and its subdomains); `example.com.` too, and a host\'s trailing dot',
    vidpub: 'the same',
    cases: [
      { ...https('.example.com', 'example.com'), via: null },
      { ...https('example.com.'), via: null },
      { ...https('example.com', 'api.example.com.'), via: null },
    ],
  },
  {
    key: 'wildcard',
    rule: '`*.example.com`',
    curl: 'matches nothing',
    vidpub: 'read as `.example.com`',
    departure: 'a common way to write a domain (Go reads it so); it matched so in vidpub before',
    cases: [{ ...https('*.example.com'), via: null }],
  },
  {
    key: 'ip-suffix',
    rule: 'An IP address host',
    curl: 'matched only by an address or a CIDR range, never by a name\'s suffix (`0.1` does not match `127.0.0.1`)',
    vidpub: 'the same',
    cases: [
      { ...https('0.1', '127.0.0.1'), via: 'HTTPS_PROXY' },
      { ...https('0.0.1', '127.0.0.1'), via: 'HTTPS_PROXY' },
      { ...https('1', '[::1]'), via: 'HTTPS_PROXY' },
    ],
  },
  {
    key: 'addresses',
    rule: 'IPv4 and IPv6 addresses, CIDR ranges',
    curl: '`10.1.2.3`, `10.0.0.0/8`, `::1`, `2001:db8::/32`: the prefix length from 1 to 32 (IPv4) or 128 (IPv6)',
    vidpub: 'the same',
    cases: [
      { ...https('10.1.2.3', '10.1.2.3'), via: null },
      { ...https('10.0.0.0/8', '10.200.0.1'), via: null },
      { ...https('10.0.0.0/8', '11.0.0.1'), via: 'HTTPS_PROXY' },
      { ...https('::1', '[::1]'), via: null },
      { ...https('2001:db8::/32', '[2001:db8:ffff::1]'), via: null },
      { ...https('2001:db8::/32', '[2001:db9::1]'), via: 'HTTPS_PROXY' },
      { ...https('::ffff:10.0.0.0/104', '[::ffff:10.9.8.7]'), via: null },
    ],
  },
  {
    key: 'bad-range',
    rule: 'A range that cannot be read (`10.0.0.0/33`, `10.0.0.0/`, `10.0.0.0/8a`, `example.com/8`)',
    curl: 'matches nothing, silently',
    vidpub: 'matches nothing, and is warned about on stderr; never a failure',
    departure: 'only the warning: a mistake in `NO_PROXY` is said, not guessed at',
    cases: [
      { ...https('10.0.0.0/33', '10.1.2.3'), via: 'HTTPS_PROXY', warns: ['10.0.0.0/33'] },
      { ...https('10.0.0.0/', '10.1.2.3'), via: 'HTTPS_PROXY', warns: ['10.0.0.0/'] },
      { ...https('10.0.0.0/8a, example.com/8, ::1/129', '10.1.2.3'), via: 'HTTPS_PROXY', warns: ['10.0.0.0/8a', 'example.com/8', '::1/129'] },
      { ...https('10.0.0.0/33, 10.1.2.3', '10.1.2.3'), via: null, warns: ['10.0.0.0/33'] },
    ],
  },
  {
    key: 'zero-prefix',
    rule: 'A `/0` range (`0.0.0.0/0`)',
    curl: 'the address alone (its prefix length is read as 32, or 128)',
    vidpub: 'matches nothing, and is warned about',
    departure: 'a `/0` reads as "every address", which curl does not do either; `*` says every host',
    cases: [
      { ...https('10.1.2.3/0', '10.1.2.3'), via: 'HTTPS_PROXY', warns: ['10.1.2.3/0'] },
      { ...https('0.0.0.0/0', '10.1.2.3'), via: 'HTTPS_PROXY', warns: ['0.0.0.0/0'] },
    ],
  },
  {
    key: 'ports',
    rule: 'A port (`example.com:8443`, `10.1.2.3:4010`)',
    curl: 'an entry with a port matches nothing',
    vidpub: 'the host on that port only (a URL without a port is on 443 for https, 80 for http)',
    departure: 'how Go reads it, and how vidpub did before: it sends one service of a host straight and another through the proxy',
    cases: [
      { ...https('example.com:8443', 'api.example.com:8443'), via: null },
      { ...https('example.com:8443'), via: 'HTTPS_PROXY' },
      { ...https('example.com:443'), via: null },
      { ...https('10.1.2.3:4010', '10.1.2.3:4010'), via: null },
      { ...https('example.com:http'), via: 'HTTPS_PROXY', warns: ['example.com:http'] },
    ],
  },
  {
    key: 'brackets',
    rule: 'An IPv6 address in brackets (`[::1]`, `[::1]:4010`)',
    curl: 'matches nothing',
    vidpub: 'the address (on that port)',
    departure: 'brackets are how a URL writes an IPv6 host, and the only way to give an IPv6 address a port',
    cases: [
      { ...https('[::1]', '[::1]:4010'), via: null },
      { ...https('[::1]:4010', '[::1]:4010'), via: null },
      { ...https('[::1]:80', '[::1]:4010'), via: 'HTTPS_PROXY' },
      { ...https('[10.1.2.3]', '10.1.2.3'), via: 'HTTPS_PROXY', warns: ['[10.1.2.3]'] },
    ],
  },
  {
    key: 'malformed',
    rule: 'Any other entry that cannot be read (`http://proxy.test`, `:1`, `a:b:c`)',
    curl: 'matches nothing, silently',
    vidpub: 'matches nothing, and is warned about on stderr; never a failure',
    departure: 'only the warning',
    cases: [{ ...https('http://example.com, :1, a:b:c, good.test'), via: 'HTTPS_PROXY', warns: ['http://example.com', ':1', 'a:b:c'] }],
  },
];

/** The table of the docs, made from RULES. */
export function rulesTable(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = RULES.map((r) => `| ${cell(r.rule)} | ${cell(r.curl)} | ${cell(r.vidpub)} | ${r.departure ? cell(r.departure) : ''} |`);
  return ['| Rule | curl | vidpub | Why vidpub departs |', '|---|---|---|---|', ...rows].join('\n');
}

/** A suite's case: a host, NO_PROXY, what the suite expects (straight or not) and, if vidpub differs, the rule why. */
export interface SuiteCase {
  url: string;
  noProxy: string;
  straight: boolean;
  /** vidpub's answer differs from the suite's: the rule (RULES key) or another tool's own rule that says why. */
  differs?: { key: string } | { tool: string };
}

/** curl's tests/unit/unit1614.c: proxy_check_noproxy(name, list), the name made into an http URL. */
const u = (host: string) => `http://${host.includes(':') ? `[${host}]` : host}/`;
const LONG128 = '127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.';
export const CURL_CASES: SuiteCase[] = [
  { url: u('www.example.com'), noProxy: 'localhost .example.com .example.de', straight: false, differs: { key: 'spaces' } },
  ...([
    ['www.example.com', 'localhost,.example.com,.example.de', true],
    ['www.example.com.', 'localhost,.example.com,.example.de', true],
    ['example.com', 'localhost,.example.com,.example.de', true],
    ['example.com.', 'localhost,.example.com,.example.de', true],
    ['www.example.com', 'localhost,.example.com.,.example.de', true],
    ['www.example.com', 'localhost,www.example.com.,.example.de', true],
    ['example.com', 'localhost,example.com,.example.de', true],
    ['example.com.', 'localhost,example.com,.example.de', true],
    ['nexample.com', 'localhost,example.com,.example.de', false],
    ['www.example.com', 'localhost,example.com,.example.de', true],
    ['127.0.0.1', '127.0.0.1,localhost', true],
    ['127.0.0.1', '127.0.0.1,localhost,', true],
    ['127.0.0.1', '127.0.0.1/8,localhost,', true],
    ['127.0.0.1', '127.0.0.1/28,localhost,', true],
    ['127.0.0.1', '127.0.0.1/31,localhost,', true],
    ['127.0.0.1', 'localhost,127.0.0.1', true],
    ['127.0.0.1', `localhost,${LONG128}`, false],
    ['127.0.0.1', `localhost,${LONG128.slice(0, -1)}`, false],
    ['localhost', 'localhost,127.0.0.1', true],
    ['localhost', '127.0.0.1,localhost', true],
    ['foobar', 'barfoo', false],
    ['foobar', 'foobar', true],
    ['192.168.0.1', 'foobar', false],
    ['192.168.0.1', '192.168.0.0/16', true],
    ['192.168.0.1', '192.168.0.0/16a', false],
    ['192.168.0.1', '192.168.0.0/16 ', true],
    ['192.168.0.1', '192.168.0.0/a16', false],
    ['192.168.0.1', '192.168.0.0/ 16', false],
    ['192.168.0.1', '192.168.0.0/24', true],
    ['192.168.0.1', '192.168.0.0/32', false],
    ['192.168.0.1', '192.168.0.1/32', true],
    ['192.168.0.1', '192.168.0.1/33', false],
    ['192.168.0.1', '192.168.0.0', false],
    ['192.168.1.1', '192.168.0.0/24', false],
    ['192.168.1.1', '192.168.0.0/33', false],
    ['192.168.1.1', 'foo, bar, 192.168.0.0/24', false],
    ['192.168.1.1', 'foo, bar, 192.168.0.0/16', true],
    ['::1', 'foo, bar, 192.168.0.0/16', false],
    ['::1', 'foo, bar, ::1/64', true],
    ['::1', '::1/64', true],
    ['::1', '::1/96', true],
    ['::1', '::1/129', false],
    ['::1', '::1/128', true],
    ['::1', '::1/127', true],
    ['::1', '::1/a127', false],
    ['::1', '::1/127a', false],
    ['::1', '::1/ 127', false],
    ['::1', '::1/127 ', true],
    ['::1', '::1/126', true],
    ['::1', '::1/125', true],
    ['::1', '::1/124', true],
    ['::1', '::1/123', true],
    ['::1', '::1/122', true],
    ...[65, 66, 67, 68, 69, 70, 71, 72].map((b) => ['2001:db8:8000::1', `2001:db8::/${b}`, false] as const),
    ...[65, 66, 67, 68, 69, 70, 71, 72].map((b) => ['2001:db8::1', `2001:db8::/${b}`, true] as const),
    ['bar', 'foo, bar, ::1/64', true],
    ['BAr', 'foo, bar, ::1/64', true],
    ['BAr', 'foo,,,,,              bar, ::1/64', true],
    ['www.example.com', 'foo, .example.com', true],
    ['www.example.com', 'www2.example.com, .example.net', false],
    ['example.com', '.example.com, .example.net', true],
    ['nonexample.com', '.example.com, .example.net', false],
  ] as const).map(([host, noProxy, straight]) => ({ url: u(host), noProxy, straight })),
  // cidr4_match(address, network, bits) and cidr6_match, as NO_PROXY=network/bits ("/0": curl's "no prefix length").
  ...([
    ['192.160.0.1', '192.160.0.1', 33, false],
    ['192.160.0.1', '192.160.0.1', 32, true],
    ['192.160.0.1', '192.160.0.1', 24, true],
    ['192.160.0.1', '192.160.0.1', 26, true],
    ['192.160.0.1', '192.160.0.1', 20, true],
    ['192.160.0.1', '192.160.0.1', 18, true],
    ['192.160.0.1', '192.160.0.1', 12, true],
    ['192.160.0.1', '192.160.0.1', 8, true],
    ['192.160.0.1', '10.0.0.1', 8, false],
    ['192.160.0.1', '10.0.0.1', 32, false],
    ['192.160.0.1', '10.0.0.1', 0, false],
    ['::1', '::1', 128, true],
    ['::1', '0:0::1', 128, true],
    ['::1', '0:0::1', 129, false],
    ['fe80::ab47:4396:55c9:8474', 'fe80::ab47:4396:55c9:8474', 64, true],
  ] as const).map(([host, net, bits, straight]) => ({ url: u(host), noProxy: `${net}/${bits}`, straight })),
  { url: u('192.160.0.1'), noProxy: '192.160.0.1/0', straight: true, differs: { key: 'zero-prefix' } },
  { url: u('::1'), noProxy: '::1/0', straight: true, differs: { key: 'zero-prefix' } },
];

/** Go's TestUseProxy: its NO_PROXY and hosts on port 80 (straight = not useProxy). */
const GO_NO_PROXY = 'foobar.com, .barbaz.net, *.wildcard.io, 192.168.1.1, 192.168.1.2:81, 192.168.1.3:80, 10.0.0.0/30, 2001:db8::52:0:1, [2001:db8::52:0:2]:443, [2001:db8::52:0:3]:80, 2002:db8:a::45/64';
const GO_LOOPBACK = { tool: 'Go never sends localhost or a loopback address through a proxy; curl and vidpub do unless NO_PROXY lists it' };
const GO_LEADING_DOT = { tool: 'Go reads ".example.com" and "*.example.com" as subdomains only; curl ignores a leading dot, and vidpub reads "*." as "."' };
export const GO_CASES: SuiteCase[] = [
  ...([
    ['localhost', true, GO_LOOPBACK],
    ['127.0.0.1', true, GO_LOOPBACK],
    ['127.0.0.2', true, GO_LOOPBACK],
    ['[::1]', true, GO_LOOPBACK],
    ['[::2]', false],
    ['192.168.1.1', true],
    ['192.168.1.2', false],
    ['192.168.1.3', true],
    ['192.168.1.4', false],
    ['10.0.0.2', true],
    ['[2001:db8::52:0:1]', true],
    ['[2001:db8::52:0:2]', false],
    ['[2001:db8::52:0:3]', true],
    ['[2002:db8:a::123]', true],
    ['[fe80::424b:c8be:1643:a1b6]', false],
    ['barbaz.net', false, GO_LEADING_DOT],
    ['www.barbaz.net', true],
    ['foobar.com', true],
    ['www.foobar.com', true],
    ['foofoobar.com', false],
    ['baz.com', false],
    ['localhost.net', false],
    ['local.localhost', false],
    ['barbarbaz.net', false],
    ['wildcard.io', false, GO_LEADING_DOT],
    ['nested.wildcard.io', true],
    ['awildcard.io', false],
  ] as const).map(([host, straight, differs]) => ({ url: `http://${host}:80/`, noProxy: GO_NO_PROXY, straight, ...(differs ? { differs } : {}) })),
  // TestInvalidNoProxy, TestAllNoProxy and the NO_PROXY cases of TestProxyForURL.
  { url: 'http://example.com/', noProxy: ':1', straight: false },
  { url: 'http://[::2]/', noProxy: '*', straight: true },
  { url: 'http://example.com/', noProxy: 'example.com', straight: true },
  { url: 'http://example.com/', noProxy: '.example.com', straight: false, differs: GO_LEADING_DOT },
  { url: 'http://example.com/', noProxy: 'ample.com', straight: false },
  { url: 'http://foo.example.com/', noProxy: 'example.com', straight: true },
  { url: 'http://example.com/', noProxy: '.foo.com', straight: false },
  { url: 'http://www.示例.com/', noProxy: '.示例.com', straight: true },
  { url: 'http://www.示例.com/', noProxy: 'xn--fsq092h.com', straight: true },
  { url: 'http://www.xn--fsq092h.com/', noProxy: '示例.com', straight: true },
];

/** Go's TestProxyForURL on the proxy variables: the URL vidpub goes through (null: none), or its refusal. */
export const GO_PROXY_URLS: { env: Record<string, string>; url: string; proxy?: string | null; refused?: RegExp; differs?: { key: string } }[] = [
  { env: { http_proxy: '127.0.0.1:8080' }, url: 'http://example.com/', proxy: 'http://127.0.0.1:8080/' },
  { env: { http_proxy: 'cache.corp.example.com:1234' }, url: 'http://example.com/', proxy: 'http://cache.corp.example.com:1234/' },
  // Go keeps no port; curl and vidpub add 1080.
  { env: { http_proxy: 'cache.corp.example.com' }, url: 'http://example.com/', proxy: 'http://cache.corp.example.com:1080/' },
  { env: { http_proxy: 'localhost' }, url: 'http://example.com/', proxy: 'http://localhost:1080/' },
  { env: { http_proxy: 'https://cache.corp.example.com' }, url: 'http://example.com/', refused: /only http:\/\/ proxies are supported/, differs: { key: 'schemes' } },
  { env: { http_proxy: 'socks5://127.0.0.1' }, url: 'http://example.com/', refused: /cannot go through a SOCKS proxy/, differs: { key: 'schemes' } },
  { env: { http_proxy: 'foo://host' }, url: 'http://example.com/', refused: /only http:\/\/ proxies are supported/, differs: { key: 'schemes' } },
  { env: { http_proxy: 'http.proxy.tld', https_proxy: 'secure.proxy.tld' }, url: 'http://insecure.tld/', proxy: 'http://http.proxy.tld:1080/' },
  { env: { http_proxy: 'http.proxy.tld', https_proxy: 'secure.proxy.tld' }, url: 'https://secure.tld/', proxy: 'http://secure.proxy.tld:1080/' },
  { env: { http_proxy: 'http.proxy.tld' }, url: 'https://secure.tld/', proxy: null },
  { env: {}, url: 'http://example.com/', proxy: null },
];

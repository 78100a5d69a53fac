/**
 * The proxy variables, read as curl reads them (lib/proxy.c), with the
 * departures docs/networks-and-credentials.md names: which variable gives the
 * proxy of a URL, and NO_PROXY's list of hosts that go straight.
 *
 * NO_PROXY is parsed once into entries; an entry that cannot be read is left
 * out with a problem to warn about, never a failure. Pure: no I/O, no throw.
 */
import { isIP } from 'node:net';
import { ipBytes } from '../../contract/addresses.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A proxy variable's value and the name it was read from. */
export interface ProxyVariable {
  value: string;
  name: string;
}

/** Variables to read in order: each name with its value. */
type Candidates = [name: string, value: string | undefined][];

/**
 * The variables that give the proxy of a URL, in curl's order: https_proxy,
 * HTTPS_PROXY, then all_proxy, ALL_PROXY for https; http_proxy (never
 * HTTP_PROXY: a CGI program's environment has HTTP_PROXY from a request's
 * Proxy: header), then all_proxy, ALL_PROXY for http. And no_proxy, NO_PROXY.
 */
const httpsProxy = (env: Env): Candidates => [['https_proxy', env.https_proxy], ['HTTPS_PROXY', env.HTTPS_PROXY], ...allProxy(env)];
const httpProxy = (env: Env): Candidates => [['http_proxy', env.http_proxy], ...allProxy(env)];
const allProxy = (env: Env): Candidates => [['all_proxy', env.all_proxy], ['ALL_PROXY', env.ALL_PROXY]];
const noProxy = (env: Env): Candidates => [['no_proxy', env.no_proxy], ['NO_PROXY', env.NO_PROXY]];

/** The first of `candidates` set and not blank, trimmed, with its name. */
function firstSet(candidates: Candidates): ProxyVariable | undefined {
  for (const [name, raw] of candidates) {
    const value = (raw ?? '').trim();
    if (value) return { value, name };
  }
  return undefined;
}

/** True when a variable that can name a proxy is set (and not blank); HTTP_PROXY is not one. */
export function anyProxyVariable(env: Env): boolean {
  return firstSet([...httpsProxy(env), ...httpProxy(env)]) !== undefined;
}

/** The variable giving the proxy for URLs of `protocol` ('https:' or 'http:'), if any. */
export function proxyVariable(env: Env, protocol: string): ProxyVariable | undefined {
  return firstSet(protocol === 'https:' ? httpsProxy(env) : httpProxy(env));
}

/** no_proxy or NO_PROXY, if set. */
export function noProxyVariable(env: Env): ProxyVariable | undefined {
  return firstSet(noProxy(env));
}

/** One entry of NO_PROXY, read. */
export type NoProxyEntry =
  | { kind: 'name'; name: string; port?: string }
  | { kind: 'address'; bytes: number[]; bits: number; port?: string };

/** NO_PROXY read: every host, or its entries; and the entries left out, each with why. */
export interface NoProxyList {
  all: boolean;
  entries: NoProxyEntry[];
  problems: { entry: string; why: string }[];
}

const PORT = /^\d{1,5}$/;
const NAME = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;
const validPort = (p: string) => PORT.test(p) && Number(p) >= 1 && Number(p) <= 65535;

/** An address entry (an address, or a CIDR range addr/bits), or why it is not one. */
function addressEntry(text: string, port: string | undefined): NoProxyEntry | string {
  const [addr, bits, extra] = text.split('/');
  const family = isIP(addr!);
  if (!family || extra !== undefined) return 'not an IP address or a CIDR range (address/prefix length)';
  const max = family === 4 ? 32 : 128;
  if (bits === undefined) return { kind: 'address', bytes: ipBytes(addr!)!, bits: max, ...(port ? { port } : {}) };
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max || Number(bits) === 0) {
    return `the prefix length of an IPv${family} range is a number from 1 to ${max}`;
  }
  return { kind: 'address', bytes: ipBytes(addr!)!, bits: Number(bits), ...(port ? { port } : {}) };
}

/** One NO_PROXY entry (lower-cased, not empty, not "*"), or why it cannot be read. */
function readEntry(raw: string): NoProxyEntry | string {
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(raw);
  if (bracketed) {
    if (bracketed[2] !== undefined && !validPort(bracketed[2])) return 'the port is not a number from 1 to 65535';
    if (isIP(bracketed[1]!.split('/')[0]!) !== 6) return 'only an IPv6 address goes in brackets';
    return addressEntry(bracketed[1]!, bracketed[2]);
  }
  if (raw.includes('/')) return addressEntry(raw, undefined);
  if (isIP(raw)) return addressEntry(raw, undefined);
  let host = raw;
  let port: string | undefined;
  const colon = raw.lastIndexOf(':');
  if (colon >= 0) {
    if (raw.indexOf(':') !== colon) return 'not a host, an address or a range (an IPv6 address with a port goes in brackets: [::1]:8080)';
    port = raw.slice(colon + 1);
    host = raw.slice(0, colon);
    if (!validPort(port)) return 'the port is not a number from 1 to 65535';
    if (isIP(host) === 4) return addressEntry(host, port);
  }
  let name = host.replace(/^\*\./, '.').replace(/^\./, '').replace(/\.$/, '');
  if (/[^\x20-\x7e]/.test(name)) name = punycode(name);
  if (!name || !NAME.test(name)) return 'not a host name, an IP address or a CIDR range';
  return { kind: 'name', name, ...(port ? { port } : {}) };
}

/** A name with letters beyond ASCII as DNS carries it (示例.com: xn--fsq092h.com), by the URL parser; '' when it is no host name. */
function punycode(name: string): string {
  try {
    return new URL(`http://${name}/`).hostname;
  } catch {
    return '';
  }
}

/** Entries are separated by commas and by white space. */
const SEPARATORS = /[\s,]+/;

/** NO_PROXY read (memoised by value: a run asks for every request). */
const lists = new Map<string, NoProxyList>();
export function parseNoProxy(value: string): NoProxyList {
  const known = lists.get(value);
  if (known) return known;
  const list: NoProxyList = { all: value.trim() === '*', entries: [], problems: [] };
  if (!list.all) {
    for (const raw of value.split(SEPARATORS)) {
      if (!raw) continue;
      const read = raw === '*' ? '"*" means every host only as the whole of NO_PROXY, not in a list' : readEntry(raw.toLowerCase());
      if (typeof read === 'string') list.problems.push({ entry: raw, why: read });
      else list.entries.push(read);
    }
  }
  lists.set(value, list);
  return list;
}

function inRange(host: number[], e: { bytes: number[]; bits: number }): boolean {
  if (host.length !== e.bytes.length) return false;
  for (let bit = 0; bit < e.bits; bit += 8) {
    const mask = 0xff & (0xff << Math.max(0, 8 - (e.bits - bit)));
    if ((host[bit / 8]! & mask) !== (e.bytes[bit / 8]! & mask)) return false;
  }
  return true;
}

/**
 * Whether `list` sends a request to `host` (a URL's hostname, IPv6 in
 * brackets or not) on `port` straight. An IP address is matched by
 * addresses and ranges only, never by a name's suffix; a name by an entry
 * equal to it or to one of its parent domains. Names are not resolved.
 */
export function noProxyMatches(list: NoProxyList, host: string, port: string): boolean {
  if (list.all) return true;
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  const family = isIP(bare);
  const bytes = family ? (ipBytes(bare) ?? undefined) : undefined;
  const name = bare.replace(/\.$/, '');
  return list.entries.some((e) => {
    if (e.port !== undefined && e.port !== port) return false;
    if (e.kind === 'address') return bytes !== undefined && inRange(bytes, e);
    return bytes === undefined && (name === e.name || name.endsWith(`.${e.name}`));
  });
}

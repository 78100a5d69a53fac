/**
 * Proxies, with curl's conventions: HTTPS_PROXY (or https_proxy) for https
 * URLs, HTTP_PROXY (or http_proxy) for http ones, the lower-case name first;
 * NO_PROXY (no_proxy) a list of host suffixes ("example.com" is it and its
 * subdomains, a leading dot too), host:port, IP literals and CIDR ranges, or
 * "*" for everything. A proxy URL without a scheme is http://, without a port
 * :1080; its user and password (percent-encoded) go as Proxy-Authorization:
 * Basic and are never shown.
 *
 * https goes through a CONNECT tunnel (TLS end to end: the proxy sees only
 * the host and port); http is sent to the proxy in absolute form. Either way
 * a proxy that cannot be reached is named in the error (net-errors.ts), with
 * the variable that set it.
 *
 * On node:http, not undici's EnvHttpProxyAgent: the API calls and the upload
 * PUT are on node:http for start-up time, and a CONNECT is one request there.
 * Loaded only when a proxy variable is set.
 */
import http from 'node:http';
import https from 'node:https';
import net, { BlockList, isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { UsageError, sanitize } from '../errors.js';
import { redactUrl } from './debug.js';
import type { NetSettings, Route, RouteOptions } from './net.js';
import { TransportTimeoutError } from './transport-timeout.js';

/** The proxy a URL goes through, and the variable that named it. */
export interface ProxyChoice {
  url: URL;
  source: string;
}

/** A proxy failure: carries the code the retry rules know, and the proxy it was (its URL redacted). */
export interface ProxyFailure {
  code?: string;
  proxy: { url: string; source: string; status?: number; forward?: boolean };
}

const DEFAULT_PROXY_PORT = '1080';

type Which = 'https_proxy' | 'http_proxy' | 'no_proxy';

/** The variable's value and name, the lower-case name first (curl's order); undefined when unset or empty. */
function variable(env: NetSettings['env'], which: Which): { value: string; name: string } | undefined {
  const pairs = {
    https_proxy: [env.https_proxy, env.HTTPS_PROXY],
    http_proxy: [env.http_proxy, env.HTTP_PROXY],
    no_proxy: [env.no_proxy, env.NO_PROXY],
  }[which];
  for (const [i, raw] of pairs.entries()) {
    const value = (raw ?? '').trim();
    if (value) return { value, name: i === 0 ? which : which.toUpperCase() };
  }
  return undefined;
}

/** The proxy for `target`, or undefined (none set, or NO_PROXY says to go straight). */
export function proxyFor(target: URL, env: NetSettings['env']): ProxyChoice | undefined {
  const v = variable(env, target.protocol === 'https:' ? 'https_proxy' : 'http_proxy');
  if (!v) return undefined;
  if (bypassed(target, variable(env, 'no_proxy')?.value ?? '')) return undefined;
  return { url: proxyUrl(v), source: v.name };
}

/** Parses both proxy variables (UsageError for one that cannot be used). */
export function checkProxyVariables(env: NetSettings['env']): void {
  for (const name of ['https_proxy', 'http_proxy'] as const) {
    const v = variable(env, name);
    if (v) proxyUrl(v);
  }
}

function proxyUrl(v: { value: string; name: string }): URL {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(v.value) ? v.value : `http://${v.value}`);
  } catch {
    throw new UsageError(`${v.name} is not a URL: write it like http://proxy.example.com:3128 (or http://user:password@proxy.example.com:3128)`);
  }
  if (url.protocol !== 'http:') {
    throw new UsageError(`${v.name} is ${redactUrl(sanitize(url.href))}: only http:// proxies are supported (an https URL still goes through it encrypted, in a CONNECT tunnel)`);
  }
  if (!url.port) url.port = DEFAULT_PROXY_PORT;
  return url;
}

const bare = (host: string) => host.replace(/^\[|\]$/g, '').toLowerCase();

/** One NO_PROXY entry: its host (or address, or range) and port. */
function parseEntry(raw: string): { host: string; port?: string } {
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(raw);
  if (v6) return { host: v6[1]!.toLowerCase(), port: v6[2] };
  const colons = raw.split(':').length - 1;
  const hostPort = colons === 1 ? /^(.*):(\d+)$/.exec(raw) : null;
  return hostPort ? { host: hostPort[1]!, port: hostPort[2] } : { host: raw };
}

function addressMatches(entry: string, host: string): boolean {
  const [addr, bits] = entry.split('/');
  const family = isIP(addr!);
  const hostFamily = isIP(host);
  if (!family || !hostFamily) return false;
  const list = new BlockList();
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (bits === undefined) list.addAddress(addr!, type);
  else list.addSubnet(addr!, Number(bits), type);
  return list.check(host, hostFamily === 4 ? 'ipv4' : 'ipv6');
}

/** Whether NO_PROXY sends `target` straight to its host. */
export function bypassed(target: URL, noProxy: string): boolean {
  const host = bare(target.hostname).replace(/\.$/, '');
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  for (const raw of noProxy.split(/[\s,]+/)) {
    if (!raw) continue;
    if (raw === '*') return true;
    const entry = parseEntry(raw.toLowerCase());
    if (entry.port !== undefined && entry.port !== port) continue;
    const name = entry.host.replace(/^\*?\./, '').replace(/\.$/, '');
    if (isIP(name.split('/')[0]!)) {
      if (addressMatches(name, host)) return true;
    } else if (name && (host === name || host.endsWith(`.${name}`))) {
      return true;
    }
  }
  return false;
}

function authorization(proxy: URL): Record<string, string> {
  if (!proxy.username && !proxy.password) return {};
  const pair = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(pair, 'utf8').toString('base64')}` };
}

/** An error from reaching the proxy, naming it (redacted) and keeping the cause's code. */
function proxyError(message: string, choice: ProxyChoice, o: { code?: string; status?: number; cause?: unknown; forward?: boolean }): Error & ProxyFailure {
  const err = new Error(message, { cause: o.cause }) as Error & ProxyFailure;
  if (o.code) err.code = o.code;
  err.proxy = { url: redactUrl(choice.url.href), source: choice.source, status: o.status, ...(o.forward ? { forward: true } : {}) };
  return err;
}

interface ProxyConnectOptions {
  choice: ProxyChoice;
  connectMs: number;
}

type ConnectCallback = (err: Error | null, stream: Duplex) => void;

/** `cb` called once: with the connection, or the error; past `connectMs`, `abort` and a timeout naming `what`. */
function callbackOnce(o: ProxyConnectOptions, cb: ConnectCallback, what: string, abort: () => void): (err: Error | null, stream?: Duplex) => void {
  let done = false;
  const finish = (err: Error | null, stream?: Duplex) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    cb(err, stream as Duplex);
  };
  const timer = setTimeout(() => {
    abort();
    finish(new TransportTimeoutError('UND_ERR_CONNECT_TIMEOUT', `the proxy (${o.choice.source}) ${what} in time (${o.connectMs} ms)`));
  }, o.connectMs);
  timer.unref();
  return finish;
}

/** The proxy could not be reached: its URL and variable named, the cause's code kept for the retry rules. */
const unreachable = (err: NodeJS.ErrnoException, choice: ProxyChoice) => proxyError(`could not reach the proxy: ${err.message}`, choice, { code: err.code, cause: err });

/** An https.Agent whose connections are CONNECT tunnels through the proxy, TLS inside them. */
class TunnelAgent extends https.Agent {
  constructor(
    private readonly tunnel: ProxyConnectOptions,
    options: https.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(args: http.ClientRequestArgs, callback?: ConnectCallback): undefined {
    const options = args as tls.ConnectionOptions & { host?: string; port?: number };
    const { choice } = this.tunnel;
    const authority = `${isIP(options.host ?? '') === 6 ? `[${options.host}]` : options.host}:${options.port}`;
    const req = http.request({
      hostname: bare(choice.url.hostname),
      port: choice.url.port,
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...authorization(choice.url) },
      agent: false,
    });
    const finish = callbackOnce(this.tunnel, callback!, 'did not open a tunnel', () => req.destroy());
    req.once('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        const status = res.statusCode ?? 0;
        finish(proxyError(`the proxy refused the tunnel to ${authority}: HTTP ${status} ${sanitize(res.statusMessage ?? '')}`.trim(), choice, { code: 'VIDPUB_PROXY_REFUSED', status }));
        return;
      }
      const servername = isIP(options.host ?? '') ? undefined : options.host;
      finish(null, tls.connect({ ...options, socket, servername }));
    });
    req.once('error', (err: NodeJS.ErrnoException) => finish(unreachable(err, choice)));
    req.end();
    return undefined;
  }
}

/** An http.Agent whose connections go to the proxy (plain http, in absolute form): failing to reach it is named a proxy failure. */
class ForwardAgent extends http.Agent {
  constructor(
    private readonly forward: ProxyConnectOptions,
    options: http.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(_args: http.ClientRequestArgs, callback?: ConnectCallback): undefined {
    const { choice } = this.forward;
    const socket = net.connect({ host: bare(choice.url.hostname), port: Number(choice.url.port) });
    const finish = callbackOnce(this.forward, callback!, 'could not be connected to', () => socket.destroy());
    socket.once('connect', () => finish(null, socket));
    socket.once('error', (err: NodeJS.ErrnoException) => finish(unreachable(err, choice)));
    return undefined;
  }
}

/** The route of a request through the proxy: a tunnel for https, the absolute form for http. */
export function proxiedRoute(target: URL, choice: ProxyChoice, o: RouteOptions & { ca?: string[]; agents: Map<string, http.Agent> }): Route {
  const secure = target.protocol === 'https:';
  const name = `${secure ? 'tunnel' : 'forward'} ${choice.url.href}`;
  // Plain http through a proxy: a connection per request. tinyproxy closes its side after each
  // answer without saying so (no Connection: close), so the next request on a kept-alive one failed.
  const keepAlive = o.keepAlive && secure;
  let agent: http.Agent | undefined = keepAlive ? o.agents.get(name) : undefined;
  if (!agent) {
    agent = secure
      ? new TunnelAgent({ choice, connectMs: o.connectMs }, { keepAlive, ...(o.ca ? { ca: o.ca } : {}) })
      : new ForwardAgent({ choice, connectMs: o.connectMs }, { keepAlive });
    if (keepAlive) o.agents.set(name, agent);
  }
  if (secure) {
    return { lib: https, options: { hostname: bare(target.hostname), port: target.port || 443, path: target.pathname + target.search, agent, ...(o.ca ? { ca: o.ca } : {}) }, headers: {} };
  }
  return {
    lib: http,
    options: { hostname: bare(choice.url.hostname), port: choice.url.port, path: target.href, agent },
    headers: { host: target.host, ...authorization(choice.url) },
    proxyRefusal: (status) => proxyError(`the proxy refused to forward the request: HTTP ${status}`, choice, { code: 'VIDPUB_PROXY_REFUSED', status, forward: true }),
  };
}

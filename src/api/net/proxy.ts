/**
 * Proxies, with curl's conventions (the variables and NO_PROXY: no-proxy.ts;
 * the rules and vidpub's departures from curl: docs/networks-and-credentials.md).
 * A proxy URL without a scheme is http://, without a port :1080; its user and
 * password (percent-encoded) go as Proxy-Authorization: Basic and are never
 * shown. Only http:// proxies: another scheme (socks5://, https://) is a
 * usage error naming the variable, never ignored.
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
import net, { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { UsageError, sanitize } from '../../errors.js';
import { redactUrl } from '../send/debug.js';
import type { NetSettings, Route, RouteOptions } from './net-types.js';
import { noProxyMatches, noProxyVariable, parseNoProxy, proxyVariable, type ProxyVariable } from './no-proxy.js';
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

/** The proxy for `target`, or undefined (none set, or NO_PROXY says to go straight). */
export function proxyFor(target: URL, env: NetSettings['env']): ProxyChoice | undefined {
  const v = proxyVariable(env, target.protocol);
  if (!v) return undefined;
  if (bypassed(target, noProxyVariable(env)?.value ?? '')) return undefined;
  return { url: proxyUrl(v), source: v.name };
}

/**
 * Parses the proxy variables that apply (UsageError for a proxy that cannot
 * be used) and reads NO_PROXY, `warn` told of each entry left out.
 */
export function checkProxyVariables(env: NetSettings['env'], warn: (line: string) => void = () => {}): void {
  for (const protocol of ['https:', 'http:']) {
    const v = proxyVariable(env, protocol);
    if (v) proxyUrl(v);
  }
  const noProxy = noProxyVariable(env);
  if (!noProxy) return;
  for (const p of parseNoProxy(noProxy.value).problems) {
    // A URL pasted in by mistake may carry a user and password: never shown.
    const shown = sanitize(p.entry).replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^@/]*@/i, '$1[redacted]@');
    warn(`${noProxy.name}: the entry "${shown}" is ignored: ${p.why}. Fix it in ${noProxy.name} (hosts, .domains, addresses, CIDR ranges, comma-separated).`);
  }
}

function proxyUrl(v: ProxyVariable): URL {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(v.value) ? v.value : `http://${v.value}`);
  } catch {
    throw new UsageError(`${v.name} is not a URL: write it like http://proxy.example.com:3128 (or http://user:password@proxy.example.com:3128)`);
  }
  if (/^socks/i.test(url.protocol)) {
    throw new UsageError(`${v.name} is ${redactUrl(sanitize(url.href))}: vidpub cannot go through a SOCKS proxy`, {
      hint: `Give an http:// proxy in ${v.name}, or unset it to go straight (an https URL still goes through an http:// proxy encrypted, in a CONNECT tunnel).`,
    });
  }
  if (url.protocol !== 'http:') {
    throw new UsageError(`${v.name} is ${redactUrl(sanitize(url.href))}: only http:// proxies are supported (an https URL still goes through it encrypted, in a CONNECT tunnel)`);
  }
  if (!url.port) url.port = DEFAULT_PROXY_PORT;
  return url;
}

const bare = (host: string) => host.replace(/^\[|\]$/g, '').toLowerCase();

/** Whether NO_PROXY (its value) sends `target` straight to its host. */
export function bypassed(target: URL, noProxy: string): boolean {
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  return noProxyMatches(parseNoProxy(noProxy), target.hostname, port);
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

/**
 * How a request reaches its host: straight, or through the proxy of
 * https_proxy, http_proxy or all_proxy (NO_PROXY aside; no-proxy.ts, proxy.ts), trusting the system's
 * roots, NODE_EXTRA_CA_CERTS and a CA file of vidpub's own (--ca-file,
 * VIDPUB_CA_FILE, the profile; tls-trust.ts). The API calls (transport.ts)
 * and the upload PUT (put-stream.ts) both ask a Network for their route.
 *
 * Start-up is as before when none of that is set: proxy.ts is loaded only
 * when a proxy variable is, tls-trust.ts only with a CA file, node:https on
 * the first https URL.
 */
import http from 'node:http';
import type * as Https from 'node:https';
import type { NetSettings, Route, RouteOptions } from './net-types.js';
import { anyProxyVariable } from './no-proxy.js';

/**
 * `s` checked before any request, so a mistake is a usage error (exit 2) and
 * not a network failure: the CA file read, the proxy variables parsed.
 */
export async function prepareNet(s: NetSettings): Promise<NetSettings> {
  if (proxyVariableSet(s.env)) (await import('./proxy.js')).checkProxyVariables(s.env, s.warn);
  if (!s.caFile || s.ca) return s;
  const { trustedCas } = await import('./tls-trust.js');
  return { ...s, ca: await trustedCas(s) };
}

/** True when a variable that can name a proxy is set (and not empty); HTTP_PROXY is not one (curl's rule). */
export function proxyVariableSet(env: NetSettings['env']): boolean {
  return anyProxyVariable(env);
}

let httpsLib: Promise<typeof Https> | undefined;
export const loadHttps = (): Promise<typeof Https> => (httpsLib ??= import('node:https'));

export class Network {
  readonly #agents = new Map<string, http.Agent>();
  #ca?: Promise<string[] | undefined>;

  constructor(private readonly settings: NetSettings = { env: {} }) {}

  /** How to send a request to `target`: straight, or through a proxy. */
  async route(target: URL, o: RouteOptions): Promise<Route> {
    const secure = target.protocol === 'https:';
    const ca = secure ? await this.#trusted() : undefined;
    if (proxyVariableSet(this.settings.env)) {
      const proxy = await import('./proxy.js');
      const choice = proxy.proxyFor(target, this.settings.env);
      if (choice) return proxy.proxiedRoute(target, choice, { ...o, ca, agents: this.#agents });
    }
    const lib = secure ? await loadHttps() : http;
    const tlsOptions = ca ? { ca } : {};
    const options: Https.RequestOptions = { protocol: target.protocol, hostname: target.hostname.replace(/^\[|\]$/g, ''), port: target.port || undefined, path: target.pathname + target.search, ...tlsOptions };
    if (!o.keepAlive) return { lib, options: { ...options, agent: false }, headers: {} };
    const name = secure ? 'https' : 'http';
    let agent = this.#agents.get(name);
    if (!agent) {
      agent = secure ? new (lib as typeof Https).Agent({ keepAlive: true, ...tlsOptions }) : new http.Agent({ keepAlive: true });
      this.#agents.set(name, agent);
    }
    return { lib, options: { ...options, agent }, headers: {} };
  }

  /** The CAs to trust when a CA file is given; undefined: Node's own (system roots, NODE_EXTRA_CA_CERTS). */
  #trusted(): Promise<string[] | undefined> {
    if (!this.settings.caFile) return Promise.resolve(undefined);
    return (this.#ca ??= prepareNet(this.settings).then((s) => s.ca?.slice()));
  }

  /** Closes the kept-alive connections. */
  close(): void {
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
  }
}

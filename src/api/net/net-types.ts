/**
 * The types net.ts, proxy.ts and tls-trust.ts share: the network settings and
 * a request's route. In a file of their own so that the two modules net.ts
 * loads on demand do not import net.ts back (no circle, not even of types).
 */
import type http from 'node:http';
import type * as Https from 'node:https';

/** Where the network settings come from (the client's Context, in the end). */
export interface NetSettings {
  env: Readonly<Record<string, string | undefined>>;
  /** The directory a relative CA file is read from. */
  cwd?: string;
  /** A file of CA certificates (PEM) to trust besides the system's. */
  caFile?: string;
  /** Where caFile came from, for messages ("--ca-file", "VIDPUB_CA_FILE", 'profile "default"'). */
  caFileSource?: string;
  /** What caFile makes trusted, read already (prepareNet): a bad file is then a usage error before any request. */
  ca?: readonly string[];
  /** Told of a setting read in part (a NO_PROXY entry left out), once, by prepareNet. */
  warn?: (line: string) => void;
}

/** What `lib.request(options)` needs to send a request to `target` on its way. */
export interface Route {
  lib: typeof http | typeof Https;
  /** Host, port, path and agent (to the proxy, for http through one). */
  options: Https.RequestOptions;
  /** Headers to add (the proxy's credentials, for http through one). */
  headers: Record<string, string>;
  /**
   * For http through a proxy: the error for the proxy's own refusal of a request (407: only a proxy
   * answers it), which went no further than the proxy.
   */
  proxyRefusal?: (status: number) => Error;
}

export interface RouteOptions {
  /** One kept-alive agent per kind of route (the API calls); false: a fresh connection (the PUT). */
  keepAlive: boolean;
  /** The limit on reaching the host (a proxy's tunnel included). */
  connectMs: number;
}

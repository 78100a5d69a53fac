/**
 * A fault-injecting proxy in front of the emulator: what a load balancer, a
 * gateway or a WAF does, which the emulator's own faults cannot (they answer
 * as the service). A node:http server on 127.0.0.1 forwards each request to
 * the emulator, unless a rule matching its method and path says to
 *
 * - answer `instead` of forwarding (the request never reaches the service),
 * - answer `after` forwarding (the service handled it; its answer is replaced),
 * - `drop` the connection after forwarding (the service handled it; no answer).
 *
 * Rules apply in the order added, each `times` times (default: every time).
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { escapeRegExp } from './regexp.js';

/** What the proxy saw of a request, for an answer that echoes it (the key in the Authorization header). */
export interface SeenRequest {
  method: string;
  path: string;
  /** The bearer token sent, when one was. */
  key?: string;
}

export interface ProxyAnswer {
  status: number;
  contentType?: string;
  body: string | ((req: SeenRequest) => string);
}

export type ProxyRule = { method: string; path: string; times?: number } & ({ mode: 'instead' | 'after'; answer: ProxyAnswer } | { mode: 'drop' });

/** A load balancer's 503 page. */
export const LB_503: ProxyAnswer = {
  status: 503,
  contentType: 'text/html',
  body: '<html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center></body></html>',
};
/** A server's 500 page that is not the service's error body. */
export const HTML_500: ProxyAnswer = { status: 500, contentType: 'text/html', body: '<html><title>500 Internal Server Error</title></html>' };
/** A WAF's refusal. */
export const WAF_403: ProxyAnswer = { status: 403, contentType: 'text/html', body: '<html><title>403 Forbidden</title><body>Request blocked by the web application firewall.</body></html>' };
/** A success whose body is not JSON. */
export const OK_NOT_JSON: ProxyAnswer = { status: 200, contentType: 'text/html', body: '<html><body>OK</body></html>' };
/** A 201 whose JSON has no id. */
export const CREATED_NO_ID: ProxyAnswer = { status: 201, contentType: 'application/json', body: '{"status":"draft"}' };

/** `/v1/posts/*` matches one path segment per star. */
function matches(rule: ProxyRule, method: string, path: string): boolean {
  if (rule.method !== method) return false;
  const re = new RegExp(`^${rule.path.split('*').map((p) => escapeRegExp(p)).join('[^/]+')}$`);
  return re.test(path);
}

export class FaultProxy {
  #rules: { rule: ProxyRule; left: number }[] = [];
  /** Every request seen, with the rule applied to it (if any). */
  readonly seen: (SeenRequest & { mode?: ProxyRule['mode'] })[] = [];

  constructor(
    private readonly server: Server,
    private readonly target: URL,
  ) {}

  /** The base URL to give vidpub: the emulator's, through the proxy. */
  get baseUrl(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}${this.target.pathname.replace(/\/$/, '')}`;
  }

  add(...rules: ProxyRule[]): void {
    for (const rule of rules) this.#rules.push({ rule, left: rule.times ?? Infinity });
  }

  clear(): void {
    this.#rules = [];
    this.seen.length = 0;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The rule for this request, used up once. */
  take(method: string, path: string): ProxyRule | undefined {
    const entry = this.#rules.find((e) => e.left > 0 && matches(e.rule, method, path));
    if (entry) entry.left--;
    return entry?.rule;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readAll(req);
    const path = (req.url ?? '/').split('?')[0]!;
    const auth = req.headers.authorization;
    const seen: SeenRequest = { method: req.method ?? 'GET', path, key: auth?.startsWith('Bearer ') ? auth.slice(7) : undefined };
    const rule = this.take(seen.method, path);
    this.seen.push({ ...seen, mode: rule?.mode });
    if (rule?.mode === 'instead') return answer(res, rule.answer, seen);
    const upstream = await forward(this.target, req, body);
    if (rule?.mode === 'after') return answer(res, rule.answer, seen);
    if (rule?.mode === 'drop') {
      req.socket.destroy();
      return;
    }
    res.writeHead(upstream.status, upstream.headers);
    res.end(upstream.body);
  }
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function answer(res: ServerResponse, a: ProxyAnswer, seen: SeenRequest): void {
  const body = typeof a.body === 'function' ? a.body(seen) : a.body;
  res.writeHead(a.status, { 'content-type': a.contentType ?? 'text/plain', 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.end(body);
}

/** The request sent on to the emulator; its whole answer. */
function forward(target: URL, req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Record<string, string | string[]>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers, host: target.host };
    const up = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (r) => {
      void readAll(r).then((b) => {
        const h: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(r.headers)) if (v !== undefined && k !== 'transfer-encoding' && k !== 'connection') h[k] = v;
        h['content-length'] = String(b.length);
        resolve({ status: r.statusCode ?? 502, headers: h, body: b });
      }, reject);
    });
    up.on('error', reject);
    up.end(body);
  });
}

/** Starts a proxy on an ephemeral port of 127.0.0.1 in front of `targetBaseUrl` (the emulator's base URL). */
export async function startFaultProxy(targetBaseUrl: string): Promise<FaultProxy> {
  const server = createServer((req, res) => {
    proxy.handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(599);
      res.end();
    });
  });
  const proxy = new FaultProxy(server, new URL(targetBaseUrl));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return proxy;
}

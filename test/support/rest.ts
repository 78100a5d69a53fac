/**
 * The one REST helper: plain HTTP calls (`http`) and a client of the emulated
 * service and its /_emulator test controls (`Rest`), for setting up and
 * checking tests without going through vidpub. Against an emulator over TLS
 * (`tls: 'generate'`) both trust its CA file (`info.ca_file`), the API's and
 * the storage origin's certificates alike.
 */
import { readFileSync } from 'node:fs';
import { Agent, request, type Dispatcher } from 'undici';
import { DEFAULT_KEYS } from '../../src/emulator/index.js';
import type { RecordedRequest } from '../../src/contract/wire-types.js';
import { waitFor } from './poll.js';

export const KEYS = DEFAULT_KEYS;

/** Parsed JSON of a response: tests read fields freely and assert their values. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface Res<T = Json> {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The parsed JSON, the text when it is not JSON, null when empty. */
  body: T;
  text: string;
}

export interface CallOptions {
  /** Bearer key (default: the client's; null: no Authorization header). */
  key?: string | null;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (no JSON encoding). */
  raw?: string;
  headers?: Record<string, string>;
  idem?: string;
}

function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

const trusting = new Map<string, Dispatcher>();

/** A client trusting the CAs in `caFile` (PEM) besides Node's own; one per file. */
function trustingClient(caFile: string): Dispatcher {
  let d = trusting.get(caFile);
  if (!d) trusting.set(caFile, (d = new Agent({ connect: { ca: readFileSync(caFile, 'utf8') } })));
  return d;
}

export interface HttpOptions {
  headers?: Record<string, string>;
  body?: string | Buffer | AsyncIterable<Buffer>;
  /** A CA file (PEM) to trust for an https URL, such as the TLS emulator's `info.ca_file`. */
  caFile?: string;
}

export async function http(method: string, url: string, opts: HttpOptions = {}): Promise<Res> {
  const dispatcher = opts.caFile ? trustingClient(opts.caFile) : undefined;
  const r = await request(url, { method: method as 'GET', headers: opts.headers, body: opts.body as string | undefined, dispatcher });
  const text = await r.body.text();
  let body: unknown = text;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: r.statusCode, headers: flatHeaders(r.headers), body, text };
}

const jsonBody = (body: unknown): { headers: Record<string, string>; body?: string } =>
  body === undefined ? { headers: {} } : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };

/** Seconds from `nowMs` to just past the next whole minute (+1 s). */
export function toNextMinuteSec(nowMs: number): number {
  return Math.ceil((Math.floor(nowMs / 60_000) * 60_000 + 60_000 - nowMs) / 1000) + 1;
}

/** Seconds from `nowMs` to 00:00:05 UTC of the next day. */
export function toNextDaySec(nowMs: number): number {
  const d = new Date(nowMs);
  return Math.ceil((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) - nowMs) / 1000) + 5;
}

/** Where an emulator is: its API and test controls, and (over TLS) the CA file its certificates chain to. */
export interface EmulatorUrls {
  readonly baseUrl: string;
  readonly adminUrl: string;
  readonly info?: { readonly ca_file?: string };
}

export class Rest {
  constructor(
    readonly urls: EmulatorUrls,
    readonly key: string = KEYS.demo_rw,
  ) {}

  /** The emulator's CA file when it speaks TLS. */
  get caFile(): string | undefined {
    return this.urls.info?.ca_file;
  }

  /** The same client with another key. */
  as(key: string): Rest {
    return new Rest(this.urls, key);
  }

  call<T = Json>(method: string, path: string, opts: CallOptions = {}): Promise<Res<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    const key = opts.key === undefined ? this.key : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    if (opts.idem !== undefined) headers['idempotency-key'] = opts.idem;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    return http(method, `${this.urls.baseUrl}${path}`, { headers, body, caFile: this.caFile }) as Promise<Res<T>>;
  }

  get<T = Json>(path: string, opts: CallOptions = {}): Promise<Res<T>> {
    return this.call<T>('GET', path, opts);
  }

  post<T = Json>(path: string, body?: unknown, opts: CallOptions = {}): Promise<Res<T>> {
    return this.call<T>('POST', path, { ...opts, body });
  }

  // ------------------------------------------------------------- test controls (/_emulator)
  admin<T = Json>(method: string, path: string, body?: unknown): Promise<Res<T>> {
    return http(method, `${this.urls.adminUrl}${path}`, { ...jsonBody(body), caFile: this.caFile }) as Promise<Res<T>>;
  }

  /** Back to the fixture. */
  reset(): Promise<Res> {
    return this.admin('POST', '/reset');
  }

  /** Moves the emulator clock on. */
  advance(sec: number): Promise<Res> {
    return this.admin('POST', '/clock', { advance_sec: sec });
  }

  fault(spec: unknown): Promise<Res> {
    return this.admin('POST', '/faults', spec);
  }

  async requests(): Promise<RecordedRequest[]> {
    return (await this.admin('GET', '/requests')).body as RecordedRequest[];
  }

  /** The emulator clock, ms since the epoch. */
  async clockNow(): Promise<number> {
    return Date.parse((await this.admin('GET', '/clock')).body.now);
  }

  /** Moves the emulator clock just past the next minute boundary: a whole fresh per-minute window. */
  async freshMinute(): Promise<void> {
    await this.advance(toNextMinuteSec(await this.clockNow()));
  }

  /** Moves the emulator clock to 00:00:05 UTC of the next day: a fresh daily allowance and minute window. */
  async nextDay(): Promise<void> {
    await this.advance(toNextDaySec(await this.clockNow()));
  }

  // ------------------------------------------------------------- flows
  /** Creates an upload, sends `size` bytes, completes it and waits until the video is ready: its id. */
  async uploadReady(filename = 'clip.mp4', size = 1000, contentType = 'video/mp4'): Promise<string> {
    const c = await this.post('/media/uploads', { filename, size_bytes: size, content_type: contentType });
    if (c.status !== 201) throw new Error(`upload create ${c.status} ${c.text}`);
    const put = await http('PUT', c.body.upload.url, { headers: c.body.upload.headers, body: Buffer.alloc(size, 1), caFile: this.caFile });
    if (put.status !== 200) throw new Error(`put ${put.status} ${put.text}`);
    const done = await this.post(`/media/${c.body.media.id}/complete`);
    if (done.status !== 200) throw new Error(`complete ${done.status}`);
    await waitFor(() => this.get(`/media/${c.body.media.id}`), (r) => r.body.status === 'ready');
    return c.body.media.id as string;
  }
}

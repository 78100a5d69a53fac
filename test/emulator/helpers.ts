import { afterAll, beforeAll, beforeEach } from 'vitest';
/** Black-box HTTP helpers for the emulator tests. */
import { request } from 'undici';
import { DEFAULT_KEYS, startEmulator, type EmulatorHandle, type EmulatorOptions } from '../../src/emulator/index.js';

export const KEYS = DEFAULT_KEYS;

/** Parsed JSON of a response: tests read fields freely and assert their values. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface Res<T = Json> {
  status: number;
  headers: Record<string, string>;
  body: T;
  text: string;
}

export interface CallOptions {
  key?: string | null;
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

export async function http(method: string, url: string, opts: { headers?: Record<string, string>; body?: string | Buffer | AsyncIterable<Buffer> } = {}): Promise<Res> {
  const r = await request(url, { method: method as 'GET', headers: opts.headers, body: opts.body as string | undefined });
  const text = await r.body.text();
  let body: unknown = text;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: r.statusCode, headers: flatHeaders(r.headers), body, text };
}

export class Client {
  constructor(readonly emu: EmulatorHandle, readonly key: string = KEYS.demo_rw) {}

  as(key: string): Client {
    return new Client(this.emu, key);
  }

  call<T = Json>(method: 'GET' | 'POST', path: string, opts: CallOptions = {}): Promise<Res<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    const key = opts.key === undefined ? this.key : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    if (opts.idem !== undefined) headers['idempotency-key'] = opts.idem;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    return http(method, `${this.emu.baseUrl}${path}`, { headers, body }) as Promise<Res<T>>;
  }

  get<T = Json>(path: string, opts: CallOptions = {}): Promise<Res<T>> {
    return this.call<T>('GET', path, opts);
  }

  post<T = Json>(path: string, body?: unknown, opts: CallOptions = {}): Promise<Res<T>> {
    return this.call<T>('POST', path, { ...opts, body });
  }

  // ------------------------------------------------------------- admin
  admin<T = Json>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<Res<T>> {
    return http(method, `${this.emu.adminUrl}${path}`, {
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }) as Promise<Res<T>>;
  }

  reset(): Promise<Res> {
    return this.admin('POST', '/reset');
  }

  advance(sec: number): Promise<Res> {
    return this.admin('POST', '/clock', { advance_sec: sec });
  }

  fault(spec: unknown): Promise<Res> {
    return this.admin('POST', '/faults', spec);
  }

  requests(): Promise<Json[]> {
    return this.admin('GET', '/requests').then((r) => r.body as Json[]);
  }

  // ------------------------------------------------------------- flows
  async uploadReady(filename = 'clip.mp4', size = 1000, contentType = 'video/mp4'): Promise<string> {
    const c = await this.post('/media/uploads', { filename, size_bytes: size, content_type: contentType });
    if (c.status !== 201) throw new Error(`upload create ${c.status} ${c.text}`);
    const put = await http('PUT', c.body.upload.url, { headers: c.body.upload.headers, body: Buffer.alloc(size, 1) });
    if (put.status !== 200) throw new Error(`put ${put.status} ${put.text}`);
    const done = await this.post(`/media/${c.body.media.id}/complete`);
    if (done.status !== 200) throw new Error(`complete ${done.status}`);
    await waitFor(() => this.get(`/media/${c.body.media.id}`), (r) => r.body.status === 'ready');
    return c.body.media.id as string;
  }
}

export async function startTest(opts: EmulatorOptions = {}): Promise<{ emu: EmulatorHandle; api: Client }> {
  const emu = await startEmulator({ port: 0, processingMs: 30, publishMs: 30, ...opts });
  return { emu, api: new Client(emu) };
}

/**
 * The emulator of one test file: started before its tests, reset to the
 * fixture before each test, closed after them. Read `emu` and `api` inside
 * tests and hooks (they exist once beforeAll has run).
 */
export function useEmulatorSuite(opts: EmulatorOptions = {}): { readonly emu: EmulatorHandle; readonly api: Client } {
  let started: { emu: EmulatorHandle; api: Client } | undefined;
  beforeAll(async () => {
    started = await startTest(opts);
  });
  afterAll(() => started?.emu.close());
  beforeEach(async () => {
    await suite.api.reset();
  });
  const get = () => {
    if (!started) throw new Error('the emulator is not started yet: use emu and api inside tests and hooks');
    return started;
  };
  const suite = {
    get emu() {
      return get().emu;
    },
    get api() {
      return get().api;
    },
  };
  return suite;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Polls fn until pred holds (or fails after timeoutMs): every 10 ms at first, backing off
 * to every 150 ms, so that a long wait stays well inside the 60 reads per minute of a key.
 */
export async function waitFor<T>(fn: () => Promise<T>, pred: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let pause = 10;
  for (;;) {
    const v = await fn();
    if (pred(v)) return v;
    if (Date.now() > end) throw new Error(`waitFor timed out; last value: ${JSON.stringify(v)}`);
    await sleep(pause);
    pause = Math.min(150, Math.round(pause * 1.5));
  }
}

/** Seconds until the next whole minute of the emulator clock, + 1. */
export function nextMinuteSec(nowIso: string): number {
  const ms = Date.parse(nowIso);
  return Math.ceil((Math.floor(ms / 60_000) * 60_000 + 60_000 - ms) / 1000) + 1;
}

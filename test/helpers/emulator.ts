/**
 * Starts the real emulator on an ephemeral port for a test file, and wraps its
 * /_emulator test controls.
 */
import { afterAll, beforeAll } from 'vitest';
import type { EmulatorKeyInfo, FaultSpec, RecordedRequest } from '../../src/api/types.js';

export interface EmulatorFixture {
  readonly baseUrl: string;
  readonly adminUrl: string;
  readonly keys: EmulatorKeyInfo[];
  /** The key of a workspace with the given access (default: Demo, read_write). */
  key(workspace?: string, access?: 'read' | 'read_write'): string;
  /** Env for runCli: base URL and key of the chosen workspace. */
  env(workspace?: string, access?: 'read' | 'read_write'): Record<string, string>;
  reset(): Promise<void>;
  requests(): Promise<RecordedRequest[]>;
  fault(spec: FaultSpec | Record<string, unknown>): Promise<void>;
  advance(seconds: number): Promise<void>;
  admin(method: string, path: string, body?: unknown): Promise<unknown>;
}

export function useEmulator(opts: { processingMs?: number; publishMs?: number; fixture?: unknown } = {}): EmulatorFixture {
  let handle: { baseUrl: string; adminUrl: string; keys: EmulatorKeyInfo[]; close(): Promise<void> } | undefined;
  beforeAll(async () => {
    const { startEmulator } = await import('../../src/emulator/index.js');
    handle = await startEmulator({ port: 0, processingMs: opts.processingMs ?? 20, publishMs: opts.publishMs ?? 20, fixture: opts.fixture });
  });
  afterAll(async () => {
    await handle?.close();
  });
  const h = () => {
    if (!handle) throw new Error('emulator not started');
    return handle;
  };
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(h().adminUrl + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`emulator admin ${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const key = (workspace = 'Demo', access: 'read' | 'read_write' = 'read_write') => {
    const k = h().keys.find((x) => x.workspace === workspace && x.access === access);
    if (!k) throw new Error(`no ${access} key for workspace ${workspace}`);
    return k.key;
  };
  return {
    get baseUrl() {
      return h().baseUrl;
    },
    get adminUrl() {
      return h().adminUrl;
    },
    get keys() {
      return h().keys;
    },
    key,
    env: (workspace, access) => ({ VIDPUB_BASE_URL: h().baseUrl, VIDPUB_API_KEY: key(workspace, access) }),
    reset: async () => {
      await admin('POST', '/reset');
    },
    requests: async () => (await admin('GET', '/requests')) as RecordedRequest[],
    fault: async (spec) => {
      await admin('POST', '/faults', spec);
    },
    advance: async (seconds) => {
      await admin('POST', '/clock', { advance_sec: seconds });
    },
    admin,
  };
}

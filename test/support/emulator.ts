/**
 * The one emulator harness: the real emulator on an ephemeral port, with the
 * keys of its fixture, a REST client (`api`) and its /_emulator test controls.
 *
 * - `useEmulator(opts)`: one emulator for a test file, started before its
 *   tests and closed after them; reset to the fixture before each test unless
 *   `resetEachTest: false`. Use it inside tests and hooks.
 * - `startTestEmulator(opts)`: one more emulator inside a test; close it.
 *
 * Over TLS (`tls: 'generate'`) its REST client and test controls trust the
 * emulator's own CA file (`info.ca_file`).
 *
 * From the emulator's own log and state: `writes`, `expectNothingTwice`,
 * `postsTotal` (what the fault matrices check after each cell).
 */
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { startEmulator, type EmulatorHandle, type EmulatorOptions } from '../../src/emulator/index.js';
import type { EmulatorKeyInfo, EmulatorStartInfo, FaultSpec, RecordedRequest } from '../../src/contract/wire-types.js';
import { Rest, toNextDaySec, type Json, type Res } from './rest.js';

export interface HarnessOptions extends EmulatorOptions {
  /** Reset the emulator to its fixture before each test of the file (default: true). */
  resetEachTest?: boolean;
}

type Access = 'read' | 'read_write' | 'none';

export class TestEmulator {
  /** REST client with the Demo read/write key; `.as(key)` for another. */
  readonly api: Rest;

  constructor(readonly handle: EmulatorHandle) {
    this.api = new Rest(handle);
  }

  get baseUrl(): string {
    return this.handle.baseUrl;
  }
  get adminUrl(): string {
    return this.handle.adminUrl;
  }
  get port(): number {
    return this.handle.port;
  }
  get keys(): EmulatorKeyInfo[] {
    return this.handle.keys;
  }
  get info(): EmulatorStartInfo {
    return this.handle.info;
  }
  get service(): EmulatorHandle['service'] {
    return this.handle.service;
  }

  close(): Promise<void> {
    return this.handle.close();
  }

  /** The key of a workspace with the given access (default: Demo, read_write). */
  key(workspace = 'Demo', access: Access = 'read_write'): string {
    const k = this.keys.find((x) => x.workspace === workspace && x.access === access);
    if (!k) throw new Error(`no ${access} key for workspace ${workspace}`);
    return k.key;
  }

  /** Env for runCli: base URL and key of the chosen workspace. */
  env(workspace?: string, access?: Access): Record<string, string> {
    return { VIDPUB_BASE_URL: this.baseUrl, VIDPUB_API_KEY: this.key(workspace, access) };
  }

  /** A test control that must succeed: its parsed JSON. */
  async admin(method: string, path: string, body?: unknown): Promise<Json> {
    const r: Res = await this.api.admin(method, path, body);
    if (r.status < 200 || r.status > 299) throw new Error(`emulator admin ${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  }

  async reset(): Promise<void> {
    await this.admin('POST', '/reset');
  }

  async fault(spec: FaultSpec | Record<string, unknown>): Promise<void> {
    await this.admin('POST', '/faults', spec);
  }

  async advance(seconds: number): Promise<void> {
    await this.admin('POST', '/clock', { advance_sec: seconds });
  }

  requests(): Promise<RecordedRequest[]> {
    return this.api.requests();
  }

  /**
   * Whether the log shows a `method` request to `path` (ending `*`: any path so begun) that the `fault`
   * action took: the event a test waits for before staging its race (a held request, say).
   */
  async took(fault: string, method: string, path: string): Promise<boolean> {
    const matches = path.endsWith('*') ? (p: string) => p.startsWith(path.slice(0, -1)) : (p: string) => p === path;
    return (await this.requests()).some((r) => r.fault === fault && r.method === method && matches(r.path));
  }
}

/** Background steps of 30 ms unless said otherwise: fast, yet each state can be seen. */
export async function startTestEmulator(opts: EmulatorOptions = {}): Promise<TestEmulator> {
  return new TestEmulator(await startEmulator({ port: 0, processingMs: 30, publishMs: 30, ...opts }));
}

export function useEmulator(opts: HarnessOptions = {}): TestEmulator {
  const { resetEachTest = true, ...emulatorOpts } = opts;
  let started: TestEmulator | undefined;
  beforeAll(async () => {
    started = await startTestEmulator(emulatorOpts);
  });
  afterAll(() => started?.close());
  if (resetEachTest) beforeEach(() => started?.reset());
  const get = (): TestEmulator => {
    if (!started) throw new Error('the emulator is not started yet: use it inside tests and hooks');
    return started;
  };
  // Stands for the emulator started in beforeAll.
  return new Proxy({} as TestEmulator, {
    get(_target, prop) {
      const emu = get();
      const value: unknown = Reflect.get(emu, prop, emu);
      return typeof value === 'function' ? value.bind(emu) : value;
    },
  });
}

/** The writes (POST /v1/...) the emulator has seen, in order. */
export async function writes(on: TestEmulator): Promise<RecordedRequest[]> {
  return (await on.requests()).filter((r) => r.path.startsWith('/v1/') && r.method === 'POST');
}

/**
 * Nothing created twice, from the emulator's log of the writes after the
 * first `since`: per write path, one Idempotency-Key for every attempt, and
 * at most one attempt handled afresh.
 */
export async function expectNothingTwice(on: TestEmulator, since = 0): Promise<void> {
  const byPath = new Map<string, RecordedRequest[]>();
  for (const w of (await writes(on)).slice(since)) {
    const step = w.path.replace(/med_\w+|post_\w+/g, ':id');
    byPath.set(step, [...(byPath.get(step) ?? []), w]);
  }
  for (const [path, reqs] of byPath) {
    const keys = new Set(reqs.map((r) => r.idempotency_key));
    expect(keys.size, `${path}: one Idempotency-Key for every attempt`).toBe(1);
    expect([...keys][0], `${path}: a key was sent`).toBeTruthy();
    const handled = reqs.filter((r) => r.status >= 200 && r.status < 300 && !r.replayed);
    expect(handled.length, `${path}: handled at most once`).toBeLessThanOrEqual(1);
  }
}

/** How many posts the Demo workspace has. */
export async function postsTotal(on: TestEmulator): Promise<number> {
  const state = (await on.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number } }[] };
  return state.workspaces.find((w) => w.name === 'Demo')!.posts.total;
}

/**
 * Spends the Demo account's whole daily post allowance (Standard: 30, shared
 * by the Demo and Demo Second workspaces) with direct API calls, 20 + 10 to
 * stay under each key's 20 writes a minute, moving the emulator clock a
 * minute on before and after so the per-minute counters start afresh.
 */
export async function exhaustDailyAllowance(emu: TestEmulator): Promise<void> {
  const post = (workspace: string, media: string, destination: string, caption: string) =>
    emu.api.as(emu.key(workspace)).post('/posts', { media_id: media, caption, destinations: [{ destination_id: destination }], publish_at: 'now' });
  const spend = async (workspace: string, media: string, destination: string, n: number) => {
    for (let i = 0; i < n; i++) {
      const r = await post(workspace, media, destination, `filler ${i}`);
      if (r.status !== 201) throw new Error(`filler post ${workspace} ${i}: ${r.status} ${r.text}`);
    }
  };
  // Close to midnight UTC the allowance would reset under the test: start just after it instead.
  const toNextDay = toNextDaySec(await emu.api.clockNow());
  if (toNextDay < 605) await emu.advance(toNextDay);
  await emu.advance(61); // writes made before this minute do not count
  await spend('Demo', 'med_demo_sample', 'dst_demo_linkedin', 20);
  await spend('Demo Second', 'med_second_sample', 'dst_second_youtube', 10);
  const last = await post('Demo Second', 'med_second_sample', 'dst_second_youtube', 'x');
  expect(last.status).toBe(429);
  await emu.advance(61);
}

/**
 * Public entry of the emulator of the Video Publishing Service. Loaded only
 * on demand (`await import('./index.js')`).
 */
import type { AddressInfo } from 'node:net';
import type { EmulatorKeyInfo, EmulatorStartInfo } from '../contract/wire-types.js';
import { Core } from './core.js';
import { defaultFixture } from './default-fixture.js';
import type { Fixture } from './fixture.js';
import { validateFixture } from './fixture-check.js';
import { releaseDuePosts } from './posting.js';
import { mcpPlugin } from './mcp.js';
import { buildServer, type EmulatorPlugin } from './server.js';
import { listenWarning } from './access.js';
import { EmulatorService } from './service.js';
import { listenStorage } from './storage-listener.js';
import { openSavedWorld, registerExport, type SavedInfo } from './state-store/saved.js';
import type { KeyPair } from './tls.js';
import type { PlayableLimits } from './video-store.js';

export { defaultFixture, DEFAULT_KEYS } from './default-fixture.js';
export { loadFixtureFile, validateFixture, FixtureError, type FixtureProblem } from './fixture-check.js';
export type { Fixture, FixtureAccount, FixtureWorkspace, FixtureKey, FixtureDestination, FixtureOption, FixtureMedia } from './fixture.js';
export { EmulatorService } from './service.js';
export { seedFixture, seedRecords, type SeedReader, type SeedRecords, type SeedResult, type SeedOptions } from './seed.js';
export type { CallContext, RequestBody, ServiceResult } from './service.js';
export type { EmulatorPlugin } from './server.js';
export { StateDirError, type SavedInfo } from './state-store/saved.js';

import { DEFAULT_HOST, DEFAULT_PORT, DEFAULT_PROCESSING_MS, DEFAULT_PUBLISH_MS, DEFAULT_UPLOAD_LINK_TTL_SEC } from './defaults.js';
export { DEFAULT_HOST, DEFAULT_PORT, DEFAULT_PROCESSING_MS, DEFAULT_PUBLISH_MS, DEFAULT_UPLOAD_LINK_TTL_SEC };

export interface EmulatorOptions {
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Port (default 4010; 0 = a free port). */
  port?: number;
  /** Duration of processing (and of an import's download), ms. Default 3000. */
  processingMs?: number;
  /** Time for a post to go out to all its destinations, ms. Default 2000. */
  publishMs?: number;
  /** Lifetime of upload links, seconds. Default 3600. */
  uploadLinkTtlSec?: number;
  /** A parsed fixture (JSON value; validated). Default: defaultFixture(). */
  fixture?: unknown;
  /** Time source in ms (default Date.now); the emulator clock adds its offset. */
  now?: () => number;
  /** Extra routes registered on the same server before it listens (one at /mcp replaces the built-in MCP endpoint). */
  plugins?: readonly EmulatorPlugin[];
  /** Let the test controls (/_emulator) answer peers other than this machine's loopback. Default false. */
  exposeControls?: boolean;
  /**
   * Serve over HTTPS: 'generate' makes a CA and a certificate for each listener at start
   * (the CA's file is `info.ca_file`), or a certificate and key (PEM) for both.
   */
  tls?: 'generate' | { cert: string; key: string };
  /**
   * A second listener for the upload links (another origin, as object storage): its port,
   * 0 for a free one. Default: on (a free port) with `tls`, off without.
   */
  storagePort?: number;
  /** The bytes of uploaded videos kept for the web app's player, in flight included (video-store.ts; default 64 MiB a video, 192 MiB, 100 videos). */
  playable?: Partial<PlayableLimits>;
  /** A state directory: the world starts from it when it holds one and is kept there as it changes (state-store/). */
  state?: string;
  /** A parsed export (`vidpub emulator export`) to start from, and the file's name for messages. */
  world?: unknown;
  worldSource?: string;
}

export interface EmulatorHandle {
  /** http(s)://HOST:PORT/v1 */
  baseUrl: string;
  /** http://HOST:PORT/_emulator */
  adminUrl: string;
  port: number;
  /** Usable (not revoked) keys of the fixture. */
  keys: EmulatorKeyInfo[];
  /** What `vidpub emulator --json` prints. */
  info: EmulatorStartInfo;
  /** The HTTP-independent service layer (for an MCP endpoint or in-process use). */
  service: EmulatorService;
  /** What to tell whoever started it about who can reach it (a host other than loopback), or null. */
  warning: string | null;
  /** With `state` or `world`: where the world is kept, whether one was restored. */
  saved?: SavedInfo;
  /** Stops the server, drops open connections and clears every timer. */
  close(): Promise<void>;
}

function msOption(v: number | undefined, name: string, def: number): number {
  if (v === undefined) return def;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`${name} must be a number of milliseconds of at least 0, got ${String(v)}`);
  return Math.round(v);
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** The usable keys, each with what it may do: a Free-plan key may do nothing (every call is 403 plan_without_api_access). */
export function keysOf(fixture: Fixture): EmulatorKeyInfo[] {
  const plans = new Map(fixture.accounts.map((a) => [a.id, a.plan]));
  return fixture.workspaces.flatMap((w) =>
    w.keys
      .filter((k) => !k.revoked)
      .map((k) => {
        const plan = plans.get(w.account)!;
        return { key: k.key, workspace: w.name, plan, access: plan === 'free' ? ('none' as const) : k.access };
      }),
  );
}

/** The certificates of each listener, and the CA's file when they were made here. */
async function tlsMaterial(o: NonNullable<EmulatorOptions['tls']>): Promise<{ api: KeyPair; storage: KeyPair; caFile?: { path: string; remove(): Promise<void> } }> {
  if (o !== 'generate') return { api: o, storage: o };
  const { makeEmulatorTls, writeCaFile } = await import('./tls.js');
  const made = await makeEmulatorTls();
  return { api: made.api, storage: made.storage, caFile: await writeCaFile(made.caCert) };
}

/** Starts a listener; a refused address closes what was started and says why, with the errno code kept. */
async function listening<T>(listen: () => Promise<T>, host: string, port: number, closeAll: () => Promise<void>): Promise<T> {
  try {
    return await listen();
  } catch (err) {
    await closeAll();
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'EADDRINUSE' ? 'the port is already in use'
      : e.code === 'EACCES' ? 'permission denied'
        : e.code === 'EADDRNOTAVAIL' ? 'that address is not available on this machine'
          : e.message;
    const error: NodeJS.ErrnoException = new Error(`Cannot start the emulator on ${host}:${port}: ${why}${e.code ? ` (${e.code})` : ''}.`, { cause: err });
    if (e.code) error.code = e.code; // callers may test err.code === 'EADDRINUSE'
    throw error;
  }
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const host = opts.host ?? DEFAULT_HOST;
  const port = opts.port ?? DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`port must be a whole number from 0 to 65535, got ${String(port)}`);
  const settings = {
    processingMs: msOption(opts.processingMs, 'processingMs', DEFAULT_PROCESSING_MS),
    publishMs: msOption(opts.publishMs, 'publishMs', DEFAULT_PUBLISH_MS),
    uploadLinkTtlSec: msOption(opts.uploadLinkTtlSec, 'uploadLinkTtlSec', DEFAULT_UPLOAD_LINK_TTL_SEC),
  };
  const fixture = opts.fixture === undefined ? undefined : validateFixture(opts.fixture, 'fixture');
  // A saved world (opened and locked here: given up again below should the start fail) brings its own fixture.
  const saved = openSavedWorld(opts);
  const core = new Core(saved?.fixture ?? fixture ?? defaultFixture(), settings, opts.now, opts.playable);
  saved?.restore(core);
  // Timings given at this start win over those the saved world had.
  for (const k of ['processingMs', 'publishMs', 'uploadLinkTtlSec'] as const) if (opts[k] !== undefined) core.settings[k] = settings[k];
  const service = new EmulatorService(core);
  const keys = keysOf(core.fixture);
  let info: EmulatorStartInfo = { base_url: '', admin_url: '', keys };
  const exposeControls = opts.exposeControls === true;
  let tls: Awaited<ReturnType<typeof tlsMaterial>> | undefined;
  let app: Awaited<ReturnType<typeof buildServer>>;
  try {
    tls = opts.tls === undefined ? undefined : await tlsMaterial(opts.tls);
    app = await buildServer(core, service, () => info, { plugins: [...(opts.plugins ?? []), mcpPlugin], exposeControls, https: tls?.api });
  } catch (err) {
    saved?.close(); // the state directory is given up
    throw err;
  }
  registerExport(app, core);
  const cleanUp: (() => Promise<void>)[] = [async () => saved?.close(), () => app.close()];
  saved?.keep(core, service, app.server);
  const closeAll = async () => {
    for (const step of cleanUp.reverse()) await step().catch(() => undefined);
  };
  if (tls?.caFile) cleanUp.push(tls.caFile.remove);

  await listening(() => app.listen({ host, port }), host, port, closeAll);
  const scheme = tls ? 'https' : 'http';
  const actualPort = (app.server.address() as AddressInfo).port;
  core.origin = `${scheme}://${urlHost(host)}:${actualPort}`;
  const storagePort = opts.storagePort ?? (tls ? 0 : undefined);
  if (storagePort !== undefined) {
    const storage = await listening(() => listenStorage(app, { host, port: storagePort, tls: tls?.storage }), host, storagePort, closeAll);
    cleanUp.push(storage.close);
    core.storageOrigin = `${scheme}://${urlHost(host)}:${storage.port}`;
  }
  info = { base_url: `${core.origin}/v1`, admin_url: `${core.origin}/_emulator`, keys };
  if (core.storageOrigin) info.storage_url = core.storageOrigin;
  if (tls?.caFile) info.ca_file = tls.caFile.path;

  // Scheduled posts go out, and background jobs run, when their time comes: on every clock
  // advance, and on a short tick (for an injected time source that moves by itself).
  core.clock.onAdvance(() => releaseDuePosts(core));
  core.timers.every(100, () => {
    core.timers.runDue();
    releaseDuePosts(core);
  });

  let closed: Promise<void> | null = null;
  return {
    baseUrl: info.base_url,
    adminUrl: info.admin_url,
    port: actualPort,
    keys,
    info,
    service,
    warning: listenWarning(host, exposeControls),
    ...(saved ? { saved: saved.info } : {}),
    close: () => {
      closed ??= (async () => {
        core.timers.shutdown();
        await closeAll();
        core.timers.shutdown();
      })();
      return closed;
    },
  };
}

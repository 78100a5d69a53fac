/**
 * The emulator's shared core: clock, timers, state, counters, idempotency
 * store, faults, settings and the request log. Reset puts all of it back to
 * the fixture.
 */
import { randomBytes } from 'node:crypto';
import { Clock } from './offset-clock.js';
import { Faults } from './faults.js';
import type { Fixture } from './fixture.js';
import { IdempotencyStore } from './idempotency.js';
import { Limits } from './limits.js';
import { RequestLog } from './request-log.js';
import { State } from './state.js';
import { Timers } from './timers.js';
import { VideoBytes, type PlayableLimits } from './video-store.js';

export interface Settings {
  /** Duration of the processing step (and of an import's download step), ms. */
  processingMs: number;
  /** Time for a post to go out to all its destinations, ms. */
  publishMs: number;
  /** Lifetime of a signed upload link, seconds. */
  uploadLinkTtlSec: number;
}

export type { LogEntry } from './request-log.js';

export class Core {
  readonly clock: Clock;
  readonly timers: Timers;
  readonly faults = new Faults();
  readonly limits: Limits;
  readonly idempotency: IdempotencyStore;
  /** HMAC secret of upload links; new for every emulator process. */
  readonly secret = randomBytes(32);
  state: State;
  settings: Settings;
  readonly log = new RequestLog();
  /** The uploaded videos' bytes, for the web app's player. */
  readonly videos: VideoBytes;
  /** http://host:port, set once the server listens. */
  origin = 'http://127.0.0.1';
  /** The upload links' origin when they have a listener of their own (another origin, as object storage). */
  storageOrigin?: string;
  private readonly resetListeners: (() => void)[] = [];

  constructor(
    readonly fixture: Fixture,
    private readonly initialSettings: Settings,
    now?: () => number,
    playable: Partial<PlayableLimits> = {},
  ) {
    this.videos = new VideoBytes(playable.maxTotalBytes, playable.maxVideos, playable.maxVideoBytes);
    this.clock = new Clock(now);
    // Background jobs follow the clock: moved past one, it runs at once.
    this.timers = new Timers(() => this.clock.now());
    this.clock.onAdvance(() => this.timers.runDue());
    this.state = new State(fixture);
    this.settings = { ...initialSettings };
    this.limits = new Limits(this.clock, () => this.state);
    this.idempotency = new IdempotencyStore(this.clock);
  }

  onReset(listener: () => void): void {
    this.resetListeners.push(listener);
  }

  reset(): void {
    this.timers.clearJobs();
    this.state = new State(this.fixture);
    this.settings = { ...this.initialSettings };
    this.clock.reset(); // before the counts: a fixture's used count is of the clock's day
    this.limits.reset();
    this.idempotency.reset();
    this.faults.clear();
    this.log.clear();
    this.videos.clear();
    for (const l of this.resetListeners) l();
  }
}

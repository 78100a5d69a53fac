/**
 * Authentication, the per-key per-minute read/write counters and the daily
 * post allowance. One place, used by every entry point (REST now, MCP later).
 */
import type { DailyScope, PlanName } from '../contract/wire-types.js';
import { KEY_PREFIX_MARKER } from '../core/key-format.js';
import { IsoCache, nextMidnightUtc, secondsUntil, utcDay, type Clock } from './offset-clock.js';
import { ServiceError } from './service-errors.js';
import { accountLimits, type KeyState, type PlanLimits, type State, type WorkspaceState } from './state.js';

export type RequestKind = 'read' | 'write';

export interface AuthContext {
  key: KeyState;
  workspace: WorkspaceState;
  planName: PlanName;
  plan: PlanLimits;
}

export interface CounterStatus {
  limit: number;
  used: number;
  remaining: number;
  resetSec: number;
  resetAtMs: number;
}

export interface DailyStatus {
  limit: number;
  used: number;
  remaining: number;
  scope: DailyScope;
  resetAtMs: number;
}

const WWW_AUTH = { 'WWW-Authenticate': 'Bearer realm="Video Publishing Service"' };

function unauthorized(code: string, message: string): ServiceError {
  return new ServiceError(401, code, message, { headers: WWW_AUTH });
}

interface Window {
  start: number;
  read: number;
  write: number;
}

interface DayCount {
  /** utcDay() of the day counted. */
  day: number;
  used: number;
}

/** The counts as plain data (kept by `vidpub emulator --state`, in an export). */
export interface LimitCounts {
  start_day: number;
  minute: [string, Window][];
  daily: [string, DayCount][];
  workspace_daily: [string, DayCount][];
}

export class Limits {
  private readonly minute = new Map<string, Window>();
  private readonly dailyCounts = new Map<string, DayCount>();
  private readonly workspaceDaily = new Map<string, DayCount>();
  private readonly minuteIso = new IsoCache();
  private readonly midnightIso = new IsoCache();
  /** utcDay() of the start (or last reset): the day a fixture's `used` counts apply to. */
  private startDay: number;

  constructor(
    private readonly clock: Clock,
    private readonly state: () => State,
  ) {
    this.startDay = utcDay(clock.now());
  }

  /** Back to the fixture's counts, on the clock's day (reset the clock first). */
  reset(): void {
    this.minute.clear();
    this.dailyCounts.clear();
    this.workspaceDaily.clear();
    this.startDay = utcDay(this.clock.now());
  }

  exportCounts(): LimitCounts {
    return { start_day: this.startDay, minute: [...this.minute], daily: [...this.dailyCounts], workspace_daily: [...this.workspaceDaily] };
  }

  importCounts(c: LimitCounts): void {
    this.startDay = c.start_day;
    for (const [map, list] of [[this.minute, c.minute], [this.dailyCounts, c.daily], [this.workspaceDaily, c.workspace_daily]] as const) {
      map.clear();
      for (const [id, v] of list) map.set(id, { ...v } as Window & DayCount);
    }
  }

  /** 401 for a missing, malformed, unknown or revoked key; 403 for a Free-plan key. */
  authenticate(authorization: string | undefined): AuthContext {
    const header = authorization?.trim() ?? '';
    if (header === '') {
      return fail(unauthorized('missing_key', 'No API key was sent. Send it in the Authorization header: "Authorization: Bearer vp_live_...".'));
    }
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m) {
      return fail(unauthorized('invalid_key', 'The Authorization header must be "Bearer <API key>".'));
    }
    const value = m[1]!;
    if (!value.includes(KEY_PREFIX_MARKER)) {
      return fail(unauthorized('invalid_key', `This is not a live API key: workspace API keys begin with a prefix ending in "${KEY_PREFIX_MARKER}" (for example "vp_live_...").`));
    }
    const state = this.state();
    const key = state.keys.get(value);
    if (!key) {
      return fail(unauthorized('invalid_key', 'The API key is not valid. Check that it was copied whole, or create a new key in the account API settings.'));
    }
    if (key.revoked) {
      return fail(unauthorized('revoked_key', 'This API key was revoked in the account API settings. Create a new key there and use it instead.'));
    }
    const workspace = state.workspace(key.workspaceId);
    const planName = workspace.account.plan;
    const plan = accountLimits(workspace.account);
    if (!plan.api) {
      return fail(new ServiceError(403, 'plan_without_api_access', `The ${cap(planName)} plan has no API access. Move the account to the Standard or Studio plan to use API keys.`));
    }
    return { key, workspace, planName, plan };
  }

  /** ISO text of the end of a minute window (CounterStatus.resetAtMs). */
  minuteResetIso(resetAtMs: number): string {
    return this.minuteIso.at(resetAtMs);
  }

  /** ISO text of a daily reset (DailyStatus.resetAtMs). */
  dailyResetIso(resetAtMs: number): string {
    return this.midnightIso.at(resetAtMs);
  }

  // ---------------------------------------------------------------- per minute

  /** The key's window of the minute containing `now` (a new one when the minute changed). */
  private window(keyId: string, now: number): Window {
    const start = Math.floor(now / 60_000) * 60_000;
    let w = this.minute.get(keyId);
    if (!w || w.start !== start) {
      w = { start, read: 0, write: 0 };
      this.minute.set(keyId, w);
    }
    return w;
  }

  counter(auth: AuthContext, kind: RequestKind): CounterStatus {
    const now = this.clock.now();
    const w = this.window(auth.key.id, now);
    const limit = kind === 'read' ? auth.plan.readPerMinute : auth.plan.writePerMinute;
    const used = w[kind];
    const resetAtMs = w.start + 60_000;
    return { limit, used, remaining: Math.max(0, limit - used), resetSec: secondsUntil(now, resetAtMs), resetAtMs };
  }

  /** Counts one request, or throws 429 requests_per_minute (not counted). One look at the clock and the window. */
  take(auth: AuthContext, kind: RequestKind): void {
    const now = this.clock.now();
    const w = this.window(auth.key.id, now);
    const limit = kind === 'read' ? auth.plan.readPerMinute : auth.plan.writePerMinute;
    if (w[kind] >= limit) {
      const resetSec = secondsUntil(now, w.start + 60_000);
      throw new ServiceError(
        429,
        'requests_per_minute',
        `Too many ${kind} requests: this key may make ${limit} ${kind} requests per minute. Retry in ${resetSec} s.`,
        { headers: { 'Retry-After': String(resetSec) } },
      );
    }
    w[kind] += 1;
  }

  /** Gives a request back (a 429 does not spend the allowance). */
  refund(auth: AuthContext, kind: RequestKind): void {
    const w = this.window(auth.key.id, this.clock.now());
    if (w[kind] > 0) w[kind] -= 1;
  }

  /** X-RateLimit-* of the key's current window (one look at the clock and the window). */
  headers(auth: AuthContext, kind: RequestKind): Record<string, string> {
    const now = this.clock.now();
    const w = this.window(auth.key.id, now);
    const limit = kind === 'read' ? auth.plan.readPerMinute : auth.plan.writePerMinute;
    return {
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(Math.max(0, limit - w[kind])),
      'X-RateLimit-Reset': String(secondsUntil(now, w.start + 60_000)),
    };
  }

  // ---------------------------------------------------------------- per day

  /** The count of today; on the start day a new count begins at `startUsed` (the fixture's). */
  private dayCount(map: Map<string, DayCount>, id: string, startUsed = 0): DayCount {
    const day = utcDay(this.clock.now());
    let d = map.get(id);
    if (!d || d.day !== day) {
      d = { day, used: day === this.startDay ? startUsed : 0 };
      map.set(id, d);
    }
    return d;
  }

  /** The daily allowance's count of the workspace's scope (its account, or itself). */
  private dailyCount(ws: WorkspaceState): DayCount {
    const id = accountLimits(ws.account).dailyScope === 'account' ? `account:${ws.account.id}` : `workspace:${ws.id}`;
    return this.dayCount(this.dailyCounts, id, ws.account.limits?.api_posts_per_day?.used);
  }

  daily(ws: WorkspaceState): DailyStatus {
    const plan = accountLimits(ws.account);
    const used = this.dailyCount(ws).used;
    return {
      limit: plan.postsPerDay,
      used,
      remaining: Math.max(0, plan.postsPerDay - used),
      scope: plan.dailyScope,
      resetAtMs: nextMidnightUtc(this.clock.now()),
    };
  }

  /** Posts this workspace itself started or scheduled today (usage.posts_today). */
  postsToday(ws: WorkspaceState): number {
    return this.dayCount(this.workspaceDaily, ws.id).used;
  }

  /** Throws 429 daily_post_limit when the allowance is used up. Call before any change. */
  checkDaily(ws: WorkspaceState): void {
    const d = this.daily(ws);
    if (d.remaining > 0) return;
    const now = this.clock.now();
    const resetAt = this.dailyResetIso(d.resetAtMs);
    const scope = d.scope === 'account' ? 'across all workspaces of the account' : 'in this workspace';
    throw new ServiceError(
      429,
      'daily_post_limit',
      `The daily allowance of ${d.limit} API posts ${scope} is used up. It resets at midnight UTC (${resetAt}).`,
      { headers: { 'Retry-After': String(secondsUntil(now, d.resetAtMs)) }, extra: { reset_at: resetAt } },
    );
  }

  /** Spends one post of the daily allowance (after checkDaily). */
  spendDaily(ws: WorkspaceState): void {
    this.dailyCount(ws).used += 1;
    this.dayCount(this.workspaceDaily, ws.id).used += 1;
  }
}

function fail(err: ServiceError): never {
  throw err;
}

const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

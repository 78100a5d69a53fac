/**
 * What a real service answered (GET /me, /destinations, each destination's
 * options), turned into the records of a fixture file: the same ids, handles,
 * platforms, statuses, video limits and options, the plan and its allowances
 * with today's used count. Tolerant, as the client is: a field left out takes
 * the fixture's default, and a value the emulator cannot hold is replaced
 * with a note saying so (SeedNotes), never guessed silently.
 */
import { createHash } from 'node:crypto';
import {
  SUPPORTED_CONTENT_TYPES,
  type Destination,
  type DestinationOption,
  type DestinationOptions,
  type Me,
  type Media,
  type Post,
} from '../contract/wire-types.js';

/** What the seed had to change to fit the emulator, one sentence each. */
export type SeedNotes = string[];

type Json = Record<string, unknown>;

const PLANS = ['free', 'standard', 'studio'];
const STATUSES = ['active', 'disconnected', 'expired'];
const SUPPORTED: readonly string[] = SUPPORTED_CONTENT_TYPES;

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isText = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/**
 * The seeded workspace's own key: derived from the workspace id (the same
 * in every fixture saved from it, so a committed file does not change), and
 * nothing of the real key.
 */
export function seededKey(workspaceId: string): string {
  return `vp_live_rehearse_${createHash('sha256').update(workspaceId).digest('hex').slice(0, 16)}`;
}

/** The account: its plan and the allowances GET /me reported (limits and today's used count). */
export function accountOf(me: Me, accountId: string, notes: SeedNotes): Json {
  let plan = String(me.plan?.name ?? '');
  if (!PLANS.includes(plan)) {
    notes.push(`plan "${plan}" is not one the emulator knows: seeded as "standard", with the allowances the service reported`);
    plan = 'standard';
  }
  const minute = me.limits?.requests_per_minute;
  const daily = me.limits?.api_posts_per_day;
  const perMinute: Json = {};
  if (isCount(minute?.read?.limit) && minute.read.limit > 0) perMinute.read = minute.read.limit;
  if (isCount(minute?.write?.limit) && minute.write.limit > 0) perMinute.write = minute.write.limit;
  const perDay: Json = {};
  if (isCount(daily?.limit)) perDay.limit = daily.limit;
  if (daily?.scope === 'account' || daily?.scope === 'workspace') perDay.scope = daily.scope;
  if (isCount(daily?.used)) perDay.used = daily.used;
  return { id: accountId, name: me.workspace.name, plan, limits: { requests_per_minute: perMinute, api_posts_per_day: perDay } };
}

function videoLimits(d: Destination, maxDuration: unknown): Json {
  const v = (d.video_limits ?? {}) as Partial<Record<string, unknown>>;
  const out: Json = {};
  const duration = typeof maxDuration === 'number' ? maxDuration : v.max_duration_sec;
  if (duration === null || (typeof duration === 'number' && duration > 0)) out.max_duration_sec = duration;
  if (v.max_size_bytes === null || (isCount(v.max_size_bytes) && v.max_size_bytes > 0)) out.max_size_bytes = v.max_size_bytes;
  if (Array.isArray(v.content_types)) out.content_types = v.content_types.filter((t) => SUPPORTED.includes(String(t)));
  return out;
}

/** One option as the fixture holds it: its type told or read from its values. */
function optionOf(o: DestinationOption, where: string, notes: SeedNotes): Json | undefined {
  if (!isText(o.key) || !/^[a-z][a-z0-9_]{0,63}$/.test(o.key)) {
    notes.push(`${where}: option ${JSON.stringify(o.key)} left out (the emulator takes lower-case keys of letters, digits and "_")`);
    return undefined;
  }
  const values = Array.isArray(o.values) ? o.values : null;
  let type = o.type;
  if (type !== 'enum' && type !== 'boolean' && type !== 'string') {
    const inferred = values?.every((x) => typeof x === 'boolean') ? 'boolean' : values ? 'enum' : 'string';
    if (type !== undefined) notes.push(`${where}: option "${o.key}" of type ${JSON.stringify(type)} held as "${inferred}"`);
    type = inferred;
  }
  const out: Json = { key: o.key, type, required: o.required === true };
  if (isText(o.label)) out.label = o.label;
  if (type === 'enum') out.values = (values ?? []).map(String);
  let def = o.default ?? null;
  if (type === 'enum' && def !== null && !(out.values as string[]).includes(String(def))) {
    notes.push(`${where}: option "${o.key}" default ${JSON.stringify(def)} is not among its values: seeded without a default`);
    def = null;
  }
  if (type === 'boolean' && typeof def !== 'boolean') def = null;
  if (type === 'string' && typeof def !== 'string') def = null;
  out.default = def;
  return out;
}

/** A destination and its options (GET /destinations/{id}/options) as one fixture record. */
export function destinationOf(d: Destination, read: DestinationOptions, notes: SeedNotes): Json {
  const where = `destination ${d.id}`;
  let status = String(d.status);
  if (!STATUSES.includes(status)) {
    notes.push(`${where}: status "${status}" seeded as "disconnected" (the emulator knows active, disconnected, expired; only active can be posted to)`);
    status = 'disconnected';
  }
  const out: Json = {
    id: d.id,
    platform: isText(d.platform) ? d.platform : 'unknown',
    handle: isText(d.handle) ? d.handle : d.id,
    status,
    video_limits: videoLimits(d, read.creator ? read.max_duration_sec : undefined),
    options: (read.options ?? []).flatMap((o) => optionOf(o, where, notes) ?? []),
  };
  if (isText(d.display_name)) out.display_name = d.display_name;
  if (read.creator && typeof read.creator === 'object') {
    const c = read.creator;
    out.creator = Object.fromEntries((['handle', 'display_name', 'avatar_url'] as const).filter((k) => isText(c[k])).map((k) => [k, c[k]]));
  }
  return out;
}

/** A video read by id, as a fixture's ready (or failed) video. */
export function mediaOf(m: Media, notes: SeedNotes): Json {
  if (m.status !== 'ready' && m.status !== 'failed') notes.push(`video ${m.id} is ${m.status} at the service: seeded as ready`);
  const out: Json = {
    id: m.id,
    filename: isText(m.filename) ? m.filename : `${m.id}.mp4`,
    content_type: SUPPORTED.includes(m.content_type) ? m.content_type : 'video/mp4',
    size_bytes: isCount(m.size_bytes) && m.size_bytes > 0 ? m.size_bytes : 1,
    status: m.status === 'failed' ? 'failed' : 'ready',
  };
  if (typeof m.duration_sec === 'number' && m.duration_sec > 0) out.duration_sec = m.duration_sec;
  if (m.status === 'failed' && isText(m.error?.message)) out.error_message = m.error.message;
  if (isText(m.created_at)) out.created_at = m.created_at;
  return out;
}

const POST_STATUSES = ['draft', 'scheduled', 'publishing', 'completed'];
const TARGET_STATUSES = ['pending', 'publishing', 'published', 'failed', 'cancelled'];

/** A post read by id (its caption, video, time, destinations and their options), as a fixture post. */
export function postOf(p: Post, notes: SeedNotes): Json {
  let status = String(p.status);
  if (!POST_STATUSES.includes(status)) {
    notes.push(`post ${p.id} is ${status} at the service: seeded as completed (it cannot be published again)`);
    status = 'completed';
  }
  return {
    id: p.id,
    status,
    caption: typeof p.caption === 'string' ? p.caption : '',
    media_id: p.media_id,
    publish_at: isText(p.publish_at) ? p.publish_at : null,
    destinations: (p.destinations ?? []).map((d) => ({
      destination_id: d.destination_id,
      options: Object.fromEntries(Object.entries(d.options ?? {}).filter(([, v]) => typeof v === 'string' || typeof v === 'boolean')),
      status: TARGET_STATUSES.includes(String(d.status)) ? d.status : 'pending',
    })),
    ...(isText(p.created_at) ? { created_at: p.created_at } : {}),
  };
}

/**
 * Posts: create (draft / scheduled / publishing), publish (start, schedule,
 * reschedule, send now), edit a draft, read, and the issues that block
 * publishing; each for the API and for the web app, which differ only in
 * what spends the daily allowance (contract §8 rule 4). The scheduler and
 * the posting to each destination are in posting.ts.
 */
import type { Issue, OptionValue } from '../contract/wire-types.js';
import type { Core } from './core.js';
import type { ServiceError } from './service-errors.js';
import { badRequest, blockingIssues, conflict, invalidField, missingField, notFound } from './service-errors.js';
import type { AuthContext } from './limits.js';
import { postRecord } from './records.js';
import { ok, type Result } from './result.js';
import { newId, type DestinationState, type MediaState, type PostDestState, type PostState, type WorkspaceState } from './state.js';
import { asObject, optionalString, requiredString } from './validate.js';
import { goOut, who } from './posting.js';
import {
  MAX_CAPTION_CHARS,
  MAX_DESTINATIONS_PER_POST,
  MAX_OPTION_VALUE_CHARS,
  MAX_SCHEDULE_AHEAD_DAYS,
  MAX_SCHEDULE_AHEAD_MS,
  SCHEDULE_RANGE_WORDS,
  serviceChars,
  tooManyCharsWords,
} from '../contract/service-rules.js';

// The limits, how each is counted and the words that refuse it: src/contract/service-rules.ts, shared with the client's checks.
/** Longest id taken in a body (media_id, destination_id); the emulator's own ids are far shorter. */
const MAX_ID_LENGTH = 200;

// ------------------------------------------------------------------ publish_at

export type PublishAt = { now: true } | { now: false; ms: number; iso: string };

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

export function parsePublishAt(value: unknown, nowMs: number): PublishAt {
  const bad = (why: string): ServiceError =>
    badRequest('invalid_publish_at', `publish_at ${why}: send "now" or an ISO 8601 time with a timezone offset, e.g. "2030-05-01T09:30:00+02:00".`, 'publish_at');
  if (typeof value !== 'string') throw bad('must be a string');
  const v = value.trim();
  if (v.toLowerCase() === 'now') return { now: true };
  if (!ISO_WITH_OFFSET.test(v)) throw bad(/^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(v) ? `"${v}" has no timezone offset` : `"${v}" is not a valid time`);
  const ms = Date.parse(v);
  const [y, mo, d] = v.slice(0, 10).split('-').map(Number) as [number, number, number];
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (Number.isNaN(ms) || mo < 1 || mo > 12 || d < 1 || d > daysInMonth) throw bad(`"${v}" is not a valid time`);
  if (ms < nowMs) throw bad(`"${v}" is in the past (the service's time is ${new Date(nowMs).toISOString()})`);
  if (ms - nowMs > MAX_SCHEDULE_AHEAD_MS) throw bad(`"${v}" is more than ${MAX_SCHEDULE_AHEAD_DAYS} days ahead (${SCHEDULE_RANGE_WORDS})`);
  return { now: false, ms, iso: new Date(ms).toISOString() };
}

// ------------------------------------------------------------------ issues

export function computeIssues(ws: WorkspaceState, media: MediaState | undefined, caption: string, dests: PostDestState[]): Issue[] {
  const issues: Issue[] = [];
  if (media?.status === 'failed') {
    issues.push({ severity: 'error', code: 'media_failed', message: `The video ${media.filename} failed: ${media.error?.message ?? 'it could not be processed'}. Upload it again and make a new post.` });
  } else if (media && media.status !== 'ready') {
    issues.push({ severity: 'warning', code: 'media_not_ready', message: `The video ${media.filename} is still ${media.status}; it must be ready before the post can be published.` });
  }
  if (caption.trim() === '') issues.push({ severity: 'warning', code: 'caption_empty', message: 'The caption is empty.' });

  for (const pd of dests) {
    const d = ws.destinations.get(pd.destination_id);
    if (!d) continue;
    const base = { destination_id: d.id };
    if (d.status !== 'active') {
      issues.push({ ...base, severity: 'error', code: 'destination_inactive', message: `${who(d)} is ${d.status}: reconnect it in the web app, or remove it from the post.` });
    }
    for (const o of d.options) {
      const v = pd.options[o.key];
      if (v === undefined) {
        if (o.required) {
          const choices = o.values ? `: one of ${o.values.map((x) => JSON.stringify(x)).join(', ')}` : '';
          issues.push({ ...base, option: o.key, severity: 'error', code: 'missing_required_option', message: `${who(d)}: choose "${o.label}" (${o.key})${choices}.` });
        }
      } else if (o.values && !o.values.includes(v)) {
        issues.push({ ...base, option: o.key, severity: 'error', code: 'option_value_not_allowed', message: `${who(d)}: ${JSON.stringify(v)} is not allowed for "${o.label}" (${o.key}); allowed: ${o.values.map((x) => JSON.stringify(x)).join(', ')}.` });
      }
    }
    const maxDur = d.video_limits.max_duration_sec;
    if (media && media.status === 'ready' && maxDur !== null) {
      if (media.duration_sec !== null && media.duration_sec > maxDur) {
        issues.push({ ...base, severity: 'error', code: 'video_too_long', message: `${who(d)} takes videos up to ${maxDur} s; this one is ${media.duration_sec} s.` });
      } else if (media.duration_sec === null) {
        issues.push({ ...base, severity: 'warning', code: 'duration_unknown', message: `The video's duration is not known, so the ${maxDur} s limit of ${who(d)} could not be checked.` });
      }
    }
    const maxSize = d.video_limits.max_size_bytes;
    if (media && media.size_bytes !== null && maxSize !== null && media.size_bytes > maxSize) {
      issues.push({ ...base, severity: 'error', code: 'video_too_large', message: `${who(d)} takes files up to ${maxSize} bytes; this one is ${media.size_bytes} bytes.` });
    }
    if (media && !d.video_limits.content_types.includes(media.content_type)) {
      issues.push({ ...base, severity: 'warning', code: 'video_will_be_converted', message: `${who(d)} does not take ${media.content_type}; the video will be converted to MP4 when posted.` });
    }
    if (d.caption_max_length !== null && serviceChars(caption) > d.caption_max_length) {
      issues.push({ ...base, severity: 'warning', code: 'caption_too_long', message: `${who(d)} takes captions up to ${d.caption_max_length} characters; the caption will be cut.` });
    }
  }
  return issues;
}

const hasErrors = (issues: Issue[]): boolean => issues.some((i) => i.severity === 'error');

export function refreshIssues(ws: WorkspaceState, p: PostState): void {
  p.issues = computeIssues(ws, ws.media.get(p.media_id), p.caption, p.destinations);
}

// ------------------------------------------------------------------ create

interface PostInput {
  mediaId: string;
  caption: string;
  destinations: PostDestState[];
  publishAt: PublishAt | null;
}

/** An option value as a post may hold it (undefined: null, unset); 400 unknown_option / invalid_option_value. */
export function checkOptionValue(d: DestinationState, key: string, value: unknown, param: string): OptionValue | undefined {
  const o = d.options.find((x) => x.key === key);
  if (!o) {
    const known = d.options.map((x) => x.key).join(', ') || 'none';
    throw badRequest('unknown_option', `${who(d)} has no option "${key}" (its options: ${known}).`, param);
  }
  if (value === null) return undefined;
  const okType = o.type === 'boolean' ? typeof value === 'boolean' : typeof value === 'string';
  if (!okType) {
    const want = o.type === 'boolean' ? 'true or false' : o.type === 'enum' ? `a string, one of ${o.values!.map((x) => JSON.stringify(x)).join(', ')}` : `a string of at most ${MAX_OPTION_VALUE_CHARS} characters`;
    throw badRequest('invalid_option_value', `${who(d)}: "${o.label}" (${key}) must be ${want}; got ${JSON.stringify(value)}.`, param);
  }
  const chars = typeof value === 'string' ? serviceChars(value) : 0;
  if (chars > MAX_OPTION_VALUE_CHARS) {
    throw badRequest('invalid_option_value', `${who(d)}: ${tooManyCharsWords(`the value of "${o.label}" (${key})`, chars, MAX_OPTION_VALUE_CHARS)}.`, param);
  }
  return value as OptionValue;
}

/** A post's caption from a body, counted as service-rules.ts counts it. */
function readCaption(o: Record<string, unknown>): string {
  const caption = optionalString(o, 'caption', Number.MAX_SAFE_INTEGER) ?? '';
  const chars = serviceChars(caption);
  if (chars > MAX_CAPTION_CHARS) throw invalidField('caption', `${tooManyCharsWords('The caption', chars, MAX_CAPTION_CHARS)}.`);
  return caption;
}

function readPostInput(ws: WorkspaceState, body: unknown, nowMs: number): PostInput {
  const o = asObject(body);
  const mediaId = requiredString(o, 'media_id', 'the id of the video to post', MAX_ID_LENGTH);
  const caption = readCaption(o);
  const list = o.destinations;
  if (list === undefined || list === null) throw missingField('destinations', 'at least one {"destination_id": ...} to post to');
  if (!Array.isArray(list)) throw invalidField('destinations', 'destinations must be an array of {"destination_id", "options"} entries.');
  if (list.length === 0) throw invalidField('destinations', 'destinations must have at least one entry.');
  if (list.length > MAX_DESTINATIONS_PER_POST) throw invalidField('destinations', `A post may go to at most ${MAX_DESTINATIONS_PER_POST} destinations.`);
  const publishAt = o.publish_at === undefined || o.publish_at === null ? null : parsePublishAt(o.publish_at, nowMs);

  // Every id is read before any is looked up, and as media_id is: an empty or over-long id is a
  // malformed request (400), whichever field it is in; an id of the right form that is not there is a 404.
  const entries = list.map((entry: unknown, i) => {
    const p = `destinations[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw invalidField(p, `${p} must be an object with destination_id.`);
    const e = entry as Record<string, unknown>;
    return { p, e, id: requiredString(e, 'destination_id', 'the id of a destination, from GET /v1/destinations', MAX_ID_LENGTH, `${p}.destination_id`) };
  });
  if (!ws.media.has(mediaId)) throw notFound('video', mediaId, 'media_id');

  const seen = new Set<string>();
  const destinations = entries.map(({ p, e, id: destinationId }): PostDestState => {
    const d = ws.destinations.get(destinationId);
    if (!d) throw notFound('destination', destinationId, `${p}.destination_id`);
    if (seen.has(d.id)) throw invalidField(`${p}.destination_id`, `Destination ${d.id} is listed twice.`);
    seen.add(d.id);
    const options: Record<string, OptionValue> = {};
    if (e.options !== undefined && e.options !== null) {
      if (typeof e.options !== 'object' || Array.isArray(e.options)) throw invalidField(`${p}.options`, `${p}.options must be an object keyed by option key.`);
      for (const [k, v] of Object.entries(e.options as Record<string, unknown>)) {
        const value = checkOptionValue(d, k, v, `${p}.options.${k}`);
        if (value !== undefined) options[k] = value;
      }
    }
    for (const opt of d.options) {
      if (options[opt.key] === undefined && opt.default !== null) options[opt.key] = opt.default;
    }
    return { destination_id: d.id, options, status: 'pending', url: null, warning: null, failure: null };
  });
  return { mediaId, caption, destinations, publishAt };
}

/** The checks every "start or schedule" goes through, in this order. Throws; changes nothing. */
function checkCanGoOut(core: Core, ws: WorkspaceState, media: MediaState | undefined, issues: Issue[], spends: boolean, extra: Record<string, unknown> = {}): void {
  if (hasErrors(issues)) throw blockingIssues(issues, extra);
  if (!media || media.status !== 'ready') {
    throw conflict('media_not_ready', `The video ${media ? `${media.filename} is ${media.status}` : 'is missing'}; it must be ready (poll GET /v1/media/{id}) before the post is published or scheduled.`, extra);
  }
  if (spends) core.limits.checkDaily(ws);
}

export function createPost(core: Core, auth: AuthContext, body: unknown): Result {
  return createPostIn(core, auth.workspace, body, 'api');
}

/** Who acts: the API (or MCP), or the web app, whose publishing spends no daily allowance. */
export type Actor = 'api' | 'web';

/** POST /v1/posts, or the web app's "make a draft" (the same body; the web app sends no publish_at). */
export function createPostIn(core: Core, ws: WorkspaceState, body: unknown, by: Actor): Result {
  const input = readPostInput(ws, body, core.clock.now());
  const media = ws.media.get(input.mediaId);
  const issues = computeIssues(ws, media, input.caption, input.destinations);
  const spends = by === 'api' && input.publishAt !== null;
  if (input.publishAt) checkCanGoOut(core, ws, media, issues, spends);

  const post: PostState = {
    id: newId('post'),
    workspaceId: ws.id,
    status: 'draft',
    caption: input.caption,
    media_id: input.mediaId,
    publish_at: null,
    dueAtMs: null,
    issues,
    destinations: input.destinations,
    created_at: core.clock.iso(),
    counted: spends,
  };
  ws.posts.set(post.id, post);
  if (spends) core.limits.spendDaily(ws);
  if (input.publishAt) {
    applyPublishAt(core, post, input.publishAt);
  }
  return ok(postRecord(post, core.origin), 201);
}

// ------------------------------------------------------------------ publish

function applyPublishAt(core: Core, post: PostState, at: PublishAt): void {
  if (at.now) {
    post.publish_at = core.clock.iso();
    post.dueAtMs = null;
    goOut(core, post);
  } else {
    post.status = 'scheduled';
    post.publish_at = at.iso;
    post.dueAtMs = at.ms;
  }
}

export function publishPost(core: Core, auth: AuthContext, id: string, body: unknown): Result {
  return publishPostIn(core, auth.workspace, id, body, 'api');
}

/**
 * POST /v1/posts/{id}/publish, or the web app's publish now, schedule and reschedule. The API
 * spends one post of the daily allowance the first time it starts or schedules a post (a draft
 * made in the web app included); the web app never does, and a post it scheduled is counted if
 * the API later sends it.
 */
export function publishPostIn(core: Core, ws: WorkspaceState, id: string, body: unknown, by: Actor): Result {
  const post = ws.posts.get(id);
  if (!post) throw notFound('post', id);
  const o = asObject(body);
  if (o.publish_at === undefined || o.publish_at === null) throw missingField('publish_at', '"now" or an ISO 8601 time with a timezone offset');
  const at = parsePublishAt(o.publish_at, core.clock.now());
  if (post.status !== 'draft' && post.status !== 'scheduled') {
    throw conflict('post_not_publishable', `The post is ${post.status}; only a draft or a scheduled post can be published or rescheduled.`, { post_id: post.id, status: post.status });
  }
  refreshIssues(ws, post);
  const spends = by === 'api' && !post.counted; // rescheduling or sending a counted post now does not spend
  checkCanGoOut(core, ws, ws.media.get(post.media_id), post.issues, spends, { post_id: post.id });
  if (spends) {
    core.limits.spendDaily(ws);
    post.counted = true;
  }
  applyPublishAt(core, post, at);
  return ok(postRecord(post, core.origin));
}

export function getPost(core: Core, auth: AuthContext, id: string): Result {
  const ws = auth.workspace;
  const post = ws.posts.get(id);
  if (!post) throw notFound('post', id);
  if (post.status === 'draft' || post.status === 'scheduled') refreshIssues(ws, post);
  return ok(postRecord(post, core.origin));
}


// ------------------------------------------------------------------ edit (the web app)

/** What the web app changes in a draft: its caption, and option values by destination id (null unsets one). */
export interface DraftEdit {
  caption?: string;
  options?: Record<string, Record<string, unknown>>;
}

/**
 * The web app's edit of a draft, checked as POST /v1/posts checks a new post (caption length,
 * known options, allowed values); nothing changes unless all of it is valid. The issues follow.
 */
export function editDraft(ws: WorkspaceState, id: string, edit: DraftEdit): PostState {
  const post = ws.posts.get(id);
  if (!post) throw notFound('post', id);
  if (post.status !== 'draft') {
    throw conflict('post_not_editable', `The post is ${post.status}; only a draft can be edited.`, { post_id: post.id, status: post.status });
  }
  const caption = edit.caption === undefined ? post.caption : readCaption({ caption: edit.caption });
  const changes: { pd: PostDestState; key: string; value: OptionValue | undefined }[] = [];
  for (const [destinationId, values] of Object.entries(edit.options ?? {})) {
    const pd = post.destinations.find((x) => x.destination_id === destinationId);
    const d = ws.destinations.get(destinationId);
    if (!pd || !d) throw notFound('destination of the post', destinationId);
    for (const [key, value] of Object.entries(values)) {
      changes.push({ pd, key, value: checkOptionValue(d, key, value, `options.${destinationId}.${key}`) });
    }
  }
  post.caption = caption;
  for (const c of changes) {
    if (c.value === undefined) delete c.pd.options[c.key];
    else c.pd.options[c.key] = c.value;
  }
  refreshIssues(ws, post);
  return post;
}

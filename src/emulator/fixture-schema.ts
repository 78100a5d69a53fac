/**
 * The fields of a fixture file, as zod schemas: each field's type, allowed
 * values and default, the rules between the fields of one record (an enum
 * option's default among its values, a creator destination's privacy option),
 * and the normalized record each becomes. Every problem is an issue at its
 * path; fixture-check.ts turns them into lines. A record's rules run once
 * its fields are right (a wrong `values` hides nothing but the `default`
 * checked against it). The rules across records (ids used twice, a
 * workspace's account) are in fixture-references.ts.
 *
 * zod is required on first use, not imported: it is one of the heavy modules
 * (scripts/build.mjs), and only a fixture file needs it, not `vidpub emulator`.
 */
import { createRequire } from 'node:module';
import type { z as Zod } from 'zod';
import {
  SUPPORTED_CONTENT_TYPES,
  type DestinationStatus,
  type PlanName,
} from '../contract/wire-types.js';
import { MAX_FILE_SIZE_BYTES } from '../contract/service-rules.js';
import { MIN_KEY_SECRET_CHARS, WHOLE_KEY } from '../core/key-format.js';
import { FIXTURE_CREATED_AT } from './default-fixture.js';
import type { FixtureAccount, FixtureDestination, FixtureKey, FixtureMedia, FixtureOption, FixturePost } from './fixture.js';
import { show, withImplicitAccounts } from './fixture-references.js';

let z: typeof Zod;

type Issue = { input?: unknown };
type Shape = Record<string, Zod.ZodType>;

const ID_RE = /^[A-Za-z0-9_-]{1,64}$/;
const OPTION_KEY_RE = /^[a-z][a-z0-9_]{0,63}$/;
const PLANS: readonly PlanName[] = ['free', 'standard', 'studio'];
const DEST_STATUSES: readonly DestinationStatus[] = ['active', 'disconnected', 'expired'];
const ALL_TYPES: readonly string[] = SUPPORTED_CONTENT_TYPES;

// ------------------------------------------------------------------ field kinds

/** An object with exactly these fields (comments, `_x` and `$x`, are dropped before). */
function record<S extends Shape>(shape: S) {
  const known = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? `is not a known field (known: ${known})` : `must be an object, got ${show(iss.input)}`),
  });
}

function list<T extends Zod.ZodType>(item: T) {
  return z.array(item, { error: (iss: Issue) => `must be an array, got ${show(iss.input)}` });
}

function text() {
  const error = (iss: Issue) => (iss.input === undefined ? 'is required (a string)' : `must be a non-empty string, got ${show(iss.input)}`);
  return z.string({ error }).refine((s) => s.trim() !== '', { error, abort: true });
}

function matching(re: RegExp, rule: string) {
  return text().regex(re, { error: (iss: Issue) => `must ${rule}, got ${show(iss.input)}`, abort: true });
}

const id = () => matching(ID_RE, 'be 1-64 letters, digits, "_" or "-"');

function oneOf<T extends string>(allowed: readonly T[]) {
  const words = allowed.map((a) => `"${a}"`).join(allowed.length === 2 ? ' or ' : ', ');
  return z.enum(allowed as [T, ...T[]], { error: (iss: Issue) => `must be ${words}${iss.input === undefined ? '' : `, got ${show(iss.input)}`}` });
}

function wholeNumber(max = Number.MAX_SAFE_INTEGER) {
  const error = (iss: Issue) => `must be a whole number from 1 to ${max}, got ${show(iss.input)}`;
  return z.number({ error }).refine((v) => Number.isInteger(v) && v >= 1 && v <= max, { error, abort: true });
}

function positiveOrNull() {
  const error = (iss: Issue) => `must be a positive number or null, got ${show(iss.input)}`;
  return z.number({ error }).refine((v) => v > 0, { error, abort: true }).nullable();
}

const yesNo = () => z.boolean({ error: (iss: Issue) => `must be true or false, got ${show(iss.input)}` });

const isoTime = () =>
  text()
    .refine((s) => !Number.isNaN(Date.parse(s)), { error: (iss: Issue) => `must be an ISO 8601 time, got ${show(iss.input)}`, abort: true })
    .transform((s) => new Date(Date.parse(s)).toISOString())
    .default(FIXTURE_CREATED_AT);

// ------------------------------------------------------------------ records

function count() {
  const error = (iss: Issue) => `must be a whole number of at least 0, got ${show(iss.input)}`;
  return z.number({ error }).refine((v) => Number.isInteger(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER, { error, abort: true });
}

/** Allowances other than the plan's, shaped like GET /me's limits (fixture.ts FixtureLimits). */
function limits() {
  return record({
    requests_per_minute: record({ read: wholeNumber().optional(), write: wholeNumber().optional() }).optional(),
    api_posts_per_day: record({ limit: count().optional(), scope: oneOf(['account', 'workspace'] as const).optional(), used: count().optional() }).optional(),
  }).optional();
}

function account() {
  return record({ id: id(), name: text().optional(), plan: oneOf(PLANS), limits: limits() })
    .transform((a): FixtureAccount => ({ id: a.id, name: a.name ?? a.id, plan: a.plan, ...(a.limits ? { limits: a.limits } : {}) }));
}

function apiKey() {
  return record({
    key: matching(WHOLE_KEY, `look like "vp_live_" followed by at least ${MIN_KEY_SECRET_CHARS} letters, digits, "_" or "-"`),
    name: text(),
    access: oneOf(['read', 'read_write'] as const),
    revoked: yesNo().default(false),
    created_at: isoTime(),
  }) satisfies Zod.ZodType<FixtureKey>;
}

function option() {
  const common = { key: matching(OPTION_KEY_RE, 'be lower-case letters, digits and "_", starting with a letter'), label: text().optional(), required: yesNo().default(false) };
  const enumValues = list(text())
    .min(1, { error: 'must list at least one value for an enum option', abort: true })
    .refine((values) => new Set(values).size === values.length, { error: 'must not repeat a value', abort: true });
  const typed = z.discriminatedUnion('type', [
    record({ ...common, type: z.literal('enum'), values: enumValues, default: z.unknown().optional() }).superRefine((o, ctx) => {
      if (o.default === undefined || o.default === null || (typeof o.default === 'string' && o.values.includes(o.default))) return;
      ctx.addIssue({ code: 'custom', path: ['default'], message: `must be one of values (${o.values.map(show).join(', ')}) or null, got ${show(o.default)}` });
    }),
    record({
      ...common,
      type: z.literal('boolean'),
      values: list(z.unknown()).refine((l) => l.every((x) => typeof x === 'boolean'), { error: 'must be [true, false] or null for a boolean option', abort: true }).nullish(),
      default: z.boolean({ error: (iss: Issue) => `must be a boolean or null, got ${show(iss.input)}` }).nullish(),
    }),
    record({
      ...common,
      type: z.literal('string'),
      values: z.null({ error: 'must be null for a string option' }).optional(),
      default: z.string({ error: (iss: Issue) => `must be a string or null, got ${show(iss.input)}` }).nullish(),
    }),
  ], {
    error: (iss) => {
      if (iss.code !== 'invalid_union') return `must be an object, got ${show(iss.input)}`;
      const type = (iss.input as Record<string, unknown>).type;
      return `must be "enum", "boolean", "string"${type === undefined ? '' : `, got ${show(type)}`}`;
    },
  });
  return typed.transform((o): FixtureOption => ({
    key: o.key,
    label: o.label ?? o.key,
    type: o.type,
    values: o.type === 'enum' ? o.values : o.type === 'boolean' ? [true, false] : null,
    default: (o.default ?? null) as FixtureOption['default'],
    required: o.required,
  }));
}

function destination() {
  const videoLimits = record({
    max_duration_sec: positiveOrNull().default(null),
    max_size_bytes: wholeNumber().nullable().default(MAX_FILE_SIZE_BYTES),
    content_types: list(oneOf(SUPPORTED_CONTENT_TYPES)).default(() => [...ALL_TYPES] as typeof SUPPORTED_CONTENT_TYPES[number][]),
  }).prefault({});
  const creator = record({ handle: text().optional(), display_name: text().optional(), avatar_url: text().optional() }).nullish();
  return record({
    id: id(),
    platform: text(),
    handle: text(),
    display_name: text().optional(),
    status: oneOf(DEST_STATUSES).default('active'),
    video_limits: videoLimits,
    options: list(option()).default(() => []),
    creator,
    caption_max_length: wholeNumber().nullish(),
  })
    .superRefine((d, ctx) => {
      const keys = new Set<string>();
      d.options.forEach((o, i) => {
        if (keys.has(o.key)) ctx.addIssue({ code: 'custom', path: ['options', i, 'key'], message: `duplicates option ${show(o.key)}` });
        keys.add(o.key);
      });
      if (!d.creator) return;
      if (d.video_limits.max_duration_sec === null) {
        ctx.addIssue({ code: 'custom', path: ['video_limits', 'max_duration_sec'], message: 'is required for a destination with creator (creator-disclosure platforms state their maximum duration)' });
      }
      const privacy = d.options.find((o) => o.key === 'privacy');
      if (!privacy || !privacy.required || privacy.default !== null) {
        ctx.addIssue({ code: 'custom', path: ['options'], message: 'must have a "privacy" option with required: true and no default for a destination with creator (the person posting chooses it)' });
      }
    })
    .transform(({ creator: c, ...d }): FixtureDestination => ({
      ...d,
      display_name: d.display_name ?? d.handle,
      creator: c ? {
        handle: c.handle ?? d.handle,
        display_name: c.display_name ?? d.handle,
        avatar_url: c.avatar_url ?? `https://avatars.example.com/${d.handle.replace(/^@/, '')}.png`,
      } : null,
      caption_max_length: d.caption_max_length ?? null,
    }));
}

function media() {
  return record({
    id: id(),
    filename: text(),
    content_type: oneOf(SUPPORTED_CONTENT_TYPES),
    size_bytes: wholeNumber(MAX_FILE_SIZE_BYTES),
    duration_sec: positiveOrNull().default(null),
    status: oneOf(['ready', 'failed'] as const).default('ready'),
    error_message: text().nullish(),
    created_at: isoTime(),
  }).superRefine((m, ctx) => {
    // A failed video's message may be left out (a default is given), not null.
    if (m.status === 'failed' && m.error_message === null) ctx.addIssue({ code: 'custom', path: ['error_message'], message: 'must be a non-empty string, got null' });
  }).transform((m): FixtureMedia => ({
    ...m,
    error_message: m.status === 'failed' ? (m.error_message ?? 'The video could not be processed.') : null,
  }));
}

function post() {
  const optionValue = z.union([z.string(), z.boolean()], { error: (iss: Issue) => `must be a string or a boolean, got ${show(iss.input)}` });
  const target = record({
    destination_id: id(),
    options: z.record(z.string(), optionValue, { error: (iss: Issue) => `must be an object of option values, got ${show(iss.input)}` }).default(() => ({})),
    status: oneOf(['pending', 'publishing', 'published', 'failed', 'cancelled'] as const).default('pending'),
  });
  const time = text().refine((s) => !Number.isNaN(Date.parse(s)), { error: (iss: Issue) => `must be an ISO 8601 time, got ${show(iss.input)}`, abort: true })
    .transform((s) => new Date(Date.parse(s)).toISOString());
  return record({
    id: id(),
    status: oneOf(['draft', 'scheduled', 'publishing', 'completed'] as const).default('draft'),
    caption: z.string({ error: (iss: Issue) => `must be a string, got ${show(iss.input)}` }).default(''),
    media_id: id(),
    publish_at: time.nullish().transform((t) => t ?? null),
    destinations: list(target).min(1, { error: 'must list at least one destination' }),
    created_at: isoTime(),
  }).superRefine((p, ctx) => {
    if (p.status === 'scheduled' && p.publish_at === null) ctx.addIssue({ code: 'custom', path: ['publish_at'], message: 'is required for a scheduled post' });
  }) satisfies Zod.ZodType<FixturePost>;
}

function workspace() {
  return record({
    id: id(),
    name: text(),
    account: text().optional(),
    plan: oneOf(PLANS).optional(),
    keys: list(apiKey()).default(() => []),
    destinations: list(destination()).default(() => []),
    media: list(media()).default(() => []),
    posts: list(post()).optional(),
  });
}

function fixture() {
  return record({
    accounts: list(account()).default(() => []),
    workspaces: list(workspace()).min(1, { error: 'must list at least one workspace' }),
  })
    .transform(withImplicitAccounts);
}

let schema: ReturnType<typeof fixture> | undefined;

/** The schema of a whole fixture (comments dropped and default ids given first: see fixture-check.ts). */
export function fixtureSchema(): ReturnType<typeof fixture> {
  z ??= (createRequire(import.meta.url)('zod') as { z: typeof Zod }).z;
  return (schema ??= fixture());
}

/**
 * The emulator's fixture: accounts, workspaces, API keys, connected accounts
 * (destinations) and optional pre-loaded videos. `defaultFixture()` is what
 * `vidpub emulator` serves; `--fixture FILE` replaces it with the user's own
 * JSON, checked by `validateFixture` (one clear line per problem).
 */
import { readFile } from 'node:fs/promises';
import {
  MAX_FILE_SIZE_BYTES,
  SUPPORTED_CONTENT_TYPES,
  type Creator,
  type DestinationStatus,
  type KeyAccess,
  type OptionType,
  type OptionValue,
  type PlanName,
} from '../api/wire-types.js';

// ------------------------------------------------------------------ types (normalized)

export interface FixtureAccount {
  id: string;
  name: string;
  plan: PlanName;
}

export interface FixtureKey {
  key: string;
  name: string;
  access: KeyAccess;
  revoked: boolean;
  created_at: string;
}

export interface FixtureOption {
  key: string;
  label: string;
  type: OptionType;
  values: OptionValue[] | null;
  default: OptionValue | null;
  required: boolean;
}

export interface FixtureDestination {
  id: string;
  platform: string;
  handle: string;
  display_name: string;
  status: DestinationStatus;
  video_limits: { max_duration_sec: number | null; max_size_bytes: number | null; content_types: string[] };
  options: FixtureOption[];
  /** Set for short-video platforms that require creator disclosure. */
  creator: Creator | null;
  /** Longer captions are cut when published (warning caption_truncated). */
  caption_max_length: number | null;
}

export interface FixtureMedia {
  id: string;
  filename: string;
  content_type: string;
  size_bytes: number;
  duration_sec: number | null;
  status: 'ready' | 'failed';
  error_message: string | null;
  created_at: string;
}

export interface FixtureWorkspace {
  id: string;
  name: string;
  /** Id of an entry of `accounts`. */
  account: string;
  keys: FixtureKey[];
  destinations: FixtureDestination[];
  media: FixtureMedia[];
}

export interface Fixture {
  accounts: FixtureAccount[];
  workspaces: FixtureWorkspace[];
}

// ------------------------------------------------------------------ default fixture

export const DEFAULT_KEYS = {
  demo_rw: 'vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td',
  demo_read: 'vp_live_demo_ro_F4n8Vb2Rz6Wq1Ye5',
  demo_revoked: 'vp_live_demo_revoked_X2v6Bn4Ts8Hj',
  second_rw: 'vp_live_demo2_rw_P3s9Jd5Gk1Mx7Cv2',
  studio_rw: 'vp_live_studio_rw_H8t2Nw6Ya4Lb9Qe3',
  free_rw: 'vp_live_free_rw_Z5c1Rm7Ue3Kp8Dw4',
} as const;

const CREATED = '2025-01-15T09:00:00.000Z';
const ALL_TYPES = [...SUPPORTED_CONTENT_TYPES] as string[];

function key(k: string, name: string, access: KeyAccess, revoked = false): FixtureKey {
  return { key: k, name, access, revoked, created_at: CREATED };
}

const opt = (
  k: string,
  label: string,
  type: OptionType,
  values: OptionValue[] | null,
  def: OptionValue | null,
  required: boolean,
): FixtureOption => ({ key: k, label, type, values, default: def, required });

function shortVideo(id: string, handle: string, name: string, status: DestinationStatus = 'active'): FixtureDestination {
  return {
    id,
    platform: 'tiktok',
    handle,
    display_name: name,
    status,
    video_limits: { max_duration_sec: 600, max_size_bytes: MAX_FILE_SIZE_BYTES, content_types: ['video/mp4', 'video/quicktime', 'video/webm'] },
    options: [
      opt('privacy', 'Who can view this video', 'enum', ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'], null, true),
      opt('allow_comments', 'Allow comments', 'boolean', [true, false], true, false),
      opt('allow_duet', 'Allow duet', 'boolean', [true, false], false, false),
      opt('allow_stitch', 'Allow stitch', 'boolean', [true, false], false, false),
      opt('branded_content', 'Disclose as branded content', 'boolean', [true, false], false, false),
    ],
    creator: { handle, display_name: name, avatar_url: `https://avatars.example.com/${handle.replace(/^@/, '')}.png` },
    caption_max_length: 2200,
  };
}

function longForm(id: string, handle: string, name: string, status: DestinationStatus = 'active'): FixtureDestination {
  return {
    id,
    platform: 'youtube',
    handle,
    display_name: name,
    status,
    video_limits: { max_duration_sec: 43_200, max_size_bytes: MAX_FILE_SIZE_BYTES, content_types: ALL_TYPES },
    options: [
      opt('visibility', 'Visibility', 'enum', ['public', 'unlisted', 'private'], 'private', true),
      opt('category', 'Category', 'enum', ['People & Blogs', 'Education', 'Entertainment', 'Science & Technology'], 'People & Blogs', false),
      opt('notify_subscribers', 'Notify subscribers', 'boolean', [true, false], true, false),
      opt('title', 'Title (defaults to the caption)', 'string', null, null, false),
    ],
    creator: null,
    caption_max_length: 5000,
  };
}

function optionalOnly(id: string, handle: string, name: string): FixtureDestination {
  return {
    id,
    platform: 'linkedin',
    handle,
    display_name: name,
    status: 'active',
    video_limits: { max_duration_sec: 900, max_size_bytes: MAX_FILE_SIZE_BYTES, content_types: ['video/mp4', 'video/quicktime'] },
    options: [
      opt('visibility', 'Visibility', 'enum', ['PUBLIC', 'CONNECTIONS'], 'PUBLIC', false),
      opt('allow_comments', 'Allow comments', 'boolean', [true, false], true, false),
    ],
    creator: null,
    caption_max_length: 3000,
  };
}

function reels(id: string, handle: string, name: string, status: DestinationStatus): FixtureDestination {
  return {
    id,
    platform: 'instagram',
    handle,
    display_name: name,
    status,
    video_limits: { max_duration_sec: 900, max_size_bytes: MAX_FILE_SIZE_BYTES, content_types: ['video/mp4', 'video/quicktime'] },
    options: [opt('share_to_feed', 'Also share to feed', 'boolean', [true, false], true, false)],
    creator: null,
    caption_max_length: 2200,
  };
}

function readyMedia(id: string, filename: string, size: number, duration: number): FixtureMedia {
  return { id, filename, content_type: 'video/mp4', size_bytes: size, duration_sec: duration, status: 'ready', error_message: null, created_at: CREATED };
}

/** The fixture `vidpub emulator` serves unless --fixture is given. A fresh copy each call. */
export function defaultFixture(): Fixture {
  return {
    accounts: [
      { id: 'acct_demo', name: 'Demo Company', plan: 'standard' },
      { id: 'acct_studio', name: 'Studio Company', plan: 'studio' },
      { id: 'acct_free', name: 'Free Company', plan: 'free' },
    ],
    workspaces: [
      {
        id: 'ws_demo',
        name: 'Demo',
        account: 'acct_demo',
        keys: [
          key(DEFAULT_KEYS.demo_rw, 'Demo read/write', 'read_write'),
          key(DEFAULT_KEYS.demo_read, 'Demo read-only', 'read'),
          key(DEFAULT_KEYS.demo_revoked, 'Demo revoked', 'read_write', true),
        ],
        destinations: [
          shortVideo('dst_demo_tiktok', '@vidpub.demo', 'vidpub Demo'),
          longForm('dst_demo_youtube', '@vidpubdemo', 'vidpub Demo Channel'),
          optionalOnly('dst_demo_linkedin', 'vidpub-demo', 'vidpub Demo Page'),
          reels('dst_demo_instagram', '@vidpub.demo', 'vidpub Demo (old)', 'disconnected'),
        ],
        media: [
          readyMedia('med_demo_sample', 'sample.mp4', 4_200_000, 15),
          readyMedia('med_demo_long', 'long-talk.mp4', 48_000_000, 700),
        ],
      },
      {
        id: 'ws_demo_second',
        name: 'Demo Second',
        account: 'acct_demo',
        keys: [key(DEFAULT_KEYS.second_rw, 'Demo Second read/write', 'read_write')],
        destinations: [
          longForm('dst_second_youtube', '@vidpubsecond', 'vidpub Second Channel'),
          shortVideo('dst_second_tiktok', '@vidpub.second', 'vidpub Second', 'expired'),
        ],
        media: [readyMedia('med_second_sample', 'second.mp4', 3_100_000, 12)],
      },
      {
        id: 'ws_studio',
        name: 'Studio',
        account: 'acct_studio',
        keys: [key(DEFAULT_KEYS.studio_rw, 'Studio read/write', 'read_write')],
        destinations: [
          shortVideo('dst_studio_tiktok_1', '@studio.one', 'Studio One'),
          shortVideo('dst_studio_tiktok_2', '@studio.two', 'Studio Two'),
          shortVideo('dst_studio_tiktok_3', '@studio.three', 'Studio Three'),
          longForm('dst_studio_youtube', '@studiochannel', 'Studio Channel'),
        ],
        media: [readyMedia('med_studio_sample', 'studio.mp4', 5_500_000, 20)],
      },
      {
        id: 'ws_free',
        name: 'Free',
        account: 'acct_free',
        keys: [key(DEFAULT_KEYS.free_rw, 'Free key', 'read_write')],
        destinations: [longForm('dst_free_youtube', '@freechannel', 'Free Channel')],
        media: [],
      },
    ],
  };
}

// ------------------------------------------------------------------ validation

export class FixtureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FixtureError';
  }
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 40 ? `${s.slice(0, 37)}...` : s;
};

const KEY_RE = /^[A-Za-z0-9]+_live_[A-Za-z0-9_-]{8,}$/;
const ID_RE = /^[A-Za-z0-9_-]{1,64}$/;
const OPTION_KEY_RE = /^[a-z][a-z0-9_]{0,63}$/;
const PLANS: readonly PlanName[] = ['free', 'standard', 'studio'];
const DEST_STATUSES: readonly DestinationStatus[] = ['active', 'disconnected', 'expired'];

/** Checks and normalizes a parsed fixture. Throws FixtureError("<source>: <path> <problem>"). */
export function validateFixture(raw: unknown, source = 'fixture'): Fixture {
  const fail = (path: string, problem: string): never => {
    throw new FixtureError(`${source}: ${path ? `${path} ` : ''}${problem}`);
  };

  const fields = (o: Obj, path: string, allowed: readonly string[]): void => {
    for (const k of Object.keys(o)) {
      if (k.startsWith('_') || k.startsWith('$')) continue; // comments
      if (!allowed.includes(k)) fail(path ? `${path}.${k}` : k, `is not a known field (known: ${allowed.join(', ')})`);
    }
  };
  const obj = (v: unknown, path: string): Obj => (isObj(v) ? v : fail(path, `must be an object, got ${show(v)}`));
  const arr = (v: unknown, path: string, optional = true): unknown[] => {
    if (v === undefined && optional) return [];
    return Array.isArray(v) ? v : fail(path, `must be an array, got ${show(v)}`);
  };
  const str = (v: unknown, path: string, def?: string): string => {
    if (v === undefined && def !== undefined) return def;
    if (v === undefined) return fail(path, 'is required (a string)');
    return typeof v === 'string' && v.trim() !== '' ? v : fail(path, `must be a non-empty string, got ${show(v)}`);
  };
  const id = (v: unknown, path: string, def: string): string => {
    const s = str(v, path, def);
    return ID_RE.test(s) ? s : fail(path, `must be 1-64 letters, digits, "_" or "-", got ${show(s)}`);
  };
  const oneOf = <T extends string>(v: unknown, path: string, allowed: readonly T[], def?: T): T => {
    if (v === undefined && def !== undefined) return def;
    if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
    return fail(path, `must be ${allowed.map((a) => `"${a}"`).join(allowed.length === 2 ? ' or ' : ', ')}${v === undefined ? '' : `, got ${show(v)}`}`);
  };
  const bool = (v: unknown, path: string, def: boolean): boolean => {
    if (v === undefined) return def;
    return typeof v === 'boolean' ? v : fail(path, `must be true or false, got ${show(v)}`);
  };
  const posInt = (v: unknown, path: string, max = Number.MAX_SAFE_INTEGER): number =>
    typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= max ? v : fail(path, `must be a whole number from 1 to ${max}, got ${show(v)}`);
  const nullablePos = (v: unknown, path: string, def: number | null): number | null => {
    if (v === undefined) return def;
    if (v === null) return null;
    return typeof v === 'number' && v > 0 && Number.isFinite(v) ? v : fail(path, `must be a positive number or null, got ${show(v)}`);
  };
  const isoTime = (v: unknown, path: string): string => {
    if (v === undefined) return CREATED;
    const s = str(v, path);
    const ms = Date.parse(s);
    return Number.isNaN(ms) ? fail(path, `must be an ISO 8601 time, got ${show(s)}`) : new Date(ms).toISOString();
  };
  const seen = new Map<string, string>();
  const unique = (kind: string, value: string, path: string): void => {
    const k = `${kind}:${value}`;
    const first = seen.get(k);
    if (first !== undefined) fail(path, `duplicates ${kind} ${show(value)} already used at ${first}`);
    seen.set(k, path);
  };

  const root = obj(raw, '');
  fields(root, '', ['accounts', 'workspaces']);

  const accounts: FixtureAccount[] = arr(root.accounts, 'accounts').map((a, i) => {
    const p = `accounts[${i}]`;
    const o = obj(a, p);
    fields(o, p, ['id', 'name', 'plan']);
    const acc = { id: id(o.id, `${p}.id`, `acct_${i + 1}`), name: str(o.name, `${p}.name`, ''), plan: oneOf(o.plan, `${p}.plan`, PLANS) };
    if (acc.name === '') acc.name = acc.id;
    unique('account id', acc.id, `${p}.id`);
    return acc;
  });

  const wsList = arr(root.workspaces, 'workspaces', false);
  if (wsList.length === 0) fail('workspaces', 'must list at least one workspace');

  const workspaces: FixtureWorkspace[] = wsList.map((w, wi) => {
    const p = `workspaces[${wi}]`;
    const o = obj(w, p);
    fields(o, p, ['id', 'name', 'account', 'plan', 'keys', 'destinations', 'media']);
    const wsId = id(o.id, `${p}.id`, `ws_${wi + 1}`);
    unique('workspace id', wsId, `${p}.id`);
    const name = str(o.name, `${p}.name`);

    let account: string;
    if (o.account !== undefined && o.plan !== undefined) fail(p, 'must have either "account" (an id from accounts) or "plan", not both');
    if (o.account !== undefined) {
      account = str(o.account, `${p}.account`);
      if (!accounts.some((a) => a.id === account)) {
        fail(`${p}.account`, `must be the id of an entry of accounts (${accounts.map((a) => `"${a.id}"`).join(', ') || 'none defined'}), got ${show(account)}`);
      }
    } else if (o.plan !== undefined) {
      const plan = oneOf(o.plan, `${p}.plan`, PLANS);
      account = `acct_${wsId}`;
      unique('account id', account, `${p}.plan`);
      accounts.push({ id: account, name, plan });
    } else {
      return fail(p, 'needs "account" (an id from accounts) or "plan" ("free", "standard" or "studio")');
    }

    const keys = arr(o.keys, `${p}.keys`).map((k, ki): FixtureKey => {
      const kp = `${p}.keys[${ki}]`;
      const ko = obj(k, kp);
      fields(ko, kp, ['key', 'name', 'access', 'revoked', 'created_at']);
      const value = str(ko.key, `${kp}.key`);
      if (!KEY_RE.test(value)) fail(`${kp}.key`, `must look like "vp_live_" followed by at least 8 letters, digits, "_" or "-", got ${show(value)}`);
      unique('key', value, `${kp}.key`);
      return {
        key: value,
        name: str(ko.name, `${kp}.name`, `Key ${ki + 1}`),
        access: oneOf(ko.access, `${kp}.access`, ['read', 'read_write'] as const),
        revoked: bool(ko.revoked, `${kp}.revoked`, false),
        created_at: isoTime(ko.created_at, `${kp}.created_at`),
      };
    });

    const destinations = arr(o.destinations, `${p}.destinations`).map((d, di): FixtureDestination => {
      const dp = `${p}.destinations[${di}]`;
      const dobj = obj(d, dp);
      fields(dobj, dp, ['id', 'platform', 'handle', 'display_name', 'status', 'video_limits', 'options', 'creator', 'caption_max_length']);
      const dId = id(dobj.id, `${dp}.id`, `dst_${wsId}_${di + 1}`);
      unique('destination id', dId, `${dp}.id`);
      const handle = str(dobj.handle, `${dp}.handle`);
      const vl = dobj.video_limits === undefined ? {} : obj(dobj.video_limits, `${dp}.video_limits`);
      fields(vl, `${dp}.video_limits`, ['max_duration_sec', 'max_size_bytes', 'content_types']);
      const contentTypes = vl.content_types === undefined
        ? ALL_TYPES
        : arr(vl.content_types, `${dp}.video_limits.content_types`).map((c, ci) =>
          oneOf(c, `${dp}.video_limits.content_types[${ci}]`, SUPPORTED_CONTENT_TYPES));
      const maxSize = vl.max_size_bytes === undefined ? MAX_FILE_SIZE_BYTES
        : vl.max_size_bytes === null ? null
          : posInt(vl.max_size_bytes, `${dp}.video_limits.max_size_bytes`);

      const options = arr(dobj.options, `${dp}.options`).map((op, oi) => option(op, `${dp}.options[${oi}]`));
      const optKeys = new Set<string>();
      options.forEach((op, oi) => {
        if (optKeys.has(op.key)) fail(`${dp}.options[${oi}].key`, `duplicates option ${show(op.key)}`);
        optKeys.add(op.key);
      });

      let creator: Creator | null = null;
      if (dobj.creator !== undefined && dobj.creator !== null) {
        const cp = `${dp}.creator`;
        const co = obj(dobj.creator, cp);
        fields(co, cp, ['handle', 'display_name', 'avatar_url']);
        creator = {
          handle: str(co.handle, `${cp}.handle`, handle),
          display_name: str(co.display_name, `${cp}.display_name`, handle),
          avatar_url: str(co.avatar_url, `${cp}.avatar_url`, `https://avatars.example.com/${handle.replace(/^@/, '')}.png`),
        };
      }
      const maxDuration = nullablePos(vl.max_duration_sec, `${dp}.video_limits.max_duration_sec`, null);
      if (creator) {
        if (maxDuration === null) fail(`${dp}.video_limits.max_duration_sec`, 'is required for a destination with creator (creator-disclosure platforms state their maximum duration)');
        const privacy = options.find((op) => op.key === 'privacy');
        if (!privacy || !privacy.required || privacy.default !== null) {
          fail(`${dp}.options`, 'must have a "privacy" option with required: true and no default for a destination with creator (the person posting chooses it)');
        }
      }
      return {
        id: dId,
        platform: str(dobj.platform, `${dp}.platform`),
        handle,
        display_name: str(dobj.display_name, `${dp}.display_name`, handle),
        status: oneOf(dobj.status, `${dp}.status`, DEST_STATUSES, 'active'),
        video_limits: { max_duration_sec: maxDuration, max_size_bytes: maxSize, content_types: contentTypes },
        options,
        creator,
        caption_max_length: dobj.caption_max_length === undefined || dobj.caption_max_length === null
          ? null
          : posInt(dobj.caption_max_length, `${dp}.caption_max_length`),
      };
    });

    const media = arr(o.media, `${p}.media`).map((m, mi): FixtureMedia => {
      const mp = `${p}.media[${mi}]`;
      const mo = obj(m, mp);
      fields(mo, mp, ['id', 'filename', 'content_type', 'size_bytes', 'duration_sec', 'status', 'error_message', 'created_at']);
      const mId = id(mo.id, `${mp}.id`, `med_${wsId}_${mi + 1}`);
      unique('media id', mId, `${mp}.id`);
      const status = oneOf(mo.status, `${mp}.status`, ['ready', 'failed'] as const, 'ready');
      return {
        id: mId,
        filename: str(mo.filename, `${mp}.filename`),
        content_type: oneOf(mo.content_type, `${mp}.content_type`, SUPPORTED_CONTENT_TYPES),
        size_bytes: posInt(mo.size_bytes, `${mp}.size_bytes`, MAX_FILE_SIZE_BYTES),
        duration_sec: nullablePos(mo.duration_sec, `${mp}.duration_sec`, null),
        status,
        error_message: status === 'failed' ? str(mo.error_message, `${mp}.error_message`, 'The video could not be processed.') : null,
        created_at: isoTime(mo.created_at, `${mp}.created_at`),
      };
    });

    return { id: wsId, name, account, keys, destinations, media };
  });

  function option(v: unknown, op: string): FixtureOption {
    const o = obj(v, op);
    fields(o, op, ['key', 'label', 'type', 'values', 'default', 'required']);
    const k = str(o.key, `${op}.key`);
    if (!OPTION_KEY_RE.test(k)) fail(`${op}.key`, `must be lower-case letters, digits and "_", starting with a letter, got ${show(k)}`);
    const type = oneOf(o.type, `${op}.type`, ['enum', 'boolean', 'string'] as const);
    let values: OptionValue[] | null = null;
    if (type === 'enum') {
      const list = arr(o.values, `${op}.values`, false);
      if (list.length === 0) fail(`${op}.values`, 'must list at least one value for an enum option');
      values = list.map((x, xi) => str(x, `${op}.values[${xi}]`));
      if (new Set(values).size !== values.length) fail(`${op}.values`, 'must not repeat a value');
    } else if (type === 'boolean') {
      if (o.values !== undefined && o.values !== null) {
        const list = arr(o.values, `${op}.values`);
        if (list.some((x) => typeof x !== 'boolean')) fail(`${op}.values`, 'must be [true, false] or null for a boolean option');
      }
      values = [true, false];
    } else if (o.values !== undefined && o.values !== null) {
      fail(`${op}.values`, 'must be null for a string option');
    }
    let def: OptionValue | null = null;
    if (o.default !== undefined && o.default !== null) {
      const d = o.default;
      const ok = type === 'enum' ? typeof d === 'string' && values!.includes(d)
        : type === 'boolean' ? typeof d === 'boolean'
          : typeof d === 'string';
      if (!ok) fail(`${op}.default`, `must be ${type === 'enum' ? `one of values (${values!.map(show).join(', ')})` : `a ${type}`} or null, got ${show(d)}`);
      def = d as OptionValue;
    }
    return { key: k, label: str(o.label, `${op}.label`, k), type, values, default: def, required: bool(o.required, `${op}.required`, false) };
  }

  return { accounts, workspaces };
}

/** Reads and validates a JSON fixture file. Throws one clear line naming the file. */
export async function loadFixtureFile(path: string): Promise<Fixture> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'is a directory, not a file' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw new FixtureError(`${path}: cannot read the fixture (${why})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new FixtureError(`${path}: is not valid JSON (${(err as Error).message})`);
  }
  return validateFixture(raw, path);
}

/**
 * An emulator's world as one JSON document: the fixture it started from (so
 * that a reset goes back to it), the clock's offset, the settings, every
 * workspace's destinations, videos and posts, the allowance counters, the
 * idempotency store and the faults. The state directory's snapshot
 * (`vidpub emulator --state DIR`) and `vidpub emulator export` are this
 * document; the snapshot adds the upload links' secret and the list of the
 * videos whose bytes it keeps, an export says the bytes were left out.
 * Its `fixture` member is a fixture file as `--fixture` takes it.
 */
import type { Core, Settings } from '../core.js';
import type { Fixture } from '../fixture.js';
import type { FaultList } from '../faults.js';
import type { IdempotencyEntries } from '../idempotency.js';
import type { LimitCounts } from '../limits.js';
import type { DestinationState, MediaState, PostState, WorkspaceState } from '../state.js';

/** What the document says it is, and the version of its shape; a newer one is refused (never overwritten). */
export const WORLD_FORMAT = 'vidpub-emulator-state';
export const WORLD_VERSION = 1;

export interface WorkspaceRecords {
  id: string;
  destinations: DestinationState[];
  media: MediaState[];
  posts: PostState[];
}

export interface WorldDoc {
  format: typeof WORLD_FORMAT;
  version: number;
  /** The emulator's clock when it was written. */
  written_at: string;
  fixture: Fixture;
  clock_offset_ms: number;
  settings: Settings;
  workspaces: WorkspaceRecords[];
  counters: LimitCounts;
  idempotency: IdempotencyEntries;
  faults: FaultList;
  /** Snapshot: the last log entry it holds. */
  log_seq?: number;
  /** Snapshot: the HMAC secret of upload links and web-app forms (hex), so that links made before a restart still work. */
  secret?: string;
  /** Snapshot: the videos whose bytes are in videos/, oldest first. */
  videos?: string[];
  /** Export: the videos' bytes are not in the document. */
  video_bytes?: string;
}

export const VIDEO_BYTES_LEFT_OUT = 'left out: the web app plays no video imported from this file';

/** The world of a running emulator, as plain data (the records as they are: serialize it before anything changes). */
export function worldOf(core: Core): WorldDoc {
  return {
    format: WORLD_FORMAT,
    version: WORLD_VERSION,
    written_at: core.clock.iso(),
    fixture: core.fixture,
    clock_offset_ms: Math.round(core.clock.offsetSec * 1000),
    settings: { ...core.settings },
    workspaces: [...core.state.workspaces.values()].map(recordsOf),
    counters: core.limits.exportCounts(),
    idempotency: core.idempotency.exportEntries(),
    faults: core.faults.list(),
  };
}

function recordsOf(ws: WorkspaceState): WorkspaceRecords {
  return { id: ws.id, destinations: [...ws.destinations.values()], media: [...ws.media.values()], posts: [...ws.posts.values()] };
}

/** Why a document cannot be used, in a sentence (the caller names the file). */
export class WorldError extends Error {
  constructor(
    message: string,
    /** The document comes from a newer vidpub (its version is higher than this one reads). */
    readonly newer = false,
  ) {
    super(message);
    this.name = 'WorldError';
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks the envelope of a parsed document: what it is and its version (a newer one is refused). */
export function checkEnvelope(raw: unknown): WorldDoc {
  if (!isObject(raw) || raw.format !== WORLD_FORMAT) throw new WorldError(`it is not an emulator state (no "format": "${WORLD_FORMAT}")`);
  const v = raw.version;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new WorldError('its "version" is not a format version');
  if (v > WORLD_VERSION) throw new WorldError(`is of format version ${v}, written by a newer vidpub; this one reads version ${WORLD_VERSION}`, true);
  for (const k of ['fixture', 'settings', 'counters', 'faults'] as const) if (!isObject(raw[k])) throw new WorldError(`its "${k}" is missing`);
  if (!Array.isArray(raw.workspaces) || !Array.isArray(raw.idempotency)) throw new WorldError('its "workspaces" or "idempotency" is missing');
  if (typeof raw.clock_offset_ms !== 'number' || !Number.isFinite(raw.clock_offset_ms)) throw new WorldError('its "clock_offset_ms" is not a number');
  return raw as unknown as WorldDoc;
}

/**
 * Puts a document's world into a core made from its fixture (nothing else done yet):
 * records, clock offset, settings, counters, idempotency store, faults.
 */
export function applyWorld(core: Core, doc: WorldDoc): void {
  const offset = doc.clock_offset_ms - Math.round(core.clock.offsetSec * 1000);
  if (offset > 0) core.clock.advance(offset / 1000);
  Object.assign(core.settings, doc.settings);
  for (const w of doc.workspaces) {
    const ws = core.state.workspaces.get(w.id);
    if (!ws) throw new WorldError(`workspace "${String(w.id)}" is not in its fixture`);
    replaceAll(ws.destinations, w.destinations);
    replaceAll(ws.media, w.media);
    replaceAll(ws.posts, w.posts);
  }
  core.limits.importCounts(doc.counters);
  core.idempotency.importEntries(doc.idempotency);
  core.faults.restore(doc.faults);
}

function replaceAll<V extends { id: string }>(map: Map<string, V>, records: V[]): void {
  if (!Array.isArray(records)) throw new WorldError('a workspace has no list of records');
  map.clear();
  for (const r of records) {
    if (!isObject(r) || typeof r.id !== 'string') throw new WorldError('a record has no id');
    map.set(r.id, r);
  }
}

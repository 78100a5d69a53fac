/**
 * An emulator holding a copy of a real workspace (`vidpub emulator
 * --seed-from PROFILE`, `--rehearse`): GET /me, GET /destinations and GET
 * each destination's options through vidpub's own API client (its retries,
 * pacing, redaction and transport), never a write, turned into a fixture by
 * seed-map.ts. The fixture holds nothing of the real key: its one key is its
 * own (seededKey), with the access the real key has, so that a rehearsal with
 * a read-only key is refused as the real run would be.
 */
import { NotFoundError } from '../errors.js';
import type { Destination, DestinationOptions, Media, Me, Post } from '../contract/wire-types.js';
import { accountOf, destinationOf, mediaOf, postOf, seededKey, type SeedNotes } from './seed-map.js';

/**
 * What a seed may ask of it: only the signal. The emulator never imports the client (src/api/):
 * the CLI (src/cli/rehearsal/) hands in vidpub's own client, which has these reads, as the seam.
 */
interface ReadOptions {
  signal?: AbortSignal;
}

/** The reads a seed makes: GETs only. */
export interface SeedReader {
  getMe(o?: ReadOptions): Promise<Me>;
  listDestinations(o?: ReadOptions): Promise<Destination[]>;
  getDestinationOptions(destinationId: string, o?: ReadOptions): Promise<DestinationOptions>;
}

/** The reads of records by id: a post and its video, a video (GETs only). */
export interface RecordReader {
  getPost(postId: string, o?: ReadOptions): Promise<Post>;
  getMedia(mediaId: string, o?: ReadOptions): Promise<Media>;
}

export interface SeedResult {
  /** A fixture file's JSON (the `--fixture` format), checked by validateFixture when loaded. */
  fixture: Record<string, unknown>;
  /** The seeded workspace's key (the emulator's own). */
  key: string;
  /** The workspace's name. */
  workspace: string;
  /** What was changed to fit the emulator, one sentence each (empty when nothing was). */
  notes: SeedNotes;
}

export interface SeedOptions {
  signal?: AbortSignal;
  /** Where the copy was read from, for the fixture's comment (no secret: a base URL). */
  source?: string;
  /** When, for the fixture's comment (ISO). */
  at?: string;
}

/** Reads the workspace of the reader's key (GETs only) and gives it back as a fixture. */
export async function seedFixture(reader: SeedReader, opts: SeedOptions = {}): Promise<SeedResult> {
  const signal = opts.signal;
  const me: Me = await reader.getMe({ signal });
  const destinations = await reader.listDestinations({ signal });
  const options: DestinationOptions[] = [];
  // One at a time: the reads spend the real key's per-minute allowance, paced by the client.
  for (const d of destinations) options.push(await reader.getDestinationOptions(d.id, { signal }));

  const notes: SeedNotes = [];
  const workspaceId = String(me.workspace?.id ?? 'ws_seeded');
  const accountId = `acct_${workspaceId}`.slice(0, 64);
  const key = seededKey(workspaceId);
  const access = me.key?.access === 'read' ? 'read' : 'read_write';
  const comment = [
    `A copy of workspace "${me.workspace.name}" read (GET only) ${opts.source ? `from ${opts.source} ` : ''}${opts.at ? `on ${opts.at}` : ''}`.trim(),
    'by vidpub emulator --seed-from. Its key is the emulator\'s own; no key of the service is in this file.',
  ].join(' ');
  const fixture = {
    _seeded: comment,
    accounts: [accountOf(me, accountId, notes)],
    workspaces: [{
      id: workspaceId,
      name: me.workspace.name,
      account: accountId,
      keys: [{ key, name: `Rehearsal (${access === 'read' ? 'read-only' : 'read/write'})`, access }],
      destinations: destinations.map((d, i) => destinationOf(d, options[i]!, notes)),
      media: [],
    }],
  };
  if (notes.length > 0) Object.assign(fixture, { _seed_notes: [...notes] });
  return { fixture, key, workspace: me.workspace.name, notes };
}

/** Records a rehearsal acts on, by id: a post (publish) and videos (post --media). */
export interface SeedRecords {
  post?: string;
  media?: string[];
}

/**
 * Adds those records to a seeded fixture: GET /posts/{id} and GET
 * /media/{id} of its video, GET /media/{id} of each video named. One the
 * service does not have is left out: the rehearsal then meets its absence
 * where the real run would.
 */
export async function seedRecords(reader: RecordReader, seed: SeedResult, records: SeedRecords, signal?: AbortSignal): Promise<void> {
  const ws = (seed.fixture.workspaces as Record<string, unknown[]>[])[0]!;
  const media = new Set(records.media ?? []);
  if (records.post !== undefined) {
    const post = await unlessMissing(reader.getPost(records.post, { signal }));
    if (post) {
      media.add(post.media_id);
      ws.posts = [postOf(post, seed.notes)];
    }
  }
  for (const id of media) {
    const m = await unlessMissing(reader.getMedia(id, { signal }));
    if (m) ws.media!.push(mediaOf(m, seed.notes));
  }
}

/** The record, or undefined when the service says there is none (404). */
async function unlessMissing<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

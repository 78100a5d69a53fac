/**
 * The local journal's records and the recorder flows write through
 * (Session.journal). Types only: a flow that records loads nothing until the
 * first record is written.
 */
import type { ApiClient } from '../api/client.js';
import type { OptionValue, Post } from '../contract/wire-types.js';
import type { Clock } from '../core/clock.js';
import type { FileIdentity } from '../util/same-file.js';

/** Who wrote a record: the profile, the service, the key (a short hash, never the key) and its workspace. */
export interface RecordContext {
  profile: string;
  base_url: string;
  /** First 12 hex digits of SHA-256 of the key. */
  key?: string;
  workspace_id?: string;
  workspace?: string;
}

/** A video vidpub uploaded or imported. */
export interface MediaRecord extends RecordContext {
  v: 1;
  kind: 'media';
  /** ISO time the record was written. */
  at: string;
  media_id: string;
  source: 'upload' | 'import';
  file?: string;
  link?: string;
  size?: number;
  status: string;
  idem?: string;
  /** ready, processing, failed, timeout, interrupted… (reused: a file found uploaded already; forgotten: the service no longer has it ready) */
  outcome: string;
  /** The content fingerprint of the file (media/fingerprint.ts): SHA-256 of its bytes, hex. */
  sha256?: string;
  /** Its cheap key (size and a few sampled blocks, media/fingerprint.ts), to find candidates before hashing a whole file. */
  sample?: string;
  /** The file itself when the fingerprint was taken (util/same-file.ts): the same file unchanged needs no new hash. */
  file_id?: FileIdentity;
  /** When the service last said the video was ready (this record's time, when it did). */
  ready_at?: string;
}

export interface RecordedDestination {
  id: string;
  /** "@vidpub.demo (tiktok)" when known. */
  name?: string;
  options?: Record<string, OptionValue>;
  /** Its status when the record was written. */
  status?: string;
}

/** A post vidpub created (or found already created by an earlier run). */
export interface PostRecord extends RecordContext {
  v: 1;
  kind: 'post';
  at: string;
  post_id: string;
  media_id: string;
  file?: string;
  link?: string;
  size?: number;
  /** The file itself (util/same-file.ts): a batch rerun tells a changed item's file from the one that was posted. */
  file_id?: FileIdentity;
  /** The first 200 characters. */
  caption: string;
  destinations: RecordedDestination[];
  publish_at: string | null;
  draft: boolean;
  /** The --idempotency-key given (or the one retry derived). */
  idem?: string;
  /** The base key of the run that made it (session/run-key.ts; vidpub's own vp-… when none was given): the duplicate guard tells the run's own post by it. Absent in lines written before it was kept. */
  run_key?: string;
  /** created, or replayed (the service answered an earlier run's request). */
  outcome: string;
  status: string;
  /** retry: the post whose failed destinations this one posts again. */
  retry_of?: string;
  /** The post's page in the web app (vidpub schedule --ics links it). */
  review_url?: string;
  /** The set of posts one `post` command made, a caption each (set_…: the same on its reruns). */
  set?: string;
}

export interface SeenDestination {
  id: string;
  status: string;
  url?: string;
  failure?: string;
}

/** A state of a post vidpub saw later (status, the end of a wait, history --refresh, publish). */
export interface StatusRecord {
  v: 1;
  kind: 'status';
  at: string;
  profile: string;
  post_id: string;
  status: string;
  publish_at?: string | null;
  destinations: SeenDestination[];
  /** How the command that saw it ended: published, failed, timeout, interrupted, blocked, scheduled… */
  outcome?: string;
}

export type JournalRecord = MediaRecord | PostRecord | StatusRecord;

/** A post as history shows it: its post record folded with every status seen since (who wrote it: RecordContext). */
export interface JournalPost extends RecordContext {
  post_id: string;
  /** When it was created (the post record's time). */
  at: string;
  media_id: string;
  file?: string;
  link?: string;
  size?: number;
  caption: string;
  publish_at: string | null;
  draft: boolean;
  idem?: string;
  run_key?: string;
  /** The post's status as last seen: draft, scheduled, publishing, completed. */
  status: string;
  /** draft, scheduled, publishing, completed, or failed (a destination failed or was cancelled). */
  state: string;
  /**
   * What is known of it now: how the command that last saw it ended (published, failed, timeout…), or, when a
   * look saw it last (status, history --refresh, publish), what that look saw: published, failed, scheduled…
   */
  outcome: string;
  /** How each command that made or followed it ended, oldest first: created or replayed, then timeout, published… */
  outcomes: { at: string; outcome: string }[];
  /** When vidpub last saw it. */
  seen_at: string;
  destinations: (RecordedDestination & { status?: string; url?: string; failure?: string })[];
  retry_of?: string;
  retried_by?: string[];
  review_url?: string;
  /** The set of posts it is one of (PostRecord.set). */
  set?: string;
}

export interface HistoryQuery {
  limit: number;
  /** Only this profile (undefined: every profile). */
  profile?: string;
  state?: string;
  /** Created at or after (ms). */
  sinceMs?: number;
  /** A destination id, or a name / handle matched case-insensitively. */
  destination?: string;
  /** A workspace name or id. */
  workspace?: string;
}

/** What the media flows tell the journal. */
export interface MediaEvent {
  media: { id: string; status: string; source?: string; size_bytes?: number | null };
  file?: string;
  link?: string;
  size?: number;
  idem?: string;
  outcome: string;
  /** The content fingerprint, its cheap key and the file they were taken of (see MediaRecord). */
  content?: { sha256?: string; sample: string; fileId?: FileIdentity };
}

/** A video the journal knows by its content: the newest record of each media id (media/fingerprint.ts). */
export interface KnownVideo {
  media_id: string;
  sha256?: string;
  sample: string;
  size: number;
  file_id?: FileIdentity;
  /** When it was recorded, and when the service last said it was ready. */
  at: string;
  ready_at?: string;
  outcome: string;
  /** The Idempotency-Key base it was uploaded under (a command's or a batch item's), when the journal has it. */
  idem?: string;
}

/** What post and retry tell the journal once the service has created the post. */
export interface PostEvent {
  post: Post;
  names?: Record<string, string>;
  file?: string;
  link?: string;
  size?: number;
  fileId?: FileIdentity;
  idem?: string;
  /** The run's base key, when it is not `idem` (a post without --idempotency-key, --force-new). */
  runKey?: string;
  outcome: 'created' | 'replayed';
  retryOf?: string;
  /** The set of posts of one command it is one of (PostRecord.set). */
  set?: string;
}

/** The newest post made under a key, and the file it was made from when its record says. */
export interface KeyedPost {
  post_id: string;
  at: string;
  file?: string;
  file_id?: FileIdentity;
}

/** A run of `post` that may have posted without knowing it (src/journal/runs.ts). */
export interface OpenRun {
  /** The run's base Idempotency-Key. */
  key: string;
  /** When it started (epoch ms). */
  started: number;
  /** The publish_at it sent or was about to send (an --at such as "in 2h" is read anew by each run). */
  publishAt?: string;
  /** True once it ended not knowing whether it posted (exit 9, Ctrl-C mid-write). */
  ended?: boolean;
  /** The step its post goes under when not "post": "post:fresh" once the cached destinations were refused and read again ("post:fresh:2"... each time after). */
  step?: string;
  /** When it started by the service's clock (its Date header), when the run had heard from the service (epoch ms). */
  serviceStarted?: number;
  /** When it finished, its post known (a `.done` note: runs.ts), by this machine's clock. */
  finished?: number;
  /** The post it made (a `.done` note): a run that waited for it reports that post from the journal, sending nothing. */
  postId?: string;
}

/** A run of the same command that a live process holds (src/journal/run-hold.ts). */
export interface LiveRun {
  /** The key it posts under, when its socket's name carries it. */
  key?: string;
  /** Its note, once it has written one (right before its first write). */
  note?: OpenRun;
}

/** The age of a note older than 24 hours by this machine's clock, by the service's clock; undefined when it cannot be told. */
export type AgeJudge = (run: OpenRun) => Promise<number | undefined>;

/** What the journal remembers of the runs that post one thing (see runs.ts). */
export interface RunMemory {
  /** Where the notes are (for messages). */
  readonly dir: string;
  /**
   * The newest run of it cut off within 24 hours (killed, stopped by a signal, or ended not knowing whether it posted)
   * that no live process holds; a note older by this machine's clock is judged by `judge` (the service's).
   */
  cutOff(judge?: AgeJudge): Promise<OpenRun | undefined>;
  /**
   * Claims the command for this run under `key` before anything is sent: [] when no other live run of it (under this
   * key only, with `sameKey`) was found, and the claim is held until end(); else the live runs, and nothing is held.
   */
  claim(key: string, sameKey: boolean): Promise<LiveRun[]>;
  /** The newest run of the command that finished at `since` or later (by this machine's clock): one that ran beside a run started then. */
  finishedSince(since: number): OpenRun | undefined;
  /** The run under `key` that finished with its post known (its `.done` note), when it names the post it made. */
  settled(key: string): OpenRun | undefined;
  /** The live runs of the command (under `key` only, when given), this process's claim aside. */
  running(key?: string): Promise<LiveRun[]>;
  /** Whether a note can be written now: undefined if so, else the file system's error code. */
  writable(): string | undefined;
  /** This run is about to write under `run.key`, and holds the note while it runs; false when the note could not be written. */
  open(run: OpenRun): Promise<boolean>;
  /** Stops holding the claim under `key` (a run that took another key). */
  release(key: string): void;
  /**
   * This run ended: 'known' when its post is known or nothing that could make one was sent (the note goes);
   * 'unknown' when it may have posted (kept, marked ended); 'cut-off' when a signal stopped it (kept as is).
   */
  end(key: string, how: RunEnd, postId?: string): void;
}

/** How a run ended, for its note (RunMemory.end). */
export type RunEnd = 'known' | 'unknown' | 'cut-off';

/**
 * The recorder on Session.journal. Every method swallows its own failures:
 * a journal that cannot be written warns once and never fails a command.
 */
export interface Journal {
  /** Where the journal lives (for messages). */
  readonly dir: string;
  media(e: MediaEvent): Promise<void>;
  post(e: PostEvent): Promise<void>;
  /** A state of a post seen now, with the command's outcome when it ends there. */
  status(post: Post, outcome?: string): Promise<void>;
  /** The newest post made with this --idempotency-key at this service, in this workspace. */
  findByKey(key: string): Promise<JournalPost | undefined>;
  /** Of these --idempotency-keys, those under which a post was made (as findByKey): key → post id, in one pass. */
  postIdsByKeys(keys: Iterable<string>): Promise<Map<string, string>>;
  /** As postIdsByKeys, with the file each post was made from when its record says (util/same-file.ts). */
  postsByKeys(keys: Iterable<string>): Promise<Map<string, KeyedPost>>;
  /** The newest post made with this profile. */
  lastPost(): Promise<JournalPost | undefined>;
  /** One post by id (any profile). */
  find(postId: string): Promise<JournalPost | undefined>;
  /** The retries made of a post (`vidpub retry`), newest first, whether or not the journal has the post itself. */
  retriesOf(postId: string): Promise<JournalPost[]>;
  /** The posts of a set (PostRecord.set), in the order they were made. */
  setPosts(setId: string): Promise<JournalPost[]>;
  history(q: HistoryQuery): Promise<JournalPost[]>;
  /** The videos of this service and key (or workspace) recorded with this size and cheap key, newest first (forgotten ones left out unless `forgotten`). */
  videosByContent(size: number, sample: string, forgotten?: boolean): Promise<KnownVideo[]>;
  /** As videosByContent, for every video of one of these sizes, in one pass (a batch's files). */
  videosBySize(sizes: ReadonlySet<number>, forgotten?: boolean): Promise<KnownVideo[]>;
  /**
   * The memory of the runs that post `what` (a description of the post: video, caption, destinations, options, time) at
   * this service in `workspace` (its id: any of its keys), or with this key when the workspace is not known. `alike`:
   * other descriptions of the same post (the video by its device and inode, or as an earlier vidpub described it): a
   * note written under any of them is this command's.
   */
  runs(what: unknown, workspace?: string, alike?: readonly unknown[]): Promise<RunMemory>;
  /** The command has printed its outcome: the notes of the runs that finished go (the last thing a command does). */
  settle(): Promise<void>;
}

/** What the journal is made of: where it lives, the command's profile, client and clock, and how it warns. */
export interface JournalDeps {
  dir: string;
  profile: string;
  /** The API client of the command (base URL, key hash, GET /me for the workspace). */
  client(): Promise<ApiClient>;
  clock: Pick<Clock, 'now'>;
  signal?: AbortSignal;
  /** A warning line on stderr (never with data). */
  warn(line: string): void;
  /** Rotation threshold (tests). */
  segmentBytes?: number;
}

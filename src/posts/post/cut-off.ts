/**
 * A rerun of `post` after a run that was cut off (kill -9, a lost machine, or
 * exit 9: it never learnt whether it posted) continues that run: it takes the
 * run's base Idempotency-Key, so every write it sends is a replay of what the
 * cut-off run did (the same video, the same post), or done now if it never
 * was. The memory is the journal's (src/journal/runs.ts); without
 * --idempotency-key it is the only thing that tells a rerun from a new post.
 *
 * What counts as the same command: the same video (the same file however it
 * is named: its real path after symbolic links, or its device and inode, with
 * its size and modification time; the link; the media id), caption, destinations with
 * their options, and time as typed, at the same service in the same
 * workspace (with any of its keys), within 24 hours. --force-new (or --no-journal) posts anew.
 */
import type { Session } from '../../session/session.js';
import type { RunKey } from '../../session/run-key.js';
import type { OpenRun } from '../../journal/journal-types.js';
import { CancelledError, InterruptedError, OutcomeUnknownError, TimeoutError, VidpubError, sanitize } from '../../errors.js';
import type { PostOpts, PostSource, RunTrack } from './types.js';
import { optionsBody, type DestinationPlan } from '../options.js';
import { relativePhrase } from '../../time/describe.js';
import { isoUtc } from '../../time/iso-time.js';
import { parseWhen, type ResolvedWhen } from '../../time/parse-when.js';
import { claimCommand, heardServiceNow, serviceAgeJudge } from './live-run.js';
import { withoutPostItLine } from '../../media/wait.js';

export interface CutOffInput {
  source: PostSource;
  caption: string;
  /** What POST /posts carries for the destinations (ids and options), as JSON. */
  destinations: string;
  draft: boolean;
  when: ResolvedWhen | null;
  /** --at as typed. */
  atText?: string;
  zone: string;
}

/** What POST /posts would carry for the destinations: to tell whether fresh options change the post. */
export function destinationsBody(plans: DestinationPlan[]): string {
  return JSON.stringify(plans.map((p) => ({ destination_id: p.destination.id, options: optionsBody(p) })));
}

/** What a run's note in runs/ says it posts, to tell a rerun of it. */
export function cutOffInput(opts: PostOpts, caption: string, plans: DestinationPlan[]): CutOffInput {
  return {
    source: opts.source,
    caption,
    destinations: destinationsBody(plans),
    draft: opts.draft,
    when: opts.when,
    atText: opts.atText,
    // Read only for a time other than now: the machine's zone costs ICU's data (post.ts).
    get zone() {
      return opts.zone;
    },
  };
}

/**
 * The key's workspace, before the note is read: the service replays a key per
 * workspace, so the same command run with another of its keys (one rotated
 * since) continues the run. From the key's cache (7 days) on a warm run, so
 * no request; else GET /me, which the journal reads for the post anyway.
 * Unknown when it cannot be read (the note is then the key's); stopped only
 * by the deadline or Ctrl-C.
 */
async function workspaceOf(session: Session): Promise<string | undefined> {
  try {
    const ws = await (await session.client()).workspace({ signal: session.signal });
    return typeof ws?.id === 'string' && ws.id !== '' ? ws.id : undefined;
  } catch (err) {
    if (session.signal.aborted) throw err;
    return undefined;
  }
}

/**
 * What the run's note is named by, and the other names a rerun finds it by (Journal.runs). A file is the
 * file itself, however it is named (media/check.ts sameFile): by its real path (after symbolic links)
 * with its size and modification time, or by its device and inode with them (a bind mount, another
 * mount); and as vidpub 1 named it (the path as given), so that a note written before still guards.
 */
function describe(p: CutOffInput): { what: unknown; alike: unknown[] } {
  const s = p.source;
  const rest = {
    caption: p.caption,
    destinations: p.destinations,
    when: p.draft ? 'draft' : !p.when || p.when.now ? 'now' : { at: p.atText ?? p.when.publishAt, zone: p.zone },
  };
  if (s.kind !== 'file') return { what: { video: s.kind === 'url' ? { link: s.url } : { media: s.id }, ...rest }, alike: [] };
  const f = s.file;
  const mtime = f.mtimeMs ?? null;
  const alike: unknown[] = [];
  if (f.dev !== undefined && f.ino !== undefined) alike.push({ video: { dev: f.dev, ino: f.ino, size: f.size, mtime }, ...rest });
  alike.push({ video: { file: f.path, size: f.size, mtime }, ...rest });
  return { what: { video: { real: f.real ?? f.path, size: f.size, mtime }, ...rest }, alike };
}

/**
 * Before the summary and any confirmation: claims the command (waiting for an
 * identical run still running: live-run.ts), takes the key of a cut-off run
 * of the same command, or of the run it waited for (saying so), and readies
 * this run's note (noteRun writes it). Returns the time to send: a continued
 * run sends the one its first run resolved ("in 2h" then).
 */
export async function continueCutOff(session: Session, key: RunKey, p: CutOffInput, track: RunTrack): Promise<ResolvedWhen | null> {
  if (!session.journal) return p.when;
  track.workspace = await workspaceOf(session);
  const named = describe(p);
  const memory = await session.journal.runs(named.what, track.workspace, named.alike);
  // Held from here to the run's end (endRun), the claim too.
  track.memory = memory;
  const { earlier, waited, beside, settled } = await claimCommand(session, memory, key, serviceAgeJudge(session), { publishAtFlag: p.atText !== undefined, startedAt: track.startedAt });
  let when = p.when;
  // The run waited for ended with its post made: reported from the journal, nothing sent (flow.ts).
  if (settled) {
    track.settled = { postId: settled.postId, key: settled.key, beside: beside === true };
    return when;
  }
  // The first run's time ("in 2h" then): the one its post was made with, if it was.
  const earlierWhen = (run: OpenRun) =>
    run.publishAt && when && !when.now && run.publishAt !== when.publishAt ? parseWhen(run.publishAt, { now: session.clock.now(), zone: p.zone, allowPast: true }) : when;
  if (key.given) {
    // The rerun printed after exit 9 (this command with the run's key): once it settles the run, the run is forgotten.
    if (earlier?.key === key.key) {
      key.continued = true;
      if (earlier.step) key.postStep = earlier.step;
      when = earlierWhen(earlier);
    }
    return when;
  }
  // The run waited for left no note (it ended knowing its post): its key, so that post is reported, not made again.
  const taken = earlier ?? waited?.note ?? (waited ? { key: waited.key, started: session.clock.now() } : undefined);
  if (taken) {
    key.key = taken.key;
    key.continued = true;
    if (taken.step) key.postStep = taken.step;
    when = earlierWhen(taken);
    if (earlier) {
      const how = earlier.ended ? 'ended without knowing whether it posted' : waited ? 'was waited for and is no longer running' : 'was cut off';
      session.log.info(
        `An earlier run of this command, started ${relativePhrase(earlier.started, session.clock.now())} (${isoUtc(earlier.started)}), ${how}: continuing it under its key ${earlier.key}, ` +
          'so what it did is reported, not done twice. To post anew instead, add --force-new.',
      );
    } else {
      const which = beside ? `An identical run of this command finished while this one was starting` : 'The identical run waited for has ended';
      session.log.info(`${which}: continuing it under its key ${taken.key}, so what it did is reported, not done twice. To post anew instead, add --force-new.`);
    }
  }
  track.run = {
    key: key.key,
    started: taken?.started ?? session.clock.now(),
    ...(when && !when.now ? { publishAt: when.publishAt } : {}),
    ...(key.postStep ? { step: key.postStep } : {}),
    ...serviceStart(taken, await heardServiceNow(session)),
  };
  if (taken) track.continuing = { key: taken.key, ...(p.atText !== undefined && track.run.publishAt ? { flags: { '--at': track.run.publishAt } } : {}) };
  const unwritable = memory.writable();
  if (unwritable) throw noNote(memory.dir, unwritable, track.continuing);
  return when;
}

/** When the run started by the service's clock: its first run's, else the service's time now (when heard). */
function serviceStart(taken: OpenRun | undefined, serviceNow: number | undefined): Pick<OpenRun, 'serviceStarted'> {
  if (taken) return taken.serviceStarted !== undefined ? { serviceStarted: taken.serviceStarted } : {};
  return serviceNow !== undefined ? { serviceStarted: Math.round(serviceNow) } : {};
}

/**
 * Right before the run's first write, after any confirmation: the note that
 * lets a rerun continue it. (Written earlier, a run killed at the prompt would
 * leave a note for a post it never sent.)
 */
export async function noteRun(track: RunTrack): Promise<void> {
  if (track.memory && track.run && !(await track.memory.open(track.run))) throw noNote(track.memory.dir, track.memory.writable() ?? 'EIO', track.continuing);
}

const DISK_SAYS: Record<string, string> = {
  EROFS: 'a read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a file is where a directory should be',
  EEXIST: 'a file is where a directory should be',
};

/**
 * The note of the run cannot be written: refused before the first write,
 * since a rerun after a kill would then post a second time. With a key of
 * its own a rerun is safe without a note; --no-journal runs without it. A run
 * that continues an earlier one (`continuing`) names only its key: a new key,
 * or --no-journal, would post a second time.
 */
function noNote(dir: string, code: string, continuing?: RunTrack['continuing']): VidpubError {
  const by = continuing ? ` by this run, which continues the earlier run under the key ${continuing.key}` : '';
  const what =
    `The state directory cannot be written (${sanitize(dir)}: ${DISK_SAYS[code] ?? code}); nothing was uploaded or posted${by}. ` +
    'vidpub notes a post there before its first write, so that a plain rerun after a kill continues it instead of posting twice.';
  if (continuing) {
    return new VidpubError(what, {
      hint: `Run the line above (with --idempotency-key ${continuing.key}): it continues that run without a note, so what it did is reported, not done twice. Or free or fix that directory and run the same command again.`,
      continueKey: continuing.key,
      ...(continuing.flags ? { continueFlags: continuing.flags } : {}),
    });
  }
  return new VidpubError(what, {
    hint: 'Free or fix that directory (or set VIDPUB_STATE_DIR to one that can be written), or run with --idempotency-key KEY (a rerun with the same key is safe), or with --no-journal to post without the note.',
  });
}

/**
 * The cached destinations were refused and read again: the post now goes
 * under `step` with what they say now, which is also what a rerun reads (the
 * cache holds it). The run's note moves to that post, so a rerun finds it.
 */
export async function postMoved(session: Session, p: CutOffInput, track: RunTrack, step: string): Promise<void> {
  if (!session.journal || !track.memory || !track.run) return;
  const named = describe(p);
  const memory = await session.journal.runs(named.what, track.workspace, named.alike);
  const moved = { ...track.run, step };
  // Unwritten, the note of the first post stays: a rerun replays that post and reads the destinations again.
  if (!(await memory.open(moved))) return;
  track.memory.end(track.run.key, 'known');
  track.run = moved;
  track.memory = memory;
}

/**
 * The run ended: its memory goes when the post is known, or when a new run
 * ended on a definite answer (refused, nothing sent). It stays (marked ended)
 * when the run stopped not knowing whether its write was done, and when a
 * continued run stopped before its post was known (a refusal, Ctrl-C at the
 * confirmation), since the first run's post may still exist. A signal
 * (SIGTERM, SIGINT, SIGHUP) once a write went out, or in a continued run,
 * leaves it as kill -9 would, even after the post was made: the rerun then
 * reports that post instead of making a second. `sent`: a write may have
 * gone out (the upload, the import or the post was started).
 */
export function endRun(track: RunTrack, key: RunKey, failure: unknown, created: boolean, sent: boolean): void {
  if (!track.memory || track.settled) return;
  const signalled = failure instanceof InterruptedError && !(failure instanceof CancelledError);
  if (signalled && (sent || key.continued === true)) return track.memory.end(key.key, 'cut-off');
  // Stopped waiting for the post it made (--timeout, exit 7): the command did not finish, and what reruns a
  // failed CI step or cron line is the same command, which must report this post, not make another.
  if (created && failure instanceof TimeoutError) return track.memory.end(key.key, 'cut-off');
  // Stopped before its first write (declined or Ctrl-C at the confirmation): nothing can have been posted.
  const unknown = sent && (failure instanceof OutcomeUnknownError || failure instanceof InterruptedError);
  // A continued run whose first run's time was refused: had that run posted, the service would have replayed its post.
  const noEarlierPost = key.continued === true && failure instanceof VidpubError && failure.http?.code === 'invalid_publish_at';
  track.memory.end(key.key, created || noEarlierPost || (!key.continued && !key.given && !unknown) ? 'known' : 'unknown', created ? track.postId : undefined);
}

/**
 * A signal stopped the run once a write went out: the error names the run's
 * key, and the CLI prints the command that continues it (the same, with
 * --idempotency-key, and the time sent in place of a relative --at), which
 * works on any machine; here the command as typed does too (the note is kept).
 */
export function continuable(err: unknown, run: { opts: Pick<PostOpts, 'atText'>; key: RunKey; track: RunTrack }, sent: boolean): unknown {
  if (!sent || !(err instanceof InterruptedError) || err instanceof CancelledError || err.idempotencyKey !== undefined) return err;
  const rerunFlags: Record<string, string> = run.opts.atText !== undefined && run.track.publishAt ? { '--at': run.track.publishAt } : {};
  return new InterruptedError(err.message, { hint: withoutPostItLine(err.hint), data: err.data, http: err.http, cause: err, idempotencyKey: run.key.key, rerunFlags });
}

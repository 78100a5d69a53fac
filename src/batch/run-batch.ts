/**
 * Running a checked batch plan: uploads and imports `concurrency` at a time
 * (at most 5 imports downloading at once, the service's cap), each item's
 * post created as soon as its video is ready, every request paced within the
 * key's per-minute allowance (allowance-gate.ts), and posts sent "now" followed until
 * every destination ends (unless --no-wait). Each item's Idempotency-Keys
 * derive from its content (keys.ts): a rerun replays what was done.
 *
 * Polling is frugal: a video is looked at again when its progress says it
 * should be about ready, and a post when the earlier posts of the run took
 * about that long to publish. Each look reads through the shared handling of
 * trouble (readThrough, src/api/poll.ts): a 5xx, a 429, a dropped connection
 * or a request timing out is looked at again later (its Retry-After, else a
 * jittered backoff) until the batch's --timeout, as every other wait does; a
 * wait cut short says what is true (the post exists and goes on, or the
 * video does), never "failed".
 */
import { responseMeta, type ApiClient } from '../api/client.js';
import { readThrough } from '../api/poll.js';
import type { CreatePostRequest, Media, Post } from '../api/wire-types.js';
import {
  BlockedError,
  DeadlineReached,
  InterruptedError,
  NotFoundError,
  OutcomeUnknownError,
  RateLimitError,
  TimeoutError,
  UsageError,
  VidpubError,
  WorkFailedError,
  isDeadline,
  isInterruption,
  sanitize,
} from '../errors.js';
import { bindDeadline } from '../session/deadline.js';
import { stepKey, type Session } from '../session/session.js';
import { optionsBody } from '../posts/options.js';
import { blockingIssues, isFinished } from '../posts/post-view.js';
import type { PacedClient } from './allowance-gate.js';
import type { BatchPlan, PlannedItem } from './plan.js';
import { createView, itemProgress } from './live-view.js';

export type ItemStatus = 'published' | 'publishing' | 'scheduled' | 'draft' | 'failed' | 'skipped' | 'blocked' | 'unknown';

export interface DestinationOutcome {
  destination_id: string;
  name: string;
  status: string;
  url?: string;
  failure?: string;
}

/** One item's line of output. */
export interface ItemOutcome {
  item: number;
  line?: number;
  status: ItemStatus;
  media_id: string | null;
  post_id: string | null;
  review_url: string | null;
  publish_at: string | null;
  destinations: DestinationOutcome[];
  /** The post (or video) was already made by an earlier run and replayed. */
  replayed?: boolean;
  error?: string;
}

/**
 * Where a batch reports what it did, item by item, as it happens: the hook a
 * local journal plugs into. Every call is awaited; a recorder that throws
 * does not stop the batch.
 */
export interface BatchRecorder {
  record(event: BatchEvent): void | Promise<void>;
  /**
   * Whether an earlier run posted the item with this key (its rerun is a
   * replay that spends no daily allowance). Without it, every item that
   * publishes or schedules is counted against what GET /me says is left.
   */
  wasPosted?(key: string): boolean | Promise<boolean>;
}

export type BatchEvent =
  | { type: 'item-started'; item: number; key: string }
  | { type: 'media'; item: number; key: string; media_id: string; status: string }
  | { type: 'post'; item: number; key: string; post_id: string; replayed: boolean }
  | { type: 'item-finished'; item: number; key: string; outcome: ItemOutcome };

export interface RunOptions {
  concurrency: number;
  wait: boolean;
  /** --timeout, for the whole batch. */
  timeoutMs: number;
  /** What the checks before the run already spent of it (the confirmation not counted). */
  spentMs?: number;
  recorder?: BatchRecorder;
  /** Told of each item as soon as it has ended (its stdout line need not wait for the whole batch). */
  onItem?: (outcome: ItemOutcome) => void;
}

export interface RunStats {
  reads: number;
  writes: number;
  elapsedMs: number;
  /** Times the pacing held a request back. */
  pacedWaits: number;
}

/** A counting semaphore. */
class Slots {
  private waiting: (() => void)[] = [];
  constructor(private free: number) {}
  async take(signal: AbortSignal): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason ?? new Error('aborted'));
      this.waiting.push(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/** The longest the service's imports may download at once (imports_in_flight beyond it). */
const MAX_IMPORTS_IN_FLIGHT = 5;
const MIN_POLL_MS = 300;
const MAX_POLL_MS = 5000;

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

function destinationsOf(post: Post, names: Record<string, string>): DestinationOutcome[] {
  return (post.destinations ?? []).map((d) => ({
    destination_id: d.destination_id,
    name: names[d.destination_id] ?? d.destination_id,
    status: String(d.status ?? post.status ?? 'unknown'),
    ...(d.url ? { url: d.url } : {}),
    ...(d.failure?.message ? { failure: d.failure.message } : {}),
  }));
}

/** The batch's --timeout cut a wait short; `lastFailure` is why the last look failed, when it did. */
class WaitCut extends TimeoutError {
  constructor(readonly lastFailure: unknown) {
    super('--timeout reached');
  }
}

/** A failed look in a few words, for the live view. */
function troubleWord(err: unknown): string {
  const status = err instanceof VidpubError ? err.http?.status : undefined;
  return status ? `HTTP ${status}` : 'no answer';
}

/** Why the last look failed, in one line: the service's status and code, else what the client said (a dropped connection). */
function lastLookText(err: unknown): string {
  const http = err instanceof VidpubError ? err.http : undefined;
  if (http?.status) return `HTTP ${http.status}${http.code ? ` ${sanitize(http.code)}` : ''}`;
  return sanitize(err instanceof Error ? err.message : String(err));
}

/** The video id a media flow's error carries (its `data`), when it has one. */
function mediaIdOf(err: unknown): string | undefined {
  const id = err instanceof VidpubError ? (err.data as { id?: unknown } | undefined)?.id : undefined;
  return typeof id === 'string' ? id : undefined;
}

/** Why an item did not end well, for the exit code. */
type Trouble = 'failed' | 'blocked' | 'timeout' | 'rate' | 'interrupted' | 'unknown';

export interface BatchRun {
  outcomes: ItemOutcome[];
  stats: RunStats;
  /** The exit-code error, or undefined when every item ended well. */
  troubles: Map<number, Trouble>;
  /** The items whose write got no answer: what the client said of each. */
  unknowns?: Map<number, OutcomeUnknownError>;
  /** Items stopped by --timeout that go on at the service (a post created, a video sent whole). */
  goingOn?: Set<number>;
}

/** The step of an item whose write may be left without an answer. */
type Step = 'upload' | 'import' | 'post';

/**
 * An item's error when a write of it got no answer: what may exist, why it is
 * not known, and that a rerun settles it (the item's keys replay what was done).
 */
function unknownText(err: OutcomeUnknownError, step: Step, mediaId: string | null): string {
  const id = err.known.media_id ?? mediaId;
  const what =
    step === 'post'
      ? `the post may or may not have been created${mediaId ? ` (video ${mediaId})` : ''}`
      : step === 'import'
        ? 'the import may or may not have been started'
        : id
          ? `video ${id} may or may not have been completed`
          : 'the upload may or may not have been created';
  return `outcome unknown: ${what}; ${sanitize(err.request)} got no answer (${err.why}); run the batch again to settle it: what was done is replayed, not done twice`;
}

export async function runBatch(plan: BatchPlan, outer: Session, paced: PacedClient, opts: RunOptions): Promise<BatchRun> {
  const started = outer.clock.now();
  const deadlineMs = started + opts.timeoutMs - (opts.spentMs ?? 0);
  // One deadline for the whole run, as for post: every request, upload, write and wait stops at it.
  const bound = bindDeadline(outer, deadlineMs, opts.timeoutMs);
  try {
    return await runWithin(plan, bound.session, outer.signal, paced, opts, started, deadlineMs);
  } finally {
    bound.dispose();
  }
}

async function runWithin(plan: BatchPlan, session: Session, stopSignal: AbortSignal, paced: PacedClient, opts: RunOptions, started: number, deadlineMs: number): Promise<BatchRun> {
  const { clock, signal } = session;
  const client: ApiClient = paced.client;
  paced.within(signal);
  const s: Session = { ...session, client: async () => client };
  const labels = new Map(plan.items.map((it) => [it.n, it.video.kind === 'file' ? it.video.shown : it.video.kind === 'url' ? it.video.url : `video ${it.video.id}`]));
  const view = createView(session, labels);
  const slots = new Slots(Math.max(1, opts.concurrency));
  const imports = new Slots(MAX_IMPORTS_IN_FLIGHT);
  const learned = { media: [] as number[], post: [] as number[] };
  const outcomes = new Map<number, ItemOutcome>();
  const troubles = new Map<number, Trouble>();
  const unknowns = new Map<number, OutcomeUnknownError>();
  const goingOn = new Set<number>();
  const startReads = paced.counts.read;
  const startWrites = paced.counts.write;
  const record = async (e: BatchEvent) => {
    try {
      await opts.recorder?.record(e);
    } catch {
      // a journal that cannot write does not stop the posting
    }
  };

  const sleep = async (ms: number) => {
    const left = deadlineMs - clock.now();
    if (left <= 0) throw new WaitCut(undefined);
    await clock.sleep(Math.min(ms, left), signal);
  };

  /**
   * One read of a wait, riding out transient trouble until the deadline like
   * every other wait (readThrough); the item's line says it meanwhile.
   */
  const read = <T>(n: number, doing: () => string, fetch: (look: AbortSignal) => Promise<T>): Promise<T> => {
    let lastFailure: unknown;
    return readThrough<T>({
      fetch: ({ signal: look }) => fetch(look),
      clock,
      signal,
      deadlineMs,
      onRetry: (err) => {
        lastFailure = err;
        view.state(n, `${doing()} (the last look failed: ${troubleWord(err)}; looking again)`);
      },
      onDeadline: (err) => new WaitCut(err),
      // The deadline cut the read short (a look in flight, or the pause between looks): a wait cut off, naming the last failure.
      onStopped: (err) => (isDeadline(signal) ? new WaitCut(lastFailure) : err),
    });
  };

  /** Polls a video until it is ready (or failed), looking again when its progress says it should be done. */
  const waitReady = async (it: PlannedItem, first: Media, since: number): Promise<Media> => {
    let m = first;
    let interval = 1000;
    let firstLook = true;
    while (m.status === 'uploading' || m.status === 'processing') {
      const elapsed = clock.now() - since;
      const p = typeof m.progress?.percent === 'number' ? m.progress.percent : undefined;
      let wait: number;
      if (firstLook && learned.media.length > 0) wait = Math.min(...learned.media) + 50 - elapsed;
      else if (p !== undefined && p > 0 && p < 100 && elapsed > 0) wait = ((elapsed * (100 - p)) / p) * 0.75;
      else wait = interval;
      firstLook = false;
      interval = Math.min(MAX_POLL_MS, interval * 1.5);
      await sleep(clamp(wait, MIN_POLL_MS, MAX_POLL_MS));
      const id = m.id;
      const status = m.status;
      m = await read(it.n, () => String(status), (look) => client.getMedia(id, { signal: look }));
      view.state(it.n, `${m.status === 'processing' ? 'processing' : m.status}${typeof m.progress?.percent === 'number' && m.status !== 'ready' ? ` ${Math.round(m.progress.percent)}%` : ''}`);
    }
    if (m.status === 'ready') learned.media.push(clock.now() - since);
    return m;
  };

  /**
   * Polls a post until every destination has ended: first when the run's
   * earlier posts took to finish, else from how fast its destinations are
   * ending, else on a doubling interval.
   */
  const follow = async (n: number, post: Post, since: number): Promise<Post> => {
    let p = post;
    let interval = 1000;
    let firstLook = true;
    while (!isFinished(p)) {
      const elapsed = clock.now() - since;
      const dests = Array.isArray(p.destinations) ? p.destinations : [];
      const done = dests.filter((d) => ['published', 'failed', 'cancelled'].includes(String(d.status))).length;
      let wait: number;
      if (firstLook && learned.post.length > 0) wait = Math.min(...learned.post) + 50 - elapsed;
      else if (done > 0 && done < dests.length) wait = (elapsed / done) * (dests.length - done) * 0.5;
      else {
        wait = interval;
        interval = Math.min(MAX_POLL_MS, interval * 2);
      }
      firstLook = false;
      await sleep(clamp(wait, MIN_POLL_MS, MAX_POLL_MS));
      const id = p.id;
      p = await read(n, () => 'publishing', (look) => client.getPost(id, { signal: look }));
    }
    learned.post.push(clock.now() - since);
    return p;
  };

  const runItem = async (it: PlannedItem): Promise<void> => {
    const out: ItemOutcome = {
      item: it.n,
      ...(it.line !== undefined ? { line: it.line } : {}),
      status: 'skipped',
      media_id: it.video.kind === 'media' ? it.video.id : null,
      post_id: null,
      review_url: null,
      publish_at: it.when === null ? null : it.when.publishAt === 'now' ? 'now' : it.when.local,
      destinations: it.plans.map((p) => ({ destination_id: p.destination.id, name: plan.names[p.destination.id] ?? p.destination.id, status: 'not posted' })),
    };
    outcomes.set(it.n, out);
    let holdingSlot = false;
    let holdingImport = false;
    let step: Step = 'upload';
    try {
      await slots.take(signal);
      holdingSlot = true;
      await record({ type: 'item-started', item: it.n, key: it.key });
      const v = it.video;
      let post: Post | undefined;
      let replayed = false;
      let created = clock.now();
      if (it.earlierPostId) {
        // This machine's journal holds the item's post (an earlier run): report it as it is now.
        // The service replays the item's keys for 24 hours only; after that a send would post it again.
        const id = it.earlierPostId;
        view.state(it.n, 'posted earlier');
        post = await read(it.n, () => 'posted earlier', (look) => client.getPost(id, { signal: look })).catch((err: unknown) => {
          if (err instanceof NotFoundError) return undefined; // not at this service (any more): post it
          throw err;
        });
        if (post) {
          slots.give();
          holdingSlot = false;
          replayed = true;
          out.replayed = true;
          out.post_id = post.id;
          out.media_id = post.media_id ?? out.media_id;
        }
      }
      if (!post) {
        let media: Media;
        let since = clock.now();
        if (v.kind === 'file') {
          view.state(it.n, 'uploading');
          const { uploadFile } = await import('../media/upload-flow.js');
          media = await uploadFile(s, v.file, { idempotencyBase: it.key, wait: false, progress: itemProgress(view, it.n), deadlineMs });
          since = clock.now();
        } else if (v.kind === 'url') {
          await imports.take(signal);
          holdingImport = true;
          step = 'import';
          view.state(it.n, 'importing');
          const { importLink } = await import('../media/import-flow.js');
          media = await importLink(s, v.url, { idempotencyBase: it.key, wait: false, deadlineMs });
        } else {
          media = v.media;
        }
        out.media_id = media.id;
        await record({ type: 'media', item: it.n, key: it.key, media_id: media.id, status: String(media.status) });
        slots.give();
        holdingSlot = false;
        view.state(it.n, media.status === 'ready' ? 'ready' : String(media.status));
        if (media.status !== 'ready') media = await waitReady(it, media, since);
        if (holdingImport) {
          imports.give();
          holdingImport = false;
        }
        if (media.status === 'failed') {
          throw new WorkFailedError(`video ${media.id} failed: ${sanitize(media.error?.message ?? 'the service gave no reason')}`);
        }

        if (it.when && !it.when.now && it.when.ms <= clock.now()) {
          throw new UsageError(`its time ${it.when.local} (${it.when.utc}) passed while the video was being uploaded; nothing was posted (video ${media.id})`);
        }
        const body: CreatePostRequest = {
          media_id: media.id,
          caption: it.caption,
          destinations: it.plans.map((p) => ({ destination_id: p.destination.id, options: optionsBody(p) })),
        };
        if (it.when) body.publish_at = it.when.publishAt;
        view.state(it.n, it.draft ? 'saving draft' : 'posting');
        step = 'post';
        post = await client.createPost(body, { idempotencyKey: stepKey(it.key, 'post'), signal });
        created = clock.now();
        replayed = responseMeta(post)?.replayed === true;
        out.post_id = post.id;
        if (replayed) {
          out.replayed = true;
          const id = post.id;
          post = await read(it.n, () => 'posted', (look) => client.getPost(id, { signal: look }));
        }
      }
      out.review_url = post.review_url ?? null;
      out.destinations = destinationsOf(post, plan.names);
      await record({ type: 'post', item: it.n, key: it.key, post_id: post.id, replayed });
      // The journal keeps the post under the item's key, so history shows it and a rerun finds it.
      const source = v.kind === 'file' ? { file: v.file.path, size: v.file.size } : v.kind === 'url' ? { link: v.url } : {};
      await s.journal?.post({ post, names: plan.names, idem: it.key, outcome: replayed ? 'replayed' : 'created', ...source });

      if (it.draft) out.status = 'draft';
      else if (blockingIssues(post.issues).length > 0) {
        out.status = 'blocked';
        out.error = `${blockingIssues(post.issues).length} issue(s) of severity error block it; fix them at ${post.review_url}`;
        troubles.set(it.n, 'blocked');
      } else if (post.status === 'scheduled') out.status = 'scheduled';
      else if (isFinished(post) || opts.wait) {
        if (!isFinished(post)) view.state(it.n, 'publishing');
        post = await follow(it.n, post, created);
        out.destinations = destinationsOf(post, plan.names);
        const bad = out.destinations.filter((d) => d.status === 'failed' || d.status === 'cancelled');
        if (bad.length > 0) {
          out.status = 'failed';
          out.error = `${bad.length} of ${out.destinations.length} destinations did not publish: ${bad.map((d) => `${d.name} ${d.status}${d.failure ? ` (${d.failure})` : ''}`).join('; ')}`;
          troubles.set(it.n, 'failed');
        } else out.status = 'published';
        await s.journal?.status(post, out.status);
      } else out.status = 'publishing';
    } catch (err) {
      if (err instanceof OutcomeUnknownError) {
        // A write got no answer (every attempt dropped or timed out, the deadline or Ctrl-C during it):
        // it may or may not have been done, never "failed"; the item's keys make a rerun settle it.
        out.media_id ??= err.known.media_id ?? null;
        out.status = 'unknown';
        out.error = unknownText(err, step, out.media_id);
        if (step === 'post') out.destinations = out.destinations.map((d) => ({ ...d, status: 'unknown' }));
        troubles.set(it.n, 'unknown');
        unknowns.set(it.n, err);
      } else if (isInterruption(err, stopSignal) || stopSignal.aborted) {
        if (out.post_id && out.status === 'skipped') {
          // The post exists and goes on at the service: stopped following it, not "nothing was posted".
          out.status = 'publishing';
          out.error = `interrupted; post ${out.post_id} was created and goes on at the service, its outcome not known yet; follow it with: vidpub status ${out.post_id} --wait`;
        } else if (!out.post_id) {
          out.status = 'skipped';
          out.error = 'interrupted: run the batch again to finish it (what was done is replayed, not repeated)';
        }
        troubles.set(it.n, 'interrupted');
      } else if (err instanceof TimeoutError || err instanceof DeadlineReached || (isDeadline(signal) && !(err instanceof VidpubError))) {
        // What is true when the deadline cut a wait short: the post exists and goes on (its
        // outcome not known yet), or the video does and nothing was posted; never "failed".
        // A video id known only from the error: its upload was cut off before it was complete.
        const unfinished = out.media_id === null && it.video.kind === 'file' ? mediaIdOf(err) : undefined;
        out.media_id ??= mediaIdOf(err) ?? null;
        if (out.post_id || (out.media_id && !unfinished)) goingOn.add(it.n);
        const lastLook = err instanceof WaitCut && err.lastFailure !== undefined ? `; the last look failed: ${lastLookText(err.lastFailure)}` : '';
        if (out.post_id) {
          out.status = 'publishing';
          out.error = `stopped waiting (--timeout)${lastLook}; post ${out.post_id} was created and goes on at the service, its outcome not known yet; follow it with: vidpub status ${out.post_id} --wait`;
        } else {
          out.status = 'skipped';
          const video = unfinished
            ? `the upload of video ${unfinished} was not finished, so the service does not have it; `
            : out.media_id
              ? `video ${out.media_id} goes on at the service; `
              : '';
          out.error = `stopped waiting (--timeout)${lastLook}; ${video}nothing was posted: run the batch again to post it`;
        }
        troubles.set(it.n, 'timeout');
      } else {
        out.status = err instanceof BlockedError ? 'blocked' : 'failed';
        const msg = err instanceof VidpubError ? err.message : err instanceof Error ? err.message : String(err);
        const http = err instanceof VidpubError ? err.http : undefined;
        out.error =
          http?.code === 'idempotency_key_reused'
            ? 'an earlier run already sent this item with another request under the same keys (a relative time such as +2h is a new time on every run), so it was not posted again; use an absolute time, or a new batch_key to post it as a new post'
            : sanitize(msg);
        troubles.set(it.n, err instanceof BlockedError ? 'blocked' : err instanceof RateLimitError ? 'rate' : 'failed');
      }
    } finally {
      if (holdingSlot) slots.give();
      if (holdingImport) imports.give();
      view.state(it.n, `${out.status}${out.post_id ? ` ${out.post_id}` : ''}${out.error && troubles.get(it.n) !== 'interrupted' ? `: ${out.error}` : ''}`);
      await record({ type: 'item-finished', item: it.n, key: it.key, outcome: out });
      opts.onItem?.(out);
    }
  };

  try {
    await Promise.all(plan.items.map((it) => runItem(it)));
  } finally {
    view.stop();
  }
  return {
    outcomes: plan.items.map((it) => outcomes.get(it.n)!),
    troubles,
    unknowns,
    goingOn,
    stats: {
      reads: paced.counts.read - startReads,
      writes: paced.counts.write - startWrites,
      elapsedMs: clock.now() - started,
      pacedWaits: paced.stats.read.waits + paced.stats.write.waits,
    },
  };
}

/** The exit code's error for a run's troubles (undefined: every item ended well). */
export function troubleError(run: BatchRun, data: unknown): VidpubError | undefined {
  const kinds = new Set(run.troubles.values());
  const troubled = (k: Trouble) => run.outcomes.filter((o) => run.troubles.get(o.item) === k);
  const count = (k: Trouble) => troubled(k).length;
  const total = run.outcomes.length;
  // A write that may have happened matters more to a script than why the batch stopped (as for post: exit 9).
  if (kinds.has('unknown')) {
    const first = [...(run.unknowns?.values() ?? [])][0];
    return new OutcomeUnknownError(`The outcome of ${count('unknown')} of ${total} items is unknown: a write got no answer, so it may or may not have been done.`, {
      request: first?.request ?? 'POST /v1/posts',
      reason: first?.reason ?? 'network',
      data,
      hint: `Run the same batch again to settle ${count('unknown') === 1 ? 'it' : 'them'}: what was done is replayed and reported, not done twice.`,
    });
  }
  if (kinds.has('interrupted')) {
    const cut = troubled('interrupted');
    const posts = cut.filter((o) => o.status === 'publishing' && o.post_id !== null).map((o) => o.post_id!);
    const follow = posts.length > 0 ? `Follow ${posts.length === 1 ? 'it' : 'them'} with: ${posts.map((id) => `vidpub status ${id} --wait`).join('; ')}` : '';
    const rest = cut.length > posts.length ? 'Run the same command again: finished steps are replayed by the service, not repeated.' : '';
    return new InterruptedError(`Interrupted: ${count('interrupted')} of ${total} items unfinished.`, {
      data,
      hint: [follow, rest].filter(Boolean).join('\n'),
    });
  }
  if (kinds.has('rate')) return new RateLimitError(`${count('rate')} of ${total} items were refused by the daily post allowance.`, { data, code: 'daily_post_limit' });
  if (kinds.has('timeout')) {
    const cut = run.outcomes.filter((o) => run.troubles.get(o.item) === 'timeout');
    const posts = cut.map((o) => o.post_id).filter((id): id is string => id !== null);
    const follow = posts.length > 0 ? `Follow ${posts.length === 1 ? 'it' : 'them'} with: ${posts.map((id) => `vidpub status ${id} --wait`).join('; ')}` : '';
    const rest = cut.length > posts.length ? 'Run the batch again to post the rest: what was done is replayed, not repeated.' : '';
    const goOn = cut.every((o) => run.goingOn?.has(o.item) ?? true);
    return new TimeoutError(`Stopped waiting (--timeout) for ${count('timeout')} of ${total} items${goOn ? '; they go on at the service' : ''}.`, {
      data,
      hint: [follow, rest].filter(Boolean).join('\n'),
    });
  }
  if (kinds.has('blocked')) return new BlockedError(`${count('blocked')} of ${total} items are blocked by issues of severity error.`, { data });
  if (kinds.has('failed')) {
    // A post whose destinations failed is replayed as it is by a rerun: `vidpub retry` posts to them again.
    const failed = troubled('failed');
    const retry = failed.filter((o) => o.post_id !== null && o.destinations.some((d) => d.status === 'failed' || d.status === 'cancelled')).map((o) => o.post_id!);
    const hint = [
      retry.length > 0 ? `Post again to the destinations that failed with: ${retry.map((id) => `vidpub retry ${id}`).join('; ')}` : '',
      failed.length > retry.length ? 'Fix what the table says and run the batch again: items that went out are not posted twice.' : '',
    ];
    return new WorkFailedError(`${count('failed')} of ${total} items failed.`, { data, hint: hint.filter(Boolean).join('\n') });
  }
  return undefined;
}

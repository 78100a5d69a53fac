/**
 * Waiting for a post to finish: polls GET /posts/{id} (src/api/wait/poll.ts) until
 * every destination is published, failed or cancelled, and shows each
 * destination's state on stderr — redrawn in place on a terminal, one plain
 * line per change on a pipe, nothing with --quiet. Ctrl-C and --timeout stop
 * the waiting (not the post) and say how to look again.
 */
import type { ApiClient } from '../api/client.js';
import type { Post } from '../contract/wire-types.js';
import { WorkTimer } from '../api/wait/work-timer.js';
import { InterruptedError, TimeoutError, isInterruption, sanitize } from '../errors.js';
import type { Screen, Session } from '../session/session.js';
import { LiveRegion } from '../ui/live-region.js';
import type { Logger } from '../core/log.js';
import { formatDuration } from '../time/duration.js';
import { settle } from './settle.js';
import { type PostResult } from './view.js';
import { postSettled } from '../contract/wire-types.js';
import { emitPost } from '../events/post-events.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/**
 * How the looks at a post spread out when nothing says when it ends (a post
 * record has no progress figure; a first post to these destinations has no
 * duration remembered): a first look at POST_FIRST_LOOK_MS, then from
 * POST_SECOND_LOOK_MS growing by POST_LOOK_GROWTH (up to the poller's longest
 * interval). The looks are closest while a short publish would end, and as far
 * apart as before once the wait is long: a few reads more in the first minute
 * than growing from the first look, the same rate after it (every few seconds).
 */
const POST_FIRST_LOOK_MS = 1000;
const POST_SECOND_LOOK_MS = 500;
const POST_LOOK_GROWTH = 1.25;
const TICK_MS = 100;

/** What the display needs to know about one destination. */
interface Row {
  name: string;
  status: string;
  note: string;
}

function rowsOf(post: Post, names: Record<string, string>): Row[] {
  return (post.destinations ?? []).map((d) => ({
    name: sanitize(names[d.destination_id] ?? d.destination_id),
    status: String(d.status ?? 'unknown'),
    note: sanitize(d.failure?.message ?? d.url ?? d.warning?.message ?? ''),
  }));
}

export interface PostDisplay {
  update(post: Post): void;
  /** The service stopped answering (a line saying so), or answers again (undefined): said once per change. */
  trouble(line: string | undefined): void;
  /** Removes the live lines (a terminal) so the final record is printed once. */
  stop(): void;
}

/** The live view on a terminal: a few lines on stderr rewritten in place. */
class LiveDisplay implements PostDisplay {
  private rows: Row[] = [];
  private troubleLine: string | undefined;
  private readonly region: LiveRegion;
  private frame = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  constructor(private readonly screen: Screen, private readonly names: Record<string, string>, private readonly postId: string) {
    this.region = new LiveRegion((text) => screen.write(text));
  }

  update(post: Post): void {
    this.rows = rowsOf(post, this.names);
    if (!this.timer) {
      this.timer = setInterval(() => {
        this.frame = (this.frame + 1) % FRAMES.length;
        this.draw();
      }, TICK_MS);
      this.timer.unref?.();
    }
    this.draw();
  }

  trouble(line: string | undefined): void {
    this.troubleLine = line;
    this.draw();
  }

  private symbol(status: string): string {
    const c = this.screen.colors;
    if (status === 'published') return c.green('✓');
    if (status === 'failed') return c.red('✗');
    if (status === 'cancelled') return c.yellow('–');
    if (status === 'publishing') return c.cyan(FRAMES[this.frame]!);
    return c.dim('·');
  }

  private draw(): void {
    // Every line fits the terminal (a wrapped line would break the repaint and fill the scrollback).
    const width = Math.max(20, (this.screen.columns ?? 80) - 1);
    const fit = (text: string, room: number) => (text.length > room ? text.slice(0, room - 1) + '…' : text);
    const nameWidth = Math.max(...this.rows.map((r) => r.name.length), 0);
    const lines = [
      this.screen.colors.dim(fit(`Waiting for post ${this.postId} (Ctrl-C stops waiting; the post goes on)`, width)),
      ...this.rows.map((r) => `${this.symbol(r.status)} ${fit(`${r.name.padEnd(nameWidth)}  ${r.status}${r.note ? `  ${r.note}` : ''}`, width - 2)}`),
      ...(this.troubleLine ? [this.screen.colors.yellow(fit(this.troubleLine, width))] : []),
    ];
    this.region.paint(lines);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.region.clear();
  }
}

/** On a pipe: one line when a destination changes state. */
class PlainDisplay implements PostDisplay {
  private last = new Map<string, string>();
  constructor(private readonly log: Logger, private readonly names: Record<string, string>) {}
  update(post: Post): void {
    for (const r of rowsOf(post, this.names)) {
      if (this.last.get(r.name) === r.status) continue;
      this.last.set(r.name, r.status);
      this.log.info(`${r.name}: ${r.status}${r.note ? ` ${r.note}` : ''}`);
    }
  }
  trouble(line: string | undefined): void {
    if (line) this.log.warn(line);
    else this.log.info('The service answers again.');
  }
  stop(): void {}
}

const silent: PostDisplay = { update() {}, trouble() {}, stop() {} };

export function createPostDisplay(session: Session, names: Record<string, string>, postId: string): PostDisplay {
  if (session.quiet) return silent;
  if (session.screen.tty) return new LiveDisplay(session.screen, names, postId);
  return new PlainDisplay(session.log, names);
}

export interface WaitOptions {
  /** Absolute clock time after which we stop waiting (exit 7). */
  deadlineMs?: number;
  /** The --timeout given, for the message. */
  timeoutMs?: number;
  /**
   * The post started going out just now (created or published to go out now,
   * not a replay): the wait is timed, and how long the last such post to the
   * same destinations took says when to look.
   */
  startedNow?: boolean;
}

/** The cache entry of how long publishing took to a set of destinations. */
function publishingOf(post: Post): string {
  return `post:${(post.destinations ?? []).map((d) => d.destination_id).sort().join(',')}`;
}

/**
 * Polls the post until it is finished. Returns the final record. Throws
 * TimeoutError (exit 7) or InterruptedError (exit 130), both naming the post
 * and carrying the last record seen as `data`.
 */
export async function waitForPost(session: Session, client: ApiClient, result: PostResult, opts: WaitOptions = {}): Promise<PostResult> {
  const { poll } = await import('../api/wait/poll.js');
  const { troubleLine, DEFAULT_UNANSWERED_MS } = await import('../api/wait/unanswered.js');
  const { signal } = session;
  const id = result.post.id;
  const display = createPostDisplay(session, result.names, id);
  let last = result;
  const hint = `Check on it later with: vidpub status ${id} --wait`;
  const timer = opts.startedNow ? await WorkTimer.start(client.memory, publishingOf(result.post), session.clock.now()) : undefined;
  const unansweredMs = session.unansweredMs ?? DEFAULT_UNANSWERED_MS;
  try {
    const post = await poll<Post>({
      // The record in hand (from create or publish) is the first look.
      initial: result.post,
      // A post record has no progress figure: the next look is at the end expected from last time, if known.
      timer,
      initialIntervalMs: POST_FIRST_LOOK_MS,
      secondIntervalMs: POST_SECOND_LOOK_MS,
      factor: POST_LOOK_GROWTH,
      fetch: ({ signal: look }) => client.getPost(id, { signal: look, quietRetries: true }),
      done: postSettled,
      unansweredMs,
      onTrouble: (change) => display.trouble(change.answered ? undefined : troubleLine(change.err, unansweredMs)),
      onUnanswered: (p, err, ms) =>
        new TimeoutError(`The service has not answered for ${formatDuration(ms)}: stopped waiting for post ${id}; it goes on at the service. The last look failed: ${err instanceof Error ? err.message : String(err)}`, {
          hint,
          data: p ? { ...result, post: p } : last,
          cause: err,
        }),
      onUpdate: (p) => {
        last = { ...result, post: p };
        display.update(p);
        emitPost(session.events, p, result.names);
      },
      clock: session.clock,
      signal,
      deadlineMs: opts.deadlineMs,
      what: `post ${id}`,
      onTimeout: (p) =>
        new TimeoutError(
          `Stopped waiting for post ${id} after ${formatDuration(opts.timeoutMs ?? 0)} (--timeout); it goes on at the service.`,
          { hint, data: p ? { ...result, post: p } : last },
        ),
    });
    // Written in the background (the client's close waits for it): the outcome need not wait for the disk.
    void timer?.remember();
    return { ...result, post };
  } catch (err) {
    if (err instanceof TimeoutError) {
      if (err.data !== undefined) throw err;
      throw new TimeoutError(`Stopped waiting for post ${id}${opts.timeoutMs ? ` after ${formatDuration(opts.timeoutMs)}` : ''} (--timeout); it goes on at the service.`, { hint, data: last, cause: err });
    }
    if (isInterruption(err, signal)) {
      throw new InterruptedError(`Interrupted: stopped waiting for post ${id}; it goes on at the service.`, { hint, data: last, cause: err });
    }
    throw err;
  } finally {
    display.stop();
  }
}

/**
 * Follows a post that is publishing to its end (unless told not to), and maps
 * the outcome to an exit code. A headline, when the caller set one, becomes
 * "Published." once every destination is.
 */
export async function followPost(
  session: Session,
  client: ApiClient,
  r: PostResult,
  opts: { wait: boolean; timeoutMs: number; deadlineMs?: number; startedNow?: boolean },
): Promise<PostResult> {
  if (postSettled(r.post)) return settle({ ...r, headline: r.headline && 'Published.' });
  if (!opts.wait) {
    session.log.info(`Follow it with: vidpub status ${r.post.id} --wait`);
    return r;
  }
  const final = await waitForPost(session, client, r, {
    deadlineMs: opts.deadlineMs ?? session.clock.now() + opts.timeoutMs,
    timeoutMs: opts.timeoutMs,
    startedNow: opts.startedNow,
  });
  return settle({ ...final, headline: final.headline && 'Published.' });
}

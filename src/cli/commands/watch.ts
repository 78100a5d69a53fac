import { TimeoutError, UsageError, isDeadline, sanitize } from '../../errors.js';
import type { VidpubEvent } from '../../events/event.js';
import { parseTimeout } from '../../session/wait-flags.js';
import type { ReportedStore } from '../../journal/watch-reported.js';
import type { Session } from '../../session/session.js';
import type { WatchOpts, WatchPass, WatchReport } from '../../posts/watch-flow.js';
import { counted as plural } from '../../util/plural.js';
import { printJson } from '../output/json-output.js';
import type { Invocation } from '../run/command.js';
import { defineCommand } from '../run/command.js';

interface Opts extends WatchOpts {
  timeoutMs: number;
  /** --exec: a command run for each event. */
  exec?: string;
}

/** Between two passes of a watch that follows: until the next post is due, at least MIN and at most MAX. */
const MIN_PAUSE_MS = 5_000;
const MAX_PAUSE_MS = 60_000;

/** One event for a person (a TTY) or a pipe: time, type, post, destination, status, and its url or failure. */
function eventLine(e: VidpubEvent, inv: Invocation): string {
  const detail = e.url ?? (e.failure ? `${e.failure.message} (${e.failure.code})` : (e.publish_at ?? ''));
  const cells = [e.at, e.type, e.post_id ?? e.media_id ?? '', e.destination ?? e.destination_id ?? '', e.status ?? '', detail].map((c) => sanitize(String(c)));
  return inv.out.tty ? cells.filter((c) => c !== '').join('  ') : cells.join('\t');
}

function reporter(inv: Invocation, session: Session, opts: Opts): WatchReport {
  let store: ReportedStore | undefined;
  const hooks = opts.exec !== undefined ? ['exec'] : [];
  return {
    async claim(events) {
      const { reportedStore } = await import('../../journal/watch-reported.js');
      store ??= reportedStore(session.journal!.dir, opts.keyProfile, session.signal);
      const { fresh, pending } = await store.claim(events, hooks, session.clock.now());
      if (opts.exec !== undefined) {
        // Events an earlier run's hook failed for first, then the new ones.
        const { execHooks } = await import('../../posts/watch-hooks.js');
        const failed = await execHooks(opts.exec, [...(pending.exec ?? []), ...fresh], { env: inv.ctx.env, log: session.log, signal: session.signal });
        await store.keepPending('exec', failed);
      }
      return fresh;
    },
    async report(e) {
      if (inv.globals.json) await printJson(e, inv, { compact: true });
      else inv.print(eventLine(e, inv));
    },
  };
}

function sayPass(pass: WatchPass, session: Session): void {
  const parts = [`${plural(pass.read, 'post')} read`, `${plural(pass.events.length, 'new event')}`];
  if (pass.later > 0) parts.push(`${pass.later} not due yet${pass.nextDueMs !== undefined ? ` (next: ${new Date(pass.nextDueMs).toISOString()})` : ''}`);
  session.log.info(`Watch: ${parts.join(', ')}.`);
  if (pass.unread > 0) {
    session.log.info(`${plural(pass.unread, 'post')} due ${pass.unread === 1 ? 'was' : 'were'} not read, to leave this minute's reads to other commands on the key: the next run reads ${pass.unread === 1 ? 'it' : 'them'}.`);
  }
  if (pass.otherKey > 0) session.log.info(`${plural(pass.otherKey, 'post')} of another profile's service or key ${pass.otherKey === 1 ? 'was' : 'were'} not read: watch ${pass.otherKey === 1 ? 'it' : 'them'} with that profile.`);
}

/** --exec CMD: a command line for the shell, not empty. */
function parseExec(cmd: string): string {
  if (cmd.trim() === '') throw new UsageError('--exec needs a command: vidpub watch --once --exec "CMD" (the event comes on its stdin)');
  return cmd;
}

export default defineCommand<'watch', Opts, undefined>({
  description:
    'Follow the posts the local journal knows that are not settled yet (scheduled, publishing; not drafts): each is read ' +
    "only once its time has come, at the pace the service's rate limit allows, leaving reads for other commands. Each " +
    'change (a destination published, failed or cancelled, a post completed or failed) is printed once, across runs: ' +
    'a line each, or with --json one event (JSON) per line. Without --once it follows until every post has settled or ' +
    '--timeout. Exits 6 when a destination newly failed (vidpub retry POST_ID posts it again), 7 at --timeout.',
  examples: ['vidpub watch --once', 'vidpub watch --once --json', 'vidpub watch --once --exec ./on-event.sh', 'vidpub watch --once --all-profiles'],
  parse(_args, flags, inv) {
    return {
      once: flags.once,
      profile: flags.allProfiles ? undefined : inv.globals.profile,
      keyProfile: inv.globals.profile,
      timeoutMs: parseTimeout(flags),
      ...(flags.exec !== undefined ? { exec: parseExec(flags.exec) } : {}),
    };
  },
  async run(opts, inv) {
    const { watchPass, newlyFailed } = await import('../../posts/watch-flow.js');
    const { withinTimeout } = await import('../../posts/publish-flow.js');
    const out = reporter(inv, inv.session, opts);
    // The journal off: said before anything is read (the pass reads the journal itself, once).
    if (!inv.session.journal) throw (await import('../../posts/history-flow.js')).journalOff('vidpub watch');
    const reported: VidpubEvent[] = [];
    await withinTimeout(inv.session, opts.timeoutMs, 'while following the posts; the next run goes on from there', async (session) => {
      for (;;) {
        const pass = await watchPass(opts, session, out);
        reported.push(...pass.events);
        sayPass(pass, session);
        if (opts.once || pass.open === 0) return;
        const untilDue = pass.nextDueMs !== undefined && pass.unread === 0 ? pass.nextDueMs - session.clock.now() : MAX_PAUSE_MS;
        try {
          await session.clock.sleep(Math.min(MAX_PAUSE_MS, Math.max(MIN_PAUSE_MS, untilDue)), session.signal);
        } catch (err) {
          if (isDeadline(session.signal)) throw new TimeoutError('Stopped: the --timeout of the command was reached.', { cause: err });
          throw err;
        }
      }
    });
    const failed = newlyFailed(reported);
    if (failed) throw failed;
    return undefined;
  },
  print: () => undefined,
  json: () => undefined,
});

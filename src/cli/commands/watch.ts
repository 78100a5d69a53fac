import { TimeoutError, UsageError, isDeadline, sanitize } from '../../errors.js';
import type { VidpubEvent } from '../../events/event.js';
import { parseTimeout } from '../../session/wait-flags.js';
import type { ReportedStore } from '../../journal/watch-reported.js';
import type { Session } from '../../session/session.js';
import type { WatchHook } from '../../posts/watch-forward.js';
import type { WatchOpts, WatchPass, WatchReport } from '../../posts/watch-flow.js';
import { counted as plural } from '../../util/plural.js';
import { printJson } from '../output/json-output.js';
import type { Invocation } from '../run/command.js';
import { defineCommand } from '../run/command.js';

interface Opts extends WatchOpts {
  timeoutMs: number;
  /** --exec: a command run for each event. */
  exec?: string;
  /** --forward-to: the receiver each event is POSTed to, signed. */
  forwardTo?: string;
  /** --print-secret: show the secret the webhooks are signed with, and do nothing else. */
  printSecret: boolean;
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

function reporter(inv: Invocation, session: Session, opts: Opts, hooks: readonly WatchHook[]): WatchReport {
  let store: ReportedStore | undefined;
  return {
    async claim(events) {
      const { reportedStore } = await import('../../journal/watch-reported.js');
      store ??= reportedStore(session.journal!.dir, opts.keyProfile, session.signal);
      const { fresh, pending } = await store.claim(events, hooks.map((h) => h.name), session.clock.now());
      // Each hook: the events an earlier run's could not hand on first, then the new ones; what it cannot take is kept.
      for (const hook of hooks) await store.keepPending(hook.name, await hook.deliver([...(pending[hook.name] ?? []), ...fresh]));
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

/** --forward-to URL: an http or https URL. */
function parseForwardTo(raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(`--forward-to needs an http:// or https:// URL, not "${sanitize(raw)}": vidpub watch --once --forward-to https://example.com/hooks/vidpub`);
  }
  return url.href;
}

/** The hooks the flags ask for (--forward-to reads or makes the secret now). */
async function hooksFor(opts: Opts, inv: Invocation): Promise<WatchHook[]> {
  const { execHook, forwardHook } = await import('../../posts/watch-forward.js');
  const hooks: WatchHook[] = [];
  if (opts.exec !== undefined) hooks.push(execHook(opts.exec, inv.ctx.env, inv.session));
  if (opts.forwardTo !== undefined) {
    const config = await inv.ctx.config();
    const setup = { url: opts.forwardTo, env: inv.ctx.env, cwd: inv.ctx.cwd, profileName: opts.keyProfile, profile: config.getProfile(opts.keyProfile), version: inv.ctx.version };
    hooks.push(await forwardHook({ ...setup, shows: [inv.ctx.io.stdout, inv.ctx.io.stderr] }, inv.session));
  }
  return hooks;
}

/** --print-secret: the profile's webhook secret (made now when it has none), alone on stdout; where it is kept on stderr. */
async function printSecret(opts: Opts, inv: Invocation): Promise<undefined> {
  // The profile must be usable (a key given or stored): a secret is not made for a misspelt profile.
  await inv.client();
  const { printableSecret } = await import('../../posts/watch-forward.js');
  const config = await inv.ctx.config();
  const { secret, where, created } = await printableSecret(inv.ctx.env, inv.ctx.cwd, opts.keyProfile, config.getProfile(opts.keyProfile), inv.session.signal);
  inv.print(secret);
  inv.log.info(`${created ? 'Made the' : 'The'} webhook secret of profile "${sanitize(opts.keyProfile)}", kept in ${sanitize(where)}: receivers of vidpub watch --forward-to check the Vidpub-Signature header with it.`);
  return undefined;
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
    '--timeout. Exits 6 when a destination newly failed (vidpub retry POST_ID posts it again), 7 at --timeout. ' +
    '--forward-to POSTs each event to a receiver, signed in the Vidpub-Signature header with the secret --print-secret ' +
    'shows. An event a hook (--exec, --forward-to) could not take is said on stderr and offered again on the next run; ' +
    'it does not change the exit code.',
  examples: [
    'vidpub watch --once',
    'vidpub watch --once --json',
    'vidpub watch --once --exec ./on-event.sh',
    'vidpub watch --once --forward-to https://example.com/hooks/vidpub',
    'vidpub watch --print-secret',
    'vidpub watch --once --all-profiles',
  ],
  parse(_args, flags, inv) {
    return {
      once: flags.once,
      profile: flags.allProfiles ? undefined : inv.globals.profile,
      keyProfile: inv.globals.profile,
      timeoutMs: parseTimeout(flags),
      ...(flags.exec !== undefined ? { exec: parseExec(flags.exec) } : {}),
      ...(flags.forwardTo !== undefined ? { forwardTo: parseForwardTo(flags.forwardTo) } : {}),
      printSecret: flags.printSecret,
    };
  },
  async run(opts, inv) {
    if (opts.printSecret) return printSecret(opts, inv);
    const { watchPass, newlyFailed } = await import('../../posts/watch-flow.js');
    const { withinTimeout } = await import('../../posts/publish-flow.js');
    // The journal off: said before anything is read (the pass reads the journal itself, once).
    if (!inv.session.journal) throw (await import('../../posts/history-flow.js')).journalOff('vidpub watch');
    const out = reporter(inv, inv.session, opts, await hooksFor(opts, inv));
    const reported: VidpubEvent[] = [];
    await withinTimeout(inv.session, opts.timeoutMs, 'while following the posts; the next run goes on from there', async (session) => {
      for (;;) {
        const pass = await watchPass(opts, session, out);
        reported.push(...pass.events);
        sayPass(pass, session);
        if (opts.once || pass.open === 0) return;
        // A post read and still publishing is read again soon; else the next post due (by the service's clock), or in a minute.
        const publishing = pass.open > pass.later + pass.unread + pass.otherKey;
        const untilDue = publishing ? MIN_PAUSE_MS : pass.nextDueMs !== undefined && pass.unread === 0 ? pass.nextDueMs - (pass.serviceNow ?? session.clock.now()) : MAX_PAUSE_MS;
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

/**
 * `vidpub post`, after its flags are parsed, as a pipeline of steps that each
 * take what the last returned (their types: types.ts): check
 * (src/core/post-rules.ts), choose the destinations and plan their options,
 * ask for what is missing and confirm (plan.ts), continue a cut-off run of
 * the same command (cut-off.ts, live-run.ts), obtain the video, create the
 * post and follow it (send.ts). Nothing is sent until every local check has
 * passed.
 */
import type { Me, Media } from '../../contract/wire-types.js';
import { OutcomeUnknownError, RateLimitError, TimeoutError } from '../../errors.js';
import { bindDeadline } from '../../session/deadline.js';
import type { Session } from '../../session/session.js';
import { runKey } from '../../session/run-key.js';
import { captionRefusal, optionValueRefusal, refuse } from '../../core/post-rules.js';
import { continuable, continueCutOff, cutOffInput, endRun, noteRun } from './cut-off.js';
import { StillRunningError, reportSettled } from './live-run.js';
import { QueueTooLateError, queueForWrites } from './key-queue.js';
import { guardDuplicates } from './duplicates.js';
import { askCaption, askMissing, checkDuration, chooseDestinations, confirmOrAnnounce, planFor } from './plan.js';
import { createAndFollow, keyUsedForAnother, knownMedia, namingMedia, obtainMedia } from './send.js';
import { withoutPostItLine } from '../../media/wait.js';
import { PHASES, cancelledText, madeFrom, rerunLine, sourceText, type Phase, type Planned, type PostOpts, type PostRun, type Ready, type RunTrack } from './types.js';
import { MISSING_CAPTION, missingOptionsError } from '../options.js';
import type { PostResult } from '../view.js';
import { captionsOf, createSet, groupByCaption, setCaption, type PostSet } from './caption-set.js';
import { reportEarlier } from '../rerun.js';
import { dailyLimitError } from '../settle.js';

/** Where the run is, for the messages of a run stopped by --timeout or with an unknown outcome. */
type At = (phase: Phase, media?: Media) => void;

/**
 * The --idempotency-key the service sees: the one given, or with --force-new
 * that key made new for this run (the service would replay the known key's
 * post for 24 hours). The journal keeps the key as given.
 */
function serviceKey(opts: PostOpts, now: number): string | undefined {
  if (!opts.idempotencyKey || !opts.forceNew) return opts.idempotencyKey;
  return `${opts.idempotencyKey}~${now.toString(36)}`;
}

export async function runPost(opts: PostOpts, outer: Session): Promise<PostResult | PostSet> {
  // Every local check before any request.
  refuse(captionRefusal(opts.caption));
  for (const o of opts.options) refuse(optionValueRefusal(o.key, o.value));
  // One deadline for the whole command: destinations, upload, post, publish, watch.
  const deadlineMs = outer.clock.now() + opts.timeoutMs;
  const bound = bindDeadline(outer, deadlineMs, opts.timeoutMs);
  const run: PostRun = { opts, session: bound.session, deadlineMs, key: runKey(serviceKey(opts, outer.clock.now())), track: { startedAt: outer.startedAt ?? outer.clock.now() } };
  let phase = 'plan' as Phase;
  let media: Media | undefined;
  let failure: unknown;
  try {
    return await postWithin(run, (p, m) => {
      phase = p;
      media = m ?? media;
    });
  } catch (err) {
    failure = err;
    throw continuable(stoppedError(err, { opts, key: run.key.key, track: run.track, phase, media }), run, PHASES[phase].sent);
  } finally {
    endRun(run.track, run.key, failure, phase === 'follow', PHASES[phase].sent);
    await run.track.writes?.end();
    bound.dispose();
  }
}

/** A run stopped with an unknown outcome or by --timeout, told with where it was and what was done. */
function stoppedError(err: unknown, at: { opts: PostOpts; key: string; track: RunTrack; phase: Phase; media?: Media }): unknown {
  const { opts, phase, media } = at;
  // The media flows tell their own unknown outcomes (with this run's key); the post's is told here.
  if (err instanceof OutcomeUnknownError && phase === 'create') {
    const id = media?.id;
    return err.retold(`The outcome is unknown: the post may have been created${id ? ` (video ${id})` : ''}; ${err.why}.`, {
      idempotencyKey: at.key,
      known: id ? { media_id: id } : {},
      // A relative --at ("in 2h") is another time on each run: the rerun carries the one sent.
      ...(opts.atText !== undefined && at.track.publishAt ? { rerunFlags: { '--at': at.track.publishAt } } : {}),
      hint: 'Run the same command again with this --idempotency-key: what was done is reported, not done twice.',
    });
  }
  if (err instanceof TimeoutError && err.data === undefined && !(err instanceof StillRunningError) && !(err instanceof QueueTooLateError)) {
    const nothing = !media
      ? 'nothing was uploaded or posted'
      : opts.source.kind === 'media'
        ? 'nothing was posted'
        : `nothing was posted; the video is ${madeFrom(opts.source).done}: ${media.id} (post it with --media ${media.id})`;
    return naming(new TimeoutError(`Stopped (--timeout reached) while ${PHASES[phase].doing}; ${nothing}.`, { hint: 'Run the command again, with a longer --timeout.', cause: err }), at.track);
  }
  return err instanceof TimeoutError ? naming(err, at.track) : err;
}

/** A run that continues an earlier one, stopped by --timeout: the line with that run's key (the plain command continues it too, here). */
function naming(err: TimeoutError, track: RunTrack): TimeoutError {
  const continuing = track.continuing;
  if (!continuing || err.continueKey !== undefined) return err;
  return new TimeoutError(err.message, { hint: withoutPostItLine(err.hint), data: err.data, http: err.http, cause: err, continueKey: continuing.key, ...(continuing.flags ? { continueFlags: continuing.flags } : {}) });
}

async function postWithin(given: PostRun, at: At): Promise<PostResult | PostSet> {
  // No key, no run: said before anything else.
  await given.session.client();
  const earlier = await earlierByKey(given);
  if (earlier) return earlier;
  // Read beside the destinations when it costs no request of its own (a round trip less before the upload); judged once the run is ready.
  let allowance: Allowance = Promise.resolve(undefined);
  const planned = await plan(given, () => (allowance = readAllowance(given)));
  const known = await knownMedia(given.opts, given.session);
  const { run, ready } = await readyToSend(given, planned, known);
  if (run.track.settled) return reportSettled(run, run.track.settled);
  await refuseSpentAllowance(run, allowance);
  await noteRun(run.track);
  // The key's writes shared with the other runs on this machine: its turn, or exit 7 now if it comes too late.
  run.track.writes = await queueForWrites(run);
  const s = run.opts.source;
  // A draft may be saved before the video is ready; publishing needs it ready.
  at(s.kind === 'url' ? 'import' : s.kind === 'file' ? 'upload' : 'await-video');
  const media = await obtainMedia(run, ready, !(run.opts.draft && !run.opts.wait));
  await run.track.writes?.progressed(1);
  const one = async (r: PostRun, what: Ready): Promise<PostResult> => {
    at('create', media);
    let created = false;
    try {
      return await createAndFollow(r, what, media, () => {
        created = true;
        at('follow');
      });
    } catch (err) {
      // Once the post exists, its own id is what the messages name.
      throw created ? err : namingMedia(err, media, s.kind !== 'media');
    }
  };
  return ready.groups ? createSet(run, ready, ready.groups, one) : one(run, ready);
}

type Allowance = Promise<{ daily?: Me['limits']['api_posts_per_day']; err?: unknown; later?: true } | undefined>;

/**
 * The daily allowance, read when the run may be refused for it (refuseSpentAllowance); never rejects.
 * `later`: a run that asks for a confirmation reads it once confirmed, as it may wait there long.
 * `beside` (the read beside the destinations): only what costs no GET /me of its own (the key's cache), else
 * read once the run has claimed its command: a run that only reports the post of an identical run it
 * waited for writes nothing and reads no allowance.
 */
function readAllowance({ opts, session }: PostRun, later = session.interactive && !opts.yes, beside = true): Allowance {
  if (opts.draft || opts.waitForQuota || opts.source.kind === 'media' || opts.idempotencyKey) return Promise.resolve(undefined);
  if (later) return Promise.resolve({ later: true });
  return session
    .client()
    .then((client) => client.dailyAllowance({ signal: session.signal, cached: beside }))
    .then(
      (daily): Awaited<Allowance> => (daily === undefined && beside ? { later: true } : { daily }),
      (err: unknown) => ({ err }),
    );
}

/**
 * The daily allowance used up: exit 4 before the video is uploaded or imported, not after (GET
 * /me, or the key's cache of it while far from spent). Not for a draft (it spends nothing), with --wait-for-quota (the wait comes at the post),
 * nor for a rerun under a key (its post may be a replay, which spends nothing): the service decides.
 */
async function refuseSpentAllowance(run: PostRun, allowance: Allowance): Promise<void> {
  const { opts, session, key } = run;
  if (opts.draft || opts.waitForQuota || opts.source.kind === 'media' || opts.idempotencyKey || key.continued) return;
  let read = await allowance;
  if (read?.later) read = await readAllowance(run, false, false);
  // Unread, the post itself says it; Ctrl-C stops here.
  if (read?.err !== undefined && session.signal.aborted) throw read.err;
  const daily = read?.daily;
  if (!daily || typeof daily.remaining !== 'number' || daily.remaining > 0) return;
  const spent = new RateLimitError('daily_post_limit', { code: 'daily_post_limit', resetAt: daily.reset_at });
  const hint = 'Run the same command again after the reset, add --wait-for-quota to wait for it, or save it with --draft.';
  throw dailyLimitError(spent, 'nothing was uploaded or posted', { hint }, opts.zone, session.clock.now());
}

/** Rerun safety beyond the service's 24 hours: a key this machine has posted under is reported, not posted again. */
async function earlierByKey({ opts, session, deadlineMs }: PostRun): Promise<PostResult | undefined> {
  // A set of posts under a key: the service replays each of its posts (their keys derive from this one).
  if (!opts.idempotencyKey || opts.forceNew || !session.journal || opts.captionsFor?.length) return undefined;
  const earlier = await session.journal.findByKey(opts.idempotencyKey);
  if (!earlier) return undefined;
  // Another caption is another post: refused as the service refuses it (exit 2), not reported as done.
  // (A caption with the profile's defaults is not the one typed: the service's key check says it.)
  if (opts.caption !== undefined && !opts.captionDefaults?.length && opts.caption.slice(0, 200) !== earlier.caption) throw keyUsedForAnother(opts.idempotencyKey, earlier);
  const client = await session.client();
  return reportEarlier(session, client, earlier, { key: opts.idempotencyKey, wait: opts.wait, timeoutMs: opts.timeoutMs, deadlineMs, zone: opts.zone });
}

/** The workspace checked, the destinations chosen and their options planned: all before any upload. */
async function plan({ opts, session }: PostRun, besideDestinations: () => void): Promise<Planned> {
  // --workspace first: with another workspace's key, the accounts asked for are not there to find.
  await (await session.client()).checkWorkspace({ signal: session.signal });
  besideDestinations();
  const choice = await chooseDestinations(opts, session);
  const plans = await planFor(choice.chosen, opts.options);
  return { plans, names: choice.names, fromCache: choice.fromCache, chosenTo: choice.chosen.map((c) => c.name) };
}

/**
 * What is missing asked for, the duration checked, the caption asked for,
 * a cut-off run of the same command continued, and the post confirmed:
 * returns the run (with the time a continued run sends) and what to send.
 */
async function readyToSend(given: PostRun, planned: Planned, known: Media | undefined): Promise<{ run: PostRun; ready: Ready }> {
  const { opts, session, key, track } = given;
  // Captions of the destinations' own, refused (exit 2) when they name no destination of --to.
  const own = opts.captionsFor?.length ? captionsOf(opts.captionsFor, planned.plans) : undefined;
  if (opts.caption === undefined && !own?.covered && !session.interactive) throw missingOptionsError(planned.plans, session.screen.tty, [MISSING_CAPTION]);
  await askMissing(session, planned.plans, () => ({ message: cancelledText(opts), hint: `Run it again with what was chosen so far: ${rerunLine(opts, planned)}` }));
  const durationSec = opts.source.kind === 'file' ? opts.source.durationSec : known?.duration_sec;
  checkDuration(durationSec, planned.plans, sourceText(opts.source));
  let caption = opts.caption ?? (own?.covered ? '' : undefined);
  if (caption === undefined) {
    caption = await askCaption(opts, session, rerunLine(opts, planned));
    refuse(captionRefusal(caption));
  }
  // One post per distinct caption; a single one is the plain post.
  const defaults = opts.captionDefaults ?? [];
  const groups = own || defaults.length > 0 ? groupByCaption(own?.own ?? new Map(), planned.plans, caption, defaults) : undefined;
  if (groups?.length === 1) caption = groups[0]!.caption;
  const set = groups && groups.length > 1 ? groups : undefined;
  let run = given;
  // A rerun of a run that was cut off before it knew whether it posted continues it (its key, its time).
  if (!opts.forceNew) {
    const when = await continueCutOff(session, key, cutOffInput(opts, set ? setCaption(set) : caption, planned.plans), track);
    if (when !== opts.when) run = { ...given, opts: { ...opts, when } };
  }
  if (run.opts.when && !run.opts.when.now) track.publishAt = run.opts.when.publishAt;
  const ready: Ready = { ...planned, caption, known, durationSec, ...(set ? { groups: set } : {}) };
  // Settled by the identical run waited for: nothing to confirm, nothing is sent.
  if (track.settled) return { run, ready };
  // The same video posted there by another command (not the cut-off run this one continues): asked or refused.
  if (!key.continued && !track.continuing) await guardDuplicates(run, planned);
  await confirmOrAnnounce(run, ready, rerunLine(run.opts, planned, caption));
  return { run, ready };
}

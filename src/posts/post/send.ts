/**
 * Sending, once everything is planned and confirmed: the video (the one
 * given with --media read before anything is sent; uploaded, imported or
 * waited for), then the post created, told to the journal and followed until
 * every destination is published, failed or cancelled. A post refused on
 * destinations or options read from the key's cache is planned again on what
 * the service says now and sent once more under a step of its own.
 */
import { CACHE_ENTRIES, responseMeta } from '../../api/client.js';
import type { CreatePostRequest, Media, Post } from '../../contract/wire-types.js';
import type { JournalPost } from '../../journal/journal-types.js';
import { BlockedError, InterruptedError, OutcomeUnknownError, RateLimitError, UsageError, VidpubError } from '../../errors.js';
import { QuotaWaitInterrupted } from '../../api/send/rate-limit-wait.js';
import { stepKey, type Session } from '../../session/session.js';
import { cutOffInput, destinationsBody, postMoved } from './cut-off.js';
import { optionsBody, type DestinationPlan } from '../options.js';
import { askMissing, checkDuration, chooseDestinations, confirmChanged, planFor } from './plan.js';
import { answered, cancelledText, madeFrom, rerunLine, sourceText, type Planned, type PostOpts, type PostRun, type Ready } from './types.js';
import { blockingIssues, nextCommand, type PostResult } from '../view.js';
import { blockedCreate, blockedPost, dailyLimitError, isDailyLimit, resetText } from '../settle.js';
import { recordingEnd } from '../journal-notes.js';
import { followPost } from '../watch.js';
import { emitCreated } from '../../events/post-events.js';

/** The video given with --media, as the service has it (exit 1 when it failed there); undefined for a file or a link. */
export async function knownMedia(opts: PostOpts, session: Session): Promise<Media | undefined> {
  if (opts.source.kind !== 'media') return undefined;
  const client = await session.client();
  const known = await client.getMedia(opts.source.id, { signal: session.signal });
  if (known.status === 'failed') {
    const { mediaFailedError } = await import('../../media/wait.js');
    throw mediaFailedError(known);
  }
  return known;
}

/**
 * Uploads, imports or takes the video; waits until it is ready when `ready` is needed. A hint
 * after a stop names the command that posts the video where this run was to post it.
 */
export async function obtainMedia(run: PostRun, chosen: Ready, ready: boolean): Promise<Media> {
  const { session, deadlineMs, key } = run;
  const progress = await session.progress();
  const s = run.opts.source;
  const known = chosen.known;
  const postLine = (id: string) => rerunLine({ ...run.opts, source: { kind: 'media', id } }, chosen, chosen.caption);
  const common = { idempotencyBase: key.key, wait: ready, deadlineMs, progress, postLine };
  if (s.kind === 'file') {
    const { uploadFile } = await import('../../media/upload-flow.js');
    return uploadFile(session, s.file, { ...common, reupload: run.opts.reupload });
  }
  if (s.kind === 'url') {
    const { importLink } = await import('../../media/import-flow.js');
    return importLink(session, s.url, common);
  }
  const media = known!;
  if (!ready || media.status === 'ready') {
    progress.stop();
    return media;
  }
  const { waitForMedia } = await import('../../media/wait.js');
  return waitForMedia(session, media.id, { deadlineMs, progress, current: media, postLine });
}

/**
 * A refusal that comes after the video was uploaded names it, so the next
 * run posts it with --media instead of uploading it again.
 */
export function namingMedia(err: unknown, media: Media, uploaded: boolean): unknown {
  if (!uploaded || !(err instanceof VidpubError) || err instanceof OutcomeUnknownError || err instanceof InterruptedError) return err;
  if (err.message.includes(media.id) || err.hint?.includes(media.id)) return err;
  const Ctor = err.constructor as new (message: string, o: ConstructorParameters<typeof VidpubError>[1]) => VidpubError;
  const copy = new Ctor(`${err.message} (the video is uploaded: ${media.id}; post it with --media ${media.id})`, {
    hint: err.hint,
    data: err.data,
    http: err.http,
    cause: err,
  });
  return Object.assign(copy, { code: (err as { code?: unknown }).code, resetAt: (err as { resetAt?: unknown }).resetAt, retryAfterSec: (err as { retryAfterSec?: unknown }).retryAfterSec });
}

/** What one step of the end hands the next: the post as made, and the destination names its messages use. */
interface Made {
  post: Post;
  names: Record<string, string>;
  replayed: boolean;
}

/** Creates the post for `media` and follows it; `following` is called once the post exists. */
export async function createAndFollow(run: PostRun, ready: Ready, media: Media, following: () => void): Promise<PostResult> {
  refusePassedTime(run, media);
  const made = await create(run, ready, media);
  run.track.postId = made.post.id;
  await run.track.writes?.posted(made.post);
  following();
  await record(run, made, media);
  return follow(run, made, defaultedKeys(ready.plans));
}

/** destination_id -> the required options filled from the destination's default, when there are any. */
function defaultedKeys(plans: DestinationPlan[]): Record<string, string[]> | undefined {
  const out: Record<string, string[]> = {};
  for (const p of plans) {
    const keys = p.values.filter((v) => v.source === 'default').map((v) => v.key);
    if (keys.length > 0) out[p.destination.id] = keys;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** --at passed while the video was being uploaded: nothing is posted. (A continued run sends its first run's time whatever it is now: the service replays the post it made.) */
function refusePassedTime({ opts, session, key }: PostRun, media: Media): void {
  if (!opts.when || opts.when.now || opts.when.ms > session.clock.now() || key.continued) return;
  throw new UsageError(`the time ${opts.when.local} (${opts.when.utc}) for --at passed while the video was being uploaded; nothing was posted`, {
    hint: `The video is uploaded: post it with --media ${media.id} and a later --at (or --at now).`,
  });
}

function bodyOf(run: PostRun, ready: Ready, media: Media, plans: DestinationPlan[]): CreatePostRequest {
  return {
    media_id: media.id,
    caption: ready.caption,
    destinations: plans.map((p) => ({ destination_id: p.destination.id, options: optionsBody(p) })),
    ...(run.opts.when ? { publish_at: run.opts.when.publishAt } : {}),
  };
}

/** POST /posts; a refusal said in vidpub's words (refusedError). */
async function create(run: PostRun, ready: Ready, media: Media): Promise<Made> {
  const { session, key } = run;
  const client = await session.client();
  const { signal } = session;
  let names = ready.names;
  let post: Post;
  try {
    try {
      post = await client.createPost(bodyOf(run, ready, media, ready.plans), { idempotencyKey: stepKey(key.key, key.postStep ?? 'post'), signal });
    } catch (err) {
      if (!ready.fromCache || !suggestsChangedDestinations(err)) throw err;
      // What we posted with came from the cache, and the service says it changed: read it again, check again, post once more.
      session.log.info('The service refused the post on destinations or options read earlier (cached); reading them again.');
      await client.memory?.forget(CACHE_ENTRIES.isDestinationData);
      const fresh = await readAgain(run, ready, media);
      names = fresh.names;
      // A step of its own: the refused body is stored under the step just used (a continued run's may be one read again before).
      const step = readAgainStep(key.postStep);
      await postMoved(session, cutOffInput(run.opts, ready.caption, fresh.plans), run.track, step);
      post = await client.createPost(bodyOf(run, ready, media, fresh.plans), { idempotencyKey: stepKey(key.key, step), signal });
    }
  } catch (err) {
    throw await refusedError(err, run, media, names);
  }
  return { post, names, replayed: responseMeta(post)?.replayed === true };
}

/** A refusal of the post, told with what was done and what to run next. */
async function refusedError(err: unknown, run: PostRun, media: Media, names: Record<string, string>): Promise<unknown> {
  const { opts, session, key } = run;
  if (isDailyLimit(err) || err instanceof QuotaWaitInterrupted) {
    // What the key's cache says of the allowance is past: the next run reads it before uploading.
    await (await session.client()).memory?.forget((name) => name === CACHE_ENTRIES.daily);
    return allowanceStop(err, run, media);
  }
  if (err instanceof BlockedError) return blockedCreate(err, names);
  // The first run's time, sent again so its post would be replayed, refused: that run never made the post.
  if (err instanceof UsageError && err.http?.code === 'invalid_publish_at' && key.continued && opts.when && !opts.when.now) {
    return new UsageError(`the earlier run this one continues made no post, and its time ${opts.when.local} (${opts.when.utc}) has passed; nothing was posted`, {
      hint: 'Run the command again: it posts at the time --at gives then.',
      http: err.http,
      cause: err,
    });
  }
  if (err instanceof UsageError && err.http?.code === 'idempotency_key_reused' && opts.idempotencyKey) {
    return keyReusedError(opts.idempotencyKey, session, err);
  }
  return err;
}

/**
 * The daily allowance used up (exit 4), or Ctrl-C while --wait-for-quota waited for its reset
 * (exit 130): no post, the video made named (and its record the command's data), what to run.
 */
function allowanceStop(err: RateLimitError | QuotaWaitInterrupted, { opts, session }: PostRun, media: Media): VidpubError {
  const given = opts.source.kind === 'media';
  const made = madeFrom(opts.source);
  const outcome = given ? 'no post was created' : `no post was created (the video is ${made.done}: ${media.id})`;
  const then = given
    ? { hint: 'Run the same command again after the reset, add --wait-for-quota to wait for it, or save it with --draft.' }
    : {
        hint: `Run again after the reset with --media ${media.id} instead of the ${made.from}, add --wait-for-quota to wait for it, or save it with --draft.`,
        // The video made: its record on stdout (with --json, as {"post": null, "media": ...}).
        data: media,
      };
  if (err instanceof RateLimitError) return dailyLimitError(err, outcome, then, opts.zone, session.clock.now());
  return new InterruptedError(`Interrupted while waiting for the daily post allowance to reset; ${outcome}. It resets at ${resetText(err, opts.zone, session.clock.now())}.`, {
    ...then,
    cause: err,
  });
}

/** The refusal of a key the service saw for another request: names the post when this machine made it. */
async function keyReusedError(key: string, session: Session, err: UsageError): Promise<UsageError> {
  const earlier = await session.journal?.findByKey(key).catch(() => undefined);
  return keyUsedForAnother(key, earlier, err);
}

/**
 * exit 2: the key was used for a different post. One message whoever noticed it: the service
 * (idempotency_key_reused, within its 24 hours) or this machine's journal (`earlier`, any time).
 */
export function keyUsedForAnother(key: string, earlier: Pick<JournalPost, 'post_id' | 'at'> | undefined, err?: UsageError): UsageError {
  const what = earlier ? ` (post ${earlier.post_id}, made on ${earlier.at})` : '';
  const retry = earlier
    ? `To post again to the destinations of ${earlier.post_id} that failed: vidpub retry ${earlier.post_id}.`
    : 'To post again to the destinations of that post that failed: vidpub retry POST_ID ("vidpub history" lists the posts made here).';
  return new UsageError(`--idempotency-key ${key} was used for a different post${what} (another caption, destinations, options or time); nothing was posted`, {
    hint: `${retry} Use a new key for a new post, or add --force-new. A relative --at (such as +2h) gives a new time on every run: use an absolute time with a key.`,
    ...(err ? { http: err.http, cause: err } : {}),
  });
}

/** Tells the journal of the post (a replayed one is read as it is now first). */
async function record(run: PostRun, made: Made, media: Media): Promise<void> {
  const { opts, session, key } = run;
  if (made.replayed) {
    session.log.info(
      key.given
        ? `Post ${made.post.id} was already created by an earlier run with this --idempotency-key; reporting it.`
        : key.continued
          ? `Post ${made.post.id} was created by the earlier run this one continues; reporting it.`
          : `Post ${made.post.id} was created by an earlier attempt of this run whose answer was lost; reporting it.`,
    );
    made.post = await (await session.client()).getPost(made.post.id, { signal: session.signal });
  }
  const s = opts.source;
  await session.journal?.post({
    post: made.post,
    names: made.names,
    ...(s.kind === 'file' ? { file: s.file.path, size: s.file.size } : s.kind === 'url' ? { link: s.url } : {}),
    ...(s.kind !== 'file' && typeof media.size_bytes === 'number' ? { size: media.size_bytes } : {}),
    idem: opts.idempotencyKey,
    runKey: key.key,
    outcome: made.replayed ? 'replayed' : 'created',
    ...(run.setId ? { set: run.setId } : {}),
  });
  emitCreated(session.events, made.post, made.names);
}

/** A draft or a scheduled post is told as it is; one published now is followed (--wait) to its end. */
async function follow(run: PostRun, { post, names, replayed }: Made, defaulted: PostResult['defaulted']): Promise<PostResult> {
  const { opts, session, deadlineMs } = run;
  const client = await session.client();
  const result: PostResult = { post, names, zone: opts.zone, now: session.clock.now(), ...(defaulted ? { defaulted } : {}) };
  return recordingEnd(
    session,
    async () => {
      if (opts.draft) return { ...result, headline: 'Draft saved.', next: nextCommand(post) };
      if (blockingIssues(post.issues).length > 0) throw blockedPost(result, 'published');
      if (post.status === 'scheduled') return { ...result, headline: 'Scheduled.', next: nextCommand(post) };
      const followed = await followPost(session, client, { ...result, headline: 'Publishing.' }, {
        wait: opts.wait,
        timeoutMs: opts.timeoutMs,
        deadlineMs,
        startedNow: !replayed && opts.when?.now === true,
      });
      // Times are shown relative to when the wait ended.
      return { ...followed, now: session.clock.now() };
    },
    post,
  );
}

/**
 * A refusal of POST /posts that says the destinations or their options are
 * not what we read: a destination gone (404 naming it), an option key or
 * type it no longer has (400), or issues about a destination or an option
 * (409: inactive, a value no longer allowed, a new required option).
 */
export function suggestsChangedDestinations(err: unknown): boolean {
  if (!(err instanceof VidpubError) || !err.http) return false;
  const { status, code, param } = err.http;
  const aboutDestinations = typeof param === 'string' && param.startsWith('destinations');
  if (status === 404) return aboutDestinations;
  if (status === 400 || status === 422) return aboutDestinations || code === 'unknown_option' || code === 'invalid_option_value';
  if (status !== 409) return false;
  if (code === 'destination_inactive') return true;
  if (code !== 'post_has_blocking_issues') return false;
  const issues = (err.http.body as { error?: { issues?: unknown } } | undefined)?.error?.issues;
  return (
    Array.isArray(issues) &&
    issues.some((i: { severity?: unknown; destination_id?: unknown; option?: unknown; code?: unknown }) =>
      i?.severity === 'error' && (i.destination_id != null || i.option != null || i.code === 'destination_inactive'),
    )
  );
}

/**
 * The step the post goes under once the destinations are read again after a
 * refusal of the post under `step`: "post:fresh" after "post", then
 * "post:fresh:2", "post:fresh:3"... (a run continued after one read again
 * may have to read them again; its refusal is stored under the step it used).
 */
export function readAgainStep(step: string | undefined): string {
  if (step === undefined || step === 'post') return 'post:fresh';
  const n = /^post:fresh(?::(\d+))?$/.exec(step);
  return n ? `post:fresh:${Number(n[1] ?? 1) + 1}` : `${step}:fresh`;
}

/**
 * Reads the destinations and options again from the service and redoes
 * every check on what it says now (inactive, options, what is missing, the
 * duration); a person who confirmed is asked again if the post would differ
 * from what they saw.
 */
export async function readAgain(run: PostRun, ready: Ready, media: Media): Promise<Pick<Planned, 'plans' | 'names'>> {
  const { opts, session } = run;
  // From here on, the video is at the service: a rerun posts it with --media.
  const asMedia: PostOpts = { ...opts, source: { kind: 'media', id: media.id } };
  const rerun = () => rerunLine(asMedia, ready, ready.caption);
  const choice = await chooseDestinations({ ...opts, to: ready.chosenTo }, session, true);
  const next = await planFor(choice.chosen, [...opts.options, ...answered(ready.plans)]);
  await askMissing(session, next, () => ({ message: cancelledText(asMedia), hint: `Run it again: ${rerun()}` }));
  checkDuration(ready.durationSec, next, sourceText(opts.source));
  if (destinationsBody(next) !== destinationsBody(ready.plans)) await confirmChanged(run, ready, next, asMedia, rerun());
  return { plans: next, names: choice.names };
}

/**
 * `vidpub post`, after its flags are parsed: resolve and check the
 * destinations and their options (asking for what is missing on a terminal),
 * check the video's duration against each destination, show a summary and
 * confirm, upload or import the video (with progress), create the post, then
 * follow it until every destination is published, failed or cancelled.
 * Nothing is sent until every local check has passed.
 */
import { CACHE_ENTRIES, responseMeta } from '../api/client.js';
import type { CreatePostRequest, Media, Post } from '../api/wire-types.js';
import type { VideoFile } from '../media/check.js';
import { BlockedError, CancelledError, InterruptedError, OutcomeUnknownError, TimeoutError, UsageError, VidpubError, sanitize } from '../errors.js';
import { bindDeadline } from '../session/deadline.js';
import { runKey, type RunKey } from '../session/run-key.js';
import { stepKey, type Session } from '../session/session.js';
import { formatDuration } from '../time/duration.js';
import { captionRefusal, optionValueRefusal, refuse, tooLongFor } from '../core/post-rules.js';
import { shellLine, shellWord } from '../util/shell.js';
import { wrapLine } from '../ui/wrap.js';
import {
  ask,
  missingOptionsError,
  optionsBody,
  planOptions,
  promptMissing,
  type ChosenDestination,
  type DestinationPlan,
  type OptionAssignment,
} from './options.js';
import { blockedCreate, blockedPost, dailyLimitError, isDailyLimit } from './settle.js';
import { blockingIssues, destinationLabel, namesOf, nextCommand, type PostResult } from './post-view.js';
import { summaryLines, whenLine } from './summary.js';
import { recordingEnd } from './journal-notes.js';
import { reportEarlier } from './rerun.js';
import { followPost } from './watch.js';
import { continueCutOff, endRun, noteRun, postMoved, type CutOffInput, type RunTrack } from './cut-off.js';
import type { ResolvedWhen } from '../time/parse-when.js';

/** What `post` posts: a checked local file, a checked link, or a video already at the service. */
export type PostSource =
  | { kind: 'file'; file: VideoFile; shown: string; durationSec?: number }
  | { kind: 'url'; url: string; filename: string }
  | { kind: 'media'; id: string };

/** How this run's video reached the service, for messages: uploaded from the file, or imported from the link. */
function madeFrom(source: PostSource): { done: 'uploaded' | 'imported'; from: 'file' | 'link' } {
  return source.kind === 'url' ? { done: 'imported', from: 'link' } : { done: 'uploaded', from: 'file' };
}

export interface PostOpts {
  source: PostSource;
  /** Destination names as given to --to (split on commas). */
  to: string[];
  /** undefined: ask on a terminal (parse refuses it otherwise). */
  caption?: string;
  options: OptionAssignment[];
  /** null for --draft. */
  when: ResolvedWhen | null;
  draft: boolean;
  wait: boolean;
  timeoutMs: number;
  idempotencyKey?: string;
  /** --force-new: post anew, although the journal knows --idempotency-key or a cut-off run of this command (cut-off.ts). */
  forceNew?: boolean;
  yes: boolean;
  zone: string;
  /** --at as typed, for the commands suggested in messages. */
  atText?: string;
  /** $VISUAL or $EDITOR, to write a caption that was not given. */
  editor?: string;
}

/**
 * The command that does what this run was doing, built from what was typed
 * plus what was chosen since (destinations picked, options and caption
 * answered): the hint after Ctrl-C or a declined confirmation.
 */
export function postCommandLine(opts: PostOpts, chosen: { to?: string[]; options?: string[]; caption?: string } = {}): string {
  const argv = ['vidpub', 'post'];
  const s = opts.source;
  if (s.kind === 'media') argv.push('--media', s.id);
  else argv.push(s.kind === 'file' ? s.shown : s.url);
  const to = chosen.to ?? opts.to;
  if (to.length > 0) argv.push('--to', to.join(','));
  const caption = chosen.caption ?? opts.caption;
  if (caption !== undefined) argv.push('--caption', caption);
  for (const o of opts.options) argv.push('--option', o.text);
  for (const o of chosen.options ?? []) argv.push('--option', o);
  if (opts.draft) argv.push('--draft');
  else if (opts.atText !== undefined) argv.push('--at', opts.atText);
  if (opts.idempotencyKey) argv.push('--idempotency-key', opts.idempotencyKey);
  return shellLine(argv);
}

/** What is true when a person stops before anything was sent. */
function cancelledText(opts: PostOpts): string {
  return opts.source.kind === 'media'
    ? `Cancelled: nothing was posted (the video ${opts.source.id} stays at the service).`
    : 'Cancelled: nothing was uploaded or posted.';
}

function sourceText(s: PostSource): string {
  return s.kind === 'file' ? s.shown : s.kind === 'url' ? s.url : `video ${s.id}`;
}

/** What chooseDestinations found. */
interface Choice {
  chosen: ChosenDestination[];
  names: Record<string, string>;
  /** Some of it came from the key's cache rather than from the service now. */
  fromCache: boolean;
}

/**
 * Resolves --to, refuses inactive destinations, reads each one's options.
 * The destinations and options may come from the key's cache (10 minutes)
 * when the service itself refuses a post that stale data would make wrong
 * (one published or scheduled: its issues block it); a draft, which the
 * service saves whatever its issues, and a list offered to a person read the
 * service. `fresh`: always the service.
 */
async function chooseDestinations(opts: PostOpts, session: Session, fresh = false): Promise<Choice> {
  const client = await session.client();
  const signal = session.signal;
  const cached = !fresh && !opts.draft && opts.to.length > 0;
  const all = await client.listDestinations({ signal, cached });
  const { resolveDestination, atHandle } = await import('./destinations.js');
  const picked: { name: string; destination: (typeof all)[number] }[] = [];
  if (opts.to.length === 0) {
    // parse() lets a missing --to through only on a terminal: offer the active destinations.
    const active = all.filter((d) => d.status === 'active');
    const prompter = await session.prompter();
    if (active.length === 0 || !prompter.checkbox) {
      throw new UsageError('--to is required: where should it be posted?', { hint: `Run "vidpub destinations", then: ${postCommandLine(opts)} --to DEST[,DEST...]` });
    }
    const ids = await ask(
      () =>
        prompter.checkbox!({
          message: 'Post to (space selects, enter accepts)',
          choices: active.map((d) => ({ name: `${destinationLabel(d)}${d.display_name ? ` · ${sanitize(d.display_name)}` : ''}`, value: d.id })),
          required: true,
        }),
      cancelledText(opts),
    );
    for (const id of ids) {
      const d = active.find((x) => x.id === id)!;
      // The name a person would type: the handle when it names this destination alone, else the id.
      const handle = atHandle(d.handle);
      const name = handle && all.filter((x) => atHandle(x.handle) === handle).length === 1 ? handle : d.id;
      picked.push({ name, destination: d });
    }
    session.screen.write(`  Next time, skip this question with: --to ${shellWord(picked.map((p) => p.name).join(','))}\n`);
  }
  try {
    for (const name of opts.to) {
      const d = resolveDestination(name, all);
      if (!picked.some((p) => p.destination.id === d.id)) picked.push({ name, destination: d });
    }
    const inactive = picked.filter((p) => p.destination.status !== 'active');
    if (inactive.length > 0) {
      const what = inactive.map((p) => `${destinationLabel(p.destination)} is ${sanitize(String(p.destination.status ?? 'not active'))}`).join('; ');
      throw new UsageError(`cannot post to an inactive destination: ${what}`, {
        hint: 'Reconnect it in the web app, or leave it out of --to ("vidpub destinations" shows each status).',
      });
    }
  } catch (err) {
    // Refused on a remembered list: an account may have been reconnected or added since. Ask the service.
    if (err instanceof UsageError && responseMeta(all)?.cachedAt !== undefined) return chooseDestinations(opts, session, true);
    throw err;
  }
  const chosen = await Promise.all(
    picked.map(async (p) => ({ ...p, options: await client.getDestinationOptions(p.destination.id, { signal, cached }) })),
  );
  const fromCache = [all, ...chosen.map((c) => c.options)].some((r) => responseMeta(r)?.cachedAt !== undefined);
  for (const c of chosen) if (!Array.isArray(c.options.options)) c.options = { ...c.options, options: [] };
  return { chosen, names: namesOf(all), fromCache };
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

/** The values a person answered at the prompts, as --option flags (to plan them again on fresh options). */
function answered(plans: DestinationPlan[]): OptionAssignment[] {
  return plans.flatMap((p) =>
    p.values
      .filter((v) => v.source === 'prompt')
      .map((v) => ({ dest: p.name, key: v.key, value: String(v.value), text: `${p.name}:${v.key}=${String(v.value)}` })),
  );
}

/** Reads the destinations and options again after a refusal and redoes the checks (the video is uploaded). */
type Refresh = (media: Media) => Promise<{ plans: DestinationPlan[]; names: Record<string, string> }>;

/** What POST /posts would carry for the destinations: to tell whether fresh options change the post. */
function destinationsBody(plans: DestinationPlan[]): string {
  return JSON.stringify(plans.map((p) => ({ destination_id: p.destination.id, options: optionsBody(p) })));
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

/** What a run's note in runs/ says it posts, to tell a rerun of it (cut-off.ts). */
function cutOffInput(opts: PostOpts, caption: string, plans: DestinationPlan[]): CutOffInput {
  return { source: opts.source, caption, destinations: destinationsBody(plans), draft: opts.draft, when: opts.when, atText: opts.atText, zone: opts.zone };
}

function checkDuration(durationSec: number | undefined, plans: DestinationPlan[], video: string): void {
  const tooLong = tooLongFor(durationSec, plans);
  if (tooLong.length === 0) return;
  const what = tooLong.map((t) => `${destinationLabel(t.destination.destination)} takes at most ${formatDuration(t.maxSec * 1000)}`).join('; ');
  throw new UsageError(`${sanitize(video)} is ${formatDuration(durationSec! * 1000)} long, too long to post: ${what}`, {
    hint: 'Trim the video, or leave those destinations out of --to. Nothing was uploaded.',
  });
}

async function confirm(opts: PostOpts, session: Session, summary: string[], again: string): Promise<void> {
  for (const line of summary) session.screen.write(wrapLine(line, session.screen.columns, 9, 9) + '\n');
  const prompter = await session.prompter();
  const message = opts.draft ? 'Save this draft?' : opts.when?.now !== false ? 'Post it now?' : 'Schedule it?';
  const hint = `To post it later without questions: ${again} --yes`;
  const yes = await ask(() => prompter.confirm({ message, default: true }), cancelledText(opts), hint);
  if (!yes) throw new CancelledError(cancelledText(opts), { hint });
}

/**
 * The caption, asked on a terminal: written in $VISUAL / $EDITOR when one is
 * set (several lines, as gh does), else one line typed at the prompt.
 */
async function askCaption(opts: PostOpts, session: Session, again: string): Promise<string> {
  const prompter = await session.prompter();
  const hint = `Run it again with a caption: ${again} --caption "..." (or --caption-file PATH)`;
  if (opts.editor && prompter.editor) {
    const text = await ask(() => prompter.editor!({ message: `Caption (opens ${opts.editor})` }), cancelledText(opts), hint);
    return text.replace(/\r?\n$/, '');
  }
  return ask(() => prompter.input({ message: 'Caption (one line; set $EDITOR to write several, or use --caption-file)' }), cancelledText(opts), hint);
}

/**
 * A refusal that comes after the video was uploaded names it, so the next
 * run posts it with --media instead of uploading it again.
 */
function namingMedia(err: unknown, media: Media, uploaded: boolean): unknown {
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

/** Uploads, imports or takes the video; waits until it is ready when `ready` is needed. */
async function obtainMedia(opts: PostOpts, session: Session, known: Media | undefined, ready: boolean, deadlineMs: number, key: RunKey): Promise<Media> {
  const progress = await session.progress();
  const s = opts.source;
  const common = { idempotencyBase: key.key, wait: ready, deadlineMs, progress };
  if (s.kind === 'file') {
    const { uploadFile } = await import('../media/upload-flow.js');
    return uploadFile(session, s.file, common);
  }
  if (s.kind === 'url') {
    const { importLink } = await import('../media/import-flow.js');
    return importLink(session, s.url, common);
  }
  const media = known!;
  if (!ready || media.status === 'ready') {
    progress.stop();
    return media;
  }
  const { waitForMedia } = await import('../media/wait.js');
  return waitForMedia(session, media.id, { deadlineMs, progress, current: media });
}

/**
 * The --idempotency-key the service sees: the one given, or with --force-new
 * that key made new for this run (the service would replay the known key's
 * post for 24 hours). The journal keeps the key as given.
 */
function serviceKey(opts: PostOpts, now: number): string | undefined {
  if (!opts.idempotencyKey || !opts.forceNew) return opts.idempotencyKey;
  return `${opts.idempotencyKey}~${now.toString(36)}`;
}

export async function runPost(opts: PostOpts, outer: Session): Promise<PostResult> {
  // Every local check before any request.
  refuse(captionRefusal(opts.caption));
  for (const o of opts.options) refuse(optionValueRefusal(o.key, o.value));
  // One deadline for the whole command: destinations, upload, post, publish, watch.
  const deadlineMs = outer.clock.now() + opts.timeoutMs;
  const bound = bindDeadline(outer, deadlineMs, opts.timeoutMs);
  const key = runKey(serviceKey(opts, outer.clock.now()));
  let phase = 'reading the destinations';
  let media: Media | undefined;
  const track: RunTrack = {};
  let failure: unknown;
  try {
    return await postWithin(opts, bound.session, deadlineMs, key, track, (p, m) => {
      phase = p;
      media = m ?? media;
    });
  } catch (err) {
    failure = err;
    // The media flows tell their own unknown outcomes (with this run's key); the post's is told here.
    if (err instanceof OutcomeUnknownError && phase === 'creating the post') {
      const id = media?.id;
      throw err.retold(
        `The outcome is unknown: the post may have been created${id ? ` (video ${id})` : ''}; ${err.why}.`,
        {
          idempotencyKey: key.key,
          known: id ? { media_id: id } : {},
          // A relative --at ("in 2h") is another time on each run: the rerun carries the one sent.
          ...(opts.atText !== undefined && track.publishAt ? { rerunFlags: { '--at': track.publishAt } } : {}),
          hint: 'Run the same command again with this --idempotency-key: what was done is reported, not done twice.',
        },
      );
    }
    if (err instanceof TimeoutError && err.data === undefined) {
      const nothing = !media
        ? 'nothing was uploaded or posted'
        : opts.source.kind === 'media'
          ? 'nothing was posted'
          : `nothing was posted; the video is ${madeFrom(opts.source).done}: ${media.id} (post it with --media ${media.id})`;
      throw new TimeoutError(`Stopped (--timeout reached) while ${phase}; ${nothing}.`, {
        hint: 'Run the command again, with a longer --timeout.',
        cause: err,
      });
    }
    throw err;
  } finally {
    endRun(track, key, failure, phase === 'following the post', phase !== 'reading the destinations' && phase !== 'waiting for the video');
    bound.dispose();
  }
}

async function postWithin(
  given: PostOpts,
  session: Session,
  deadlineMs: number,
  key: RunKey,
  track: RunTrack,
  at: (phase: string, media?: Media) => void,
): Promise<PostResult> {
  let opts = given;
  const client = await session.client();
  const { clock, signal } = session;

  // Rerun safety beyond the service's 24 hours: a key this machine has posted under is reported, not posted again.
  if (opts.idempotencyKey && !opts.forceNew && session.journal) {
    const earlier = await session.journal.findByKey(opts.idempotencyKey);
    if (earlier) {
      if (opts.caption !== undefined && opts.caption.slice(0, 200) !== earlier.caption) {
        session.log.warn(
          `This command's caption differs from that of post ${earlier.post_id}, made earlier with --idempotency-key ${opts.idempotencyKey}: ` +
            'nothing is posted with it. For a new post use a new key, or add --force-new.',
        );
      }
      return reportEarlier(session, client, earlier, { key: opts.idempotencyKey, wait: opts.wait, timeoutMs: opts.timeoutMs, deadlineMs, zone: opts.zone });
    }
  }

  // --workspace first: with another workspace's key, the accounts asked for are not there to find.
  await client.checkWorkspace({ signal });
  // Destinations, their options, what is missing: all before any upload.
  const { chosen, names, fromCache } = await chooseDestinations(opts, session);
  const { matchChosen } = await import('./destinations.js');
  const plans = planOptions(chosen, opts.options, matchChosen);
  const chosenTo = chosen.map((c) => c.name);
  // What was typed plus what was answered so far, as the command that repeats it.
  const again = (caption?: string) =>
    postCommandLine(opts, {
      to: chosenTo,
      options: plans.flatMap((p) => p.values.filter((v) => v.source === 'prompt').map((v) => `${p.name}:${v.key}=${String(v.value)}`)),
      caption,
    });

  let known: Media | undefined;
  if (opts.source.kind === 'media') {
    known = await client.getMedia(opts.source.id, { signal });
    if (known.status === 'failed') {
      const { mediaFailedError } = await import('../media/wait.js');
      throw mediaFailedError(known);
    }
  }

  if (plans.some((p) => p.missing.length > 0)) {
    if (!session.interactive) throw missingOptionsError(plans, session.screen.tty);
    const prompter = await session.prompter();
    await promptMissing(plans, prompter, (line) => session.screen.write(line + '\n'), {
      accountLabel: (p) => destinationLabel(p.destination),
      cancelled: () => ({ message: cancelledText(opts), hint: `Run it again with what was chosen so far: ${again()}` }),
    });
  }

  const durationSec = opts.source.kind === 'file' ? opts.source.durationSec : known?.duration_sec;
  checkDuration(durationSec, plans, sourceText(opts.source));

  let caption = opts.caption;
  if (caption === undefined) {
    caption = await askCaption(opts, session, again());
    refuse(captionRefusal(caption));
  }

  // A rerun of a run that was cut off before it knew whether it posted continues it (its key, its time).
  if (!opts.forceNew) {
    const when = await continueCutOff(session, key, cutOffInput(opts, caption, plans), track);
    if (when !== opts.when) opts = { ...opts, when };
  }
  if (opts.when && !opts.when.now) track.publishAt = opts.when.publishAt;

  const summaryInput = {
    video: sourceText(opts.source),
    sizeBytes: opts.source.kind === 'file' ? opts.source.file.size : known?.size_bytes ?? undefined,
    durationSec,
    caption,
    plans,
    when: opts.when,
  };
  const summary = summaryLines({ ...summaryInput, now: clock.now() }, session.screen.colors);
  if (session.interactive && !opts.yes) {
    await confirm(opts, session, summary, again(caption));
  } else {
    // Scripts see the resolved time (with its offset and in UTC) before anything is sent.
    const to = plans.map((p) => destinationLabel(p.destination)).join(', ');
    session.log.info(`Posting ${sanitize(sourceText(opts.source))} to ${sanitize(to)}: ${whenLine(opts.when, clock.now())}`);
    if (opts.when?.note) session.log.warn(sanitize(opts.when.note));
  }

  /**
   * The service refused the post on cached destinations or options: read them
   * again and redo every check on what it says now (inactive, options, what
   * is missing, the duration); a person who confirmed is asked again if the
   * post would differ from what they saw.
   */
  const refresh: Refresh = async (media) => {
    // From here on, the video is at the service: a rerun posts it with --media.
    const asMedia: PostOpts = { ...opts, source: { kind: 'media', id: media.id } };
    const rerun = () => postCommandLine(asMedia, { to: chosenTo, options: answered(plans).map((a) => a.text), caption });
    const choice = await chooseDestinations({ ...opts, to: chosenTo }, session, true);
    const next = planOptions(choice.chosen, [...opts.options, ...answered(plans)], matchChosen);
    if (next.some((p) => p.missing.length > 0)) {
      if (!session.interactive) throw missingOptionsError(next, session.screen.tty);
      const prompter = await session.prompter();
      await promptMissing(next, prompter, (line) => session.screen.write(line + '\n'), {
        accountLabel: (p) => destinationLabel(p.destination),
        cancelled: () => ({ message: cancelledText(asMedia), hint: `Run it again: ${rerun()}` }),
      });
    }
    checkDuration(durationSec, next, sourceText(opts.source));
    if (destinationsBody(next) !== destinationsBody(plans)) {
      const lines = summaryLines({ ...summaryInput, plans: next, now: clock.now() }, session.screen.colors);
      if (session.interactive && !opts.yes) await confirm(asMedia, session, lines, rerun());
      else {
        const what = next.map((p) => `${destinationLabel(p.destination)} ${p.values.map((v) => `${v.key}=${String(v.value)}`).join(' ') || '(no options)'}`);
        session.log.info(`Posting with what the destinations take now: ${sanitize(what.join('; '))}`);
      }
    }
    return { plans: next, names: choice.names };
  };

  noteRun(track);
  // A draft may be saved before the video is ready; publishing needs it ready.
  at(opts.source.kind === 'url' ? 'importing the video' : opts.source.kind === 'file' ? 'uploading the video' : 'waiting for the video');
  const media = await obtainMedia(opts, session, known, !(opts.draft && !opts.wait), deadlineMs, key);
  const uploaded = opts.source.kind !== 'media';
  at('creating the post', media);
  let created = false;
  try {
    return await createAndFollow(opts, session, media, caption, plans, names, key, track, deadlineMs, fromCache ? refresh : undefined, (phase) => {
      created = true;
      at(phase);
    });
  } catch (err) {
    // Once the post exists, its own id is what the messages name.
    throw created ? err : namingMedia(err, media, uploaded);
  }
}

async function createAndFollow(
  opts: PostOpts,
  session: Session,
  media: Media,
  caption: string,
  plans: DestinationPlan[],
  names: Record<string, string>,
  key: RunKey,
  track: RunTrack,
  deadlineMs: number,
  refresh: Refresh | undefined,
  at: (phase: string) => void,
): Promise<PostResult> {
  const client = await session.client();
  const { clock, signal } = session;

  const bodyOf = (ps: DestinationPlan[]): CreatePostRequest => ({
    media_id: media.id,
    caption,
    destinations: ps.map((p) => ({ destination_id: p.destination.id, options: optionsBody(p) })),
    ...(opts.when ? { publish_at: opts.when.publishAt } : {}),
  });

  // (A continued run sends its first run's time whatever it is now: the service replays the post it made.)
  if (opts.when && !opts.when.now && opts.when.ms <= clock.now() && !key.continued) {
    throw new UsageError(`the time ${opts.when.local} (${opts.when.utc}) for --at passed while the video was being uploaded; nothing was posted`, {
      hint: `The video is uploaded: post it with --media ${media.id} and a later --at (or --at now).`,
    });
  }

  let post: Post;
  try {
    try {
      post = await client.createPost(bodyOf(plans), { idempotencyKey: stepKey(key.key, key.postStep ?? 'post'), signal });
    } catch (err) {
      if (!refresh || !suggestsChangedDestinations(err)) throw err;
      // What we posted with came from the cache, and the service says it changed: read it again, check again, post once more.
      session.log.info('The service refused the post on destinations or options read earlier (cached); reading them again.');
      await client.memory?.forget(CACHE_ENTRIES.isDestinationData);
      const fresh = await refresh(media);
      names = fresh.names;
      // A step of its own: the refused body is stored under the step just used (a continued run's may be one read again before).
      const step = readAgainStep(key.postStep);
      await postMoved(session, cutOffInput(opts, caption, fresh.plans), track, step);
      post = await client.createPost(bodyOf(fresh.plans), { idempotencyKey: stepKey(key.key, step), signal });
    }
  } catch (err) {
    if (isDailyLimit(err)) {
      const given = opts.source.kind === 'media';
      const made = madeFrom(opts.source);
      throw dailyLimitError(
        err,
        given ? 'no post was created' : `no post was created (the video is ${made.done}: ${media.id})`,
        given
          ? 'Run the same command again after the reset, add --wait-for-quota to wait for it, or save it with --draft.'
          : `Run again after the reset with --media ${media.id} instead of the ${made.from}, add --wait-for-quota to wait for it, or save it with --draft.`,
        opts.zone,
        clock.now(),
      );
    }
    if (err instanceof BlockedError) throw blockedCreate(err, names);
    // The first run's time, sent again so its post would be replayed, refused: that run never made the post.
    if (err instanceof UsageError && err.http?.code === 'invalid_publish_at' && key.continued && opts.when && !opts.when.now) {
      throw new UsageError(`the earlier run this one continues made no post, and its time ${opts.when.local} (${opts.when.utc}) has passed; nothing was posted`, {
        hint: 'Run the command again: it posts at the time --at gives then.',
        http: err.http,
        cause: err,
      });
    }
    if (err instanceof UsageError && err.http?.code === 'idempotency_key_reused' && opts.idempotencyKey) {
      throw await keyReusedError(opts.idempotencyKey, session, err);
    }
    throw err;
  }
  at('following the post');
  const replayed = responseMeta(post)?.replayed === true;
  if (replayed) {
    session.log.info(
      key.given
        ? `Post ${post.id} was already created by an earlier run with this --idempotency-key; reporting it.`
        : key.continued
          ? `Post ${post.id} was created by the earlier run this one continues; reporting it.`
          : `Post ${post.id} was created by an earlier attempt of this run whose answer was lost; reporting it.`,
    );
    post = await client.getPost(post.id, { signal });
  }
  const s = opts.source;
  await session.journal?.post({
    post,
    names,
    ...(s.kind === 'file' ? { file: s.file.path, size: s.file.size } : s.kind === 'url' ? { link: s.url } : {}),
    ...(s.kind !== 'file' && typeof media.size_bytes === 'number' ? { size: media.size_bytes } : {}),
    idem: opts.idempotencyKey,
    outcome: replayed ? 'replayed' : 'created',
  });

  const result: PostResult = { post, names, zone: opts.zone, now: clock.now() };
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
      return { ...followed, now: clock.now() };
    },
    post,
  );
}

/** The refusal of a key the service saw for another request: names the post when this machine made it. */
async function keyReusedError(key: string, session: Session, err: UsageError): Promise<UsageError> {
  const earlier = await session.journal?.findByKey(key).catch(() => undefined);
  const what = earlier ? ` (post ${earlier.post_id}, made on ${earlier.at})` : '';
  const retry = earlier
    ? `To post again to the destinations of ${earlier.post_id} that failed: vidpub retry ${earlier.post_id}.`
    : 'To post again to the destinations of that post that failed: vidpub retry POST_ID ("vidpub history" lists the posts made here).';
  return new UsageError(
    `--idempotency-key ${key} was used within the last 24 hours for a different post${what} (another caption, destinations, options or time)`,
    {
      hint: `${retry} Use a new key for a new post. A relative --at (such as +2h) gives a new time on every run: use an absolute time with a key.`,
      http: err.http,
      cause: err,
    },
  );
}

/**
 * Planning and asking, before anything is sent: the destinations of a post
 * resolved from --to (or picked on a terminal) and refused when inactive,
 * their options read and planned, what is missing asked for, the video's
 * duration checked against each; then what a person sees and answers: the
 * caption when it was not given, the summary and a confirmation (scripts get
 * one log line with the resolved time instead).
 */
import { responseMeta } from '../../api/client.js';
import type { Destination } from '../../contract/wire-types.js';
import { CancelledError, UsageError, sanitize } from '../../errors.js';
import type { Session } from '../../session/session.js';
import { relativePhrase } from '../../time/describe.js';
import { formatDuration } from '../../time/duration.js';
import { wrapLine } from '../../ui/wrap.js';
import { shellWord } from '../../util/shell.js';
import { captionCutFor, tooLongFor } from '../../core/post-rules.js';
import { ask, flagFor, missingOptionsError, planOptions, promptMissing, type ChosenDestination, type DestinationPlan, type OptionAssignment } from '../options.js';
import { destinationLabel, namesOf } from '../view.js';
import { summaryLines, whenLine, type SummaryInput } from '../summary.js';
import { cancelledText, sourceText, type PostOpts, type PostRun, type Ready } from './types.js';
import { SKEW_SAID_MS, heardServiceNow } from './live-run.js';

/** What chooseDestinations found. */
export interface Choice {
  chosen: ChosenDestination[];
  names: Record<string, string>;
  /** Some of it came from the key's cache rather than from the service now. */
  fromCache: boolean;
}

type Picked = { name: string; destination: Destination };

/**
 * Resolves --to, refuses inactive destinations, reads each one's options.
 * The destinations and options may come from the key's cache (10 minutes)
 * when the service itself refuses a post that stale data would make wrong
 * (one published or scheduled: its issues block it); a draft, which the
 * service saves whatever its issues, and a list offered to a person read the
 * service. `fresh`: always the service.
 */
export async function chooseDestinations(opts: PostOpts, session: Session, fresh = false): Promise<Choice> {
  const client = await session.client();
  const signal = session.signal;
  const cached = !fresh && !opts.draft && opts.to.length > 0;
  const all = await client.listDestinations({ signal, cached });
  // parse() lets a missing --to through only on a terminal: offer the active destinations.
  const picked = opts.to.length === 0 ? await pickOnTerminal(opts, session, all) : [];
  try {
    await addTyped(opts.to, all, picked);
    refuseInactive(picked);
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

/** No --to on a terminal: the active destinations offered in a checkbox list, named as a person would type them. */
async function pickOnTerminal(opts: PostOpts, session: Session, all: Destination[]): Promise<Picked[]> {
  const { atHandle } = await import('../destinations.js');
  const active = all.filter((d) => d.status === 'active');
  const prompter = await session.prompter();
  if (active.length === 0 || !prompter.checkbox) {
    throw new UsageError('--to is required: where should it be posted?', { hint: `Run "vidpub destinations", then: ${opts.again({})} --to DEST[,DEST...]` });
  }
  const ids = await ask(
    () =>
      prompter.checkbox!({
        message: 'Post to (space selects, enter accepts)',
        choices: active.map((d) => ({ name: `${destinationLabel(d)}${d.display_name ? ` · ${sanitize(d.display_name)}` : ''}`, value: d.id })),
        required: true,
      }),
    cancelledText(opts),
    // Nothing chosen yet: the command as typed asks again (--to skips the question).
    `Run it again with what was typed: ${opts.again({})} (or add --to DEST[,DEST...])`,
  );
  const picked = ids.map((id) => {
    const d = active.find((x) => x.id === id)!;
    // The name a person would type: the handle when it names this destination alone, else the id.
    const handle = atHandle(d.handle);
    const name = handle && all.filter((x) => atHandle(x.handle) === handle).length === 1 ? handle : d.id;
    return { name, destination: d };
  });
  session.screen.write(`  Next time, skip this question with: --to ${shellWord(picked.map((p) => p.name).join(','))}\n`);
  return picked;
}

/** The destinations named in --to, each once, after any picked. */
async function addTyped(to: string[], all: Destination[], picked: Picked[]): Promise<void> {
  const { resolveDestination } = await import('../destinations.js');
  for (const name of to) {
    const d = resolveDestination(name, all);
    if (!picked.some((p) => p.destination.id === d.id)) picked.push({ name, destination: d });
  }
}

function refuseInactive(picked: Picked[]): void {
  const inactive = picked.filter((p) => p.destination.status !== 'active');
  if (inactive.length === 0) return;
  const what = inactive.map((p) => `${destinationLabel(p.destination)} is ${sanitize(String(p.destination.status ?? 'not active'))}`).join('; ');
  throw new UsageError(`cannot post to an inactive destination: ${what}`, {
    hint: 'Reconnect it in the web app, or leave it out of --to ("vidpub destinations" shows each status).',
  });
}

/** The --option flags applied to the chosen destinations, defaults filled in (what is missing is left to askMissing). */
export async function planFor(chosen: ChosenDestination[], options: OptionAssignment[]): Promise<DestinationPlan[]> {
  const { matchChosen } = await import('../destinations.js');
  return planOptions(chosen, options, matchChosen);
}

/** Asks for the options still missing on a terminal (`stop`: what Ctrl-C says); elsewhere, exit 2 listing the flags to pass. */
export async function askMissing(session: Session, plans: DestinationPlan[], stop: () => { message: string; hint?: string }): Promise<void> {
  if (!plans.some((p) => p.missing.length > 0)) return;
  if (!session.interactive) throw missingOptionsError(plans, session.screen.tty);
  const prompter = await session.prompter();
  await promptMissing(plans, prompter, (line) => session.screen.write(line + '\n'), {
    accountLabel: (p) => destinationLabel(p.destination),
    cancelled: stop,
  });
}

/** exit 2 when the video is longer than a destination takes (src/core/post-rules.ts), before any upload. */
export function checkDuration(durationSec: number | undefined, plans: DestinationPlan[], video: string): void {
  const tooLong = tooLongFor(durationSec, plans);
  if (tooLong.length === 0) return;
  const what = tooLong.map((t) => `${destinationLabel(t.destination.destination)} takes at most ${formatDuration(t.maxSec * 1000)}`).join('; ');
  throw new UsageError(`${sanitize(video)} is ${formatDuration(durationSec! * 1000)} long, too long to post: ${what}`, {
    hint: 'Trim the video, or leave those destinations out of --to. Nothing was uploaded.',
  });
}

/**
 * The caption, asked on a terminal: written in $VISUAL / $EDITOR when one is
 * set (several lines, as gh does), else one line typed at the prompt.
 */
export async function askCaption(opts: PostOpts, session: Session, again: string): Promise<string> {
  const prompter = await session.prompter();
  const hint = `Run it again with a caption: ${again} --caption "..." (or --caption-file PATH)`;
  const caption =
    opts.editor && prompter.editor
      ? (await ask(() => prompter.editor!({ message: `Caption (opens ${opts.editor})` }), cancelledText(opts), hint)).replace(/\r?\n$/, '')
      : await ask(() => prompter.input({ message: 'Caption (one line; set $EDITOR to write several, or use --caption-file)' }), cancelledText(opts), hint);
  // As after the other questions: the flag that answers it next time (several lines: from a file).
  const flag = caption.includes('\n') ? '--caption-file PATH' : `--caption ${shellWord(caption)}`;
  session.screen.write(`  Next time, skip this question with: ${flag}\n`);
  return caption;
}

async function confirm(opts: PostOpts, session: Session, summary: string[], again: string): Promise<void> {
  for (const line of summary) session.screen.write(wrapLine(line, session.screen.columns, 9, 9) + '\n');
  const prompter = await session.prompter();
  const message = opts.draft ? 'Save this draft?' : opts.when?.now !== false ? 'Post it now?' : 'Schedule it?';
  const hint = `To post it later without questions: ${again} --yes`;
  const yes = await ask(() => prompter.confirm({ message, default: true }), cancelledText(opts), hint);
  if (!yes) throw new CancelledError(cancelledText(opts), { hint });
}

function summaryOf(opts: PostOpts, ready: Ready, plans: DestinationPlan[], now: number): SummaryInput {
  return {
    video: sourceText(opts.source),
    sizeBytes: opts.source.kind === 'file' ? opts.source.file.size : ready.known?.size_bytes ?? undefined,
    durationSec: ready.durationSec,
    caption: ready.caption,
    plans,
    ...(ready.groups ? { captionOf: captionOfIn(ready.groups) } : {}),
    when: opts.when,
    now,
  };
}

/** Each destination's caption, from the posts of a set. */
function captionOfIn(groups: NonNullable<Ready['groups']>): (p: DestinationPlan) => string {
  return (p) => groups.find((g) => g.plans.some((x) => x.destination.id === p.destination.id))?.caption ?? '';
}

/** On a terminal (without --yes): the summary and a confirmation. Else scripts see the resolved time (with its offset and in UTC) before anything is sent. */
export async function confirmOrAnnounce(run: PostRun, ready: Ready, again: string): Promise<void> {
  const { opts, session } = run;
  const now = session.clock.now();
  if (opts.when?.fromNow) sayRelativeSkew(session, opts.when, opts.atText, await serviceTime(session));
  sayCaptionCut(run, ready);
  if (session.interactive && !opts.yes) {
    await confirm(opts, session, summaryLines(summaryOf(opts, ready, ready.plans, now), session.screen.colors), again);
    return;
  }
  // Not even made with --quiet: the time's line reads the machine's zone (ICU's data, before the first request).
  if (!session.quiet) {
    const to = ready.plans.map((p) => destinationLabel(p.destination)).join(', ');
    session.log.info(`Posting ${sanitize(sourceText(opts.source))} to ${sanitize(to)}: ${whenLine(opts.when, now)}`);
    for (const g of ready.groups ?? []) session.log.info(`  caption for ${sanitize(g.plans.map((p) => destinationLabel(p.destination)).join(', '))}: ${sanitize(JSON.stringify(g.caption))}`);
    for (const line of defaultedLines(ready.plans)) session.log.info(line);
  }
  if (opts.when?.note) session.log.warn(sanitize(opts.when.note));
}

/**
 * A time counted from now (`--at "in 1m"`, `+2h`) is counted from this machine's clock: where it
 * is off the service's (its Date header) by more than SKEW_SAID_MS, the post would go out that
 * much early or late by the service's clock. Said before anything is sent, with the way out.
 */
/**
 * A caption longer than a destination's platform takes is cut when it goes out: said before
 * anything is sent (a warning at a terminal and on stderr), or refused with --strict (exit 2).
 */
/** "has 5,000 characters and would be cut: @vidpub.demo (tiktok) takes 2,200". */
function cutWords(cut: ReturnType<typeof captionCutFor<DestinationPlan>>): string {
  const where = cut.map((c) => `${destinationLabel(c.destination.destination)} takes ${c.max.toLocaleString('en-US')}`).join('; ');
  return `has ${cut[0]!.chars.toLocaleString('en-US')} characters and would be cut: ${where}`;
}

function sayCaptionCut(run: PostRun, ready: Ready): void {
  // A caption written for some destinations (--caption-for) that one of them would cut: refused, as it was meant for it.
  for (const group of ready.groups ?? []) {
    if (group.caption === ready.caption) continue;
    const own = captionCutFor(group.caption, group.plans);
    if (own.length === 0) continue;
    // Its own (--caption-for), or the shared one with the profile's prefix or suffix of the platform (vidpub config).
    const given = run.opts.captionsFor?.some((c) => group.caption.includes(c.text)) === true;
    throw new UsageError(`the caption given for ${own.map((c) => destinationLabel(c.destination.destination)).join(', ')} (${given ? '--caption-for' : "with the profile's caption defaults"}) ${cutWords(own)}; nothing was sent`, {
      hint: given ? 'Shorten it: a caption written for a destination should fit it.' : 'Shorten the caption or the default (vidpub config list), or leave the defaults out with --no-caption-defaults.',
    });
  }
  const shared = ready.groups ? ready.groups.filter((g) => g.caption === ready.caption).flatMap((g) => g.plans) : ready.plans;
  const cut = captionCutFor(ready.caption, shared);
  if (cut.length === 0) return;
  const text = `the caption ${cutWords(cut)}`;
  if (run.opts.strict) {
    throw new UsageError(`${text} (--strict); nothing was sent`, { hint: 'Shorten the caption, or leave those destinations out of --to.' });
  }
  run.session.log.warn(`${text.charAt(0).toUpperCase()}${text.slice(1)}. Shorten it, or add --strict to refuse such a post.`);
}

async function serviceTime(session: Session): Promise<number | undefined> {
  // Nothing heard yet (the destinations came from the cache): one GET /me tells.
  const heard = await heardServiceNow(session);
  if (heard !== undefined) return heard;
  try {
    await (await session.client()).getMe({ signal: session.signal });
  } catch (err) {
    if (session.signal.aborted) throw err;
    return undefined;
  }
  return heardServiceNow(session);
}

function sayRelativeSkew(session: PostRun['session'], when: NonNullable<PostOpts['when']>, atText: string | undefined, serviceNow: number | undefined): void {
  if (serviceNow === undefined) return;
  const skew = session.clock.now() - serviceNow;
  if (Math.abs(skew) <= SKEW_SAID_MS) return;
  const at = atText === undefined ? 'a time from now' : `--at ${shellWord(atText)}`;
  session.log.warn(
    `${at} is counted from this machine's clock, which is ${formatDuration(Math.abs(skew))} ${skew > 0 ? 'ahead of' : 'behind'} the service's: ` +
      `by the service's clock the post goes out ${relativePhrase(when.ms, serviceNow)}. Give a time of day or an ISO time (--at 09:00), or set this machine's clock right.`,
  );
}

/**
 * A required option nobody gave or was asked for, filled from the destination's default, said
 * where no summary showed it: `visibility: private (the destination's default; pass ...)`.
 */
function defaultedLines(plans: DestinationPlan[]): string[] {
  const lines: string[] = [];
  for (const p of plans) {
    for (const v of p.values.filter((x) => x.source === 'default')) {
      const option = p.options.options.find((o) => o.key === v.key)!;
      const whose = plans.length > 1 ? ` for ${destinationLabel(p.destination)}` : '';
      lines.push(`  ${sanitize(v.key)}${whose}: ${sanitize(String(v.value))} (the destination's default; pass ${flagFor(p.name, option)} to choose)`);
    }
  }
  return lines;
}

/**
 * The destinations read again take other options than the person confirmed:
 * asked again on a terminal (`asMedia`: the run as it stands, the video
 * uploaded), said in a log line elsewhere.
 */
export async function confirmChanged(run: PostRun, ready: Ready, next: DestinationPlan[], asMedia: PostOpts, again: string): Promise<void> {
  const { opts, session } = run;
  if (session.interactive && !opts.yes) {
    const lines = summaryLines(summaryOf(opts, ready, next, session.clock.now()), session.screen.colors);
    await confirm(asMedia, session, lines, again);
    return;
  }
  const what = next.map((p) => `${destinationLabel(p.destination)} ${p.values.map((v) => `${v.key}=${String(v.value)}`).join(' ') || '(no options)'}`);
  session.log.info(`Posting with what the destinations take now: ${sanitize(what.join('; '))}`);
}

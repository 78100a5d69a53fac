/**
 * What a person sees and answers before a post is sent: the caption when it
 * was not given, then the summary and a confirmation (scripts get one log
 * line with the resolved time instead).
 */
import { shellWord } from '../util/shell.js';
import { CancelledError, sanitize } from '../errors.js';
import type { Session } from '../session/session.js';
import { wrapLine } from '../ui/wrap.js';
import { ask, flagFor, type DestinationPlan } from './options.js';
import { destinationLabel } from './post-view.js';
import { cancelledText, sourceText, type PostOpts } from './post-opts.js';
import type { PostRun, Ready } from './post-run.js';
import { summaryLines, whenLine, type SummaryInput } from './summary.js';

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
    when: opts.when,
    now,
  };
}

/** On a terminal (without --yes): the summary and a confirmation. Else scripts see the resolved time (with its offset and in UTC) before anything is sent. */
export async function confirmOrAnnounce(run: PostRun, ready: Ready, again: string): Promise<void> {
  const { opts, session } = run;
  const now = session.clock.now();
  if (session.interactive && !opts.yes) {
    await confirm(opts, session, summaryLines(summaryOf(opts, ready, ready.plans, now), session.screen.colors), again);
    return;
  }
  // Not even made with --quiet: the time's line reads the machine's zone (ICU's data, before the first request).
  if (!session.quiet) {
    const to = ready.plans.map((p) => destinationLabel(p.destination)).join(', ');
    session.log.info(`Posting ${sanitize(sourceText(opts.source))} to ${sanitize(to)}: ${whenLine(opts.when, now)}`);
    for (const line of defaultedLines(ready.plans)) session.log.info(line);
  }
  if (opts.when?.note) session.log.warn(sanitize(opts.when.note));
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

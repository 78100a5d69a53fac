import type { Media } from '../../contract/wire-types.js';
import { openReviewPage } from '../io/browser.js';
import { UsageError, sanitize } from '../../errors.js';
import { MISSING_CAPTION, MISSING_TO, missingOptionsError, parseOptionFlag } from '../../posts/options.js';
import { postDocument, printPost, type PostResult } from '../../posts/view.js';
import type { CaptionFor, PostOpts, PostSource } from '../../posts/post/types.js';
import { isPostSet, type PostSet } from '../../posts/post/caption-set.js';
import { postSetDocument, printPostSet } from '../../posts/post/set-view.js';
import { WHEN_FORMATS } from '../../time/at-grammar.js';
import { nowWhen, parseWhen } from '../../time/parse-when.js';
import { resolveTimeZone } from '../../time/zones.js';
import { parseTimeout } from '../../session/wait-flags.js';
import { parseIdempotencyKey } from '../../posts/flags.js';
import { defineCommand, type Invocation } from '../run/command.js';
import { readDuplicateWindow } from '../run/duplicate-window.js';
import type { ArgsFor, FlagsFor } from './index.js';
import { POST_DOCUMENT_FIELDS } from '../output/json-fields.js';
import { rehearsalDoc, rehearsalHead, rehearsalNote, rehearse } from '../rehearsal/rehearse.js';
import { readAll, readNamedFile } from '../io/user-input.js';
import { MAX_CAPTION_FILE_BYTES, captionFileRefusal, refuse } from '../../core/post-rules.js';

type Flags = FlagsFor<'post'>;
type Args = ArgsFor<'post'>;

async function readCaption(flags: Flags, inv: Invocation): Promise<string | undefined> {
  const text = flags.caption;
  const file = flags.captionFile;
  if (text !== undefined && file !== undefined) throw new UsageError('give --caption or --caption-file, not both');
  if (file === undefined) return text;
  return readCaptionFrom(file, '--caption-file', flags, inv);
}

/** A caption file (`-`: stdin) as `flag` names it; its last line break is not part of the caption. */
async function readCaptionFrom(file: string, flag: string, flags: Flags, inv: Invocation): Promise<string> {
  let raw: string;
  if (file === '-') {
    if (inv.ctx.io.stdinIsTTY) inv.log.info('Reading the caption from the terminal; end it with Ctrl-D.');
    raw = await readAll(inv.ctx.io.stdin, MAX_CAPTION_FILE_BYTES, 'the caption on stdin', { signal: inv.ctx.signal, clock: inv.ctx.clock, timeoutMs: parseTimeout(flags) });
  } else {
    const { resolve } = await import('node:path');
    const shown = `${flag} ${sanitize(file)}`;
    raw = await readNamedFile(resolve(inv.ctx.cwd, file), shown, (st) => refuse(captionFileRefusal(st.size, shown)));
  }
  return raw.replace(/\r?\n$/, '');
}

/** --caption-for DEST=TEXT and --caption-file-for DEST=PATH: exit 2 for a value without DEST, or one DEST given twice as typed. */
async function readCaptionsFor(flags: Flags, inv: Invocation): Promise<CaptionFor[]> {
  const given = [
    ...flags.captionFor.map((v) => ({ flag: '--caption-for' as const, v })),
    ...flags.captionFileFor.map((v) => ({ flag: '--caption-file-for' as const, v })),
  ];
  const out: CaptionFor[] = [];
  for (const { flag, v } of given) {
    const eq = v.indexOf('=');
    const dest = eq < 0 ? '' : v.slice(0, eq).trim();
    if (dest === '') {
      const what = flag === '--caption-for' ? 'DEST=TEXT' : 'DEST=PATH';
      throw new UsageError(`${flag} ${sanitize(JSON.stringify(v))}: give ${what}, DEST as --to names it (an id, @handle or platform)`, { hint: `For example: ${flag} youtube=${flag === '--caption-for' ? '"A longer description"' : 'youtube.txt'}` });
    }
    const twice = out.find((o) => o.dest.toLowerCase() === dest.toLowerCase());
    if (twice) throw new UsageError(`${flag} ${sanitize(v)}: ${sanitize(dest)} already has a caption (${twice.flag} ${sanitize(twice.dest)}=…)`, { hint: 'Give one caption per destination.' });
    const rest = v.slice(eq + 1);
    if (flag === '--caption-for') out.push({ flag, dest, text: rest });
    else out.push({ flag, dest, path: rest, text: await readCaptionFrom(rest, flag, flags, inv) });
  }
  return out;
}

/** The profile's caption prefix and suffix of each platform (vidpub config); none when the config cannot be read (the client says why). */
async function readCaptionDefaults(inv: Invocation): Promise<PostOpts['captionDefaults']> {
  const { settingsOf } = await import('../../config/text-defaults.js');
  try {
    return settingsOf((await inv.ctx.config()).getProfile(inv.globals.profile));
  } catch {
    return [];
  }
}

async function parseSource(args: Args, flags: Flags, inv: Invocation): Promise<PostSource> {
  const [arg] = args;
  const media = flags.media;
  if (arg !== undefined && media !== undefined) throw new UsageError('give a file or link, or --media ID, not both');
  if (media !== undefined) {
    const id = media.trim();
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(id)) throw new UsageError(`invalid --media "${sanitize(media)}": give a video id such as med_123`);
    return { kind: 'media', id };
  }
  if (arg === undefined || arg.trim() === '') {
    throw new UsageError('what should be posted? Give a video file, an https link to one, or --media ID', {
      hint: `For example: ${inv.commandLine({}, ['clip.mp4'])}`,
    });
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(arg.trim())) {
    const { checkImportUrl } = await import('../../media/import-url.js');
    const link = checkImportUrl(arg);
    return { kind: 'url', url: link.url, filename: link.filename };
  }
  const { checkVideoFile } = await import('../../media/check.js');
  const { readDurationSec } = await import('../../media/mp4-duration.js');
  const file = await checkVideoFile(arg, inv.ctx.cwd);
  const durationSec = await readDurationSec(file.path);
  return { kind: 'file', file, shown: arg, durationSec };
}

/**
 * The command that does what this run was doing, from its line as read, with what was chosen
 * since: the video once it is at the service, the destinations picked, the options answered, and
 * a caption that no longer comes from where it was typed (written, or read from stdin).
 */
function againLine(inv: Invocation, flags: Flags, typedCaption: string | undefined): PostOpts['again'] {
  return (chosen) => {
    const media = chosen.media !== undefined && chosen.media !== flags.media;
    const caption = chosen.caption !== undefined && (chosen.caption !== typedCaption || flags.captionFile === '-');
    return inv.commandLine(
      {
        ...(media ? { '--media': chosen.media } : {}),
        ...(chosen.to?.length ? { '--to': chosen.to.join(',') } : {}),
        ...(chosen.options?.length ? { '--option': [...flags.option, ...chosen.options] } : {}),
        ...(caption ? { '--caption': chosen.caption, '--caption-file': undefined } : {}),
      },
      media ? [] : undefined,
    );
  };
}

export default defineCommand<'post', PostOpts & { rehearse: boolean; web: boolean }, PostResult | PostSet | Media>({
  description:
    'Upload a local video (or import one from an https link, or take one already uploaded with --media) and post it ' +
    'to one or more destinations: now, at a time (--at), or as a draft (--draft). On a terminal it shows a summary, ' +
    'asks for what is missing (a destination\'s privacy, for one) and for a confirmation; in scripts every choice ' +
    `comes from flags and nothing is asked. WHEN: ${WHEN_FORMATS}.`,
  examples: [
    'vidpub post clip.mp4 --to @vidpub.demo --caption "Hello"',
    'vidpub post clip.mp4 --to @vidpub.demo,dst_demo_youtube --option @vidpub.demo:privacy=SELF_ONLY --caption-file caption.txt',
    'vidpub post https://example.com/clip.mp4 --to youtube --caption "Talk" --at "tomorrow 9:00" --tz Europe/Paris',
    'vidpub post --media med_123 --to linkedin --caption "Hi" --at "in 2h"',
    'vidpub post clip.mp4 --to youtube --caption "Draft" --draft',
    'vidpub post clip.mp4 --to youtube --caption "Nightly" --idempotency-key "nightly-$(date +%F)" --no-input --json',
  ],
  async parse(args, flags, inv) {
    // The machine's zone costs loading ICU's time zone data: read when a time needs it, not
    // before the first request of a post sent now. --tz and TZ are checked here, before anything is sent.
    const given = flags.tz !== undefined || inv.ctx.env.TZ !== undefined || flags.at !== undefined;
    let zone = given ? resolveTimeZone(flags.tz, inv.ctx.env) : undefined;
    const zoneNow = () => (zone ??= resolveTimeZone(flags.tz, inv.ctx.env));
    const draft = flags.draft;
    if (draft && flags.at !== undefined) throw new UsageError('--draft saves a draft without a time; drop --at, or drop --draft to schedule it');
    const when = draft ? null : flags.at === undefined ? nowWhen(inv.ctx.clock.now(), zoneNow) : parseWhen(flags.at, { now: inv.ctx.clock.now(), zone: zoneNow() });
    const to = flags.to
      .flatMap((t) => t.split(','))
      .map((t) => t.trim())
      .filter((t) => t !== '');
    const caption = await readCaption(flags, inv);
    const captionsFor = await readCaptionsFor(flags, inv);
    if (to.length === 0 && !inv.interactive) {
      // The command as typed, with the flags that are missing (a missing caption too: all at once).
      if (caption === undefined) throw missingOptionsError([], inv.ctx.io.stderrIsTTY, [MISSING_TO, MISSING_CAPTION]);
      throw new UsageError('--to is required: where should it be posted?', { hint: `List the destinations with "vidpub destinations", then run: ${inv.commandLine()} --to DEST[,DEST...]` });
    }
    const options = flags.option.map(parseOptionFlag);
    const timeoutMs = parseTimeout(flags);
    const idempotencyKey = parseIdempotencyKey(flags.idempotencyKey);
    const forceNew = flags.forceNew;
    // A missing caption without a terminal is told by the run, once the destinations say which options are missing too.
    const source = await parseSource(args, flags, inv);
    const editor = inv.ctx.env.VISUAL || inv.ctx.env.EDITOR || undefined;
    return {
      source,
      to,
      caption,
      ...(captionsFor.length > 0 ? { captionsFor } : {}),
      ...(flags.captionDefaults ? { captionDefaults: await readCaptionDefaults(inv) } : {}),
      options,
      when,
      draft,
      wait: flags.wait,
      timeoutMs,
      idempotencyKey,
      forceNew,
      reupload: flags.reupload,
      allowDuplicate: flags.allowDuplicate,
      duplicateWindowMs: await readDuplicateWindow(inv),
      yes: flags.yes,
      get zone() {
        return zoneNow();
      },
      atText: flags.at,
      strict: flags.strict,
      editor,
      waitForQuota: inv.globals.waitForQuota,
      again: againLine(inv, flags, caption),
      rehearse: flags.rehearse,
      web: flags.web,
    };
  },
  async run(opts, inv) {
    const { runPost } = await import('../../posts/post/flow.js');
    if (!opts.rehearse) {
      const r = await runPost(opts, inv.session);
      await openReviewPage(opts.web, r, inv);
      return r;
    }
    // A video already at the service is read (GET) into the copy.
    const media = opts.source.kind === 'media' ? opts.source.id : undefined;
    return rehearse(inv, (session) => runPost(opts, session), media === undefined ? {} : { media: [media] });
  },
  // A run stopped before the post existed (--timeout or Ctrl-C during the upload or the video's
  // processing) leaves the video's record as its error data: its id is printed, to post it with --media.
  print: (r, inv) => {
    if (isPostSet(r)) {
      if (inv.globals.quiet) for (const p of r.posts) inv.print(p.result?.post.id ?? '-');
      else printPostSet(r, inv.out);
      return;
    }
    if (videoOnly(r)) inv.print(r.id);
    else if (inv.globals.quiet) inv.print(r.post.id);
    else {
      rehearsalHead(r, inv);
      printPost(r, inv.out);
    }
    rehearsalNote(r, inv);
  },
  json: (r) => rehearsalDoc(r, isPostSet(r) ? postSetDocument(r) : videoOnly(r) ? { post: null, media: r } : postDocument(r)),
  fields: [...POST_DOCUMENT_FIELDS, 'posts', 'set', 'rehearsal'],
});

/** The data of a run that stopped before the post was created: the video's record, not a PostResult. */
function videoOnly(r: PostResult | PostSet | Media): r is Media {
  return !(r as Partial<PostResult>).post && typeof (r as Partial<Media>).id === 'string';
}

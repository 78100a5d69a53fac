import { UsageError } from '../../errors.js';
import { openReviewPage } from '../io/browser.js';
import { parseTimeout } from '../../session/wait-flags.js';
import { parsePostId } from '../../posts/flags.js';
import { runPublish } from '../../posts/publish-flow.js';
import { runFixDraft, type FixDraftOpts } from '../../posts/fix-draft.js';
import { parseOptionFlag } from '../../posts/options.js';
import { printPost, withState, type PostResult } from '../../posts/view.js';
import { WHEN_FORMATS } from '../../time/at-grammar.js';
import { parseWhen } from '../../time/parse-when.js';
import { resolveTimeZone } from '../../time/zones.js';
import { defineCommand } from '../run/command.js';
import { POST_DOCUMENT_FIELDS } from '../output/json-fields.js';
import { rehearsalDoc, rehearsalHead, rehearsalNote, rehearse } from '../rehearsal/rehearse.js';

export default defineCommand<'publish', FixDraftOpts & { rehearse: boolean; web: boolean }, PostResult>({
  description:
    'Publish a draft now or at a time, or move a scheduled post to a new time (or send it now). ' +
    'On a terminal it first shows the post (video, caption, destinations and their options, when, the allowance it spends) and asks for a confirmation; --yes skips it, scripts are never asked. ' +
    'A post that is neither a draft nor scheduled (already published) is refused with its state (exit 10). ' +
    `Issues of severity error block it (exit 8, listed with the review link); a used-up daily allowance leaves the draft a draft (exit 4). ` +
    'A draft blocked for an option is fixed with --option: the service has no way to change a post, so the draft goes out as a new post with its options and those given, and stays a draft; the same command again makes nothing twice. ' +
    `WHEN: ${WHEN_FORMATS}.`,
  examples: [
    'vidpub publish post_123',
    'vidpub publish post_123 --at "tomorrow 9:00" --tz Europe/Paris',
    'vidpub publish post_123 --at "in 2h" --yes',
    'vidpub publish post_123 --no-wait --json',
    'vidpub publish post_123 --option @vidpub.demo:privacy=SELF_ONLY',
  ],
  parse(args, flags, inv) {
    const postId = parsePostId(args[0]);
    if (postId.startsWith('med_')) {
      throw new UsageError(`${postId} is a video id; publish takes the id of a post (a draft or a scheduled post)`, {
        hint: `Post the video with: vidpub post --media ${postId} --to DEST --caption TEXT`,
      });
    }
    const zone = resolveTimeZone(flags.tz, inv.ctx.env);
    return {
      postId,
      when: parseWhen(flags.at ?? 'now', { now: inv.ctx.clock.now(), zone }),
      atText: flags.at,
      options: flags.option.map(parseOptionFlag),
      yes: flags.yes,
      wait: flags.wait,
      timeoutMs: parseTimeout(flags),
      zone,
      rehearse: flags.rehearse,
      web: flags.web,
    };
  },
  async run(opts, inv) {
    // The post (and its video) is read (GET) into the copy; a rehearsal's page is of that copy, never opened.
    const publish = opts.options.length > 0 ? runFixDraft : runPublish;
    if (opts.rehearse) return rehearse(inv, (session) => publish(opts, session), { post: opts.postId });
    const r = await publish(opts, inv.session);
    await openReviewPage(opts.web, r, inv);
    return r;
  },
  print: (r, inv) => {
    rehearsalHead(r, inv);
    printPost(r, inv.out);
    rehearsalNote(r, inv);
  },
  json: (r) => rehearsalDoc(r, withState(r.post)),
  fields: [...POST_DOCUMENT_FIELDS, 'rehearsal'],
});

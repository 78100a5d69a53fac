import { parseTimeout } from '../../flows/wait-flags.js';
import { parsePostId } from '../../posts/flags.js';
import { runPublish, type PublishOpts } from '../../posts/publish-flow.js';
import { printPost, type PostResult } from '../../posts/render.js';
import { parseWhen, resolveTimeZone, WHEN_FORMATS } from '../../posts/when.js';
import { defineCommand } from '../command.js';

export default defineCommand<PublishOpts, PostResult>({
  description:
    'Publish a draft now or at a time, or move a scheduled post to a new time (or send it now). ' +
    `Issues of severity error block it (exit 8, listed with the review link); a used-up daily allowance leaves the draft a draft (exit 4). WHEN: ${WHEN_FORMATS}.`,
  examples: [
    'vidpub publish post_123',
    'vidpub publish post_123 --at "$(date -d tomorrow +%F) 09:00" --tz Europe/Paris',
    'vidpub publish post_123 --at +2h',
    'vidpub publish post_123 --no-wait --json',
  ],
  parse(args, flags, inv) {
    const zone = resolveTimeZone(flags.tz as string | undefined, inv.ctx.env);
    return {
      postId: parsePostId(args[0]),
      when: parseWhen(String(flags.at ?? 'now'), { now: inv.ctx.clock.now(), zone }),
      wait: flags.wait !== false,
      timeoutMs: parseTimeout(flags),
      zone,
    };
  },
  run: (opts, inv) => runPublish(opts, inv.session),
  print: (r, inv) => printPost(r, inv.out),
  json: (r) => r.post,
});

import { UsageError } from '../../errors.js';
import { parseTimeout } from '../../session/wait-flags.js';
import { parsePostId } from '../../posts/flags.js';
import { printPost, withState } from '../../posts/view.js';
import type { RetryOpts, RetryResult } from '../../posts/retry-flow.js';
import { WHEN_FORMATS } from '../../time/at-grammar.js';
import { parseWhen } from '../../time/parse-when.js';
import { resolveTimeZone } from '../../time/zones.js';
import { defineCommand } from '../run/command.js';
import { POST_DOCUMENT_FIELDS } from '../output/json-fields.js';


export default defineCommand<'retry', RetryOpts, RetryResult>({
  description:
    'Post the same video, caption and options again, as a new post, to the destinations of POST_ID that failed or ' +
    'were cancelled (or --to some of them), now or --at a time. It shows what it retries and why they failed, asks ' +
    'at a terminal (--yes skips it), uses the daily allowance like any post, and follows the new post like post does. ' +
    'Running it again creates nothing new: it reports the retry already made. A post with nothing failed: exit 0, ' +
    `nothing sent. WHEN: ${WHEN_FORMATS}.`,
  examples: ['vidpub retry post_123', 'vidpub retry post_123 --to @vidpub.demo --yes', 'vidpub retry post_123 --at +2h --no-wait --json'],
  // The new post's fields, or { retried, post } when nothing failed: checked before anything is sent.
  fields: [...POST_DOCUMENT_FIELDS, 'retried', 'post'],
  parse(args, flags, inv) {
    const zone = resolveTimeZone(flags.tz, inv.ctx.env);
    const to = flags.to.flatMap((t) => t.split(',')).map((t) => t.trim()).filter((t) => t !== '');
    // An empty --to (an unset variable in a script) is not "every failed destination".
    if (flags.to.length > 0 && to.length === 0) {
      throw new UsageError('--to names no destination: give the id, @handle or platform of a destination that failed, or leave --to out to retry them all');
    }
    return {
      postId: parsePostId(args[0]),
      to,
      when: parseWhen(flags.at ?? 'now', { now: inv.ctx.clock.now(), zone }),
      yes: flags.yes,
      wait: flags.wait,
      timeoutMs: parseTimeout(flags),
      zone,
    };
  },
  async run(opts, inv) {
    const { runRetry } = await import('../../posts/retry-flow.js');
    return runRetry(opts, inv.session);
  },
  print: (r, inv) => {
    if (r.nothing) return;
    printPost(r, inv.out);
  },
  json: (r) => (r.nothing ? { retried: false, post: withState(r.post) } : withState(r.post)),
});

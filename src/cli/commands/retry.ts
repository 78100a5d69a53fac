import { UsageError } from '../../errors.js';
import { parseTimeout } from '../../session/wait-flags.js';
import { parsePostId } from '../../posts/flags.js';
import { postState, printPost, withState } from '../../posts/view.js';
import type { RetryOpts, RetryResult } from '../../posts/retry-flow.js';
import type { RetrySet } from '../../posts/retry-set.js';
import { renderTable } from '../../ui/table.js';
import { WHEN_FORMATS } from '../../time/at-grammar.js';
import { parseWhen } from '../../time/parse-when.js';
import { resolveTimeZone } from '../../time/zones.js';
import { defineCommand } from '../run/command.js';
import { POST_DOCUMENT_FIELDS } from '../output/json-fields.js';


/** One retry as --json gives it: the new post, or { retried: false, post } when nothing failed. */
const retryDocument = (r: RetryResult) => (r.nothing ? { retried: false, post: withState(r.post) } : withState(r.post));

export default defineCommand<'retry', RetryOpts, RetryResult | RetrySet>({
  description:
    'Post the same video, caption and options again, as a new post, to the destinations of POST_ID that failed or ' +
    'were cancelled (or --to some of them), now or --at a time. It shows what it retries and why they failed, asks ' +
    'at a terminal (--yes skips it), uses the daily allowance like any post, and follows the new post like post does. ' +
    'Running it again creates nothing new: it reports the retry already made. A post with nothing failed: exit 0, ' +
    `nothing sent. WHEN: ${WHEN_FORMATS}.`,
  examples: ['vidpub retry post_123', 'vidpub retry post_123 --to @vidpub.demo --yes', 'vidpub retry post_123 --at +2h --no-wait --json', 'vidpub retry set_0123456789abcdef --yes'],
  // The new post's fields, or { retried, post } when nothing failed; a set's: { set, retries }. Checked before anything is sent.
  fields: [...POST_DOCUMENT_FIELDS, 'retried', 'post', 'set', 'retries'],
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
    const { isSetId, retrySet, setNote } = await import('../../posts/retry-set.js');
    // A set's id (one post command, a caption each): each of its posts retried.
    if (isSetId(opts.postId)) return retrySet(opts, inv.session, (one) => runRetry(one, inv.session));
    const r = await runRetry(opts, inv.session);
    await setNote(inv.session, opts.postId);
    return r;
  },
  print: (r, inv) => {
    if ('retries' in r) {
      const rows = renderTable(
        r.retries,
        [
          { header: inv.out.tty ? 'Retry of' : 'retry_of', value: (x) => x.of },
          { header: inv.out.tty ? 'Post' : 'id', value: (x) => (x.result && !x.result.nothing ? x.result.post.id : '-') },
          { header: inv.out.tty ? 'Status' : 'status', value: (x) => (x.error ? 'not retried' : x.result?.nothing ? 'nothing failed' : x.result ? postState(x.result.post) : '-') },
        ],
        { tty: inv.out.tty, bold: inv.out.colors.bold, width: inv.out.columns },
      );
      for (const line of rows) inv.print(line);
      return;
    }
    if (r.nothing) return;
    printPost(r, inv.out);
  },
  json: (r) =>
    'retries' in r
      ? { set: r.set, retries: r.retries.map((x) => ({ retry_of: x.of, ...(x.result ? { result: retryDocument(x.result) } : {}), ...(x.error ? { error: { message: x.error.message, exit_code: x.error.exitCode } } : {}) })) }
      : retryDocument(r),
});
